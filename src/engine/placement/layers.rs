//! llama.cpp's and Ollama's placement: whole layers per device.
//!
//! As llama.cpp assigns them (`llama_model::load_tensors`, src/llama-model.cpp): the input
//! layer (the token embedding) always stays on the CPU; of the `n_layer` repeating layers
//! and the output layer (index `n_layer`), the last `-ngl` go to the GPUs, so `-ngl
//! n_layer + 1` puts everything there and "offloaded N/M layers" counts M = n_layer + 1.
//! A GPU layer `il` goes to the first card whose cumulative split exceeds
//! `(il − i_gpu_start) ÷ ngl` (`--tensor-split`, by default each card's free memory). A
//! layer's KV cache lives with the layer; every device that computes layers reserves a
//! compute buffer; the CPU holds its layers through the mmap'ed file. With `-ot exps=CPU`
//! (or `--n-cpu-moe N`: the first N layers) the routed experts' tensors stay in RAM while
//! the rest of their layer goes to its GPU.

use super::{Cards, DeviceBytes, HostRoom};
use crate::engine::memory::calibrated::{ComputePeaks, llama_cpp_compute_peaks, model_weight_bytes};
use crate::engine::memory::kv::kv_cache_bytes;
use crate::engine::model::Model;
use crate::engine::workload::scenario::Scenario;

/// What each layer of the model costs, under the scenario, in bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerCosts {
    /// Repeating layers (`n_layer`).
    pub layers: u64,
    /// Weights of one repeating layer without its routed experts (averaged over layers).
    pub layer_weights: f64,
    /// Routed-expert weights of one MoE layer, and what one token reads of them.
    pub layer_experts: f64,
    pub layer_experts_read: f64,
    /// The first MoE layer and the period of MoE layers after it.
    pub moe_first: u64,
    pub moe_every: u64,
    pub moe: bool,
    /// KV cache of one layer for the whole batch, and what one sequence reads of it per token.
    pub layer_kv: f64,
    pub layer_kv_read: f64,
    /// The output layer: lm_head (llama.cpp copies a tied embedding into it) and the norm.
    pub output: f64,
    /// The input layer: the token embedding table (one row read per token).
    pub embedding: f64,
    pub peaks: ComputePeaks,
    /// Fixed cost of a runtime context on each card (CUDA context, workspaces).
    pub card_overhead: f64,
    /// Hidden width (what crosses between devices per token, in f32).
    pub hidden: f64,
}

impl LayerCosts {
    pub fn of(model: &Model, sc: &Scenario) -> LayerCosts {
        let a = &model.arch;
        let total = model.params().total.max(1) as f64;
        let per_param = model_weight_bytes(model, sc.weights) / total;
        let h = a.hidden as f64;
        let vocab = a.vocab as f64;
        let embedding = (vocab + a.position_embeddings as f64) * h;
        let lm_head = vocab * h + if a.lm_head_bias { vocab } else { 0.0 };
        let final_norm = a.norm_params() as f64;
        let resident_lm_head = if a.tied_embeddings { 0.0 } else { lm_head };
        let in_layers = (total - embedding - resident_lm_head - final_norm).max(0.0);
        let (experts, experts_read, moe_first, moe_every) = match &a.moe {
            Some(m) => {
                let one = a.mlp_params(m.expert_intermediate) as f64;
                (
                    m.experts as f64 * one,
                    m.active as f64 * one,
                    m.first_dense_layers,
                    m.every.max(1),
                )
            }
            None => (0.0, 0.0, 0, 1),
        };
        let moe_layers = a.moe_layers() as f64;
        let layers = a.layers.max(1);
        let layer_params = (in_layers - moe_layers * experts).max(0.0) / layers as f64;
        let bpe = sc.kv.bytes_per_element();
        LayerCosts {
            layers,
            layer_weights: layer_params * per_param,
            layer_experts: experts * per_param,
            layer_experts_read: experts_read * per_param,
            moe_first,
            moe_every,
            moe: a.moe.is_some(),
            layer_kv: crate::engine::memory::kv::runtime_cache_bytes(model, sc) / layers as f64,
            layer_kv_read: kv_cache_bytes(model, bpe, sc.read_context(), 1) / layers as f64,
            output: (lm_head + final_norm) * per_param,
            embedding: embedding * per_param,
            peaks: llama_cpp_compute_peaks(model, sc),
            card_overhead: crate::engine::memory::calibrated::card_reserve(sc),
            hidden: h,
        }
    }

    /// Whether repeating layer `il` is a mixture of experts (the leading dense layers
    /// first, then every `every`-th: layers every−1, 2·every−1, …).
    pub fn is_moe_layer(&self, il: u64) -> bool {
        self.moe && il >= self.moe_first && (il - self.moe_first + 1).is_multiple_of(self.moe_every)
    }

