//! Framework presets: people run a model in vLLM, SGLang, llama.cpp or Ollama and fine-tune
//! with the HF Trainer, DeepSpeed, FSDP, torchtune, torchtitan or Unsloth. Each allocates
//! differently. A preset is a list of named knob values, each with where the framework
//! sets it; the memory a framework adds beyond the generic rules (llama.cpp's compute
//! buffer, vLLM's profiling run, DeepSpeed's buckets) is computed in the calibrated rules
//! and named there.

use crate::engine::model::precision::KvPrecision;
pub use crate::engine::runtimes::setting::{Preset, Setting};
pub use crate::engine::workload::defaults::{
    DS_PREFETCH_BUCKET, DS_REDUCE_BUCKET, LLAMA_CPP_UBATCH, PREFILL_CHUNK_TOKENS, VLLM_MAX_NUM_SEQS,
    sglang_fraction,
};
pub use crate::engine::workload::runtime::{Framework, Runs};
use crate::engine::workload::scenario::Scenario;

impl Framework {
    pub fn presets(self, sc: &Scenario) -> Vec<Preset> {
        use Setting::*;
        let training = sc.method.is_training();
        let version = sc
            .version()
            .unwrap_or(crate::engine::workload::version::Version::Release(0, 0, 0));
        let p = |setting: Setting, source: &'static str| Preset { setting, source };
        match self {
            Self::Generic if training => vec![
                p(
                    Optimizer(crate::engine::workload::scenario::Optimizer::AdamW),
                    GENERIC,
                ),
                p(
                    TrainingPrecision(crate::engine::workload::scenario::TrainingPrecision::Mixed),
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
                p(Split(crate::engine::workload::scenario::Split::Tensor), GENERIC),
            ],
            Self::Transformers if training => vec![
                p(
                    Optimizer(crate::engine::workload::scenario::Optimizer::AdamW),
                    "TrainingArguments: optim = adamw_torch",
                ),
                p(
                    TrainingPrecision(crate::engine::workload::scenario::TrainingPrecision::Mixed),
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
                    TrainingPrecision(crate::engine::workload::scenario::TrainingPrecision::Mixed),
                    "bf16.enabled: the optimizer keeps fp32 master weights",
                ),
                p(ReduceBucket(DS_REDUCE_BUCKET), DS_CONFIG),
                p(PrefetchBucket(DS_PREFETCH_BUCKET), DS_CONFIG),
            ],
            Self::Fsdp => vec![
                p(Zero(3), "ShardingStrategy.FULL_SHARD, FSDP's default"),
                p(
                    TrainingPrecision(crate::engine::workload::scenario::TrainingPrecision::Mixed),
                    "MixedPrecision(param_dtype=bf16): sharded fp32 parameters stay the master copy",
                ),
            ],
            Self::Torchtune => vec![
                p(
                    TrainingPrecision(crate::engine::workload::scenario::TrainingPrecision::Bf16),
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
                    TrainingPrecision(crate::engine::workload::scenario::TrainingPrecision::Mixed),
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
                    Optimizer(crate::engine::workload::scenario::Optimizer::AdamW8bit),
                    "its notebooks: optim = \"adamw_8bit\"",
                ),
                p(
                    LoraTargets(crate::engine::workload::scenario::LoraTargets::All),
                    "its notebooks: q, k, v, o, gate, up, down",
                ),
            ],
            Self::Vllm => vec![
                p(
                    GpuUtil(crate::engine::runtimes::release::vllm_default_util(version)),
                    match crate::engine::runtimes::release::vllm_default_util(version) {
                        u if u >= 1.0 => {
                            "vLLM 0.34: gpu_memory_utilization unset → 1.0 with the extensible KV cache (sized from what is free after graph capture)"
                        }
                        u if u > 0.9 => "vllm/config/cache.py (0.20 on): gpu_memory_utilization = 0.92",
                        _ => "CacheConfig: gpu_memory_utilization = 0.9",
                    },
                ),
                p(
                    Kv(KvPrecision::Fp16),
                    "CacheConfig: kv_cache_dtype = auto (the model's 16-bit dtype)",
                ),
                p(
                    MaxBatchedTokens(crate::engine::workload::defaults::VLLM_SERVE_TOKENS),
                    "arg_utils get_batch_defaults (vllm serve): 2048 below 70 GiB; each option follows its card (8192 from 70 GiB but A100, 16384 from 160 GiB)",
                ),
                p(
                    MaxNumSeqs(VLLM_MAX_NUM_SEQS),
                    "arg_utils get_batch_defaults (vllm serve): 256 below 70 GiB; 1024 from 70 GiB but A100",
                ),
                p(FlashAttention(true), "the FlashAttention backend"),
            ],
            Self::Sglang => vec![
                p(
                    GpuUtilByCount(sglang_fraction(sc.cards)),
                    "server_args (0.5.3 on): mem_fraction_static = (memory − reserve) ÷ memory for each option's card and TP size; 0.88 on one card without one",
                ),
                p(Kv(KvPrecision::Fp16), "server_args: kv_cache_dtype = auto"),
                p(
                    MaxBatchedTokens(crate::engine::workload::defaults::SGLANG_CHUNK_TOKENS),
                    "server_args: chunked_prefill_size by card: 2048 below 35 GiB, 4096 below 60, 8192 below 160, 16384 above",
                ),
                p(FlashAttention(true), "FlashInfer attention"),
            ],
            Self::LlamaCpp => vec![
                p(
                    GpuUtil(1.0),
                    "no memory fraction: llama.cpp allocates what it needs",
                ),
                p(
                    Context(4096),
                    if crate::engine::runtimes::release::llama_cpp_fit(version) {
                        "common.h (b7437 on): n_ctx 0 = the training context, shrunk by --fit (to ≥ 4096) to keep 1 GiB free"
                    } else {
                        "common.h: n_ctx = 4096"
                    },
                ),
                p(
                    Batch(1),
                    if crate::engine::runtimes::release::llama_cpp_auto_slots(version) {
                        "llama-server (b7079 on): 4 slots share one unified cache of n_ctx cells, one sequence's memory"
                    } else {
                        "common.h: n_parallel = 1"
                    },
                ),
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
                    Split(crate::engine::workload::scenario::Split::Layer),
                    "common.h: split_mode = LLAMA_SPLIT_MODE_LAYER",
                ),
            ],
            Self::Ollama => vec![
                p(
                    GpuUtil(1.0),
                    "no memory fraction: the llama.cpp runner allocates what it needs",
                ),
                p(
                    Context(crate::engine::runtimes::release::ollama_default_context(
                        version, 0.0,
                    )),
                    if version >= crate::engine::workload::version::Version::Release(0, 15, 5) {
                        "server/routes.go (0.15.5 on): num_ctx 4096 under 23 GiB of VRAM in all, 32768 from 23 GiB, 262144 from 47 GiB"
                    } else if version >= crate::engine::workload::version::Version::Release(0, 6, 7) {
                        "envconfig (0.6.7 on): OLLAMA_CONTEXT_LENGTH = 4096"
                    } else {
                        "api/types.go DefaultOptions: NumCtx = 2048"
                    },
                ),
                p(
                    Batch(crate::engine::runtimes::release::ollama_default_parallel(version)),
                    if version >= crate::engine::workload::version::Version::Release(0, 9, 7) {
                        "envconfig (0.9.7 on, #11330): OLLAMA_NUM_PARALLEL = 1"
                    } else {
                        "sched.go: OLLAMA_NUM_PARALLEL unset → 2 slots, each of num_ctx"
                    },
                ),
                p(
                    Ubatch(LLAMA_CPP_UBATCH),
                    "api/types.go DefaultOptions: NumBatch = 512",
                ),
                p(Kv(KvPrecision::Fp16), "OLLAMA_KV_CACHE_TYPE: f16"),
                p(FlashAttention(false), "OLLAMA_FLASH_ATTENTION: off"),
                p(
                    Split(crate::engine::workload::scenario::Split::Layer),
                    "the llama.cpp runner splits whole layers over the cards",
                ),
            ],
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::basics::choice::Choice;
    use crate::engine::model::precision::WeightPrecision;
    use crate::engine::runtimes::settle::{UserSet, settle};
    use crate::engine::workload::scenario::Method;

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
                // A context the user gives no longer follows the cards (Ollama's num_ctx).
                sc.card_context_default = false;
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
