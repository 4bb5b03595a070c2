//! MIG slices as cards of their own: a profile of a catalog card (`3g.40gb` of an H100 SXM)
//! becomes a plannable card with the memory the driver gives the instance and the share of
//! the card's memory bandwidth and compute its slices hold. The one formula for a slice's
//! figures lives here; the catalog only lists the profiles.

use serde::{Deserialize, Serialize};

use crate::engine::hardware::gpu::{Gpu, LinkKind};

/// A GPU is cut into this many memory slices, each with an eighth of the memory
/// controllers and of the L2 cache (NVIDIA's MIG user guide, "Supported MIG Profiles":
/// every profile's "Fraction of Memory" is in eighths). A slice's bandwidth is its share.
pub const MEMORY_SLICES: u8 = 8;
/// ... and into this many compute slices ("Fraction of SMs" in sevenths).
pub const COMPUTE_SLICES: u8 = 7;

/// One MIG profile of a catalog card, as `nvidia-smi mig -lgip` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MigProfile {
    /// The catalog card it is a slice of.
    pub card: String,
    /// The profile's name, `1g.10gb` … `7g.80gb`.
    pub profile: String,
    /// Of [`COMPUTE_SLICES`].
    pub compute_slices: u8,
    /// Of [`MEMORY_SLICES`].
    pub memory_slices: u8,
    /// The instance's memory, GiB, as `nvidia-smi mig -lgip` prints it; CUDA in the instance
    /// sees the same total (torch `total_memory` 9728 MB for an A100 80GB `1g.10gb`, 9.50
    /// GiB in its table).
    pub memory_gib: f64,
    /// The instance's SMs and the whole card's: its share of the card's throughput.
    pub sms: u32,
    pub card_sms: u32,
    /// Where the figures come from.
    pub source: String,
}

impl MigProfile {
    /// The catalog id of the slice: `h100-sxm-mig-3g.40gb`.
    pub fn id(&self) -> String {
        format!("{}-mig-{}", self.card, self.profile.to_ascii_lowercase())
    }

    /// The share of the card's memory bandwidth the instance holds.
    pub fn bandwidth_share(&self) -> f64 {
        f64::from(self.memory_slices) / f64::from(MEMORY_SLICES)
    }

    /// The share of the card's tensor throughput: its SMs of the card's.
    pub fn compute_share(&self) -> f64 {
        f64::from(self.sms) / f64::from(self.card_sms.max(1))
    }

    /// The marketed size in the profile's name (`3g.40gb` → 40).
    pub fn label_gb(&self) -> Option<f64> {
        let p = self.profile.to_ascii_lowercase();
        p.split('.').nth(1)?.strip_suffix("gb")?.parse().ok()
    }

    /// Why the profile cannot be a slice of `card`, if it cannot.
    pub fn check(&self, card: &Gpu) -> Result<(), (&'static str, String)> {
        let ok_slices = (1..=COMPUTE_SLICES).contains(&self.compute_slices)
            && (1..=MEMORY_SLICES).contains(&self.memory_slices);
        if !ok_slices {
            return Err((
                "compute_slices",
                format!("a MIG profile has 1–{COMPUTE_SLICES} compute and 1–{MEMORY_SLICES} memory slices"),
            ));
        }
        if self.label_gb().is_none() {
            return Err((
                "profile",
                format!(
                    "MIG profile '{}' is not named like 3g.40gb",
                    crate::text::clean_prefix(&self.profile, 30)
                ),
            ));
        }
        let whole = card.memory_visible_bytes.unwrap_or(card.memory_bytes());
        if !(self.memory_gib > 0.0 && self.memory_gib * GIB <= whole * 1.01) {
            return Err((
                "memory_gib",
                format!("{} GiB is more than the whole {} has", self.memory_gib, card.name),
            ));
        }
        if self.sms == 0 || self.sms > self.card_sms {
            return Err(("sms", "a slice has 1 to card_sms SMs".into()));
        }
        Ok(())
    }

    /// The slice as a card to plan on: `card`'s figures cut to the profile's share.
    pub fn slice_of(&self, card: &Gpu) -> Gpu {
        let compute = self.compute_share();
        let round2 = |x: f64| (x * 100.0).round() / 100.0;
        Gpu {
            id: self.id(),
            // "NVIDIA H100 SXM 80GB" → "H100 SXM 80GB MIG 3g.40gb": the vendor is its own column.
            name: format!(
                "{} MIG {}",
                card.name.strip_prefix("NVIDIA ").unwrap_or(&card.name),
                self.profile
            ),
            vendor: card.vendor.clone(),
            architecture: format!("{}, MIG slice", card.architecture),
            memory_gb: self.label_gb().unwrap_or(self.memory_gib),
            memory_smi_mib: Some((self.memory_gib * 1024.0).round() as u64),
            memory_visible_bytes: Some(self.memory_gib * GIB),
            memory_source: Some(format!(
                "nvidia-smi mig -lgip: {} GiB for the instance, which CUDA inside it sees whole ({})",
                self.memory_gib, self.source
            )),
            memory_type: format!("{} (share)", card.memory_type),
            carve_out_gb: None,
            ecc: None,
            bandwidth_gbs: round2(card.bandwidth_gbs * self.bandwidth_share()),
            bf16_tflops: card.bf16_tflops.map(|t| round2(t * compute)),
            fp8_tflops: card.fp8_tflops.map(|t| round2(t * compute)),
            fp8: card.fp8,
            // Instances of one card share no fast link a runtime would split a model over.
            link: LinkKind::None,
            link_gbs: None,
            pcie_gen: card.pcie_gen,
            stack: card.stack,
            tdp_w: None,
            year: card.year,
            mig: Some(format!(
                "slice of an {}: {} of {COMPUTE_SLICES} compute slices ({} of {} SMs), {} of {MEMORY_SLICES} memory slices",
                card.name, self.compute_slices, self.sms, self.card_sms, self.memory_slices
            )),
            segment: Some("slice".into()),
            notes: Some(format!(
                "Bandwidth {}/{MEMORY_SLICES} of the card's (each memory slice has an eighth of its memory controllers and L2), compute {}/{} SMs of its throughput: NVIDIA's MIG user guide, Supported MIG Profiles",
                self.memory_slices, self.sms, self.card_sms
            )),
            offers: Vec::new(),
            local: false,
            in_use_bytes: 0.0,
        }
    }
}

const GIB: f64 = 1_073_741_824.0;
