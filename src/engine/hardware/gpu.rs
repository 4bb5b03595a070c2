//! Cards and their rental offers.

use serde::{Deserialize, Serialize};

use crate::engine::hardware::offers::{HOURS_PER_MONTH, Offer, OfferFilter, OfferKind, Rates};

/// How a card talks to its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    /// NVLink through NVSwitch (SXM/HGX): every card reaches every other at full speed.
    Nvswitch,
    /// A bridge between two (or four) PCIe cards only (NVLink bridge, Infinity Fabric bridge).
    Bridge,
    /// AMD Infinity Fabric on an OAM/UBB board: node-wide.
    InfinityFabric,
    /// On-die RoCE Ethernet (Intel Gaudi): node-wide all-to-all.
    Ethernet,
    /// No card-to-card link: peer-to-peer over PCIe.
    Pcie,
    /// Unified-memory machines with a single GPU.
    None,
}

impl LinkKind {
    /// A fabric that joins all cards of a node at full speed, which seed 003 requires for
    /// multi-card full fine-tuning ("NVLink or NVSwitch").
    pub fn is_node_wide(self) -> bool {
        matches!(self, Self::Nvswitch | Self::InfinityFabric | Self::Ethernet)
    }

    /// A few letters, for narrow table columns.
    pub fn short_label(self) -> &'static str {
        match self {
            Self::Nvswitch => "NVLink",
            Self::Bridge => "bridge",
            Self::InfinityFabric => "IF",
            Self::Ethernet => "RoCE",
            Self::Pcie => "PCIe",
            Self::None => "none",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Nvswitch => "NVLink/NVSwitch",
            Self::Bridge => "bridge",
            Self::InfinityFabric => "Infinity Fabric",
            Self::Ethernet => "RoCE Ethernet",
            Self::Pcie => "PCIe",
            Self::None => "none",
        }
    }
}

/// Software stack the card runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stack {
    Cuda,
    Rocm,
    Metal,
    Synapse,
    /// Intel GPUs (Arc): oneAPI Level Zero / SYCL, as llama.cpp's SYCL backend and IPEX-LLM run.
    Sycl,
}

impl Stack {
    /// The tool that reports the card's memory total.
    pub fn smi_tool(self) -> &'static str {
        match self {
            Stack::Cuda => "nvidia-smi",
            Stack::Rocm => "rocm-smi",
            Stack::Metal => "Metal",
            Stack::Synapse => "hl-smi",
            Stack::Sycl => "xpu-smi",
        }
    }

    /// The runtime a process allocates through.
    pub fn runtime(self) -> &'static str {
        match self {
            Stack::Cuda => "CUDA",
            Stack::Rocm => "ROCm",
            Stack::Metal => "Metal",
            Stack::Synapse => "SynapseAI",
            Stack::Sycl => "SYCL",
        }
    }
}

/// One accelerator model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub vendor: String,
    #[serde(default)]
    pub architecture: String,
    /// Capacity as marketed, decimal GB.
    pub memory_gb: f64,
    /// The total the vendor's SMI tool reports (nvidia-smi, rocm-smi, hl-smi), MiB.
    #[serde(default)]
    pub memory_smi_mib: Option<u64>,
    /// Bytes the runtime (CUDA, ROCm, Metal) lets a process allocate: the SMI total less
    /// the driver's reserve. The calibrated rules plan against this; the quick rules
    /// against the marketed label. (`memory_reported_bytes` is the old name.)
    #[serde(default, alias = "memory_reported_bytes")]
    pub memory_visible_bytes: Option<f64>,
    /// Where the two figures above come from.
    #[serde(default)]
    pub memory_source: Option<String>,
    /// An APU's BIOS/UMA frame buffer in GiB: the part of RAM the firmware reserves as
    /// "VRAM" in the configuration the entry names, and what rocm-smi reports as the VRAM
    /// total. See [`apu_visible_bytes`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carve_out_gb: Option<f64>,
    #[serde(default)]
    pub memory_type: String,
    pub bandwidth_gbs: f64,
    /// Dense BF16 (or FP16) tensor TFLOPS without sparsity, FP32 accumulate.
    #[serde(default)]
    pub bf16_tflops: Option<f64>,
    #[serde(default)]
    pub fp8_tflops: Option<f64>,
    #[serde(default)]
    pub fp8: bool,
    #[serde(default = "pcie")]
    pub link: LinkKind,
    /// Card-to-card bandwidth per GPU (GB/s, both directions as vendors quote it).
    #[serde(default)]
    pub link_gbs: Option<f64>,
    #[serde(default)]
    pub pcie_gen: Option<u8>,
    #[serde(default = "cuda")]
    pub stack: Stack,
    #[serde(default)]
    pub tdp_w: Option<f64>,
    #[serde(default)]
    pub year: Option<u16>,
    #[serde(default)]
    pub mig: Option<String>,
    /// Where ECC changes the total (GDDR5/GDDR6 workstation and data-center cards): whether
    /// the entry's totals were read with ECC "on" or "off". `None`: no difference (HBM,
    /// GDDR7) or no ECC (GeForce).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecc: Option<EccState>,
    #[serde(default)]
    pub segment: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    /// Filled from the offers file, not from the card entry.
    #[serde(skip_deserializing, default)]
    pub offers: Vec<Offer>,
    /// This machine's own cards (detected, not rented).
    #[serde(skip)]
    pub local: bool,
    /// Bytes other processes hold on each card now (detected cards; 0 for the catalog's).
    #[serde(skip)]
    pub in_use_bytes: f64,
}

