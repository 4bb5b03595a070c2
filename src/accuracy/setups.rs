//! How each published run maps to a scenario: data in `tests/data/accuracy-setups.toml`,
//! beside the measurements. A case names its model, its method and what differs from the
//! method's calibrated defaults, what its source measured, and what the mapping assumed.

use serde::Deserialize;

use super::Compare;
use crate::engine::workload::scenario::{LoraTargets, Offload, Optimizer, Split, TrainingPrecision};
use crate::engine::{Choice, Framework, KvPrecision, Method, Scenario, SegmentKind, WeightPrecision};

pub const SETUPS: &str = include_str!("../../tests/data/accuracy-setups.toml");

/// Largest |error| a case accepts unless it says otherwise.
const DEFAULT_TOLERANCE: f64 = 0.15;

/// How one case is set up.
#[derive(Debug, Clone)]
pub struct Setup {
    pub id: String,
    pub model: String,
    pub scenario: Scenario,
    /// The same run under the generic rules (no preset): the column it is compared with.
    pub generic: Scenario,
    pub compare: Compare,
    /// The catalog card the run used, where the case names it: vLLM holds MXFP4 experts in
    /// the card's kernel layout.
    pub gpu: Option<String>,
    /// The framework the run names (generic where it names none).
    pub framework: Framework,
    /// Its release, where the case names one.
    pub release: Option<crate::engine::workload::version::Version>,
    /// Largest |error| the test accepts for this case.
    pub tolerance: f64,
    /// What the mapping assumed, or what the engine cannot model.
    pub note: String,
    /// The checkpoint's config as it stood on the day of the run, where it differed from the
    /// catalog's (Meta's 405B FP8 said 16 KV heads until August 2024).
    pub checkpoint_kv_heads: Option<u64>,
}

/// A case as written: the scenario's keys are the CLI's flag names.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Entry {
    id: String,
    model: String,
    method: String,
    weights: Option<String>,
    kv: Option<String>,
    context: Option<u64>,
    batch: Option<u64>,
    lora_rank: Option<u64>,
    lora_targets: Option<String>,
    optimizer: Option<String>,
    optimizer_in_backward: Option<bool>,
    training_precision: Option<String>,
    checkpointing: Option<bool>,
    activation_offload: Option<bool>,
    selective_checkpointing: Option<bool>,
    compile: Option<bool>,
    flash_attention: Option<bool>,
    fused_ce: Option<bool>,
    zero: Option<u8>,
    offload: Option<String>,
    cards: Option<u32>,
    gpu_util: Option<f64>,
    split: Option<String>,
    prompt: Option<u64>,
    max_batched_tokens: Option<u64>,
    max_num_seqs: Option<u64>,
    ubatch: Option<u64>,
    /// The framework the run names: its preset fills what the case leaves unsaid.
    framework: Option<String>,
    compare: String,
    gpu: Option<String>,
    util: Option<f64>,
    /// The KV memory the run logged per card, GiB (compare = "kv-tokens").
    kv_gib: Option<f64>,
    /// KV heads of the checkpoint's config on the day of the run.
    checkpoint_kv_heads: Option<u64>,
    tolerance: Option<f64>,
    note: String,
}

#[derive(Debug, Deserialize)]
struct File {
    case: Vec<Entry>,
}

fn choice<T: Choice>(id: &str, field: &str, value: &Option<String>, default: T) -> Result<T, String> {
    match value {
        None => Ok(default),
        Some(v) => T::from_id(v).ok_or_else(|| format!("{id}: {field} = {v:?} is not a known value")),
    }
}

