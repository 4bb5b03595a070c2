//! What goes where on a machine: the model's layers (or its MoE experts) over GPUs of any
//! kinds and the host's RAM, as the runtime would place them, with the decode speed that
//! placement allows and the runtime's own flags to run it.
//!
//! - llama.cpp and Ollama place whole layers ([`layers`]): the last `-ngl` layers on the
//!   GPUs (the output layer counted as one, as llama.cpp counts it), split over the cards
//!   in proportion to their free memory (`--tensor-split`'s default), the rest and the
//!   token embedding in RAM; llama.cpp can keep MoE expert tensors in RAM instead
//!   (`-ot exps=CPU`, `--n-cpu-moe N`).
//! - vLLM and SGLang stream weights from host memory (`--cpu-offload-gb`), [`stream`].
//!
//! The speed of a placement ([`speed`]): a token passes every device in turn, so its time
//! is the sum over devices of the bytes each reads ÷ its bandwidth, plus what crosses PCIe.

mod flags;
pub mod layers;
mod runs;
pub mod speed;
pub mod stream;

use serde::Serialize;

use crate::engine::hardware::gpu::{Gpu, pcie_p2p_gbs};
use crate::engine::hardware::host::Host;
use crate::engine::memory::breakdown::{Breakdown, whole_bytes};
use crate::engine::model::Model;
use crate::engine::speed::serving::DecodeWork;
use crate::engine::workload::scenario::Scenario;

/// GPUs of one kind in a rig.
#[derive(Debug, Clone, Copy)]
pub struct Cards<'a> {
    pub gpu: &'a Gpu,
    pub count: u32,
    /// What the plan may use of each card (the judge's usable bytes).
    pub usable: f64,
}

/// A unified-memory machine's GPU: its memory is the host's RAM (Apple M-series, Strix
/// Halo, GB10), so the bytes it holds come out of the same pool.
/// (A card slice has no link either, but its memory is its own.)
pub fn is_unified(gpu: &Gpu) -> bool {
    gpu.memory_type.to_ascii_lowercase().contains("unified")
}

/// Whether a device is a GPU or the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceKind {
    Gpu,
    Host,
}

/// What one device holds, by part: the bar of that device.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct DeviceBytes {
    #[serde(serialize_with = "whole_bytes")]
    pub weights: f64,
    #[serde(serialize_with = "whole_bytes")]
    pub kv_cache: f64,
    /// Compute buffers (llama.cpp) or the activation peak.
    #[serde(serialize_with = "whole_bytes")]
    pub activations: f64,
    /// The CUDA context and the runtime's fixed cost.
    #[serde(serialize_with = "whole_bytes")]
    pub overhead: f64,
}

impl DeviceBytes {
    pub fn total(&self) -> f64 {
        self.weights + self.kv_cache + self.activations + self.overhead
    }
}

/// One distinct device of a placement: a kind of GPU (with how many) or the host.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DevicePart {
    /// The card's catalog id, or "host".
    pub device: String,
    pub kind: DeviceKind,
    pub count: u32,
    /// Layers held over all cards of the kind (llama.cpp's count: the output layer is one).
    pub layers: u64,
    /// Layers whose MoE expert tensors are held here rather than with their layer.
    pub experts_on_host: u64,
    /// Bytes of the fullest card of the kind (the host: all it holds).
    #[serde(serialize_with = "whole_bytes")]
    pub bytes: f64,
    /// What the plan may use of one card (the host: its RAM, less what a unified-memory
    /// GPU already holds of it).
    #[serde(serialize_with = "whole_bytes")]
    pub capacity_bytes: f64,
    /// `capacity_bytes − bytes` (negative: the shortfall).
    #[serde(serialize_with = "crate::engine::memory::breakdown::signed_whole_bytes")]
    pub free_bytes: f64,
    /// The fullest card's (or the host's) bytes by part.
    pub parts: DeviceBytes,
}

impl DevicePart {
    pub fn fits(&self) -> bool {
        self.free_bytes >= 0.0
    }
}

/// How a runtime spreads the model over the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Everything on the GPUs.
    AllOnGpu,
    /// Whole layers in RAM (llama.cpp `-ngl`, Ollama `num_gpu`).
    Layers,
    /// MoE expert tensors in RAM, attention and shared experts on the GPU.
    Experts,
    /// Weights streamed from host memory every forward pass (vLLM/SGLang `--cpu-offload-gb`).
    Streamed,
}