impl Gpu {
    pub fn memory_bytes(&self) -> f64 {
        self.memory_gb * 1e9
    }

    /// Whether several of it make a combo: not a slice (one model per slice) and not a
    /// chip with no link to another (Apple, APUs).
    pub fn combines(&self) -> bool {
        !self.is_slice() && self.link != LinkKind::None
    }

    /// A slice of one physical card (a vGPU or MIG instance rented on its own): it shares
    /// the card's memory bus with the other slices. The catalog's `mig` field names what
    /// a whole card can be cut into; a slice says "slice of".
    pub fn is_slice(&self) -> bool {
        // Byte windows, not `str::contains`: the judge asks this for every option.
        fn has(text: &str, word: &[u8]) -> bool {
            text.as_bytes()
                .windows(word.len())
                .any(|w| w.eq_ignore_ascii_case(word))
        }
        has(&self.id, b"vgpu") || self.mig.as_deref().is_some_and(|m| has(m, b"slice of"))
    }

    /// The capacity a real run sees: what the runtime can allocate, else the marketed label.
    pub fn memory_real_bytes(&self) -> f64 {
        self.memory_visible_bytes.unwrap_or_else(|| self.memory_bytes())
    }

    /// The SMI total in bytes, where known.
    /// The total SGLang reads for its defaults (`get_nvgpu_memory_capacity`: nvidia-smi's
    /// `memory.total`), in MiB; the CUDA-visible total where the driver's figure is unknown.
    pub fn sglang_memory_mib(&self) -> f64 {
        self.memory_smi_mib
            .map_or(self.memory_real_bytes() / 1_048_576.0, |m| m as f64)
    }

    pub fn memory_smi_bytes(&self) -> Option<f64> {
        self.memory_smi_mib.map(|m| m as f64 * 1_048_576.0)
    }

    pub fn bandwidth_bytes_per_s(&self) -> f64 {
        self.bandwidth_gbs * 1e9
    }

    /// How many cards one bridge joins: NVIDIA's NVLink bridges pair two cards, AMD's
    /// Infinity Fabric bridges join four.
    pub fn bridge_reach(&self) -> u32 {
        if self.vendor.eq_ignore_ascii_case("AMD") {
            4
        } else {
            2
        }
    }

    /// The link `count` cards talk over: beyond a bridge's reach the slowest hop between
    /// bridged groups is PCIe, which then sets the pace.
    pub fn link_kind_for(&self, count: u32) -> LinkKind {
        match self.link {
            LinkKind::Bridge if count > self.bridge_reach() => LinkKind::Pcie,
            other => other,
        }
    }

    /// Card-to-card speed in GB/s for `count` cards (see [`Gpu::link_kind_for`]).
    pub fn link_speed_for(&self, count: u32) -> f64 {
        match self.link_kind_for(count) {
            LinkKind::Pcie if self.link != LinkKind::Pcie => pcie_p2p_gbs(self.pcie_gen),
            _ => self.link_speed_gbs(),
        }
    }

    /// Card-to-card link speed in GB/s: the fabric's, else PCIe peer-to-peer
    /// (seed 003: Gen4 ≈ 32 GB/s, Gen5 ≈ 63 GB/s).
    pub fn link_speed_gbs(&self) -> f64 {
        match (self.link, self.link_gbs) {
            (LinkKind::Pcie | LinkKind::None, _) | (_, None) => pcie_p2p_gbs(self.pcie_gen),
            (_, Some(gbs)) => gbs,
        }
    }
}

