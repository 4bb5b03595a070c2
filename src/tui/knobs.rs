//! The workload pane's knobs as data: which rows each method shows, their labels, their
//! value text, and how one step turns them (inside the ranges the CLI and plan files use).

pub use super::knob_steps::step;
pub use super::knob_steps::{
    BATCH_STEPS, CARD_STEPS, CONTEXT_STEPS, EPOCH_STEPS, GPU_UTIL_STEPS, HOUR_STEPS, IMAGE_STEPS,
    PREFILL_STEPS, RANK_STEPS, TIGHT_RULES, TRAIN_TOKEN_STEPS, UBATCH_STEPS, UTILIZATION_STEPS,
};
use super::knob_steps::{cycle, next_framework, next_method, next_release, next_weights};
use crate::engine::runtimes::presets::Setting;
use crate::engine::runtimes::settle::UserSet;
use crate::engine::verdict::rank::SortBy;
use crate::engine::{Framework, Method, Scenario};

/// The workload pane's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    Method,
    Framework,
    /// The framework's release whose rules the plan follows (vLLM 0.11, llama.cpp b7079).
    Release,
    Weights,
    Kv,
    Context,
    Batch,
    LoraRank,
    LoraTargets,
    Optimizer,
    Precision,
    Checkpointing,
    ActivationOffload,
    Compile,
    FlashAttention,
    FusedCe,
    OptimizerInBackward,
    Zero,
    Offload,
    Cards,
    Split,
    Prompt,
    MaxBatchedTokens,
    MaxNumSeqs,
    Ubatch,
    GpuUtil,
    Convention,
    Tight,
    Hours,
    Currency,
    Rank,
    TrainTokens,
    Epochs,
    Utilization,
    /// The host's RAM the plan may spill into.
    Ram,
    /// Its bandwidth, from a memory platform.
    RamBandwidth,
    /// Only cards of one class in the cards pane.
    CardClass,
    /// Images per request (a vision-language model's rows only).
    Images,
    /// The target section (serving): concurrent users, each one's speed, the first token.
    Users,
    MinTps,
    MaxTtft,
    /// The target section (fine-tuning): hours to finish in.
    Deadline,
}

impl Knob {
    /// The rows shown for a method, in order.
    pub fn for_method(method: Method) -> Vec<Knob> {
        use crate::engine::Method as M;
        use Knob::*;
        match method {
            M::Inference => {
                vec![
                    Method,
                    Framework,
                    Release,
                    Weights,
                    Kv,
                    Context,
                    Images,
                    Batch,
                    Prompt,
                    MaxBatchedTokens,
                    MaxNumSeqs,
                    Ubatch,
                    FlashAttention,
                    Cards,
                    Split,
                    Ram,
                    RamBandwidth,
                    GpuUtil,
                    Convention,
                    Tight,
                    Hours,
                    Currency,
                    Rank,
                    CardClass,
                    Users,
                    MinTps,
                    MaxTtft,
                ]
            }
            training => {
                // One list for every training method, so a row added here reaches them all.
                let adapter: &[Knob] = if training == M::Full {
                    &[]
                } else {
                    &[LoraRank, LoraTargets]
                };
                let in_backward: &[Knob] = if training == M::Full {
                    &[OptimizerInBackward]
                } else {
                    &[]
                };
                [
                    &[Method, Framework, Release, Weights, Context, Images, Batch][..],
                    adapter,
                    &[
                        Optimizer,
                        Precision,
                        Checkpointing,
                        ActivationOffload,
                        Compile,
                        FlashAttention,
                        FusedCe,
                    ],
                    in_backward,
                ]
                .concat()
                .into_iter()
                .chain([
                    Zero,
                    Offload,
                    Ram,
                    Cards,
                    Convention,
                    Tight,
                    TrainTokens,
                    Epochs,
                    Utilization,
                    Hours,
                    Currency,
                    Rank,
                    CardClass,
                    Deadline,
                ])
                .collect()
            }
        }
    }

    /// The rows shown for a scenario: its method's, less the serving engines' own rows when
    /// another engine is chosen (n_ubatch is llama.cpp's, max_num_seqs vLLM's).
    pub fn for_scenario(sc: &Scenario) -> Vec<Knob> {
        Self::for_method(sc.method)
            .into_iter()
            .filter(|k| match k {
                Knob::Ubatch => sc.framework.is_ggml(),
                // Only a runtime whose rules change by release has one to pick.
                Knob::Release => !crate::engine::workload::version::rule_releases(sc.framework).is_empty(),
                Knob::MaxNumSeqs => sc.framework == Framework::Vllm,
                // llama.cpp has no prefill chunk of its own: n_ubatch is its step.
                Knob::MaxBatchedTokens => !sc.framework.is_ggml(),
                // A bandwidth belongs to RAM the plan has.
                Knob::RamBandwidth => sc.host.is_some(),
                _ => true,
            })
            .collect()
    }

