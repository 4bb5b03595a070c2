//! Framework presets: people run a model in vLLM, SGLang, llama.cpp or Ollama and fine-tune
//! with the HF Trainer, DeepSpeed, FSDP, torchtune, torchtitan or Unsloth. Each allocates
//! differently. A preset is a list of named knob values, each with where the framework
//! sets it; the memory a framework adds beyond the generic rules (llama.cpp's compute
//! buffer, vLLM's profiling run, DeepSpeed's buckets) is computed in the calibrated rules
//! and named there.

use serde::Serialize;

use super::calibrated::PREFILL_CHUNK_TOKENS;
use super::choice::Choice;
use super::precision::{KvPrecision, WeightPrecision};
use super::scenario::{LoraTargets, Method, Optimizer, Scenario, Split, TrainingPrecision};

/// The runtime a plan is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Framework {
    /// The calibrated rules with no runtime of their own.
    #[default]
    Generic,
    Transformers,
    Deepspeed,
    Fsdp,
    Torchtune,
    Torchtitan,
    Unsloth,
    Vllm,
    Sglang,
    #[serde(rename = "llama.cpp")]
    LlamaCpp,
    Ollama,
}

impl Choice for Framework {
    const ALL: &'static [Self] = &[
        Self::Generic,
        Self::Transformers,
        Self::Deepspeed,
        Self::Fsdp,
        Self::Torchtune,
        Self::Torchtitan,
        Self::Unsloth,
        Self::Vllm,
        Self::Sglang,
        Self::LlamaCpp,
        Self::Ollama,
    ];
    const ALIASES: &'static [(&'static str, Self)] = &[
        ("llamacpp", Self::LlamaCpp),
        ("llama-cpp", Self::LlamaCpp),
        ("hf", Self::Transformers),
    ];

    fn id(self) -> &'static str {
        match self {
            Self::Generic => "generic",
            Self::Transformers => "transformers",
            Self::Deepspeed => "deepspeed",
            Self::Fsdp => "fsdp",
            Self::Torchtune => "torchtune",
            Self::Torchtitan => "torchtitan",
            Self::Unsloth => "unsloth",
            Self::Vllm => "vllm",
            Self::Sglang => "sglang",
            Self::LlamaCpp => "llama.cpp",
            Self::Ollama => "ollama",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Generic => "generic",
            Self::Transformers => "HF Transformers",
            Self::Deepspeed => "DeepSpeed",
            Self::Fsdp => "PyTorch FSDP",
            Self::Torchtune => "torchtune",
            Self::Torchtitan => "torchtitan",
            Self::Unsloth => "Unsloth",
            Self::Vllm => "vLLM",
            Self::Sglang => "SGLang",
            Self::LlamaCpp => "llama.cpp",
            Self::Ollama => "Ollama",
        }
    }
}

/// What a framework is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    Serving,
    Training,
    Both,
}

impl Framework {
    pub fn runs(self) -> Runs {
        match self {
            Self::Generic | Self::Transformers => Runs::Both,
            Self::Deepspeed | Self::Fsdp | Self::Torchtune | Self::Torchtitan | Self::Unsloth => {
                Runs::Training
            }
            Self::Vllm | Self::Sglang | Self::LlamaCpp | Self::Ollama => Runs::Serving,
        }
    }

    /// Whether this framework runs `method` (vLLM does not fine-tune, DeepSpeed does not serve).
    pub fn supports(self, method: Method) -> bool {
        match self.runs() {
            Runs::Both => true,
            Runs::Serving => !method.is_training(),
            Runs::Training => method.is_training(),
        }
    }

    /// The frameworks that run `method`, in the order the planner cycles them.
    pub fn for_method(method: Method) -> impl Iterator<Item = Framework> {
        Self::ALL.iter().copied().filter(move |f| f.supports(method))
    }

    /// llama.cpp and Ollama (which runs llama.cpp) size a compute buffer instead of a
    /// prefill working set.
    pub fn is_ggml(self) -> bool {
        matches!(self, Self::LlamaCpp | Self::Ollama)
    }

