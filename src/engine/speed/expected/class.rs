//! What limits a run's speed below its ceiling, as a class: the runtime family (its
//! kernels and per-token overheads), the hardware class (what memory the ceiling reads) and
//! the modifiers the published runs show to matter. A run's class is a list of keys from
//! the finest to the coarsest; the figure comes from the finest key with enough runs.
//!
//! Long context is no modifier: the ceiling already reads the KV at the run's context, and
//! the runs measured at depth (llama-bench `tg32 @ d32768` on GB10, `tg64 @ d4096` on the
//! RX 7900 XTX, mlx-lm at 30K) reach about the share of their ceiling they reach at depth
//! 0: within two points but for mlx-lm's 70B (92 % → 83 %), and as often up as down. Batch is one: at batch > 1 the aggregate ceiling (bandwidth or compute)
//! is far from what the batched kernels reach.
//!
//! A batched MoE is a class of its own (`moe-batch`), apart from a batched dense model: the
//! roofline reads one token's active experts once per step, while a batch routes its tokens
//! to many more, so the ceiling overstates it. The serving runs show it: per-user speed at
//! 4 to 64 concurrent requests reaches 3–9 % of the per-stream ceiling for gpt-oss-120b and
//! DeepSeek-R1 (16 runs) against 24–65 % for dense models (12 runs), and llama.cpp's batched
//! gpt-oss on GB10 20 % against 58 % for a dense 7B. Together the decode median |error| was
//! 17.7 % in sample and 23.0 % leave-one-out; split, 14.0 % and 18.0 %. Batch size itself
//! is no split: the dense runs from 5 to 100 concurrent requests reach 40–65 %.
//!
//! A MoE keeps to its memory: its class never falls back to the family's MoE runs on
//! another memory. Its few active weights are read fast from HBM, so the fixed per-step
//! costs weigh more: vLLM and SGLang MoE runs reach 2–21 % of the ceiling on HBM, vLLM's
//! gpt-oss-120b on GB10 62–64 %. Without the fallback the MoE median |error| is 12.2 % in
//! sample and 15.2 % leave-one-out (14.0 % and 17.4 % with it).

use crate::engine::hardware::gpu::{Gpu, GpuClass};
use crate::engine::model::precision::WeightPrecision;
use crate::engine::workload::runtime::Framework;

/// The runtime family: runtimes that share kernels and per-token costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// llama.cpp and Ollama (GGML kernels on CUDA, ROCm, Vulkan, Metal, SYCL).
    Ggml,
    /// vLLM, SGLang and TensorRT-LLM: CUDA graphs, fused kernels, paged attention.
    Serving,
    /// Hugging Face Transformers (and AutoAWQ on it): eager PyTorch, a launch per op.
    Transformers,
    /// MLX (mlx-lm, vllm-mlx) on Apple chips.
    Mlx,
    /// gpt-fast: PyTorch with torch.compile.
    GptFast,
    /// Anything else (MLC, ExLlama, IPEX-LLM, KTransformers): no class of its own but
    /// offloaded (KTransformers' runs, `offload · other`).
    Other,
}

impl Family {
    pub const ALL: [Family; 6] = [
        Self::Ggml,
        Self::Serving,
        Self::Transformers,
        Self::Mlx,
        Self::GptFast,
        Self::Other,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Self::Ggml => "ggml",
            Self::Serving => "serving",
            Self::Transformers => "transformers",
            Self::Mlx => "mlx",
            Self::GptFast => "gpt-fast",
            Self::Other => "other",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.id() == id)
    }

    /// The family a plan's runtime belongs to. A plan with no runtime of its own
    /// (`generic`) is read from what it runs: GGUF weights are llama.cpp's, anything else on
    /// an Apple chip is MLX's, and anything else on a discrete card a serving engine's,
    /// the runtimes those weights are published for.
    pub fn of_plan(framework: Framework, weights: WeightPrecision, gpu: GpuClass) -> Self {
        match framework {
            Framework::LlamaCpp | Framework::Ollama => Self::Ggml,
            Framework::Vllm | Framework::Sglang => Self::Serving,
            Framework::Generic if weights.is_gguf() => Self::Ggml,
            Framework::Generic if gpu == GpuClass::Apple => Self::Mlx,
            Framework::Generic => Self::Serving,
            _ => Self::Transformers,
        }
    }
}

/// The hardware class: what kind of memory the ceiling reads, and how close its kernels
/// come to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hardware {
    /// Datacenter cards on HBM (and their slices).
    Hbm,
    /// Consumer and workstation cards on GDDR.
    Gddr,
    /// GPUs sharing the host's LPDDR (Strix Halo, GB10, Lunar Lake).
    Integrated,
    /// Apple's unified memory.
    Apple,
}

impl Hardware {
    /// A card's hardware class: Apple's chips, the other unified-memory GPUs, then what
    /// its memory is (a datacenter card on GDDR, the L40S or P40, reads like a consumer one).
    pub fn of(gpu: &Gpu) -> Self {
        match gpu.class() {
            GpuClass::Apple => Self::Apple,
            GpuClass::Integrated => Self::Integrated,
            _ if gpu.memory_type.to_ascii_uppercase().contains("HBM") => Self::Hbm,
            _ => Self::Gddr,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Self::Hbm => "hbm",
            Self::Gddr => "gddr",
            Self::Integrated => "integrated",
            Self::Apple => "apple",
        }
    }
}