impl Entry {
    /// The case under its framework's preset (`with_preset`) or the generic rules.
    fn scenario(&self, with_preset: bool) -> Result<Scenario, String> {
        let id = &self.id;
        let method: Method = choice(id, "method", &Some(self.method.clone()), Method::Inference)?;
        let mut base = if method.is_training() {
            Scenario::seed_training(method).calibrated()
        } else {
            let weights = choice(id, "weights", &self.weights, WeightPrecision::Bf16)?;
            Scenario::seed_inference(weights).calibrated()
        };
        base.cards = self.cards.unwrap_or(base.cards);
        if with_preset {
            let (framework, release) = self.runtime()?;
            base.release = release;
            framework.apply(&mut base);
        }
        let sc = Scenario {
            weights: choice(id, "weights", &self.weights, base.weights)?,
            kv: choice::<KvPrecision>(id, "kv", &self.kv, base.kv)?,
            context: self.context.unwrap_or(base.context),
            batch: self.batch.unwrap_or(base.batch),
            lora_rank: self.lora_rank.unwrap_or(base.lora_rank),
            lora_targets: choice::<LoraTargets>(id, "lora-targets", &self.lora_targets, base.lora_targets)?,
            optimizer: choice::<Optimizer>(id, "optimizer", &self.optimizer, base.optimizer)?,
            optimizer_in_backward: self.optimizer_in_backward.unwrap_or(base.optimizer_in_backward),
            training_precision: choice::<TrainingPrecision>(
                id,
                "training-precision",
                &self.training_precision,
                base.training_precision,
            )?,
            checkpointing: self.checkpointing.unwrap_or(base.checkpointing),
            activation_offload: self.activation_offload.unwrap_or(base.activation_offload),
            selective_checkpointing: self
                .selective_checkpointing
                .unwrap_or(base.selective_checkpointing),
            compile: self.compile.unwrap_or(base.compile),
            flash_attention: self.flash_attention.unwrap_or(base.flash_attention),
            fused_ce: self.fused_ce.unwrap_or(base.fused_ce),
            zero: self.zero.unwrap_or(base.zero),
            offload: choice::<Offload>(id, "offload", &self.offload, base.offload)?,
            cards: self.cards.unwrap_or(base.cards),
            gpu_util: self.gpu_util.unwrap_or(base.gpu_util),
            split: choice::<Split>(id, "split", &self.split, base.split)?,
            prompt: self.prompt.unwrap_or(base.prompt),
            max_batched_tokens: self.max_batched_tokens.unwrap_or(base.max_batched_tokens),
            max_num_seqs: self.max_num_seqs.unwrap_or(base.max_num_seqs),
            ubatch: self.ubatch.unwrap_or(base.ubatch),
            ..base
        };
        sc.validate().map_err(|e| format!("{id}: {e}"))?;
        Ok(sc)
    }

    /// The framework the run names, with its release where the case gives one
    /// (`vllm@0.11`).
    fn runtime(&self) -> Result<(Framework, Option<crate::engine::workload::version::Version>), String> {
        match &self.framework {
            None => Ok((Framework::Generic, None)),
            Some(f) => {
                crate::engine::workload::version::parse_runtime(f).map_err(|e| format!("{}: {e}", self.id))
            }
        }
    }

    fn compare(&self) -> Result<Compare, String> {
        let gpu = || {
            self.gpu
                .clone()
                .ok_or_else(|| format!("{}: compare = {:?} needs gpu", self.id, self.compare))
        };
        Ok(match self.compare.as_str() {
            "torch-allocated" => Compare::TorchAllocated,
            "torch-reserved" => Compare::TorchReserved,
            "total" => Compare::Total,
            "weights" => Compare::Weights,
            "device-used" => Compare::DeviceUsed,
            "kv-cache" => Compare::Segment(SegmentKind::KvCache),
            "activations" => Compare::Segment(SegmentKind::Activations),
            "kv-budget" => Compare::KvBudget {
                gpu: gpu()?,
                util: self.util.unwrap_or(0.9),
            },
            "decode-ceiling" => Compare::DecodeCeiling { gpu: gpu()? },
            "kv-tokens" => Compare::KvTokens {
                kv_bytes: self
                    .kv_gib
                    .ok_or_else(|| format!("{}: compare = \"kv-tokens\" needs kv-gib", self.id))?
                    * 1_073_741_824.0,
            },
            other => return Err(format!("{}: unknown compare {other:?}", self.id)),
        })
    }
}

/// Every case's setup, read from the data file.
pub fn setups() -> Result<Vec<Setup>, String> {
    let file: File = toml::from_str(SETUPS).map_err(|e| format!("accuracy-setups.toml: {e}"))?;
    file.case
        .into_iter()
        .map(|e| {
            Ok(Setup {
                scenario: e.scenario(true)?,
                generic: e.scenario(false)?,
                framework: e.runtime()?.0,
                release: e.runtime()?.1,
                compare: e.compare()?,
                gpu: e.gpu.clone(),
                checkpoint_kv_heads: e.checkpoint_kv_heads,
                tolerance: e.tolerance.unwrap_or(DEFAULT_TOLERANCE),
                id: e.id,
                model: e.model,
                note: e.note,
            })
        })
        .collect()
}