    /// Layers in llama.cpp's count: the repeating ones and the output layer.
    pub fn total_layers(&self) -> u64 {
        self.layers + 1
    }
}

/// Where each layer went, and what each device holds.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerSplit {
    /// `-ngl`: layers on the GPUs, the output layer counted.
    pub gpu_layers: u64,
    /// Layers (from the first) whose routed experts stay in RAM.
    pub cpu_moe: u64,
    /// Per card, in the rig's order (each kind's cards one after another).
    pub cards: Vec<CardLoad>,
    pub host: HostLoad,
    /// `--tensor-split` weights, one per card.
    pub split: Vec<f64>,
}

/// What one card holds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CardLoad {
    pub layers: u64,
    pub holds_output: bool,
    pub bytes: DeviceBytes,
    /// Bytes one decode step reads here for one sequence (weights) and per sequence (KV).
    pub weights_read: f64,
    pub kv_read: f64,
}

/// What the host holds (its RAM through the mapped file and its own buffers).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HostLoad {
    pub layers: u64,
    pub experts_layers: u64,
    pub bytes: DeviceBytes,
    pub weights_read: f64,
    pub kv_read: f64,
}

/// Assign the layers as llama.cpp does for `-ngl gpu_layers` and `--n-cpu-moe cpu_moe`
/// over cards whose split weights are `split`. `embedding_on_host`: the token embedding
/// stays in RAM (with no host in the plan it is counted on the first card, as the GPU-only
/// breakdown does).
pub fn assign(
    costs: &LayerCosts,
    split: &[f64],
    gpu_layers: u64,
    cpu_moe: u64,
    embedding_on_host: bool,
) -> LayerSplit {
    // Counted, not walked: a limit search places a plan hundreds of times.
    let n_layer = costs.layers;
    let ngl = if split.is_empty() {
        0
    } else {
        gpu_layers.min(n_layer + 1)
    };
    let start = n_layer.saturating_sub(ngl);
    let cpu_moe = cpu_moe.min(n_layer);
    let sum: f64 = split.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    // MoE layers below layer `x`: the leading dense ones, then every `every`-th.
    let moe_below = |x: u64| -> u64 {
        if costs.moe && x > costs.moe_first {
            (x - costs.moe_first) / costs.moe_every
        } else {
            0
        }
    };
    // The GPU slots k = il − start (k < ngl) go to the first card whose cumulative share
    // exceeds k ÷ ngl: card i takes k in [ceil(c_{i−1}·ngl), ceil(c_i·ngl)).
    let mut cards = vec![CardLoad::default(); split.len()];
    let mut acc = 0.0;
    let mut from = 0u64;
    for (i, c) in cards.iter_mut().enumerate() {
        acc += split[i] / sum;
        let to = if i + 1 == split.len() {
            ngl
        } else {
            ((acc * ngl as f64).ceil() as u64).clamp(from, ngl)
        };
        // Layers start+from .. start+to; the slot ngl−1 is the output layer when ngl > n_layer.
        let (a, b) = (start + from, start + to);
        let holds_output = ngl > n_layer && to == ngl && to > from;
        let repeating = (b.min(n_layer)).saturating_sub(a);
        let moe = moe_below(b.min(n_layer)) - moe_below(a.min(n_layer));
        let moe_held_here = moe - (moe_below(b.min(cpu_moe).max(a)) - moe_below(a.min(cpu_moe).max(a)));
        let output = if holds_output { costs.output } else { 0.0 };
        c.layers = repeating + u64::from(holds_output);
        c.holds_output = holds_output;
        c.bytes.weights =
            repeating as f64 * costs.layer_weights + moe_held_here as f64 * costs.layer_experts + output;
        c.bytes.kv_cache = repeating as f64 * costs.layer_kv;
        c.weights_read =
            repeating as f64 * costs.layer_weights + moe_held_here as f64 * costs.layer_experts_read + output;
        c.kv_read = repeating as f64 * costs.layer_kv_read;
        from = to;
    }
    let mut host = HostLoad::default();
    let output_on_host = ngl <= n_layer;
    let output = if output_on_host { costs.output } else { 0.0 };
    // Experts in RAM: every MoE layer the CPU runs, and those of the first `cpu_moe` layers.
    let host_experts = moe_below(start.max(cpu_moe));
    host.layers = start + u64::from(output_on_host);
    host.experts_layers = moe_below(cpu_moe);
    host.bytes.weights =
        start as f64 * costs.layer_weights + host_experts as f64 * costs.layer_experts + output;
    host.bytes.kv_cache = start as f64 * costs.layer_kv;
    host.weights_read =
        start as f64 * costs.layer_weights + host_experts as f64 * costs.layer_experts_read + output;
    host.kv_read = start as f64 * costs.layer_kv_read;
    let peak = |layers: u64, output: bool| match (layers, output) {
        (0, _) => 0.0,
        (_, true) => costs.peaks.attention.max(costs.peaks.output),
        (_, false) => costs.peaks.attention,
    };
    for c in &mut cards {
        c.bytes.activations = peak(c.layers, c.holds_output);
        c.bytes.overhead = costs.card_overhead;
    }
    host.bytes.activations = peak(host.layers, output_on_host && host.layers > 0);
    if embedding_on_host || cards.is_empty() {
        host.bytes.weights += costs.embedding;
    } else {
        cards[0].bytes.weights += costs.embedding;
    }
    LayerSplit {
        gpu_layers: ngl,
        cpu_moe,
        cards,
        host,
        split: split.to_vec(),
    }
}

