//! Cards and their rental offers.

use serde::{Deserialize, Serialize};

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

    pub fn label(self) -> &'static str {
        match self {
            Self::Nvswitch => "NVLink/NVSwitch",
            Self::Bridge => "bridge (2-4 cards)",
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
}

/// One accelerator model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    pub vendor: String,
    pub architecture: String,
    /// Capacity as marketed, decimal GB.
    pub memory_gb: f64,
    /// Bytes the driver reports, where a source gives them (NVIDIA's "80GB" parts expose
    /// about 80 GiB). The calibrated convention plans against this; seed 003 against the label.
    #[serde(default)]
    pub memory_reported_bytes: Option<f64>,
    pub memory_type: String,
    pub bandwidth_gbs: f64,
    /// Dense BF16 (or FP16) tensor TFLOPS without sparsity, FP32 accumulate.
    #[serde(default)]
    pub bf16_tflops: Option<f64>,
    #[serde(default)]
    pub fp8_tflops: Option<f64>,
    pub fp8: bool,
    pub link: LinkKind,
    /// Card-to-card bandwidth per GPU (GB/s, both directions as vendors quote it).
    #[serde(default)]
    pub link_gbs: Option<f64>,
    #[serde(default)]
    pub pcie_gen: Option<u8>,
    pub stack: Stack,
    #[serde(default)]
    pub tdp_w: Option<f64>,
    pub year: u16,
    #[serde(default)]
    pub mig: Option<String>,
    #[serde(default)]
    pub segment: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    /// Filled from the offers file, not from the card entry.
    #[serde(skip_deserializing, default)]
    pub offers: Vec<Offer>,
}

impl Gpu {
    pub fn memory_bytes(&self) -> f64 {
        self.memory_gb * 1e9
    }

    /// The capacity a real run sees: the reported bytes, else the marketed label.
    pub fn memory_real_bytes(&self) -> f64 {
        self.memory_reported_bytes.unwrap_or_else(|| self.memory_bytes())
    }

    pub fn bandwidth_bytes_per_s(&self) -> f64 {
        self.bandwidth_gbs * 1e9
    }

    /// Card-to-card link speed in GB/s: the fabric's, else PCIe peer-to-peer
    /// (seed 003: Gen4 ≈ 32 GB/s, Gen5 ≈ 63 GB/s).
    pub fn link_speed_gbs(&self) -> f64 {
        match (self.link, self.link_gbs) {
            (LinkKind::Pcie | LinkKind::None, _) | (_, None) => pcie_p2p_gbs(self.pcie_gen),
            (_, Some(gbs)) => gbs,
        }
    }

    /// The cheapest offer for `count` cards, as USD per month after the multi-card discount.
    pub fn monthly_price_usd(&self, count: u32) -> Option<(f64, &Offer)> {
        self.offers
            .iter()
            .filter_map(|o| o.monthly_usd(count).map(|p| (p, o)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
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

/// Billing period of a price.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Per {
    Hour,
    Month,
}

/// Hours in one billing month: seed 003 divides the monthly price by 720.
pub const HOURS_PER_MONTH: f64 = 720.0;

/// A discount for renting several cards together.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeDiscount {
    pub cards: u32,
    /// Fraction off, e.g. 0.05 for 5 %.
    pub discount: f64,
}

/// One provider's price for one card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Offer {
    pub gpu: String,
    pub provider: String,
    #[serde(default)]
    pub region: Option<String>,
    pub price: f64,
    pub currency: String,
    pub per: Per,
    #[serde(default = "default_kind")]
    pub kind: String,
    /// The smallest number of cards rented together (B200 boards rent in pairs).
    #[serde(default = "one")]
    pub min_cards: u32,
    #[serde(default)]
    pub min_term_days: Option<u32>,
    #[serde(default)]
    pub discounts: Vec<VolumeDiscount>,
    #[serde(default)]
    pub seen: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
}

fn default_kind() -> String {
    "monthly".into()
}

fn one() -> u32 {
    1
}

impl Offer {
    /// The discount that applies to `count` cards: the largest tier not above the count.
    pub fn discount_for(&self, count: u32) -> f64 {
        self.discounts
            .iter()
            .filter(|d| d.cards <= count)
            .max_by_key(|d| d.cards)
            .map_or(0.0, |d| d.discount)
    }

    /// USD per month for `count` cards; `None` below the minimum or in another currency.
    pub fn monthly_usd(&self, count: u32) -> Option<f64> {
        if count < self.min_cards || !self.currency.eq_ignore_ascii_case("USD") {
            return None;
        }
        let per_card = match self.per {
            Per::Month => self.price,
            Per::Hour => self.price * HOURS_PER_MONTH,
        };
        Some(per_card * count as f64 * (1.0 - self.discount_for(count)))
    }
}

/// Seed 003 section 06 "$/GB/month": monthly price ÷ marketed capacity.
pub fn usd_per_gb_month(price_usd_month: f64, memory_gb: f64) -> f64 {
    price_usd_month / memory_gb
}

/// Seed 003 section 06 "GB/s per $/month": bandwidth ÷ monthly price (higher is better).
pub fn bandwidth_gbs_per_usd_month(bandwidth_gbs: f64, price_usd_month: f64) -> f64 {
    bandwidth_gbs / price_usd_month
}

/// Seed 003 section 06 "per GPU hour": the monthly price over the 720 hours of a month.
pub fn usd_per_hour_from_month(price_usd_month: f64) -> f64 {
    price_usd_month / HOURS_PER_MONTH
}