/// A card's ECC setting, as the entry's totals were read and as the user asks to plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EccState {
    On,
    Off,
}

/// The share of a GDDR card's memory ECC keeps for its check bits: nvidia-smi totals go from
/// 49,140 to 46,068 MiB (A6000, RTX 6000 Ada), 24,564 to 23,028 (A5000), 16,384 to 15,360
/// (T4) when ECC is switched on (gpu-reported-memory.md §2; nvidia-smi's help: "Reported total
/// memory is affected by ECC state").
pub const ECC_SHARE: f64 = 1.0 / 16.0;

impl Gpu {
    /// The card as planned with ECC `want`: where ECC changes its total and the entry was
    /// read the other way, the SMI total and what the runtime can allocate move by the ECC
    /// share of the ECC-off total (the driver's own reserve stays). `None`: nothing changes.
    pub fn with_ecc(&self, want: EccState) -> Option<Gpu> {
        let read = self.ecc?;
        let smi = self.memory_smi_bytes()?;
        if read == want {
            return None;
        }
        let off_total = if read == EccState::Off {
            smi
        } else {
            smi / (1.0 - ECC_SHARE)
        };
        let delta = off_total * ECC_SHARE * if want == EccState::On { -1.0 } else { 1.0 };
        let mut g = self.clone();
        let new_smi = smi + delta;
        g.memory_smi_mib = Some((new_smi / 1_048_576.0).floor() as u64);
        g.memory_visible_bytes = self.memory_visible_bytes.map(|v| v + delta);
        g.ecc = Some(want);
        g.memory_source = Some(format!(
            "{}; planned with ECC {} (--ecc): ECC keeps 1/16 of the memory for check bits, so the total {} {:.2} GB",
            self.memory_source.as_deref().unwrap_or("the catalog's totals"),
            if want == EccState::On { "on" } else { "off" },
            if want == EccState::On { "loses" } else { "gains" },
            delta.abs() / 1e9
        ));
        Some(g)
    }
}

/// What ROCm and Vulkan let a process allocate by default on an AMD APU with `ram_bytes` of
/// RAM of which the firmware reserves `carve_out_bytes` as VRAM (the BIOS/UMA frame buffer).
///
/// The rest of RAM belongs to Linux, which lends the GPU up to TTM's default page limit of
/// half of it as GTT (the dri-devel "TTM page limit is 50%" policy; `amd-ttm` shows 62.82 of
/// 125.65 GB). Since Linux 6.10 amdkfd sends an APU's "VRAM" allocations to GTT when the
/// carve-out is small ("drm/amdkfd: Let VRAM allocations go to GTT domain on small APUs"; the
/// kernel picks the larger pool since commit 759e764f7d58). HIP then reports the GTT pool
/// (62.47 GiB on a 128 GB Strix Halo, ROCm/legacy-rocm-build#6004), and a ROCm change adds the
/// carve-out to it when GTT is the larger (ROCm/rocm-systems#5596); RADV gives Vulkan both
/// pools (ggml-org/llama.cpp#19818). With a carve-out larger than what GTT lends (96 GB of 128,
/// as Windows users set) ROCm uses the carve-out alone.
///
/// Pass binary sizes (RAM and carve-outs come in GiB). Firmware also keeps 1–3 GiB that Linux
/// never sees, so measured GTT runs that much under half (the 62.47 GiB above is half of the
/// 124.92 GiB Linux saw): this is the default's ceiling, not a floor.
pub fn apu_visible_bytes(ram_bytes: f64, carve_out_bytes: f64) -> f64 {
    apu_pool_bytes(carve_out_bytes, (ram_bytes - carve_out_bytes).max(0.0) / 2.0)
}

/// An APU's pool from its two parts as the driver reports them (rocm-smi's VRAM and GTT
/// totals, which follow a raised `ttm.pages_limit`): both when GTT is the larger, else the
/// carve-out alone (see [`apu_visible_bytes`]).
pub fn apu_pool_bytes(carve_out_bytes: f64, gtt_bytes: f64) -> f64 {
    if gtt_bytes > carve_out_bytes {
        carve_out_bytes + gtt_bytes
    } else {
        carve_out_bytes
    }
}