    /// The knob values this framework uses by default for the scenario's method (and, for
    /// SGLang, its card count), each with its source.
    pub fn presets(self, sc: &Scenario) -> Vec<Preset> {
        use Setting::*;
        let training = sc.method.is_training();
        let p = |setting: Setting, source: &'static str| Preset { setting, source };
        match self {
            Self::Generic if training => vec![
                p(Optimizer(super::scenario::Optimizer::AdamW), GENERIC),
                p(
                    TrainingPrecision(super::scenario::TrainingPrecision::Mixed),
                    GENERIC,
                ),
                p(
                    Checkpointing {
                        on: true,
                        selective: false,
                    },
                    GENERIC,
                ),
                p(ActivationOffload(false), GENERIC),
                p(Compile(false), GENERIC),
                p(FusedCe(false), GENERIC),
                p(FlashAttention(true), GENERIC),
            ],
            // The serving defaults, named so that the JSON lists what generic sets.
            Self::Generic => vec![
                p(GpuUtil(0.9), GENERIC),
                p(Kv(KvPrecision::Fp16), GENERIC),
                p(MaxBatchedTokens(PREFILL_CHUNK_TOKENS), GENERIC),
                p(MaxNumSeqs(VLLM_MAX_NUM_SEQS), GENERIC),
                p(Ubatch(LLAMA_CPP_UBATCH), GENERIC),
                p(FlashAttention(true), GENERIC),
                p(Split(super::scenario::Split::Tensor), GENERIC),
            ],
            Self::Transformers if training => vec![
                p(
                    Optimizer(super::scenario::Optimizer::AdamW),
                    "TrainingArguments: optim = adamw_torch",
                ),
                p(
                    TrainingPrecision(super::scenario::TrainingPrecision::Mixed),
                    "TrainingArguments bf16=True: autocast over fp32 master weights",
                ),
                p(
                    Checkpointing {
                        on: false,
                        selective: false,
                    },
                    "TrainingArguments: gradient_checkpointing = False",
                ),
                p(
                    FusedCe(false),
                    "the model's forward: torch cross-entropy on full logits",
                ),
                p(
                    FlashAttention(true),
                    "attn_implementation defaults to sdpa (transformers ≥ 4.36)",
                ),
            ],
            Self::Transformers => vec![p(
                FlashAttention(true),
                "attn_implementation defaults to sdpa (transformers ≥ 4.36)",
            )],
            Self::Deepspeed => vec![
                p(
                    TrainingPrecision(super::scenario::TrainingPrecision::Mixed),
                    "bf16.enabled: the optimizer keeps fp32 master weights",
                ),
                p(ReduceBucket(DS_REDUCE_BUCKET), DS_CONFIG),
                p(PrefetchBucket(DS_PREFETCH_BUCKET), DS_CONFIG),
            ],
            Self::Fsdp => vec![
                p(Zero(3), "ShardingStrategy.FULL_SHARD, FSDP's default"),
                p(
                    TrainingPrecision(super::scenario::TrainingPrecision::Mixed),
                    "MixedPrecision(param_dtype=bf16): sharded fp32 parameters stay the master copy",
                ),
            ],
            Self::Torchtune => vec![
                p(
                    TrainingPrecision(super::scenario::TrainingPrecision::Bf16),
                    "recipe configs: dtype: bf16 (no fp32 master)",
                ),
                p(
                    Checkpointing {
                        on: true,
                        selective: false,
                    },
                    "recipe configs: enable_activation_checkpointing: True",
                ),
                p(
                    ActivationOffload(false),
                    "recipe configs: enable_activation_offloading: False",
                ),
                p(Compile(false), "recipe configs: compile: False"),
                p(
                    FusedCe(true),
                    "recipe configs: loss CEWithChunkedOutputLoss (since v0.4)",
                ),
                p(
                    OptimizerInBackward(false),
                    "recipe configs: optimizer_in_bwd: False",
                ),
            ],
            Self::Torchtitan => vec![
                p(
                    Checkpointing {
                        on: true,
                        selective: true,
                    },
                    "job config: activation_checkpoint.mode = \"selective\", selective_ac_option = \"op\"",
                ),
                p(Compile(false), "job config: compile.enable = false"),
                p(Zero(3), "FSDP2 full shard: data_parallel_shard_degree = -1"),
                p(
                    TrainingPrecision(super::scenario::TrainingPrecision::Mixed),
                    "mixed_precision_param = bfloat16 over fp32 sharded parameters",
                ),
                p(FusedCe(false), "train loop: torch cross-entropy on full logits"),
            ],
            Self::Unsloth => vec![
                p(
                    Checkpointing {
                        on: true,
                        selective: false,
                    },
                    "use_gradient_checkpointing = \"unsloth\" in its notebooks",
                ),
                p(
                    ActivationOffload(true),
                    "\"unsloth\" checkpointing offloads each layer's saved input to RAM",
                ),
                p(
                    FusedCe(true),
                    "Unsloth's fused cross-entropy kernel (no full logits)",
                ),
                p(
                    Optimizer(super::scenario::Optimizer::AdamW8bit),
                    "its notebooks: optim = \"adamw_8bit\"",
                ),
                p(
                    LoraTargets(super::scenario::LoraTargets::All),
                    "its notebooks: q, k, v, o, gate, up, down",
                ),
            ],
            Self::Vllm => vec![
                p(GpuUtil(0.9), "CacheConfig: gpu_memory_utilization = 0.9"),
                p(
                    Kv(KvPrecision::Fp16),
                    "CacheConfig: kv_cache_dtype = auto (the model's 16-bit dtype)",
                ),
                p(
                    MaxBatchedTokens(PREFILL_CHUNK_TOKENS),
                    "EngineArgs (V1, vllm serve on ≥ 70 GiB cards): max_num_batched_tokens = 8192",
                ),
                p(
                    MaxNumSeqs(VLLM_MAX_NUM_SEQS),
                    "SchedulerConfig: max_num_seqs = 256",
                ),
                p(FlashAttention(true), "the FlashAttention backend"),
            ],
            Self::Sglang => vec![
                p(
                    GpuUtilByCount(sglang_fraction(sc.cards)),
                    "server_args: mem_fraction_static 0.88 on one card (0.87 TP2, 0.85 TP4, 0.81 TP8), for each option's count",
                ),
                p(Kv(KvPrecision::Fp16), "server_args: kv_cache_dtype = auto"),
                p(MaxBatchedTokens(8192), "server_args: chunked_prefill_size = 8192"),
                p(FlashAttention(true), "FlashInfer attention"),
            ],
            Self::LlamaCpp => vec![
                p(
                    GpuUtil(1.0),
                    "no memory fraction: llama.cpp allocates what it needs",
                ),
                p(Context(4096), "common.h: n_ctx = 4096"),
                p(Batch(1), "common.h: n_parallel = 1"),
                p(
                    Ubatch(LLAMA_CPP_UBATCH),
                    "common.h: n_ubatch = 512 (n_batch 2048)",
                ),
                p(Kv(KvPrecision::Fp16), "common.h: cache_type_k/v = f16"),
                p(
                    FlashAttention(false),
                    "llama_context_default_params: flash_attn = false",
                ),
                p(
                    Split(super::scenario::Split::Layer),
                    "common.h: split_mode = LLAMA_SPLIT_MODE_LAYER",
                ),
            ],
            Self::Ollama => vec![
                p(
                    GpuUtil(1.0),
                    "no memory fraction: the llama.cpp runner allocates what it needs",
                ),
                p(Context(2048), "api/types.go DefaultOptions: NumCtx = 2048"),
                p(
                    Batch(4),
                    "OLLAMA_NUM_PARALLEL: 4 where memory allows (each slot gets NumCtx)",
                ),
                p(
                    Ubatch(LLAMA_CPP_UBATCH),
                    "api/types.go DefaultOptions: NumBatch = 512",
                ),
                p(Kv(KvPrecision::Fp16), "OLLAMA_KV_CACHE_TYPE: f16"),
                p(FlashAttention(false), "OLLAMA_FLASH_ATTENTION: off"),
                p(
                    Split(super::scenario::Split::Layer),
                    "the llama.cpp runner splits whole layers over the cards",
                ),
            ],
        }
    }

