//! The one judge. Whether a scenario fits an option (a card and a count), and how much is
//! free, is decided here and nowhere else: the cards table, the bar, explain, A/B, `fit`,
//! the JSON and every limit (longest context, largest batch, concurrent sequences,
//! headroom) ask [`judge`]. A limit is never a second formula: it is the largest value at
//! which [`judge`] still says the plan fits, found by search over the engine's own
//! arithmetic (memory never falls when context or batch rise; a property test holds the
//! engine to that).
//!
//! What an option can run is judged here too ([`unsupported_reason`]): formats the card
//! (under the runtime) cannot run, tensor-parallel counts the attention heads do not divide,
//! multi-card set-ups no runtime starts.

use crate::engine::hardware::gpu::{Gpu, LinkKind};
use crate::engine::memory;
use crate::engine::memory::breakdown::Breakdown;
use crate::engine::memory::breakdown::equal_share;
use crate::engine::model::Model;
use crate::engine::model::precision::WeightPrecision;
use crate::engine::verdict::{Reason, TIGHT_PER_CARD_BYTES, TIGHT_SINGLE_BYTES, Verdict};
use crate::engine::workload::runtime::Framework;
use crate::engine::workload::scenario::{Convention, Method, Scenario, Split, TightRule};

pub use crate::engine::hardware::host::CARDS_PER_NODE;

/// What the judge says of one option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgement {
    pub verdict: Verdict,
    /// Why the option cannot run the plan at all; `None` for a fit, a tight fit or a plain
    /// shortfall (the caller names how many cards would hold it).
    pub unsupported: Option<Reason>,
    /// What the plan may use of each card (all of it, or the serving engine's share).
    pub usable_per_card: f64,
    /// Usable minus needed, per card (negative: the shortfall).
    pub free_per_card: f64,
}

impl Judgement {
    pub fn fits(&self) -> bool {
        self.verdict.is_fit()
    }

    /// A fit that is not tight.
    pub fn comfortable(&self) -> bool {
        self.verdict == Verdict::Fits
    }
}

/// The bytes one card offers under the scenario's rules: the marketed label for the quick
/// rules, what the runtime can allocate (CUDA-visible) for the calibrated ones.
pub fn card_capacity(gpu: &Gpu, scenario: &Scenario) -> f64 {
    match scenario.convention {
        Convention::Seed => gpu.memory_bytes(),
        Convention::Calibrated => match scenario.host.as_ref().and_then(|h| h.gpu_limit_bytes) {
            // A unified-memory GPU whose share the user raised (macOS iogpu.wired_limit_mb),
            // never past the machine's memory.
            Some(limit) if crate::engine::placement::is_unified(gpu) => limit.min(gpu.memory_bytes()),
            _ => gpu.memory_real_bytes(),
        },
    }
}

/// The share of each card a plan may use on `count` cards: a serving engine under the
/// calibrated rules takes its memory fraction (vLLM's `gpu_memory_utilization`, SGLang's
/// `mem_fraction_static`, which SGLang sets by tensor-parallel size: evaluated for this
/// option's count, not once for the plan), anything else all of it.
pub fn usable_fraction(scenario: &Scenario, gpu: &Gpu, count: u32) -> f64 {
    if scenario.convention == Convention::Calibrated && !scenario.method.is_training() {
        crate::engine::runtimes::settle::gpu_util_for(scenario, gpu, count)
    } else {
        1.0
    }
}

/// Whether the runtime takes a share of each card's total (a serving engine under the
/// calibrated rules: vLLM, SGLang, the generic engine modelled on vLLM), rather than
/// allocating what it needs (llama.cpp and Ollama, training, the quick rules).
fn takes_share_of_total(scenario: &Scenario) -> bool {
    scenario.convention == Convention::Calibrated
        && !scenario.method.is_training()
        && !scenario.framework.is_ggml()
        && !extensible_vllm(scenario)
}

/// vLLM 0.34's extensible KV cache skips the start-up check against `total × util` and sizes
/// the cache from what is free (`vllm/v1/worker/utils.py` `request_memory`: "the budget is
/// only a cap"): what others hold comes out of its share, as under SGLang.
fn extensible_vllm(scenario: &Scenario) -> bool {
    scenario.framework == Framework::Vllm
        && scenario
            .version()
            .is_some_and(crate::engine::runtimes::release::vllm_extensible_kv)
}