/// The kernel family a weight format decodes through.
pub fn kernel(weights: WeightPrecision) -> &'static str {
    use WeightPrecision as W;
    match weights {
        W::Q6K | W::Q5KM | W::Q4KM | W::Q3KM | W::Q2K => "k-quant",
        W::Q4_0 | W::Q8_0 => "legacy-quant",
        W::Fp32 | W::Bf16 | W::Fp16 => "16-bit",
        W::Mxfp4 => "mxfp4",
        W::Fp4 => "fp4",
        W::Fp8 => "fp8",
        W::Int8 => "int8",
        W::Int4 => "int4",
        W::Nf4 | W::Nf4Dq => "nf4",
    }
}

/// Models this small pay fixed per-token costs (launches, sampling) that the weights'
/// read no longer hides: ≤ 3.5 billion parameters (TinyLlama, Llama 3.2 3B, Qwen3 0.6B).
pub const SMALL_MODEL_PARAMS: f64 = 3.5e9;

/// What one decode run (or plan option) is, for its class.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    pub family: Family,
    pub hardware: Hardware,
    pub weights: WeightPrecision,
    /// Total parameters.
    pub params: f64,
    pub moe: bool,
    /// Sequences decoded at once.
    pub batch: u64,
    /// Part of the weights read from host RAM.
    pub offload: bool,
}

impl Shape {
    /// The one modifier that names the run's sub-class, in the order the data shows
    /// matters most: offload (RAM sets the pace), batch (aggregate up to compute; a batched
    /// MoE apart, its ceiling reading one token's experts), MoE
    /// (routing and many small expert reads at batch 1), a small model (fixed per-token
    /// costs), then the weight format's kernel.
    pub fn modifier(&self) -> String {
        if self.offload {
            "offload".into()
        } else if self.batch > 1 && self.moe {
            "moe-batch".into()
        } else if self.batch > 1 {
            "batch".into()
        } else if self.moe {
            "moe".into()
        } else if self.params <= SMALL_MODEL_PARAMS {
            "small".into()
        } else {
            kernel(self.weights).into()
        }
    }

    /// The keys of the run's decode class, finest first: family · hardware · modifier;
    /// then family · modifier (the same kernels on another memory, where the hardware
    /// alone has too few runs; never for a MoE); then family · hardware, for a single
    /// stream only.
    ///
    /// A run offloaded to RAM has only the offload classes: host RAM, not the card, sets its
    /// pace, so neither the card's memory nor the kernel modifiers apply. They split by
    /// family, `offload · ggml` then `offload`: the CPU's expert kernels are the runtime's
    /// own, and KTransformers' (`other`, 6 runs, 37–51 % of the placement's ceiling) sit
    /// apart from llama.cpp's and ik_llama.cpp's (14 runs, median 46 %); the split takes the
    /// offloaded runs' median |error| from 16 % to 12 % in sample and 17 % to 14 % leave-one-
    /// out. Only runtimes that compute in RAM (ggml, KTransformers) fall back to `offload`:
    /// vLLM's and SGLang's streamed weights go at PCIe's pace, which no run measured. No
    /// finer split: every mapped run keeps experts in RAM (none whole layers with a stated
    /// bandwidth), so a plan that spills whole layers takes its family's class too.
    pub fn decode_keys(&self) -> Vec<String> {
        if self.offload {
            let own = format!("offload · {}", self.family.id());
            return match self.family {
                Family::Ggml | Family::Other => vec![own, "offload".into()],
                // The streaming engines copy RAM's weights over PCIe every step
                // (`--cpu-offload-gb`): no run measured it, and no CPU reads experts in place.
                _ => vec![own],
            };
        }
        let (f, h, m) = (self.family.id(), self.hardware.id(), self.modifier());
        // A batched run never falls back into a single stream's class, nor the reverse: the
        // batched kernels reach a share of the aggregate ceiling unlike one sequence's.
        // A MoE never borrows another memory's MoE runs: its share of the ceiling follows how
        // fast the memory reads its few active weights against the step's fixed costs.
        let across = (!self.moe).then(|| format!("{f} · {m}"));
        if self.batch > 1 {
            return [Some(format!("{f} · {h} · {m}")), across]
                .into_iter()
                .flatten()
                .collect();
        }
        [
            Some(format!("{f} · {h} · {m}")),
            across,
            Some(format!("{f} · {h}")),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The keys of the run's prefill class, finest first: family · hardware, then family
    /// (prefill is compute-bound: the memory kind matters less than the kernels).
    pub fn prefill_keys(&self) -> Vec<String> {
        vec![
            format!("{} · {}", self.family.id(), self.hardware.id()),
            self.family.id().to_string(),
        ]
    }
}

/// The framework id a family's plan runs under, for a run re-planned with it.
pub fn framework_of(family: Family) -> Framework {
    match family {
        Family::Ggml => Framework::LlamaCpp,
        Family::Serving => Framework::Vllm,
        Family::Transformers => Framework::Transformers,
        Family::Mlx | Family::GptFast | Family::Other => Framework::Generic,
    }
}
