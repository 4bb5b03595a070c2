//! What the user asks about: one model under one workload.

use serde::Serialize;

use super::choice::Choice;
use super::precision::{KvPrecision, WeightPrecision};

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
    /// Exactly the arithmetic seed 003 states (decimal GB, fixed bytes per parameter,
    /// +2 GB overhead, full fine-tune 16 B/param ×1.15).
    Seed,
}

impl Choice for Convention {
    const ALL: &'static [Self] = &[Self::Seed];

    fn id(self) -> &'static str {
        match self {
            Self::Seed => "seed",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Seed => "Seed 003 arithmetic",
        }
    }
}

/// When a fitting option is flagged "tight".
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "rule", content = "fraction")]
pub enum TightRule {
    /// Seed 003: under 5 GB left on a single card, under 2 GB per card on a combo.
    Seed,
    /// Seed 004: keep this fraction of the requirement free on top of it (0.3–0.5).
    Margin(f64),
}

/// One planning question: a workload on a model, independent of any card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scenario {
    pub method: Method,
    pub weights: WeightPrecision,
    pub kv: KvPrecision,
    /// Inference: context length in tokens. Training: sequence length.
    pub context: u64,
    pub batch: u64,
    pub convention: Convention,
    /// LoRA/QLoRA adapter rank.
    pub lora_rank: u64,
    pub tight_rule: TightRule,
}

/// Limits beyond which a number is a typo rather than a plan.
pub const MAX_CONTEXT: u64 = 16 * 1024 * 1024;
pub const MAX_BATCH: u64 = 1 << 20;
pub const MAX_LORA_RANK: u64 = 65_536;

impl Scenario {
    /// Seed 003's inference setting: BF16 weights, FP16 cache, 8,192 tokens, batch 1.
    pub fn seed_inference(weights: WeightPrecision) -> Self {
        Self {
            method: Method::Inference,
            weights,
            kv: KvPrecision::Fp16,
            context: 8192,
            batch: 1,
            convention: Convention::Seed,
            lora_rank: 16,
            tight_rule: TightRule::Seed,
        }
    }

    /// Seed 003's training setting: sequence 2,048, batch 1, rank 16, checkpointing on.
    pub fn seed_training(method: Method) -> Self {
        Self {
            method,
            weights: method.default_weights(),
            context: 2048,
            ..Self::seed_inference(WeightPrecision::Bf16)
        }
    }

    /// Reject combinations that describe no real run, with a message naming the fix.
    pub fn validate(&self) -> Result<(), String> {
        if self.context == 0 || self.context > MAX_CONTEXT {
            return Err(format!(
                "context must be between 1 and {MAX_CONTEXT} tokens, got {}",
                self.context
            ));
        }
        if self.batch == 0 || self.batch > MAX_BATCH {
            return Err(format!(
                "batch must be between 1 and {MAX_BATCH}, got {}",
                self.batch
            ));
        }
        if self.lora_rank == 0 || self.lora_rank > MAX_LORA_RANK {
            return Err(format!(
                "LoRA rank must be between 1 and {MAX_LORA_RANK}, got {}",
                self.lora_rank
            ));
        }
        if let TightRule::Margin(m) = self.tight_rule
            && !(0.0..=10.0).contains(&m)
        {
            return Err(format!(
                "safety margin must be between 0 and 10 (a fraction), got {m}"
            ));
        }
        match self.method {
            Method::Full | Method::Lora if !self.weights.is_float16_or_wider() => Err(format!(
                "{} trains in 16- or 32-bit weights, not {}: use --weights bf16, fp16 or fp32{}",
                self.method.label(),
                self.weights.label(),
                if self.method == Method::Lora && self.weights.is_4bit() {
                    " (or --method qlora for a 4-bit base)"
                } else {
                    ""
                }
            )),
            Method::Qlora if !self.weights.is_4bit() => Err(format!(
                "QLoRA quantizes the frozen base to 4 bits, not {}: use --weights nf4 or int4 (or --method lora)",
                self.weights.label()
            )),
            _ => Ok(()),
        }
    }
}
