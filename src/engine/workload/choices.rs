//! The choices a workload is made of (method, convention, optimizer, split, …): plain
//! values with their ids and labels, which the scenario, the runtimes' presets and every
//! view read. A leaf, so that none of them depends on another through it.

use serde::Serialize;

use crate::engine::basics::choice::Choice;
use crate::engine::model::precision::WeightPrecision;

/// What the GPU memory is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Inference,
    Full,
    Lora,
    Qlora,
}

impl Method {
    pub fn is_training(self) -> bool {
        self != Self::Inference
    }

    /// The weight format each method starts from when the user names none.
    pub fn default_weights(self) -> WeightPrecision {
        match self {
            Self::Qlora => WeightPrecision::Nf4,
            _ => WeightPrecision::Bf16,
        }
    }
}

impl Choice for Method {
    const ALL: &'static [Self] = &[Self::Inference, Self::Full, Self::Lora, Self::Qlora];

    fn id(self) -> &'static str {
        match self {
            Self::Inference => "inference",
            Self::Full => "full",
            Self::Lora => "lora",
            Self::Qlora => "qlora",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Inference => "Inference",
            Self::Full => "Full fine-tune",
            Self::Lora => "LoRA",
            Self::Qlora => "QLoRA",
        }
    }
}

/// Which set of rules turns a scenario into bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Convention {
    /// What a real run allocates: exact parameters, real bits per weight, per-layer
    /// activations, the logits spike, optimizer choices, sharding, named overheads.
    Calibrated,
    /// The GPU Rent Hub guide's quick rules, exactly as it states them (decimal GB, fixed
    /// bytes per parameter, +2 GB overhead, full fine-tune 16 B/param ×1.15).
    Seed,
}

impl Choice for Convention {
    const ALL: &'static [Self] = &[Self::Calibrated, Self::Seed];
    const ALIASES: &'static [(&'static str, Self)] = &[("seed", Self::Seed)];

    fn id(self) -> &'static str {
        match self {
            Self::Calibrated => "calibrated",
            Self::Seed => "quick",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Calibrated => "Calibrated",
            Self::Seed => "Quick rules",
        }
    }
}

/// Optimizer of a training run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Optimizer {
    AdamW,
    AdamW8bit,
    PagedAdamW8bit,
    Adafactor,
    Sgd,
    Lion,
}

impl Choice for Optimizer {
    const ALL: &'static [Self] = &[
        Self::AdamW,
        Self::AdamW8bit,
        Self::PagedAdamW8bit,
        Self::Adafactor,
        Self::Sgd,
        Self::Lion,
    ];

    fn id(self) -> &'static str {
        match self {
            Self::AdamW => "adamw",
            Self::AdamW8bit => "adamw-8bit",
            Self::PagedAdamW8bit => "paged-adamw-8bit",
            Self::Adafactor => "adafactor",
            Self::Sgd => "sgd",
            Self::Lion => "lion",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::AdamW => "AdamW",
            Self::AdamW8bit => "AdamW 8-bit",
            Self::PagedAdamW8bit => "Paged AdamW 8-bit",
            Self::Adafactor => "Adafactor",
            Self::Sgd => "SGD momentum",
            Self::Lion => "Lion",
        }
    }
}

/// How trainable weights, gradients and optimizer states are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrainingPrecision {
    /// 16-bit weights and gradients, an fp32 master copy and fp32 optimizer states.
    Mixed,
    /// Pure bf16: weights, gradients and optimizer states all 16-bit (torchtune's default).
    Bf16,
}

impl Choice for TrainingPrecision {
    const ALL: &'static [Self] = &[Self::Mixed, Self::Bf16];

    fn id(self) -> &'static str {
        match self {
            Self::Mixed => "mixed",
            Self::Bf16 => "bf16",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Mixed => "mixed (fp32 master)",
            Self::Bf16 => "pure bf16",
        }
    }
}

/// Which linear layers carry LoRA adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoraTargets {
    /// q, k, v and o projections.
    Attention,
    /// Every linear layer of the blocks (attention and MLP).
    All,
}

impl Choice for LoraTargets {
    const ALL: &'static [Self] = &[Self::Attention, Self::All];

    fn id(self) -> &'static str {
        match self {
            Self::Attention => "attention",
            Self::All => "all",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Attention => "attention q,k,v,o",
            Self::All => "all linear",
        }
    }
}

/// How a model is spread over the cards of a combo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    /// Tensor parallel: every layer's matrices divided over the cards; memory and
    /// bandwidth divide, and each layer pays two all-reduces per token over the link.
    Tensor,
    /// Layer split (pipeline): each card holds whole layers; capacity adds up, bandwidth
    /// does not (the cards work in turn).
    Layer,
}

impl Choice for Split {
    const ALL: &'static [Self] = &[Self::Tensor, Self::Layer];

    fn id(self) -> &'static str {
        match self {
            Self::Tensor => "tensor",
            Self::Layer => "layer",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Tensor => "tensor parallel",
            Self::Layer => "layer split",
        }
    }
}

/// What ZeRO / FSDP moves to host memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Offload {
    None,
    Optimizer,
    All,
}

impl Choice for Offload {
    const ALL: &'static [Self] = &[Self::None, Self::Optimizer, Self::All];

    fn id(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Optimizer => "optimizer",
            Self::All => "all",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Optimizer => "optimizer to CPU",
            Self::All => "params + optimizer to CPU",
        }
    }
}

/// When a fitting option is flagged "tight".
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "rule", content = "fraction")]
pub enum TightRule {
    /// Under 5 GB left on a single card, under 2 GB per card on a combo (the GPU Rent Hub
    /// guide's rule).
    Seed,
    /// A safety margin: keep this fraction of the requirement free on top of it (0.3–0.5).
    Margin(f64),
}

/// The fused-MoE kernel that holds an MXFP4 checkpoint's experts under vLLM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mxfp4Moe {
    /// The file's layout: no kernel repacks it (other runtimes, or vLLM before 0.10.1).
    #[default]
    AsStored,
    Marlin,
    Triton,
    FlashInfer,
}