/// What the plan may use of each of `count` × `gpu`: its capacity, less what other
/// processes hold (a detected card's `in_use_bytes`), under the runtime's own rule:
/// - vLLM (and the generic serving engine the calibrated rules model on it) takes
///   `gpu_memory_utilization` × the card's TOTAL memory, busy or not, and refuses to start
///   when less than that is free (vllm/v1/worker/gpu_worker.py, `Worker.init_device`:
///   `requested_memory = total_memory * gpu_memory_utilization`, "Free memory on device …
///   on startup is less than desired GPU memory utilization"; the refusal is
///   [`Reason::Busy`]);
/// - SGLang keeps `(1 − mem_fraction_static)` × the total free and takes the rest of what
///   is free (python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py,
///   `profile_max_num_token`: `rest_memory = available_gpu_memory − total_gpu_memory ×
///   (1 − mem_fraction_static)`), so what others hold comes out of its share;
/// - everything else (training, llama.cpp, Ollama, the quick rules) allocates what it
///   needs from what is free.
pub fn usable_per_card(gpu: &Gpu, count: u32, scenario: &Scenario) -> f64 {
    let share = card_capacity(gpu, scenario) * usable_fraction(scenario, gpu, count);
    let in_use = gpu.in_use_bytes;
    if takes_share_of_total(scenario) && scenario.framework != Framework::Sglang {
        share
    } else {
        (share - in_use).max(0.0)
    }
}

/// vLLM's refusal to start on a card where others leave less than its share free.
fn busy_reason(gpu: &Gpu, count: u32, scenario: &Scenario) -> Option<Reason> {
    if gpu.in_use_bytes <= 0.0 || !takes_share_of_total(scenario) || scenario.framework == Framework::Sglang {
        return None;
    }
    let capacity = card_capacity(gpu, scenario);
    let wanted = capacity * usable_fraction(scenario, gpu, count);
    let free = (capacity - gpu.in_use_bytes).max(0.0);
    (free < wanted).then_some(Reason::Busy {
        free: free as u64,
        wanted: wanted as u64,
    })
}

/// Whether an option with `free` bytes left over all its cards is tight under `rule`.
pub fn is_tight(rule: TightRule, count: u32, need: f64, free: f64) -> bool {
    match rule {
        TightRule::Seed if count <= 1 => free < TIGHT_SINGLE_BYTES,
        TightRule::Seed => free / f64::from(count) < TIGHT_PER_CARD_BYTES,
        TightRule::Margin(fraction) => free < fraction * need,
    }
}

/// THE judge: `count` × `gpu` under `scenario`, each card needing `need_per_card` bytes.
pub fn judge(model: &Model, gpu: &Gpu, count: u32, scenario: &Scenario, need_per_card: f64) -> Judgement {
    let unsupported = unsupported_reason(model, gpu, count, scenario);
    judge_memory(gpu, count, scenario, need_per_card, unsupported)
}

/// The judge's verdict once what the option can run is known: the limit searches ask it
/// hundreds of times for one option, whose `unsupported` does not change with context or
/// batch.
pub(super) fn judge_memory(
    gpu: &Gpu,
    count: u32,
    scenario: &Scenario,
    need_per_card: f64,
    unsupported: Option<Reason>,
) -> Judgement {
    let usable = usable_per_card(gpu, count, scenario);
    let free = usable - need_per_card;
    let n = f64::from(count);
    let verdict = if unsupported.is_some() || free < 0.0 {
        Verdict::No
    } else if is_tight(scenario.tight_rule, count, need_per_card * n, free * n) {
        Verdict::Tight
    } else {
        Verdict::Fits
    };
    Judgement {
        verdict,
        unsupported,
        usable_per_card: usable,
        // A shortfall that rounds to nothing is still a shortfall, and a fit never shows
        // "-0.0": keep the sign honest.
        free_per_card: if free == 0.0 { 0.0 } else { free },
    }
}