/// A placement of the plan on a machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Placement {
    pub strategy: Strategy,
    /// One entry per distinct device: the GPU kinds in the rig's order, then the host when
    /// it holds anything or was given.
    pub devices: Vec<DevicePart>,
    /// Layers on the GPUs, of `total_layers` (llama.cpp's `-ngl` and its "offloaded N/M").
    pub gpu_layers: u64,
    pub total_layers: u64,
    /// Layers whose experts stay in RAM (`--n-cpu-moe`); all MoE layers: `-ot exps=CPU`.
    pub cpu_moe_layers: u64,
    /// vLLM/SGLang: bytes of weights each card streams from host memory.
    #[serde(serialize_with = "whole_bytes")]
    pub streamed_bytes_per_card: f64,
    /// The runtime's command-line flags for this placement.
    pub runtime_flags: String,
    /// The decode speed this placement allows, and what bounds it.
    pub speed: Option<speed::PlacedSpeed>,
}

impl Placement {
    /// Every device holds what it is given.
    pub fn fits(&self) -> bool {
        self.devices.iter().all(DevicePart::fits)
    }

    /// Something lives in host memory that a GPU-only run would keep on a card.
    pub fn offloads(&self) -> bool {
        self.strategy != Strategy::AllOnGpu
    }

    pub fn host(&self) -> Option<&DevicePart> {
        self.devices.iter().find(|d| d.kind == DeviceKind::Host)
    }

    /// Layers held in RAM (llama.cpp's count, the output layer included).
    pub fn host_layers(&self) -> u64 {
        self.total_layers - self.gpu_layers
    }
}

/// Bytes per second the rig's slowest PCIe link moves host memory to a card (x16, one way).
pub fn slowest_pcie_bytes_per_s(rig: &[Cards]) -> f64 {
    rig.iter()
        .map(|c| pcie_p2p_gbs(c.gpu.pcie_gen))
        .fold(f64::INFINITY, f64::min)
        * 1e9
}

/// Each card of the rig, one after another: what the plan may use of it, and whether its
/// memory is the host's (unified).
pub fn card_slots(rig: &[Cards]) -> (Vec<f64>, Vec<bool>) {
    let mut usable = Vec::new();
    let mut unified = Vec::new();
    for c in rig {
        usable.extend(std::iter::repeat_n(c.usable, c.count as usize));
        unified.extend(std::iter::repeat_n(is_unified(c.gpu), c.count as usize));
    }
    (usable, unified)
}

/// What the host offers a placement: its RAM less what unified-memory GPUs already use of
/// it, and its bandwidth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostRoom {
    pub ram_bytes: f64,
    pub bandwidth_bytes_per_s: Option<f64>,
}

/// The host a rig plans against: the one given, or, for a unified-memory GPU, the machine
/// itself (its whole memory, at the GPU's bandwidth: the same chips).
pub fn host_room(host: Option<&Host>, rig: &[Cards]) -> Option<HostRoom> {
    let unified = rig.iter().find(|c| is_unified(c.gpu));
    match (host, unified) {
        (Some(h), u) => Some(HostRoom {
            ram_bytes: h.ram_bytes,
            bandwidth_bytes_per_s: h
                .bandwidth_bytes_per_s()
                .or_else(|| u.map(|c| c.gpu.bandwidth_bytes_per_s())),
        }),
        (None, Some(c)) => Some(HostRoom {
            ram_bytes: c.gpu.memory_bytes(),
            bandwidth_bytes_per_s: Some(c.gpu.bandwidth_bytes_per_s()),
        }),
        (None, None) => None,
    }
}

/// What one host holds of a training job's offloaded state (`host_bytes`, the whole job's):
/// all of it within a node, an equal share per node of eight cards beyond.
pub fn host_share(host_bytes: f64, count: u32) -> f64 {
    let nodes = count
        .div_ceil(crate::engine::hardware::host::CARDS_PER_NODE)
        .max(1);
    host_bytes / f64::from(nodes)
}

/// How the scenario's runtime can put part of the model in host memory, if at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spill {
    /// llama.cpp: whole layers or MoE experts in RAM.
    LayersOrExperts,
    /// Ollama: whole layers (`num_gpu`).
    Layers,
    /// vLLM, SGLang (and the generic serving engine modelled on vLLM): weights streamed.
    Streamed,
}

/// The runtime's way to use host memory for an inference plan under the calibrated rules;
/// `None` for training (ZeRO offload is its own segment) and runtimes that keep all on GPU.
pub fn spill_of(sc: &Scenario) -> Option<Spill> {
    use crate::engine::workload::runtime::Framework as F;
    if sc.method.is_training() || sc.convention != crate::engine::workload::scenario::Convention::Calibrated {
        return None;
    }
    match sc.framework {
        F::LlamaCpp => Some(Spill::LayersOrExperts),
        F::Ollama => Some(Spill::Layers),
        F::Vllm | F::Sglang | F::Generic => Some(Spill::Streamed),
        _ => None,
    }
}