    /// The row's name in the current language (`knob.<id>` in the message files).
    pub fn label(self, method: Method) -> String {
        if self == Knob::Context && method.is_training() {
            return crate::tr!("knob.sequence");
        }
        crate::present::i18n::message(&format!("knob.{}", self.id()))
    }

    /// The row's id, as the message files name it.
    pub fn id(self) -> &'static str {
        match self {
            Knob::Method => "method",
            Knob::Framework => "framework",
            Knob::Release => "release",
            Knob::Weights => "weights",
            Knob::Kv => "kv",
            Knob::Context => "context",
            Knob::Batch => "batch",
            Knob::LoraRank => "lora_rank",
            Knob::LoraTargets => "lora_targets",
            Knob::Optimizer => "optimizer",
            Knob::Precision => "precision",
            Knob::Checkpointing => "checkpointing",
            Knob::ActivationOffload => "activation_offload",
            Knob::Compile => "compile",
            Knob::FlashAttention => "flash_attention",
            Knob::FusedCe => "fused_ce",
            Knob::OptimizerInBackward => "optimizer_in_backward",
            Knob::Zero => "zero",
            Knob::Offload => "offload",
            Knob::Cards => "cards",
            Knob::Split => "split",
            Knob::Prompt => "prompt",
            Knob::MaxBatchedTokens => "max_batched_tokens",
            Knob::MaxNumSeqs => "max_num_seqs",
            Knob::Ubatch => "ubatch",
            Knob::GpuUtil => "gpu_util",
            Knob::Convention => "convention",
            Knob::Tight => "tight",
            Knob::Hours => "hours",
            Knob::Currency => "currency",
            Knob::Rank => "rank",
            Knob::TrainTokens => "train_tokens",
            Knob::Epochs => "epochs",
            Knob::Utilization => "utilization",
            Knob::Ram => "ram",
            Knob::RamBandwidth => "ram_bandwidth",
            Knob::CardClass => "card_class",
            Knob::Images => "images",
            Knob::Users => "users",
            Knob::MinTps => "min_tps",
            Knob::MaxTtft => "max_ttft",
            Knob::Deadline => "deadline",
        }
    }

    /// Knobs the quick rules fix (shown, but they change nothing there): the quick rules
    /// assume AdamW in mixed precision, checkpointing, attention-only adapters, one process,
    /// and the whole card.
    pub fn calibrated_only(self) -> bool {
        matches!(
            self,
            Knob::LoraTargets
                | Knob::Optimizer
                | Knob::Precision
                | Knob::Checkpointing
                | Knob::ActivationOffload
                | Knob::Compile
                | Knob::FlashAttention
                | Knob::FusedCe
                | Knob::OptimizerInBackward
                | Knob::Zero
                | Knob::Offload
                | Knob::GpuUtil
                | Knob::MaxBatchedTokens
                | Knob::MaxNumSeqs
                | Knob::Ubatch
                | Knob::Framework
                | Knob::Release
                | Knob::Ram
                | Knob::RamBandwidth
        )
    }

    /// The value this row holds when it is one a preset or the method gives a default to:
    /// turning it makes the value the user's (kept when the framework or method changes).
    pub fn setting(self, sc: &Scenario) -> Option<Setting> {
        use Setting as S;
        Some(match self {
            Knob::Weights => S::Weights(sc.weights),
            Knob::Kv => S::Kv(sc.kv),
            Knob::Context => S::Context(sc.context),
            Knob::Batch => S::Batch(sc.batch),
            Knob::LoraTargets => S::LoraTargets(sc.lora_targets),
            Knob::Optimizer => S::Optimizer(sc.optimizer),
            Knob::Precision => S::TrainingPrecision(sc.training_precision),
            Knob::Checkpointing => S::Checkpointing {
                on: sc.checkpointing,
                selective: sc.selective_checkpointing,
            },
            Knob::ActivationOffload => S::ActivationOffload(sc.activation_offload),
            Knob::Compile => S::Compile(sc.compile),
            Knob::FlashAttention => S::FlashAttention(sc.flash_attention),
            Knob::FusedCe => S::FusedCe(sc.fused_ce),
            Knob::OptimizerInBackward => S::OptimizerInBackward(sc.optimizer_in_backward),
            Knob::Zero => S::Zero(sc.zero),
            Knob::Split => S::Split(sc.split),
            Knob::MaxBatchedTokens => S::MaxBatchedTokens(sc.max_batched_tokens),
            Knob::MaxNumSeqs => S::MaxNumSeqs(sc.max_num_seqs),
            Knob::Ubatch => S::Ubatch(sc.ubatch),
            Knob::GpuUtil => S::GpuUtil(sc.gpu_util),
            _ => return None,
        })
    }

    /// Turn the knob one step up or down (a ranking knob turns `sort_by`); the numbers
    /// stay in their ranges. A value a preset or the method covers becomes the user's, and
    /// the others follow the method and framework (see [`settle`]).
    pub fn turn(self, sc: &mut Scenario, sort_by: &mut SortBy, user: &mut UserSet, up: bool) {
        match self {
            Knob::Method => next_method(sc, up),
            Knob::Framework => next_framework(sc, up),
            Knob::Release => next_release(sc, up),
            Knob::Weights => next_weights(sc, up),
            Knob::Kv => {
                // Only the runtime's own cache formats (vLLM has no q8_0, llama.cpp no FP8).
                sc.kv = cycle(sc.kv, up);
                while !sc.framework.has_kv(sc.kv) {
                    sc.kv = cycle(sc.kv, up);
                }
            }
            Knob::Context => sc.context = step(CONTEXT_STEPS, sc.context, up),
            Knob::Batch => sc.batch = step(BATCH_STEPS, sc.batch, up),
            Knob::LoraRank => sc.lora_rank = step(RANK_STEPS, sc.lora_rank, up),
            Knob::LoraTargets => sc.lora_targets = cycle(sc.lora_targets, up),
            Knob::Optimizer => sc.optimizer = cycle(sc.optimizer, up),
            Knob::Precision => sc.training_precision = cycle(sc.training_precision, up),
            // off → on → selective → off.
            Knob::Checkpointing => {
                let modes = [(false, false), (true, false), (true, true)];
                let now = modes
                    .iter()
                    .position(|m| *m == (sc.checkpointing, sc.checkpointing && sc.selective_checkpointing))
                    .unwrap_or(1);
                let next = if up { (now + 1) % 3 } else { (now + 2) % 3 };
                (sc.checkpointing, sc.selective_checkpointing) = modes[next];
            }
            Knob::ActivationOffload => sc.activation_offload = !sc.activation_offload,
            Knob::Compile => sc.compile = !sc.compile,
            // llama.cpp's block-quantized cache needs flash attention: the row stays on.
            Knob::FlashAttention
                if sc.framework.is_ggml() && sc.flash_attention && sc.kv.is_block_quantized() => {}
            Knob::FlashAttention => sc.flash_attention = !sc.flash_attention,
            Knob::FusedCe => sc.fused_ce = !sc.fused_ce,
            Knob::OptimizerInBackward => sc.optimizer_in_backward = !sc.optimizer_in_backward,
            Knob::Zero => sc.zero = if up { (sc.zero + 1) % 4 } else { (sc.zero + 3) % 4 },
            Knob::Offload => sc.offload = cycle(sc.offload, up),
            Knob::Cards => sc.cards = step(CARD_STEPS, u64::from(sc.cards), up) as u32,
            Knob::Split => {
                sc.split = cycle(sc.split, up);
                if !sc.framework.has_split(sc.split) {
                    sc.split = cycle(sc.split, up);
                }
            }
            Knob::Prompt => sc.prompt = step(CONTEXT_STEPS, sc.prompt, up),
            Knob::MaxBatchedTokens => sc.max_batched_tokens = step(PREFILL_STEPS, sc.max_batched_tokens, up),
            Knob::MaxNumSeqs => sc.max_num_seqs = step(BATCH_STEPS, sc.max_num_seqs, up),
            Knob::Ubatch => sc.ubatch = step(UBATCH_STEPS, sc.ubatch, up),
            Knob::GpuUtil => {
                let pos = GPU_UTIL_STEPS
                    .iter()
                    .position(|u| (*u - sc.gpu_util).abs() < 1e-9);
                let i = match (pos, up) {
                    (Some(p), true) => (p + 1).min(GPU_UTIL_STEPS.len() - 1),
                    (Some(p), false) => p.saturating_sub(1),
                    (None, _) => GPU_UTIL_STEPS.iter().position(|u| *u >= sc.gpu_util).unwrap_or(0),
                };
                sc.set_gpu_util(GPU_UTIL_STEPS[i]);
            }
            Knob::Convention => sc.convention = cycle(sc.convention, up),
            Knob::Hours => sc.rent.hours = step(HOUR_STEPS, sc.rent.hours as u64, up) as f64,
            Knob::Currency => {
                sc.rent.display_currency = if sc.rent.display_currency == "USD" {
                    "CNY".into()
                } else {
                    "USD".into()
                }
            }
            Knob::Rank => *sort_by = cycle(*sort_by, up),
            Knob::TrainTokens => {
                let now = sc.rent.train_tokens.unwrap_or(0);
                let next = step(TRAIN_TOKEN_STEPS, now, up);
                sc.rent.train_tokens = (next > 0).then_some(next);
            }
            Knob::Epochs => sc.rent.epochs = step(EPOCH_STEPS, u64::from(sc.rent.epochs), up) as u32,
            Knob::Utilization => {
                let v = (sc.rent.utilization * 100.0).round() as u64;
                sc.rent.utilization = step(UTILIZATION_STEPS, v, up) as f64 / 100.0;
            }
            Knob::Ram => super::host_knobs::turn_ram(sc, up),
            Knob::CardClass => super::host_knobs::turn_class(sc, up),
            Knob::Images => sc.images = step(IMAGE_STEPS, u64::from(sc.images), up) as u32,
            Knob::Users => super::target_knobs::turn(super::target_knobs::Row::Users, sc, sort_by, up),
            Knob::MinTps => super::target_knobs::turn(super::target_knobs::Row::MinTps, sc, sort_by, up),
            Knob::MaxTtft => super::target_knobs::turn(super::target_knobs::Row::MaxTtft, sc, sort_by, up),
            Knob::Deadline => super::target_knobs::turn(super::target_knobs::Row::Deadline, sc, sort_by, up),
            Knob::RamBandwidth => super::host_knobs::turn_ram_bandwidth(sc, up),
            Knob::Tight => {
                let pos = TIGHT_RULES.iter().position(|r| *r == sc.tight_rule).unwrap_or(0);
                let n = TIGHT_RULES.len();
                sc.tight_rule = TIGHT_RULES[if up { (pos + 1) % n } else { (pos + n - 1) % n }];
            }
        }
        // A step never leaves a knob's range (the one the CLI and plan files check).
        sc.clamp_to_ranges();
        if let Some(chosen) = self.setting(sc) {
            user.set(chosen);
        }
        settle(sc, user);
    }
}

