//! Runtime defaults that follow the card: vLLM's V1 engine picks `max_num_batched_tokens`
//! and `max_num_seqs` from the device's total memory, SGLang its `chunked_prefill_size` (`vllm/engine/arg_utils.py`,
//! `get_batch_defaults`; docs/notes/runtime-rules.md), so one scenario profiles
//! differently on an RTX 4090 and on an H100. Every path that meets a card — the plan's
//! options, one option's judgement, the explain view, `fit` — asks [`on_card`] for the
//! scenario that card runs, so they agree.

use crate::engine::hardware::gpu::Gpu;
use crate::engine::model::Model;
use crate::engine::model::precision::WeightPrecision;
use crate::engine::runtimes::release;
use crate::engine::workload::runtime::Framework;
use crate::engine::workload::scenario::Scenario;
use crate::engine::workload::version::Version;

const GIB: f64 = 1_073_741_824.0;

/// `vllm serve`'s batch defaults on a card of `total_bytes` named `name` (see
/// [`vllm_batch`]).
pub fn vllm_serve_batch(version: Version, total_bytes: f64, name: &str, context: u64) -> (u64, u64) {
    vllm_batch(version, total_bytes, name, context, false)
}

/// vLLM's batch defaults on a card of `total_bytes` named `name`, for `vllm serve` or, with
/// `llm_class`, the `LLM` class: 16,384 tokens and 1,024 sequences from 160 GiB (0.28 on:
/// B200, B300), 8,192 (the `LLM` class 16,384) and 1,024 from 70 GiB except the A100
/// ("Setting large `max_num_batched_tokens` for A100 reduces throughput", PR #17885) and,
/// from 0.33, the GB10, else 2,048 (8,192) and 256. Then, from 0.12, the tokens never exceed
/// `max_num_seqs × max_model_len` and the sequences never exceed the tokens.
pub fn vllm_batch(
    version: Version,
    total_bytes: f64,
    name: &str,
    context: u64,
    llm_class: bool,
) -> (u64, u64) {
    let lower = name.to_ascii_lowercase();
    let gb10 = lower.contains("gb10") || lower.contains("dgx spark");
    let (tokens, seqs): (u64, u64) = if version >= Version::Release(0, 28, 0) && total_bytes >= 160.0 * GIB {
        (16_384, 1024)
    } else if total_bytes >= 70.0 * GIB
        && !lower.contains("a100")
        && !(gb10 && version >= Version::Release(0, 33, 0))
    {
        (if llm_class { 16_384 } else { 8192 }, 1024)
    } else {
        (if llm_class { 8192 } else { 2048 }, 256)
    };
    if version >= Version::Release(0, 12, 0) {
        let tokens = tokens.min(seqs.saturating_mul(context.max(1)));
        (tokens, seqs.min(tokens))
    } else {
        (tokens, seqs)
    }
}

/// The scenario `gpu` runs under `sc`'s runtime: the batch defaults that follow the card
/// where the user left them unset (`sc.card_batch_defaults`), and the kernel that holds an
/// MXFP4 checkpoint's experts there; `None` when it is `sc` itself.
pub fn on_card(model: &Model, sc: &Scenario, gpu: &Gpu) -> Option<Scenario> {
    let mut on = batch_on_card(sc, gpu);
    if let Some(kernel) = mxfp4_on_card(on.as_ref().unwrap_or(sc), gpu) {
        on.get_or_insert_with(|| sc.clone()).mxfp4_moe = kernel;
    }
    if let Some(context) = context_on_card(model, on.as_ref().unwrap_or(sc), gpu) {
        let on = on.get_or_insert_with(|| sc.clone());
        // The cells allocated; a decode step still reads the conversation's own context.
        on.working_context = Some(sc.read_context());
        on.context = context;
    }
    on
}

/// Ollama's `num_ctx` on `sc.cards` of `gpu` where it follows their VRAM
/// ([`release::ollama_default_context`]) and differs from `sc`'s: never past the model's
/// training context. Every count of a card is planned at its own count's figure only where
/// the scenario names that count (`--cards`); the combos listed beside it keep it.
fn context_on_card(model: &Model, sc: &Scenario, gpu: &Gpu) -> Option<u64> {
    if !sc.card_context_default {
        return None;
    }
    let version = sc.version()?;
    let context = if sc.framework == Framework::LlamaCpp {
        llama_cpp_fit_context(model, sc, gpu)
    } else {
        let vram = gpu.memory_real_bytes() * f64::from(sc.cards.max(1));
        release::ollama_default_context(version, vram).min(model.max_context)
    };
    (context != sc.context).then_some(context)
}

