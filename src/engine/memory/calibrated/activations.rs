//! Activation memory: what each layer saves for its backward pass (training) and the
//! working set of a prefill chunk (serving).

use super::ACT;
use crate::engine::basics::units::words;
use crate::engine::basics::units::{format_gb, group_thousands};
use crate::engine::memory::breakdown::{Part, Segment, SegmentKind};
use crate::engine::model::{Architecture, MlpKind, Model};
use crate::engine::workload::runtime::Framework;
use crate::engine::workload::scenario::{LoraTargets, Method, Scenario, Split};

pub use crate::engine::workload::defaults::PREFILL_CHUNK_TOKENS;

/// Bytes saved per token by one decoder layer for its backward pass, without recomputation.
///
/// Korthikanti et al. count 34·h (+5·a·s for the scores) for a GPT layer with a 4h MLP and
/// dropout. Written out for a modern decoder (no dropout, 16-bit activations):
/// each norm keeps its fp32 input and its normalized output (6·h); attention keeps the
/// projection input, q, k, v and its output (2·h + 2·q + 4·kv + 2·q); a gated MLP keeps its
/// input, gate, up, activation and product (2·h + 8·I), a plain one 2·h + 4·I; eager attention
/// adds the 5·a·s score terms, flash attention only the fp32 log-sum-exp (4·a).
///
/// Under torch.compile the min-cut partitioner recomputes pointwise ops in backward: a norm
/// keeps only its fp32 input (4·h), a gated MLP its input, gate and up (2·h + 4·I), a plain
/// one its input and up (2·h + 2·I).
pub fn layer_activation_bytes_per_token(a: &Architecture, sc: &Scenario) -> f64 {
    let h = a.hidden as f64;
    let norm_bytes = if sc.compile { 4.0 } else { 6.0 };
    let norms = a.norms_per_layer as f64 * norm_bytes * h;
    let attention = ACT * h + ACT * a.q_width() as f64 * 2.0 + 2.0 * ACT * a.kv_width() as f64;
    let kept = if sc.compile { 0.5 } else { 1.0 };
    let mlp_one = |i: f64| match a.mlp {
        MlpKind::Gated => ACT * h + 4.0 * kept * ACT * i,
        MlpKind::Plain => ACT * h + 2.0 * kept * ACT * i,
    };
    let mlp = match &a.moe {
        None => mlp_one(a.intermediate as f64),
        Some(m) => (m.active + m.shared) as f64 * mlp_one(m.expert_intermediate as f64),
    };
    let scores = if sc.flash_attention {
        4.0 * a.heads as f64
    } else {
        5.0 * a.heads as f64 * sc.context as f64
    };
    let lora = match sc.method {
        Method::Lora | Method::Qlora => {
            let targets = if sc.lora_targets == LoraTargets::All {
                7.0
            } else {
                4.0
            };
            targets * ACT * sc.lora_rank as f64
        }
        _ => 0.0,
    };
    norms + attention + mlp + scores + lora
}

/// Bytes a layer saves per token under torchtitan's op-level selective checkpointing: its
/// input (the checkpoint boundary), every other matmul output in call order — q (wq), v (wv),
/// the MLP's first (w1) and last (w2) — and the attention output with its fp32 log-sum-exp;
/// norms, k, o, the up projection and the activation are recomputed.
/// (torchtitan `distributed/activation_checkpoint.py`: `_save_list` and the
/// "save output of every other mm" policy.)
pub fn selective_bytes_per_token(a: &Architecture) -> f64 {
    let h = a.hidden as f64;
    let i = active_mlp_width(a);
    ACT * (h + a.q_width() as f64 + a.kv_width() as f64 + i + h + a.q_width() as f64) + 4.0 * a.heads as f64
}

/// The MLP width one token passes through: the dense intermediate, or the routed and shared
/// experts' widths summed.
fn active_mlp_width(a: &Architecture) -> f64 {
    match &a.moe {
        None => a.intermediate as f64,
        Some(m) => (m.active + m.shared) as f64 * m.expert_intermediate as f64,
    }
}

fn training_tokens(sc: &Scenario) -> f64 {
    (sc.context * sc.batch) as f64
}

/// What activation offloading moves to host memory: every layer's saves but two (the layer
/// in use and the one being transferred), as torchtune's offloading streams them.
pub fn offloaded_activations(model: &Model, sc: &Scenario) -> f64 {
    if !sc.activation_offload || !sc.method.is_training() {
        return 0.0;
    }
    let a = &model.arch;
    let tokens = training_tokens(sc);
    // What each layer keeps until its backward: its input under checkpointing, else all of
    // its saved tensors.
    let save = if sc.checkpointing && sc.selective_checkpointing {
        selective_bytes_per_token(a) * tokens
    } else if sc.checkpointing {
        ACT * a.hidden as f64 * tokens
    } else {
        layer_activation_bytes_per_token(a, sc) * tokens
    };
    a.layers.saturating_sub(2) as f64 * save
}

