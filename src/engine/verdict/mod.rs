//! The verdict room: whether a scenario fits an option and everything read from that. The
//! one judge (`judge`, its limits searched in `needs`), an option's whole judgement (`fit`),
//! the scenario a card runs (`card_defaults`), the plan over a catalog (`plan`), ranking
//! (`rank`), advice (`advise`), mixed rigs (`rig`), the serving target's check
//! (`meets_target`) and the guide's own table (`lookup`). Imports every room below renting.
//!
//! This file holds what the judge says of an option: the verdict, the reason for a "no", and
//! the quick rules' margins for "tight".

pub mod advise;
pub mod card_defaults;
pub mod changes;
pub mod fit;
pub mod judge;
pub mod lookup;
pub mod meets_target;
pub mod needs;
pub mod plan;
pub mod rank;
pub mod rig;

use serde::Serialize;

use crate::engine::hardware::gpu::Gpu;

/// Seed 003: a single card is tight with under 5 GB left.
pub const TIGHT_SINGLE_BYTES: f64 = 5e9;
/// Seed 003: a combo is tight with under 2 GB left per card.
pub const TIGHT_PER_CARD_BYTES: f64 = 2e9;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Fits,
    Tight,
    No,
}

impl Verdict {
    pub fn id(self) -> &'static str {
        match self {
            Self::Fits => "fits",
            Self::Tight => "tight",
            Self::No => "no",
        }
    }

    pub fn is_fit(self) -> bool {
        self != Self::No
    }
}

/// Why an option gets "no". A value, formatted only when shown (a plan judges hundreds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// FP8 weights on a card (under the runtime) without FP8 kernels.
    NoFp8,
    /// A weight format the runtime does not load (llama.cpp and Ollama: GGUF only).
    NoFormat,
    /// Multi-card full fine-tune without a node-wide fabric.
    NeedsFabric,
    /// Tensor parallel over a count that does not divide this many attention heads.
    HeadsIndivisible(u64),
    /// A unified-memory machine: one device, nothing to split over.
    SingleDevice,
    /// Slices (MIG, vGPU) of one card: one model per slice.
    SharedSlice,
    /// Serving across nodes: offered within one node of this many cards.
    BeyondOneNode(u32),
    /// Not enough memory: this many cards of the kind would hold it.
    NeedsCards(u32),
    /// Not enough memory, and no count up to this many cards holds it.
    NoCountFits(u32),
    /// Other processes hold so much of a card that the serving engine will not start: it
    /// wants `wanted` bytes free (its share of the card's total), `free` are.
    Busy { free: u64, wanted: u64 },
    /// A rig of mixed cards (with the host, when given) that cannot hold the plan.
    RigShort,
    /// The host lacks the RAM the plan keeps there (ZeRO offload, layers in RAM).
    HostShort,
}

impl Reason {
    pub fn text(self, gpu: &Gpu) -> String {
        match self {
            Reason::NoFp8 => format!("no FP8 support on {}", gpu.name),
            Reason::NoFormat => "llama.cpp loads GGUF formats (and 16/32-bit weights) only".into(),
            Reason::HeadsIndivisible(h) => {
                format!("tensor parallel needs a card count that divides the {h} attention heads")
            }
            Reason::SingleDevice => format!(
                "{} is one device with unified memory: no multi-card split",
                gpu.name
            ),
            Reason::SharedSlice => format!("{} is a slice of one card: one model per slice", gpu.name),
            Reason::BeyondOneNode(n) => format!("serving is planned within one node of {n} cards"),
            Reason::NeedsFabric => {
                format!(
                    "multi-card full fine-tune needs NVLink/NVSwitch; {} has {}",
                    gpu.name,
                    gpu.link.label()
                )
            }
            Reason::NeedsCards(n) => format!("needs {n} cards of this kind"),
            Reason::NoCountFits(1) => "too big for this card, which does not combine with others".into(),
            Reason::NoCountFits(n) => format!("too big for {n} cards of this kind"),
            Reason::Busy { free, wanted } => format!(
                "other processes leave {} free per card; the serving engine wants {} free to start (gpu_memory_utilization × the card's total)",
                crate::engine::basics::units::format_gb(free as f64),
                crate::engine::basics::units::format_gb(wanted as f64)
            ),
            Reason::RigShort => "too big for these cards together, with the RAM given".into(),
            Reason::HostShort => "the host's RAM cannot hold what the plan keeps there".into(),
        }
    }

    /// Whether no count of the card runs the plan as set up (format, split, fabric):
    /// memory is not what is missing.
    pub fn is_unsupported(self) -> bool {
        !matches!(
            self,
            Reason::NeedsCards(_) | Reason::NoCountFits(_) | Reason::RigShort | Reason::HostShort
        )
    }

    /// A few words, for a narrow table column.
    pub fn short_text(self) -> String {
        match self {
            Reason::NoFp8 => "no FP8".into(),
            Reason::NoFormat => "not GGUF".into(),
            Reason::HeadsIndivisible(_) => "heads ÷ cards".into(),
            Reason::SingleDevice => "one device".into(),
            Reason::SharedSlice => "one slice".into(),
            Reason::BeyondOneNode(n) => format!("over {n} cards"),
            Reason::NeedsFabric => "needs NVLink".into(),
            Reason::NeedsCards(n) => format!("needs {n} cards"),
            Reason::NoCountFits(1) => "too big".into(),
            Reason::NoCountFits(n) => format!("too big for {n}"),
            Reason::Busy { .. } => "card busy".into(),
            Reason::RigShort => "too big".into(),
            Reason::HostShort => "RAM short".into(),
        }
    }
}