/// Whether every card and the host hold what `s` gives them.
fn holds(s: &LayerSplit, usable: &[f64], host: Option<&HostRoom>, unified: &[bool]) -> bool {
    let cards_fit = s.cards.iter().zip(usable).all(|(c, u)| c.bytes.total() <= *u);
    let host_fits = match host {
        Some(h) => s.host.bytes.total() <= host_free(h, s, unified),
        None => s.host.bytes.total() <= 0.0,
    };
    cards_fit && host_fits
}

/// RAM left for the host's share once unified-memory GPUs took theirs from the same pool.
pub fn host_free(h: &HostRoom, s: &LayerSplit, unified: &[bool]) -> f64 {
    let taken: f64 = s
        .cards
        .iter()
        .zip(unified)
        .filter(|(_, u)| **u)
        .map(|(c, _)| c.bytes.total())
        .sum();
    h.ram_bytes - taken
}

/// What a card keeps free once the plan spills into RAM: llama.cpp's `--fit` target margin
/// (`-fitt`, 1024 MiB by default; common/arg.cpp).
pub const SPILL_MARGIN_BYTES: f64 = 1_073_741_824.0;

pub use crate::engine::hardware::host::Pin;

/// The best placement for the goal: everything on the GPUs when it fits; else, for an MoE
/// under llama.cpp, the fewest layers' experts in RAM; else the most layers on the GPUs.
/// `experts` says whether the runtime can place experts apart (llama.cpp; Ollama cannot).
pub fn best(
    costs: &LayerCosts,
    rig: &[Cards],
    host: Option<&HostRoom>,
    pin: Pin,
    experts: bool,
) -> LayerSplit {
    let (usable, unified) = super::card_slots(rig);
    // llama.cpp's default split: each card in proportion to its free memory.
    let split: Vec<f64> = usable.iter().map(|u| u.max(0.0)).collect();
    let on_host = host.is_some();
    let all = costs.total_layers();
    let try_at = |ngl: u64, moe: u64| assign(costs, &split, ngl, moe, on_host);
    if pin.gpu_layers.is_some() || pin.cpu_moe.is_some() {
        let moe = if experts { pin.cpu_moe.unwrap_or(0) } else { 0 };
        return try_at(pin.gpu_layers.unwrap_or(all), moe.min(costs.layers));
    }
    let first = try_at(all, 0);
    if holds(&first, &usable, host, &unified) || host.is_none() {
        return first;
    }
    // Spilling, the cards are filled on purpose: leave each the margin llama.cpp's own
    // `--fit` keeps free (1 GiB), so the run starts beside a desktop or a driver update.
    let usable: Vec<f64> = usable.iter().map(|u| u - SPILL_MARGIN_BYTES).collect();
    let fits = |s: &LayerSplit| holds(s, &usable, host, &unified);
    let mut cpu_moe = 0;
    if experts && costs.moe {
        // More layers' experts in RAM never adds to a card: the smallest count that lets
        // the cards hold the rest is found by bisection.
        let cards_fit = |k: u64| {
            let s = try_at(all, k);
            s.cards.iter().zip(&usable).all(|(c, u)| c.bytes.total() <= *u)
        };
        let n = costs.layers;
        if cards_fit(n) {
            let (mut lo, mut hi) = (0, n);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if cards_fit(mid) { hi = mid } else { lo = mid }
            }
            let s = try_at(all, hi);
            if fits(&s) {
                return s;
            }
        }
        cpu_moe = n;
    }
    // Fewer layers on the GPUs: the most the cards hold. A card's load never falls as
    // layers are added (each card's share of the split only grows), so bisection finds it;
    // the host then holds the rest, or nothing fewer would help it.
    let cards_hold = |ngl: u64| {
        let s = try_at(ngl, cpu_moe);
        s.cards.iter().zip(&usable).all(|(c, u)| c.bytes.total() <= *u)
    };
    let (mut lo, mut hi) = (0, all);
    if !cards_hold(0) {
        return try_at(0, cpu_moe);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if cards_hold(mid) { lo = mid } else { hi = mid }
    }
    // The most the cards hold; when the host cannot take the rest, this shows its shortfall.
    try_at(lo, cpu_moe)
}