/// Activations of a training step, per card: every layer's saved tensors (or, with
/// checkpointing, each layer's 16-bit input plus one layer recomputed), and the logits.
pub fn training_activations(model: &Model, sc: &Scenario) -> Segment {
    let a = &model.arch;
    let tokens = training_tokens(sc);
    let per_layer = layer_activation_bytes_per_token(a, sc) * tokens;
    let layers = a.layers as f64;
    let (stored, how) = if sc.checkpointing && sc.selective_checkpointing {
        let saved = selective_bytes_per_token(a) * tokens * layers;
        (
            saved + per_layer,
            words!(
                "selective checkpointing (torchtitan's op policy): input, q, v, attention output and LSE, first and last MLP matmul {} B/token × tokens × L = {} + one layer recomputed {}",
                selective_bytes_per_token(a).round(),
                format_gb(saved),
                format_gb(per_layer)
            ),
        )
    } else if sc.checkpointing {
        let inputs = ACT * a.hidden as f64 * tokens * layers;
        (
            inputs + per_layer,
            words!(
                "checkpointing: layer inputs 2·h·tokens·L = {} + one layer recomputed {}",
                format_gb(inputs),
                format_gb(per_layer)
            ),
        )
    } else {
        (
            per_layer * layers,
            words!("{} layers × {} each", a.layers, format_gb(per_layer)),
        )
    };
    let offloaded = offloaded_activations(model, sc);
    let (stored, how) = if offloaded > 0.0 {
        (
            stored - offloaded,
            words!(
                "{how}; offloaded to host {} (the card keeps two layers' saves)",
                format_gb(offloaded)
            ),
        )
    } else {
        (stored, how)
    };
    // The full logits tensor in fp32 and its gradient: b·s·V·(4 + 4) bytes, unless a fused
    // or chunked cross-entropy never materializes it.
    let logits = if sc.fused_ce {
        0.0
    } else {
        tokens * a.vocab as f64 * 8.0
    };
    let formula = words!(
        "{how}; per layer per token {} B ({}, {}); logits b·s·V·8 = {}{} (tokens {})",
        layer_activation_bytes_per_token(a, sc).round(),
        if sc.flash_attention {
            "flash attention"
        } else {
            "eager attention 5·a·s"
        },
        match (a.mlp, sc.compile) {
            (MlpKind::Gated, false) => "gated MLP 8·I",
            (MlpKind::Plain, false) => "plain MLP 4·I",
            (MlpKind::Gated, true) => "compiled: gated MLP 4·I, norms 4·h",
            (MlpKind::Plain, true) => "compiled: plain MLP 2·I, norms 4·h",
        },
        format_gb(logits),
        if sc.fused_ce { " (fused cross-entropy)" } else { "" },
        group_thousands(tokens as i64)
    );
    Segment::from_parts(
        SegmentKind::Activations,
        vec![
            Part {
                name: "layers",
                bytes: stored,
            },
            Part {
                name: "logits",
                bytes: logits,
            },
        ],
        formula,
    )
}

/// Serving: the working set of the runtime's largest step, plus the logits it samples.
pub fn inference_activations(model: &Model, sc: &Scenario) -> Segment {
    match sc.framework {
        Framework::LlamaCpp | Framework::Ollama => llama_cpp_compute_buffer(model, sc),
        Framework::Vllm => vllm_profile_peak(model, sc),
        _ => prefill_chunk(model, sc),
    }
}

/// Bytes per token of one layer's prefill working set: the residual and normed hidden
/// states, q/k/v and the attention output, the MLP's fused gate-up output and its
/// activation. Tensor parallel divides all but the hidden states over `cards`.
fn prefill_bytes_per_token(a: &Architecture, cards: f64) -> f64 {
    let h = a.hidden as f64;
    let i = active_mlp_width(a);
    ACT * (2.0 * h + (a.q_width() as f64 * 2.0 + 2.0 * a.kv_width() as f64 + 3.0 * i) / cards)
}

fn tensor_cards(sc: &Scenario) -> f64 {
    // Tensor parallel divides the split widths over the cards; a layer split runs whole
    // layers on each card in turn.
    if sc.split == Split::Tensor {
        f64::from(sc.cards.max(1))
    } else {
        1.0
    }
}