/// PCIe peer-to-peer speed per direction for a generation, x16.
pub fn pcie_p2p_gbs(generation: Option<u8>) -> f64 {
    match generation {
        Some(g) if g >= 6 => 126.0,
        Some(5) => 63.0,
        Some(4) => 32.0,
        Some(3) => 16.0,
        _ => 16.0,
    }
}

fn pcie() -> LinkKind {
    LinkKind::Pcie
}

fn cuda() -> Stack {
    Stack::Cuda
}

impl Gpu {
    /// The cheapest offer for `count` cards over `hours`, in dollars: among spot offers when
    /// `spot`, else among all the others.
    pub fn cheapest_offer(
        &self,
        count: u32,
        hours: f64,
        rates: &Rates,
        filter: &OfferFilter,
        spot: bool,
    ) -> Option<(f64, usize)> {
        let cheapest = |estimates: bool| {
            self.offers
                .iter()
                .enumerate()
                .filter(|(_, o)| (o.kind == OfferKind::Spot) == spot)
                .filter(|(_, o)| (o.kind == OfferKind::Estimate) == estimates)
                .filter(|(_, o)| filter.admits(o))
                .filter_map(|(i, o)| {
                    rates
                        .to_usd(o.term_cost(count, hours)?, &o.currency)
                        .map(|usd| (usd, i))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0))
        };
        // An estimate (the low end of "quote on enquiry") never beats a firm price.
        cheapest(false).or_else(|| cheapest(true))
    }

    /// Dollars for `count` cards over one 720-hour month, cheapest non-spot offer.
    pub fn monthly_price_usd(&self, count: u32) -> Option<(f64, &Offer)> {
        self.cheapest_offer(
            count,
            HOURS_PER_MONTH,
            &Rates::default(),
            &OfferFilter::default(),
            false,
        )
        .map(|(p, i)| (p, &self.offers[i]))
    }
}

/// What kind of device a card is, for listings and filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GpuClass {
    Consumer,
    Workstation,
    Datacenter,
    /// A GPU sharing the host's memory that is not an Apple chip (APUs, GB10, integrated).
    Integrated,
    Apple,
    /// A MIG or vGPU slice of one card.
    Slice,
}

impl GpuClass {
    pub const ALL: [GpuClass; 6] = [
        Self::Consumer,
        Self::Workstation,
        Self::Datacenter,
        Self::Integrated,
        Self::Apple,
        Self::Slice,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Self::Consumer => "consumer",
            Self::Workstation => "workstation",
            Self::Datacenter => "datacenter",
            Self::Integrated => "integrated",
            Self::Apple => "apple",
            Self::Slice => "slice",
        }
    }

    pub fn from_id(id: &str) -> Option<GpuClass> {
        Self::ALL
            .into_iter()
            .find(|c| c.id().eq_ignore_ascii_case(id.trim()))
    }
}

impl Gpu {
    /// The card's class: a slice, an Apple chip, another unified-memory GPU, else its
    /// catalog segment (desktop and laptop parts count as consumer).
    pub fn class(&self) -> GpuClass {
        let segment = self.segment.as_deref().unwrap_or("").to_ascii_lowercase();
        if self.is_slice() || segment == "slice" {
            GpuClass::Slice
        } else if self.vendor.eq_ignore_ascii_case("apple") {
            GpuClass::Apple
        } else if self.unified_memory() {
            GpuClass::Integrated
        } else if segment == "workstation" {
            GpuClass::Workstation
        } else if segment == "datacenter" {
            GpuClass::Datacenter
        } else {
            GpuClass::Consumer
        }
    }

    /// One pool of memory shared with the host (Apple, APUs, GB10).
    pub fn unified_memory(&self) -> bool {
        self.memory_type.to_ascii_lowercase().contains("unified")
    }

    /// The number formats its tensor (or matrix) units run natively: 16-bit always, BF16
    /// where the catalog gives its throughput, FP8 where the card has it, FP4 on Blackwell.
    pub fn native_formats(&self) -> Vec<&'static str> {
        let mut f = vec!["fp16"];
        // Before Ampere (Turing, Volta, Pascal) tensor cores have no BF16.
        let arch = self.architecture.to_ascii_lowercase();
        let pre_ampere = ["turing", "volta", "pascal"].iter().any(|a| arch.contains(a));
        if self.bf16_tflops.is_some() && !pre_ampere {
            f.push("bf16");
        }
        f.push("int8");
        if self.fp8 {
            f.push("fp8");
        }
        if self.architecture.to_ascii_lowercase().contains("blackwell") {
            f.push("fp4");
        }
        f
    }
}