/// The context llama.cpp's `--fit` (on by default from b7437, `-c` unset) gives `sc.cards` of
/// `gpu`: the model's training length where it fits with [`release::LLAMA_CPP_FIT_MARGIN`]
/// free on each card, else the longest that does, in steps of 256 cells, never under
/// [`release::LLAMA_CPP_FIT_MIN_CTX`] (below that it moves layers to the CPU instead).
pub fn llama_cpp_fit_context(model: &Model, sc: &Scenario, gpu: &Gpu) -> u64 {
    const STEP: u64 = 256;
    let room = gpu.memory_real_bytes() - release::LLAMA_CPP_FIT_MARGIN;
    let need = |context: u64| {
        let at = Scenario {
            context,
            ..sc.clone()
        };
        crate::engine::memory::breakdown(model, &at).total()
    };
    let (low, high) = (
        release::LLAMA_CPP_FIT_MIN_CTX,
        model.max_context.max(release::LLAMA_CPP_FIT_MIN_CTX),
    );
    if need(high) <= room {
        return high;
    }
    if need(low) > room {
        return low;
    }
    // need(lo) fits, need(hi) does not: bisect on 256-cell steps.
    let (mut lo, mut hi) = (low / STEP, high.div_ceil(STEP));
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if need(mid * STEP) <= room {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo * STEP
}

/// `sc` with the weights' layout `gpu` gives them (the MXFP4 kernel), its batch values kept.
pub fn with_card_layout(sc: &Scenario, gpu: &Gpu) -> Scenario {
    let mut on = sc.clone();
    if let Some(kernel) = mxfp4_on_card(sc, gpu) {
        on.mxfp4_moe = kernel;
    }
    on
}

/// Whether what a card holds can follow the card under `sc` although its batch values do
/// not: vLLM repacks an MXFP4 checkpoint's experts for the card's kernel.
pub fn layout_follows_card(sc: &Scenario) -> bool {
    sc.card_context_default || mxfp4_follows_card(sc)
}

/// vLLM alone repacks MXFP4 experts for the card's kernel: a card that picks another
/// runtime's context (llama.cpp's --fit, Ollama's num_ctx) must not pick vLLM's layout.
fn mxfp4_follows_card(sc: &Scenario) -> bool {
    sc.framework == Framework::Vllm && sc.weights == WeightPrecision::Mxfp4 && sc.version().is_some()
}

/// The MXFP4 kernel `gpu` runs under `sc` where it differs from `sc`'s.
fn mxfp4_on_card(sc: &Scenario, gpu: &Gpu) -> Option<crate::engine::workload::choices::Mxfp4Moe> {
    if !mxfp4_follows_card(sc) {
        return None;
    }
    let kernel = crate::engine::runtimes::mxfp4::vllm_kernel(sc.version()?, gpu);
    (kernel != sc.mxfp4_moe).then_some(kernel)
}

fn batch_on_card(sc: &Scenario, gpu: &Gpu) -> Option<Scenario> {
    if !sc.card_batch_defaults {
        return None;
    }
    let version = sc.version()?;
    // SGLang's chunked prefill follows the card's memory (its fraction too, in
    // `Scenario::gpu_util_for`).
    if sc.framework == Framework::Sglang {
        if sc.batch_tokens_set {
            return None;
        }
        let mib = gpu.sglang_memory_mib();
        let (_, chunk) = release::sglang_defaults(version, mib, sc.cards, false);
        return (chunk != sc.max_batched_tokens).then(|| Scenario {
            max_batched_tokens: chunk,
            ..sc.clone()
        });
    }
    if sc.framework != Framework::Vllm {
        return None;
    }
    if !release::vllm_v1(version) {
        return None;
    }
    let (card_tokens, card_seqs) = vllm_batch(
        version,
        gpu.memory_real_bytes(),
        &gpu.name,
        sc.context,
        sc.vllm_llm_class,
    );
    // What the user gave stays; the other is the card's, held to it as vLLM holds its own
    // pair (from 0.12 the tokens within max_num_seqs × max_model_len, the sequences within
    // the tokens).
    let seqs = if sc.num_seqs_set {
        sc.max_num_seqs
    } else {
        card_seqs
    };
    let tokens = if sc.batch_tokens_set {
        sc.max_batched_tokens
    } else if version >= Version::Release(0, 12, 0) {
        card_tokens.min(seqs.saturating_mul(sc.context.max(1)))
    } else {
        card_tokens
    };
    let seqs = if !sc.num_seqs_set && version >= Version::Release(0, 12, 0) {
        seqs.min(tokens)
    } else {
        seqs
    };
    if (tokens, seqs) == (sc.max_batched_tokens, sc.max_num_seqs) {
        return None;
    }
    Some(Scenario {
        max_batched_tokens: tokens,
        max_num_seqs: seqs,
        ..sc.clone()
    })
}