/// The generic serving rule: one prefill chunk and last-token logits in fp32.
fn prefill_chunk(model: &Model, sc: &Scenario) -> Segment {
    let a = &model.arch;
    let chunk = (sc.context * sc.batch).min(sc.max_batched_tokens) as f64;
    let cards = tensor_cards(sc);
    let per_token = prefill_bytes_per_token(a, cards);
    let logits = sc.batch as f64 * a.vocab as f64 * 4.0;
    // Eager attention materializes one layer's scores for the chunk against the whole
    // context: 5·a bytes per pair (Korthikanti's term); flash attention never does.
    // Each query of the chunk attends to at most `context` keys (its own sequence).
    let scores = if sc.flash_attention {
        0.0
    } else {
        5.0 * a.heads as f64 * chunk * sc.context as f64 / cards
    };
    let prefill = chunk * per_token;
    let bytes = prefill + scores + logits;
    Segment::from_parts(
        SegmentKind::Activations,
        vec![
            Part {
                name: "prefill",
                bytes: prefill,
            },
            Part {
                name: "attention_scores",
                bytes: scores,
            },
            Part {
                name: "logits",
                bytes: logits,
            },
        ],
        words!(
            "prefill chunk {} tokens × {} B/token{}{} + logits {} × V × 4 B = {}",
            chunk,
            per_token.round(),
            if cards > 1.0 {
                words!(" (split widths ÷ {cards} cards)")
            } else {
                String::new()
            },
            if scores > 0.0 {
                words!(" + eager scores 5·a·chunk·s = {}", format_gb(scores))
            } else {
                String::new()
            },
            sc.batch,
            format_gb(bytes)
        ),
    )
}

/// Bytes per vocabulary entry of one sampled row in V1's sampler (`vllm/v1/sample`), all
/// alive at its peak. Counting the sampler's temporaries — the bf16 logits (2), their fp32
/// copy (4), top-k/top-p's sort, values (4) and int64 indices (8), the sorted softmax (4)
/// and its cumulative sum (4), the mask (1) and the scattered logits (4) — gives 31 B; the
/// measured V1 profiles say 38.3: the five of llm-d's vLLM 0.11 table on an H100 (Qwen3-0.6B
/// 5.56 GiB, Qwen3-32B 5.64, Llama 3.1 8B 4.76, Llama 3.3 70B FP8 at TP 2 4.84, gpt-oss-20b
/// 7.38) each lie between 38.25 and 38.55 B once the hidden states are taken off, and this
/// least-squares figure lands every one within 0.6 %. The 7 B not counted are one more fp32
/// row and a byte mask or two; the measurement is what the budget follows.
pub const VLLM_V1_SAMPLER_BYTES_PER_LOGIT: f64 = 38.34;
/// V0's sampler held the logits, their softmax and their log-softmax in fp32
/// (vllm/model_executor/layers/sampler.py).
pub const VLLM_V0_SAMPLER_BYTES_PER_LOGIT: f64 = 12.0;
/// V0 turned chunked prefill on by default only past this `max_model_len`; below it the
/// profiling run prefilled a whole `max_model_len` sequence.
const VLLM_V0_CHUNKED_FROM: u64 = 32_768;

/// The tokens and sampled rows of vLLM's profiling run under `sc`'s release: V1 runs
/// `max_num_batched_tokens` tokens and samples `min(max_num_batched_tokens, max_num_seqs)`
/// rows (`_dummy_run`, `_dummy_sampler_run`); V0 with chunked prefill off prefilled at least
/// a whole `max_model_len` and sampled `max_num_seqs` rows.
pub fn vllm_profile_shape(sc: &Scenario) -> (u64, u64, f64) {
    if vllm_v1_profile(sc) {
        let tokens = sc.max_batched_tokens;
        (
            tokens,
            tokens.min(sc.max_num_seqs),
            VLLM_V1_SAMPLER_BYTES_PER_LOGIT,
        )
    } else {
        let tokens = if sc.context <= VLLM_V0_CHUNKED_FROM {
            sc.max_batched_tokens.max(sc.context)
        } else {
            sc.max_batched_tokens
        };
        (tokens, sc.max_num_seqs, VLLM_V0_SAMPLER_BYTES_PER_LOGIT)
    }
}

/// Whether `sc`'s vLLM release runs the V1 engine's profile (the newest known without one).
fn vllm_v1_profile(sc: &Scenario) -> bool {
    let version = sc
        .version()
        .unwrap_or(crate::engine::workload::version::Version::Release(0, 34, 0));
    crate::engine::runtimes::release::vllm_v1(version)
}