    /// The memory fraction this framework's own rule gives an option of `count` cards,
    /// where its preset follows the count (SGLang); `None` where it is one value.
    pub fn gpu_util_for_count(self, count: u32) -> Option<f64> {
        (self == Self::Sglang).then(|| sglang_fraction(count))
    }

    /// Set this framework and its preset's values on `sc`.
    pub fn apply(self, sc: &mut Scenario) {
        sc.framework = self;
        for p in self.presets(sc) {
            p.setting.apply(sc);
        }
    }
}

const GENERIC: &str = "the calibrated rules' default";
const DS_CONFIG: &str = "deepspeed/runtime/zero/config.py defaults";

/// vLLM's `max_num_seqs` default (SchedulerConfig).
pub const VLLM_MAX_NUM_SEQS: u64 = 256;
/// llama.cpp's `n_ubatch` default (common.h); Ollama's NumBatch is the same.
pub const LLAMA_CPP_UBATCH: u64 = 512;

/// DeepSpeed's `reduce_bucket_size` (and `allgather_bucket_size`) default, in elements.
pub const DS_REDUCE_BUCKET: u64 = 500_000_000;
/// DeepSpeed's `stage3_prefetch_bucket_size` default, in elements.
pub const DS_PREFETCH_BUCKET: u64 = 50_000_000;