/// What a placement is asked for.
pub struct Request<'a> {
    pub model: &'a Model,
    pub scenario: &'a Scenario,
    pub rig: &'a [Cards<'a>],
    pub host: Option<&'a Host>,
    /// One card's breakdown for the rig's card count (the streaming engines' path).
    pub per_card: &'a Breakdown,
    /// What a decode step reads for the whole model (the streaming engines' speed).
    pub work: Option<DecodeWork>,
}

/// The placement the runtime would choose (see the module's notes); GPU-only when the
/// scenario has no host to spill into or its runtime cannot.
pub fn place(r: &Request) -> Placement {
    match spill_of(r.scenario) {
        Some(Spill::LayersOrExperts) => runs::place_layers(r, true),
        Some(Spill::Layers) => runs::place_layers(r, false),
        _ => runs::place_streamed(r),
    }
}

/// The placement of a plan the judge sized on the GPUs alone (no host, or everything fits
/// there): each card holds the breakdown, as the bar draws it; the host, when given, holds
/// nothing. Its speed is the option's roofline, so it carries none of its own.
pub fn gpu_only(
    sc: &Scenario,
    model: &Model,
    cards: Cards,
    per_card: &Breakdown,
    host: Option<&Host>,
) -> Placement {
    let ggml =
        sc.framework.is_ggml() && sc.convention == crate::engine::workload::scenario::Convention::Calibrated;
    let layers = model.arch.layers + u64::from(ggml);
    let parts = stream::card_bytes(per_card, 0.0);
    let mut devices = vec![DevicePart {
        device: cards.gpu.id.clone(),
        kind: DeviceKind::Gpu,
        count: cards.count,
        layers,
        experts_on_host: 0,
        bytes: per_card.total(),
        capacity_bytes: cards.usable,
        free_bytes: cards.usable - per_card.total(),
        parts,
    }];
    if let Some(h) = host_room(host, std::slice::from_ref(&cards)) {
        let taken = if is_unified(cards.gpu) {
            per_card.total() * f64::from(cards.count)
        } else {
            0.0
        };
        let held = host_share(per_card.host_bytes, cards.count);
        devices.push(DevicePart {
            device: "host".into(),
            kind: DeviceKind::Host,
            count: 1,
            layers: 0,
            experts_on_host: 0,
            bytes: held,
            capacity_bytes: h.ram_bytes - taken,
            free_bytes: h.ram_bytes - taken - held,
            parts: DeviceBytes {
                weights: held,
                ..DeviceBytes::default()
            },
        });
    }
    let flags = if sc.method.is_training() {
        String::new()
    } else if ggml {
        let split = vec![cards.usable.max(0.0); cards.count as usize];
        flags::layer_flags(sc, layers, &split, 0, model.arch.layers, false)
    } else {
        flags::streamed(
            sc,
            crate::engine::runtimes::settle::gpu_util_for(sc, cards.gpu, cards.count),
            cards.count,
            0.0,
        )
    };
    Placement {
        strategy: Strategy::AllOnGpu,
        devices,
        gpu_layers: layers,
        total_layers: layers,
        cpu_moe_layers: 0,
        streamed_bytes_per_card: 0.0,
        runtime_flags: flags,
        speed: None,
    }
}

/// What a limit search needs of a placement: whether it holds, and what the host keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Check {
    pub fits: bool,
    /// Something lives in host memory that a GPU-only run would keep on a card.
    pub offloads: bool,
    pub host_bytes: f64,
    pub host_free: f64,
}

/// [`place`]'s verdict without the words: no device names, flags or speed (a limit search
/// places a plan hundreds of times).
pub fn check(r: &Request) -> Check {
    let sc = r.scenario;
    match spill_of(sc) {
        Some(spill @ (Spill::LayersOrExperts | Spill::Layers)) => {
            let whole = Scenario {
                cards: 1,
                ..sc.clone()
            };
            let costs = layers::LayerCosts::of(r.model, &whole);
            let room = host_room(r.host, r.rig);
            let split = layers::best(
                &costs,
                r.rig,
                room.as_ref(),
                sc.pin,
                spill == Spill::LayersOrExperts,
            );
            let (usable, unified) = card_slots(r.rig);
            let cards_fit = split
                .cards
                .iter()
                .zip(&usable)
                .all(|(c, u)| c.bytes.total() <= *u);
            let host_bytes = split.host.bytes.total();
            let host_free = room.map_or(0.0, |h| layers::host_free(&h, &split, &unified)) - host_bytes;
            Check {
                fits: cards_fit && host_free >= 0.0,
                offloads: split.gpu_layers < costs.total_layers() || split.cpu_moe > 0,
                host_bytes,
                host_free,
            }
        }
        _ => {
            let p = runs::place_streamed(r);
            let h = p.host();
            Check {
                fits: p.fits(),
                offloads: p.offloads(),
                host_bytes: h.map_or(0.0, |h| h.bytes),
                host_free: h.map_or(0.0, |h| h.free_bytes),
            }
        }
    }
}