/// Whether `gpu` runs `weights` under the scenario's runtime. The quick rules keep the
/// GPU Rent Hub guide's rule (FP8 needs FP8 tensor cores: Ada, Hopper, Blackwell, CDNA 3);
/// under vLLM an FP8 checkpoint also runs on Ampere as weight-only W8A16 through its FP8
/// Marlin kernel ("FP8 models will run on compute capability > 8.0 (Ampere) as weight-only
/// W8A16, utilizing FP8 Marlin": docs.vllm.ai, Quantization → FP8 W8A8). llama.cpp and
/// Ollama load GGUF files only (plus their 16/32-bit types).
pub fn runs_format(gpu: &Gpu, scenario: &Scenario, weights: WeightPrecision) -> bool {
    let ggml = scenario.convention == Convention::Calibrated && scenario.framework.is_ggml();
    // MXFP4 is a GGUF type too (ggml's GGML_TYPE_MXFP4, gpt-oss's own GGUF files).
    if ggml && !(weights.is_gguf() || weights == WeightPrecision::Mxfp4 || weights.is_float16_or_wider()) {
        return false;
    }
    if weights.needs_fp8_hardware() && !gpu.fp8 {
        return scenario.convention == Convention::Calibrated
            && scenario.framework == Framework::Vllm
            && is_ampere_or_newer_nvidia(gpu);
    }
    true
}

/// NVIDIA cards of compute capability 8.0 or newer (Ampere, Ada, Hopper, Blackwell).
fn is_ampere_or_newer_nvidia(gpu: &Gpu) -> bool {
    let arch = gpu.architecture.to_ascii_lowercase();
    gpu.stack == crate::engine::hardware::gpu::Stack::Cuda
        && ["ampere", "ada", "hopper", "blackwell"]
            .iter()
            .any(|a| arch.contains(a))
}

/// Why `count` × `gpu` can never run this scenario, whatever its memory.
pub fn unsupported_reason(model: &Model, gpu: &Gpu, count: u32, scenario: &Scenario) -> Option<Reason> {
    if !runs_format(gpu, scenario, scenario.weights) {
        return Some(if scenario.weights.needs_fp8_hardware() {
            Reason::NoFp8
        } else {
            Reason::NoFormat
        });
    }
    if let Some(busy) = busy_reason(gpu, count, scenario) {
        return Some(busy);
    }
    if count <= 1 {
        return None;
    }
    // Slices of one card (MIG, vGPU) share its memory bus; runtimes place one model per
    // slice. (Asked first: a slice has no link of its own either.)
    if gpu.is_slice() {
        return Some(Reason::SharedSlice);
    }
    // One pool shared by CPU and GPU (Apple, unified-memory boxes): there is no second
    // device in the machine to split over, and runtimes do not split across machines
    // over PCIe.
    if gpu.link == LinkKind::None {
        return Some(Reason::SingleDevice);
    }
    if scenario.method == Method::Full && !gpu.link.is_node_wide() {
        return Some(Reason::NeedsFabric);
    }
    if !scenario.method.is_training() {
        // Serving beyond one server is pipeline or tensor parallel over the network, which
        // the plan does not price: offered only within a node.
        if count > CARDS_PER_NODE {
            return Some(Reason::BeyondOneNode(CARDS_PER_NODE));
        }
        if scenario.split == Split::Tensor && !tensor_parallel_divides(model, count) {
            return Some(Reason::HeadsIndivisible(model.arch.heads));
        }
    }
    None
}

/// Whether tensor parallel over `count` cards splits the model as vLLM requires: the
/// attention heads divide by the count, and the KV heads either divide by it or (fewer KV
/// heads than cards) are copied, the count dividing by them (vLLM's
/// `ModelConfig.verify_with_parallel_config` and the KV-head replication of
/// `get_num_kv_heads`).
pub fn tensor_parallel_divides(model: &Model, count: u32) -> bool {
    let n = u64::from(count);
    let a = &model.arch;
    if n <= 1 {
        return true;
    }
    if a.heads == 0 || !a.heads.is_multiple_of(n) {
        return false;
    }
    let kv = a.kv_heads.max(1);
    if kv >= n {
        kv.is_multiple_of(n)
    } else {
        n.is_multiple_of(kv)
    }
}

/// The breakdown one of `count` cards holds under `scenario`: the calibrated rules re-plan
/// for the count (sharded state, split weights, copied KV heads); the quick rules give each
/// card an equal share of the whole.
pub fn breakdown_per_card(model: &Model, scenario: &Scenario, count: u32) -> Breakdown {
    let sc = Scenario {
        cards: count,
        ..scenario.clone()
    };
    breakdown_for_count(model, &sc, count)
}

/// The same for a scenario whose `cards` is already `count`.
pub(super) fn breakdown_for_count(model: &Model, sc: &Scenario, count: u32) -> Breakdown {
    let b = memory::breakdown(model, sc);
    match sc.convention {
        Convention::Seed if count > 1 => equal_share(&b, count),
        _ => b,
    }
}