/// SGLang's default static memory fraction by tensor-parallel size (server_args.py).
pub fn sglang_fraction(cards: u32) -> f64 {
    match cards {
        16.. => 0.79,
        8.. => 0.81,
        4.. => 0.85,
        2.. => 0.87,
        _ => 0.88,
    }
}

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

impl Setting {
    /// Every knob a preset or the method gives a default to, with its value in `sc`.
    pub fn all_of(sc: &Scenario) -> [Setting; 21] {
        [
            Self::Weights(sc.weights),
            Self::Optimizer(sc.optimizer),
            Self::TrainingPrecision(sc.training_precision),
            Self::Checkpointing {
                on: sc.checkpointing,
                selective: sc.selective_checkpointing,
            },
            Self::ActivationOffload(sc.activation_offload),
            Self::Compile(sc.compile),
            Self::FusedCe(sc.fused_ce),
            Self::FlashAttention(sc.flash_attention),
            Self::OptimizerInBackward(sc.optimizer_in_backward),
            Self::LoraTargets(sc.lora_targets),
            Self::Split(sc.split),
            Self::Zero(sc.zero),
            // A share that follows the card count is not the same choice as a fixed one.
            if sc.gpu_util_by_count {
                Self::GpuUtilByCount(sc.gpu_util)
            } else {
                Self::GpuUtil(sc.gpu_util)
            },
            Self::Kv(sc.kv),
            Self::MaxBatchedTokens(sc.max_batched_tokens),
            Self::MaxNumSeqs(sc.max_num_seqs),
            Self::Context(sc.context),
            Self::Batch(sc.batch),
            Self::Ubatch(sc.ubatch),
            Self::ReduceBucket(sc.reduce_bucket),
            Self::PrefetchBucket(sc.prefetch_bucket),
        ]
    }

    /// Whether both name the same knob (whatever their values).
    pub fn same_knob(self, other: Setting) -> bool {
        let util = |s: Setting| matches!(s, Self::GpuUtil(_) | Self::GpuUtilByCount(_));
        (util(self) && util(other)) || std::mem::discriminant(&self) == std::mem::discriminant(&other)
    }
}

/// The knobs the user set: the flags given to `plan`, the rows turned in the planner. Each
/// wins over the method's default and the framework's preset, and only these survive a
/// change of either (a value a preset set goes back when the preset goes).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserSet(Vec<Setting>);

impl UserSet {
    /// Record a value the user chose (replacing what they chose before for that knob).
    pub fn set(&mut self, setting: Setting) {
        match self.0.iter_mut().find(|s| s.same_knob(setting)) {
            Some(s) => *s = setting,
            None => self.0.push(setting),
        }
    }

    /// Forget a choice (the knob follows the defaults again).
    pub fn unset(&mut self, knob: Setting) {
        self.0.retain(|s| !s.same_knob(knob));
    }

