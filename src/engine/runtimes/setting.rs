//! One covered knob and its value (`Setting`), and a runtime's preset: the settings it names,
//! with the source of each. The presets themselves are in `presets`; `settle` decides which
//! value a knob ends up with.

use crate::engine::basics::choice::Choice;
use crate::engine::model::precision::{KvPrecision, WeightPrecision};
use crate::engine::workload::scenario::{LoraTargets, Optimizer, Scenario, Split, TrainingPrecision};

/// One knob value a preset sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Setting {
    /// No preset sets it, but its default follows the method (NF4 for QLoRA).
    Weights(WeightPrecision),
    Optimizer(Optimizer),
    TrainingPrecision(TrainingPrecision),
    Checkpointing {
        on: bool,
        selective: bool,
    },
    ActivationOffload(bool),
    Compile(bool),
    FusedCe(bool),
    FlashAttention(bool),
    OptimizerInBackward(bool),
    LoraTargets(LoraTargets),
    Split(Split),
    Zero(u8),
    GpuUtil(f64),
    /// The framework's fraction for the scenario's own count, evaluated again for each
    /// option's count (SGLang).
    GpuUtilByCount(f64),
    Kv(KvPrecision),
    MaxBatchedTokens(u64),
    MaxNumSeqs(u64),
    Context(u64),
    Batch(u64),
    Ubatch(u64),
    /// DeepSpeed's gradient reduce bucket, in elements.
    ReduceBucket(u64),
    /// DeepSpeed's stage-3 parameter prefetch bucket, in elements.
    PrefetchBucket(u64),
}

/// A preset value and where the framework sets it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    pub setting: Setting,
    pub source: &'static str,
}

fn on_off(b: bool) -> String {
    if b { "on" } else { "off" }.into()
}

impl Setting {
    pub fn apply(self, sc: &mut Scenario) {
        match self {
            Self::Weights(w) => sc.weights = w,
            Self::Optimizer(o) => sc.optimizer = o,
            Self::TrainingPrecision(t) => sc.training_precision = t,
            Self::Checkpointing { on, selective } => {
                sc.checkpointing = on;
                sc.selective_checkpointing = on && selective;
            }
            Self::ActivationOffload(b) => sc.activation_offload = b,
            Self::Compile(b) => sc.compile = b,
            Self::FusedCe(b) => sc.fused_ce = b,
            Self::FlashAttention(b) => sc.flash_attention = b,
            Self::OptimizerInBackward(b) => sc.optimizer_in_backward = b,
            Self::LoraTargets(t) => sc.lora_targets = t,
            Self::Split(x) => sc.split = x,
            Self::Zero(z) => sc.zero = z,
            Self::GpuUtil(u) => sc.set_gpu_util(u),
            Self::GpuUtilByCount(u) => {
                sc.gpu_util = u;
                sc.gpu_util_by_count = true;
            }
            Self::Kv(k) => sc.kv = k,
            Self::MaxBatchedTokens(n) => sc.max_batched_tokens = n,
            Self::MaxNumSeqs(n) => sc.max_num_seqs = n,
            Self::Context(n) => sc.context = n,
            Self::Batch(n) => sc.batch = n,
            Self::Ubatch(n) => sc.ubatch = n,
            Self::ReduceBucket(n) => sc.reduce_bucket = n,
            Self::PrefetchBucket(n) => sc.prefetch_bucket = n,
        }
    }

    /// The CLI flag (and plan-file key) that changes this value.
    pub fn flag(self) -> &'static str {
        match self {
            Self::Weights(_) => "weights",
            Self::Optimizer(_) => "optimizer",
            Self::TrainingPrecision(_) => "training-precision",
            Self::Checkpointing { .. } => "checkpointing",
            Self::ActivationOffload(_) => "activation-offload",
            Self::Compile(_) => "compile",
            Self::FusedCe(_) => "fused-ce",
            Self::FlashAttention(_) => "flash-attention",
            Self::OptimizerInBackward(_) => "optimizer-in-backward",
            Self::LoraTargets(_) => "lora-targets",
            Self::Split(_) => "split",
            Self::Zero(_) => "zero",
            Self::GpuUtil(_) | Self::GpuUtilByCount(_) => "gpu-util",
            Self::Kv(_) => "kv",
            Self::MaxBatchedTokens(_) => "max-batched-tokens",
            Self::MaxNumSeqs(_) => "max-num-seqs",
            Self::Context(_) => "context",
            Self::Batch(_) => "batch",
            Self::Ubatch(_) => "ubatch",
            Self::ReduceBucket(_) => "reduce-bucket-size",
            Self::PrefetchBucket(_) => "prefetch-bucket-size",
        }
    }

    /// The value as the flag takes it.
    pub fn value(self) -> String {
        match self {
            Self::Weights(w) => w.id().into(),
            Self::Optimizer(o) => o.id().into(),
            Self::TrainingPrecision(t) => t.id().into(),
            Self::Checkpointing { on: false, .. } => "off".into(),
            Self::Checkpointing { selective: true, .. } => "selective".into(),
            Self::Checkpointing { .. } => "on".into(),
            Self::ActivationOffload(b)
            | Self::Compile(b)
            | Self::FusedCe(b)
            | Self::FlashAttention(b)
            | Self::OptimizerInBackward(b) => on_off(b),
            Self::LoraTargets(t) => t.id().into(),
            Self::Split(x) => x.id().into(),
            Self::Zero(z) => z.to_string(),
            Self::GpuUtil(u) | Self::GpuUtilByCount(u) => format!("{u}"),
            Self::Kv(k) => k.id().into(),
            Self::MaxBatchedTokens(n)
            | Self::MaxNumSeqs(n)
            | Self::Context(n)
            | Self::Batch(n)
            | Self::Ubatch(n)
            | Self::ReduceBucket(n)
            | Self::PrefetchBucket(n) => n.to_string(),
        }
    }
}