/// vLLM sizes its KV cache after a profiling run: a forward pass over its profile's tokens
/// and a sampler step over its rows (see [`vllm_profile_shape`]), whose peak it keeps free.
/// V1 runs them one after the other (`profile_run`: `_dummy_run`, then `_dummy_sampler_run`
/// on its output), so its peak is the larger of the forward's working set and the sampler's
/// rows with the forward's hidden states still alive; V0 sampled inside the same step and
/// held both.
fn vllm_profile_peak(model: &Model, sc: &Scenario) -> Segment {
    let a = &model.arch;
    let (tokens, rows, per_logit) = vllm_profile_shape(sc);
    let chunk = tokens as f64;
    let per_token = prefill_bytes_per_token(a, tensor_cards(sc));
    let forward = chunk * per_token;
    let sampler = rows as f64 * a.vocab as f64 * per_logit;
    let v1 = vllm_v1_profile(sc);
    // The hidden states the sampler reads: every token's, whole on each card.
    let hidden = chunk * a.hidden as f64 * ACT;
    let (before, sampled, how) = if !v1 {
        (forward, sampler, "")
    } else if hidden + sampler >= forward {
        (hidden, sampler, "the sampler's step sets the peak")
    } else {
        (forward, 0.0, "the forward sets the peak")
    };
    Segment::from_parts(
        SegmentKind::Activations,
        vec![
            Part {
                name: "vllm_profile_forward",
                bytes: before,
            },
            Part {
                name: "vllm_sampler",
                bytes: sampled,
            },
        ],
        {
            let steps = words!(
                "vLLM profiling run: forward over {} tokens × {} B/token = {}",
                group_thousands(chunk as i64),
                per_token.round(),
                format_gb(forward)
            );
            let rows = group_thousands(rows as i64);
            if v1 {
                words!(
                    "{steps}, then sampler {rows} rows × V × {per_logit} B = {} beside the {} hidden states = {}; {how}: {} (vLLM keeps this peak free before sizing the KV cache)",
                    format_gb(sampler),
                    group_thousands(chunk as i64),
                    format_gb(hidden + sampler),
                    format_gb(before + sampled),
                )
            } else {
                words!(
                    "{steps} + sampler {rows} rows × V × {per_logit} B = {} (vLLM keeps this peak free before sizing the KV cache)",
                    format_gb(sampler),
                )
            }
        },
    )
}

/// The two peaks of llama.cpp's compute buffer (see [`llama_cpp_compute_buffer`]): a device
/// that holds layers reserves the attention peak, the one that holds the output layer the
/// larger of both.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ComputePeaks {
    pub attention: f64,
    pub output: f64,
}

pub fn llama_cpp_compute_peaks(model: &Model, sc: &Scenario) -> ComputePeaks {
    let a = &model.arch;
    let cells = (sc.context * sc.batch) as f64;
    let u = sc.ubatch.min(sc.context * sc.batch) as f64;
    let h = a.hidden as f64;
    let rows = 4.0 * h * 4.0 * u;
    let attention = if sc.flash_attention {
        // Flash attention never materializes the scores; its f16 mask remains.
        cells * u * 2.0 + rows
    } else {
        u * cells * a.heads as f64 * 4.0 + u * cells * 4.0 + rows
    };
    let output = u * (a.vocab as f64 + h) * 4.0;
    ComputePeaks { attention, output }
}

/// llama.cpp's compute buffer: ggml reserves one graph for an `n_ubatch` pass and reuses
/// its memory from layer to layer, so the buffer is the larger of two peaks
/// (llama.cpp's graph reserve, `ggml-alloc`):
/// - attention without flash attention: the f32 scores of one layer, n_kv × n_ubatch ×
///   heads × 4 B, their f32 mask n_kv × n_ubatch × 4 B, and four f32 hidden-width rows per
///   token (the residual stream, the normed input, q and the attention output);
/// - the output: f32 logits n_ubatch × vocab × 4 B beside the normed hidden states.
///
/// n_kv is every cell of the cache (context × parallel sequences).
fn llama_cpp_compute_buffer(model: &Model, sc: &Scenario) -> Segment {
    let cells = (sc.context * sc.batch) as f64;
    let u = sc.ubatch.min(sc.context * sc.batch) as f64;
    let ComputePeaks { attention, output } = llama_cpp_compute_peaks(model, sc);
    let bytes = attention.max(output);
    Segment::from_parts(
        SegmentKind::Activations,
        vec![Part {
            name: "compute_buffer",
            bytes,
        }],
        words!(
            "llama.cpp compute buffer (ggml graph reserve for n_ubatch {} over {} cells): the larger of attention {} ({}) and output logits n_ubatch × (V + h) × 4 B = {}",
            u,
            group_thousands(cells as i64),
            format_gb(attention),
            if sc.flash_attention {
                "flash attention: f16 mask + 4 f32 rows of h"
            } else {
                "f32 scores n_kv × n_ubatch × heads × 4 B + f32 mask + 4 f32 rows of h"
            },
            format_gb(output)
        ),
    )
}