    /// The value the user chose for `knob`'s knob, if any.
    pub fn get(&self, knob: Setting) -> Option<Setting> {
        self.0.iter().copied().find(|s| s.same_knob(knob))
    }

    pub fn settings(&self) -> &[Setting] {
        &self.0
    }

    /// What a user must have set to arrive at `sc` (a plan file, an applied suggestion):
    /// every covered knob whose value differs from the default its method and framework give.
    pub fn implied_by(sc: &Scenario) -> UserSet {
        let mut defaults = sc.clone();
        settle(&mut defaults, &UserSet::default());
        let mut user = UserSet::default();
        for (now, default) in Setting::all_of(sc).into_iter().zip(Setting::all_of(&defaults)) {
            if now != default {
                user.set(now);
            }
        }
        user
    }
}

/// Give every covered knob of `sc` the value `plan` gives it: the method's default, then
/// the framework's preset (which may read the card count), then what the user set. The CLI
/// and the planner both go through here, so a key sequence and the equivalent flags agree.
pub fn settle(sc: &mut Scenario, user: &UserSet) {
    let mut base = if sc.method.is_training() {
        Scenario::seed_training(sc.method)
    } else {
        Scenario::seed_inference(sc.method.default_weights())
    };
    // A checkpoint's own format is the default where the method can use it: the weights
    // segment is then the file's bytes, not an estimate.
    if let Some(stored) = sc.stored_weights {
        let trial = Scenario {
            weights: stored,
            method: sc.method,
            ..base.clone()
        };
        if trial.check_combination().is_ok() {
            base.weights = stored;
        }
    }
    for s in Setting::all_of(&base) {
        s.apply(sc);
    }
    let framework = sc.framework;
    framework.apply(sc);
    for s in user.settings() {
        s.apply(sc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_framework_has_a_preset_for_what_it_runs_and_none_for_what_it_does_not() {
        for f in Framework::ALL {
            for m in Method::ALL {
                if f.supports(*m) {
                    let sc = if m.is_training() {
                        Scenario::seed_training(*m)
                    } else {
                        Scenario::seed_inference(crate::engine::WeightPrecision::Bf16)
                    };
                    assert!(!f.presets(&sc).is_empty(), "{} {}", f.id(), m.id());
                }
            }
        }
        assert!(!Framework::Vllm.supports(Method::Full));
        assert!(!Framework::Deepspeed.supports(Method::Inference));
        assert_eq!(Framework::for_method(Method::Inference).count(), 6);
        assert_eq!(Framework::for_method(Method::Lora).count(), 7);
    }

    #[test]
    fn ids_round_trip_and_aliases_resolve() {
        for f in Framework::ALL {
            assert_eq!(Framework::from_id(f.id()), Some(*f));
        }
        assert_eq!(Framework::from_id("llamacpp"), Some(Framework::LlamaCpp));
    }

    #[test]
    fn settle_covers_every_preset_value_and_a_scenario_settles_to_itself() {
        for m in Method::ALL {
            for f in Framework::for_method(*m) {
                let mut sc = if m.is_training() {
                    Scenario::seed_training(*m)
                } else {
                    Scenario::seed_inference(WeightPrecision::Bf16)
                };
                sc.framework = f;
                settle(&mut sc, &UserSet::default());
                // Every value a preset sets is one settle restores when the preset goes.
                for p in f.presets(&sc) {
                    assert!(
                        Setting::all_of(&sc).iter().any(|s| s.same_knob(p.setting)),
                        "{} sets {}, which settle does not cover",
                        f.id(),
                        p.setting.flag()
                    );
                }
                // With the user's own values: the scenario they imply settles to itself.
                sc.context = 12_345;
                sc.fused_ce = !sc.fused_ce;
                let user = UserSet::implied_by(&sc);
                assert_eq!(user.settings().len(), 2, "{} {}", f.id(), m.id());
                let mut again = sc.clone();
                settle(&mut again, &user);
                assert_eq!(again, sc);
            }
        }
    }

    #[test]
    fn sglang_fraction_follows_tensor_parallel_size() {
        assert_eq!(sglang_fraction(1), 0.88);
        assert_eq!(sglang_fraction(4), 0.85);
        assert_eq!(sglang_fraction(8), 0.81);
    }
}
