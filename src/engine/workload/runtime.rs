//! The runtime a plan is drawn for (vLLM, SGLang, llama.cpp, Ollama, the training
//! frameworks): its id, what it runs, and its memory fraction by card count. The scenario
//! holds one; the presets (`framework`) and the calibrated rules read it. A leaf beside
//! `workload` and `defaults`, so the scenario does not depend on the presets.

use serde::Serialize;

use crate::engine::basics::choice::Choice;
use crate::engine::model::precision::KvPrecision;
use crate::engine::workload::choices::Method;
use crate::engine::workload::defaults::sglang_fraction;

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

    /// Whether this runtime has a KV cache in `kv`: vLLM and SGLang have no llama.cpp block
    /// formats (`--kv-cache-dtype` is auto or an FP8), llama.cpp no FP8 cache (`-ctk` takes
    /// f16, bf16, q8_0, q4_0…), Ollama f16, q8_0 and q4_0 (`OLLAMA_KV_CACHE_TYPE`). The
    /// generic rules and the trainers take any.
    pub fn has_kv(self, kv: KvPrecision) -> bool {
        match self {
            Framework::Vllm | Framework::Sglang => !kv.is_block_quantized(),
            Framework::LlamaCpp => kv != KvPrecision::Fp8,
            Framework::Ollama => matches!(kv, KvPrecision::Fp16 | KvPrecision::Q8_0 | KvPrecision::Q4_0),
            _ => true,
        }
    }

    /// Whether this runtime can split a model over cards by `split`: Ollama splits by layer
    /// only (llama.cpp's `-sm row` is not among its settings); the rest take either.
    pub fn has_split(self, split: crate::engine::workload::choices::Split) -> bool {
        !(self == Framework::Ollama && split == crate::engine::workload::choices::Split::Tensor)
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

    /// The memory fraction this framework's own rule gives an option of `count` cards,
    /// where its preset follows the count (SGLang); `None` where it is one value.
    pub fn gpu_util_for_count(self, count: u32) -> Option<f64> {
        (self == Self::Sglang).then(|| sglang_fraction(count))
    }
}