/// The planner's knobs as `plan` sets them with the user's values as flags
/// (`settle::settle`, the function the CLI uses). One difference: a weight format the
/// user chose that the method cannot use (BF16 under QLoRA), or that the runtime cannot run,
/// waits, and the default stands in until a method or runtime that takes it comes back.
pub fn settle(sc: &mut Scenario, user: &UserSet) {
    let mut usable = user.clone();
    if let Some(chosen) = user.get(Setting::Weights(sc.weights)) {
        let mut trial = sc.clone();
        chosen.apply(&mut trial);
        if trial.check_combination().is_err() {
            usable.unset(chosen);
        }
    }
    // So does any choice the runtime cannot run (`Scenario::check_runtime`, the CLI's refusal):
    // a KV format it lacks (q8_0, then vLLM), a split it cannot make (tensor, then Ollama),
    // flash attention off under llama.cpp's block-quantized cache. Each refusal names its
    // flag; the user's value for that flag waits, and the default stands in.
    let settled = sc.clone();
    for _ in 0..Setting::all_of(sc).len() {
        *sc = settled.clone();
        crate::engine::runtimes::settle::settle(sc, &usable);
        let Err(refused) = sc.check_runtime() else {
            return;
        };
        let Some(chosen) = usable
            .settings()
            .iter()
            .copied()
            .find(|s| s.flag() == refused.flag)
        else {
            return;
        };
        usable.unset(chosen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpointing_turns_through_off_on_and_selective() {
        let mut sc = Scenario::seed_training(crate::engine::Method::Full).calibrated();
        let mut sort = SortBy::Price;
        let mut user = UserSet::default();
        let mode = |sc: &Scenario| (sc.checkpointing, sc.selective_checkpointing);
        assert_eq!(mode(&sc), (true, false));
        Knob::Checkpointing.turn(&mut sc, &mut sort, &mut user, true);
        assert_eq!(mode(&sc), (true, true));
        Knob::Checkpointing.turn(&mut sc, &mut sort, &mut user, true);
        assert_eq!(mode(&sc), (false, false));
        Knob::Checkpointing.turn(&mut sc, &mut sort, &mut user, false);
        assert_eq!(mode(&sc), (true, true));
    }
}
