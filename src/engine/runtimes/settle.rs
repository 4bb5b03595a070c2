//! What each covered knob ends up as: the method's default, then the runtime's preset,
//! then what the user set (`UserSet`). The CLI's flags and the planner's turned rows both
//! go through [`settle`], so a key sequence and the equivalent flags agree.

use crate::engine::runtimes::presets::Setting;
use crate::engine::workload::scenario::Scenario;

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
    // llama.cpp quantizes the V cache only with flash attention (it refuses `-ctv q8_0`
    // without it; Ollama falls back to f16): a block-quantized cache brings flash attention
    // on, unless the user turned it off, which `Scenario::validate` then refuses.
    if framework.is_ggml() && sc.kv.is_block_quantized() && user.get(Setting::FlashAttention(false)).is_none()
    {
        sc.flash_attention = true;
    }
    // vLLM's and SGLang's batch defaults follow the card where the user left them unset:
    // vLLM fills each of the two it was not given (SGLang has the chunk alone).
    let serving = matches!(
        framework,
        crate::engine::workload::runtime::Framework::Vllm
            | crate::engine::workload::runtime::Framework::Sglang
    );
    sc.batch_tokens_set = serving && user.get(Setting::MaxBatchedTokens(0)).is_some();
    sc.num_seqs_set = framework == crate::engine::workload::runtime::Framework::Vllm
        && user.get(Setting::MaxNumSeqs(0)).is_some();
    sc.card_batch_defaults = match framework {
        crate::engine::workload::runtime::Framework::Vllm => !(sc.batch_tokens_set && sc.num_seqs_set),
        crate::engine::workload::runtime::Framework::Sglang => !sc.batch_tokens_set,
        _ => false,
    };
    // Ollama's num_ctx follows the cards' VRAM (0.15.5 on), llama.cpp's --fit fills the
    // cards (b7437 on), unless the user set a context.
    sc.card_context_default = match (framework, sc.version()) {
        (crate::engine::workload::runtime::Framework::Ollama, Some(v)) => {
            v >= crate::engine::workload::version::Version::Release(0, 15, 5)
        }
        (crate::engine::workload::runtime::Framework::LlamaCpp, Some(v)) => {
            crate::engine::runtimes::release::llama_cpp_fit(v)
        }
        _ => false,
    } && user.get(Setting::Context(0)).is_none();
}

/// The serving engine's share of each card of `gpu` on an option of `count` cards: SGLang
/// (0.5.3 on) reads its `mem_fraction_static` off the card's memory and the tensor-parallel
/// size (`release::sglang_defaults`), else [`Scenario::gpu_util_on`]. A settled knob: the
/// share the user or the preset set holds unless SGLang picks it per card.
pub fn gpu_util_for(sc: &Scenario, gpu: &crate::engine::hardware::gpu::Gpu, count: u32) -> f64 {
    match sc.version() {
        Some(v)
            if sc.framework == crate::engine::workload::runtime::Framework::Sglang
                && sc.gpu_util_by_count =>
        {
            crate::engine::runtimes::release::sglang_defaults(v, gpu.sglang_memory_mib(), count, false).0
        }
        _ => sc.gpu_util_on(count),
    }
}
