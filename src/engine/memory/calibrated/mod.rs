//! The calibrated convention: what a real run allocates, term by term.
//!
//! Sources of the terms: exact parameter counts from the architecture; real bits per
//! weight of each format (bitsandbytes block scales, GPTQ/AWQ groups, GGUF file sizes);
//! activations per layer after Korthikanti et al. 2022 (arXiv 2205.05198), written out for
//! the architecture's real MLP and attention widths; the fp32 logits and their gradient;
//! optimizer states by optimizer and precision; ZeRO/FSDP sharding and CPU offload; the CUDA
//! context and the caching allocator's slack. Every function returns its bytes with the
//! formula that produced them.
//!
//! `activations` holds the saved-tensor terms, `training` the trainable state; this module
//! the weights, the serving plan and the overheads both share.

mod activations;
mod training;
pub mod vllm;

pub use activations::{
    ComputePeaks, PREFILL_CHUNK_TOKENS, inference_activations, layer_activation_bytes_per_token,
    llama_cpp_compute_peaks, training_activations,
};
pub use training::{adapter_params, optimizer_state_bytes};

use crate::engine::basics::choice::Choice;
use crate::engine::basics::units::words;
use crate::engine::basics::units::{format_gb, group_thousands};
use crate::engine::memory::breakdown::{Breakdown, Part, Segment, SegmentKind};
use crate::engine::memory::kv::{kv_cache_bytes, kv_formula};
use crate::engine::model::precision::WeightPrecision;
use crate::engine::model::{Architecture, Model};
use crate::engine::workload::runtime::Framework;
use crate::engine::workload::scenario::Scenario;

/// CUDA context plus cuBLAS/cuDNN workspaces of one process (torch does not count it).
pub const CUDA_CONTEXT_BYTES: f64 = 0.5e9;
/// Caching-allocator slack on the memory that comes and goes during a step.
pub const FRAGMENTATION: f64 = 0.05;
/// Activations are stored in 16-bit.
const ACT: f64 = 2.0;

fn bytes_of(params: f64, bits: f64) -> f64 {
    params * bits / 8.0
}

/// The whole model's weight bytes in `precision` (what one card holds unsplit): the
/// placement divides them by layer.
pub fn model_weight_bytes(model: &Model, precision: WeightPrecision) -> f64 {
    let (q, u) = weight_bytes(model, precision);
    q + u
}

/// The model's weight bytes in `precision`: the checkpoint's own bytes when it is stored in
/// that format, else the parameters at the format's bits (quantized and 16-bit parts).
fn weight_bytes(model: &Model, precision: WeightPrecision) -> (f64, f64) {
    match &model.checkpoint {
        Some(c) if c.format == precision => (c.bytes, 0.0),
        // A vision-language model's image encoder stays 16-bit beside the language model.
        _ => {
            let (q, u) = format_bytes(&model.arch, model.params().total, precision);
            (q, u + crate::engine::memory::images::vision_weight_bytes(model))
        }
    }
}

/// Weight bytes of `params` parameters of which `unquantized` stay 16-bit.
fn format_bytes(a: &Architecture, total: u64, precision: WeightPrecision) -> (f64, f64) {
    if precision == WeightPrecision::Q4KM
        && let Some(bytes) = crate::engine::model::gguf_mix::q4_k_m_bytes(a, total)
    {
        return (bytes, 0.0);
    }
    if precision.is_gguf() || !precision.is_quantized() {
        return (bytes_of(total as f64, precision.bits()), 0.0);
    }
    let unq = a.unquantized_params_in(Some(precision)).min(total) as f64;
    (bytes_of(total as f64 - unq, precision.bits()), unq * 2.0)
}

fn shard(bytes: f64, sharded: bool, cards: u32) -> f64 {
    if sharded {
        bytes / f64::from(cards.max(1))
    } else {
        bytes
    }
}

pub fn breakdown(model: &Model, sc: &Scenario) -> Breakdown {
    if sc.method.is_training() {
        training::breakdown(model, sc)
    } else {
        inference(model, sc)
    }
}

fn inference(model: &Model, sc: &Scenario) -> Breakdown {
    let a = &model.arch;
    let n = f64::from(sc.cards.max(1));
    let (q, u) = weight_bytes(model, sc.weights);
    // vLLM's MXFP4 kernels hold the experts in their own layout (padded, scales twice).
    let (layout, layout_words) = crate::engine::runtimes::mxfp4::layout_bytes(model, sc.mxfp4_moe);
    let weights_total = q + u + layout;
    // vLLM builds its rotary table on every card while loading: counted as weight.
    let (rope, rope_words) = if sc.framework == Framework::Vllm {
        (
            crate::engine::model::rope::vllm_table_bytes(model),
            crate::engine::model::rope::vllm_table_words(model),
        )
    } else {
        (0.0, String::new())
    };
    let weights = Segment::new(
        SegmentKind::Weights,
        weights_total / n + rope,
        words!(
            "{}{layout_words}{rope_words}",
            weights_formula(model, sc, q, u, n)
        ),
    );
    // Tensor parallel splits KV heads over the cards; past one head per card they repeat.
    let kv_full = crate::engine::memory::kv::runtime_cache_bytes(model, sc);
    let kv_share = crate::engine::memory::kv::card_share(model, sc);
    let kv_bytes = kv_full * kv_share;
    let mut kv_text = kv_formula(model, sc.kv.bytes_per_element(), sc, kv_full);
    if n > 1.0 && crate::engine::basics::units::wants_words() {
        kv_text = words!("{kv_text}; × {kv_share:.3} per card of {n}");
    }
    let kv = Segment::new(SegmentKind::KvCache, kv_bytes, kv_text);
    let mut activations = inference_activations(model, sc);
    // A vision-language model's image embeddings, held from the encoder until their prefill.
    let images = crate::engine::memory::images::image_embedding_bytes(model, sc);
    if images > 0.0 {
        activations.bytes += images;
        if crate::engine::basics::units::wants_words() {
            activations.formula = words!(
                "{} + image embeddings {} images × {} tokens × {} hidden × 2 B × batch {} = {}",
                activations.formula,
                sc.images,
                crate::engine::memory::images::image_tokens(model, sc) / u64::from(sc.images.max(1)),
                group_thousands(a.hidden as i64),
                sc.batch,
                format_gb(images)
            );
        }
    }
    let dequant = dequant_buffer(a, sc.weights);
    // llama.cpp allocates its buffers once and vLLM measures its peak: neither leaves the
    // caching allocator's slack on top.
    let slack = if sc.framework.is_ggml() || sc.framework == Framework::Vllm {
        0.0
    } else {
        activations.bytes + kv_bytes
    };
    let overhead = if sc.framework == Framework::Vllm {
        vllm::overhead(model, sc, activations.bytes, dequant)
    } else {
        overhead(card_reserve(sc), slack, dequant, 0.0, 0.0)
    };
    let (read, read_text) = decode_read_bytes(model, sc, q, u);
    let kv_read = kv_cache_bytes(model, sc.kv.bytes_per_element(), sc.read_context(), 1);
    Breakdown {
        segments: vec![weights, kv, activations, overhead],
        decode_bytes_per_token: Some(read),
        decode_formula: Some(read_text),
        decode_kv_bytes_per_sequence: kv_read,
        host_bytes: 0.0,
        notes: vec![if sc.framework.is_ggml() {
            "llama.cpp allocates the KV cache for every cell of its context up front, beside one compute buffer".to_string()
        } else if sc.framework == Framework::Sglang && sc.gpu_util_by_count {
            "SGLang takes mem_fraction_static of each card, set by the card's memory and the tensor-parallel size, and fills what is left with KV cache".to_string()
        } else {
            words!(
                "a serving engine takes {:.0} % of each card (gpu_memory_utilization) and fills what is left with KV cache",
                sc.gpu_util_on(sc.cards) * 100.0
            )
        }],
    }
}

fn weights_formula(model: &Model, sc: &Scenario, q: f64, u: f64, n: f64) -> String {
    if !crate::engine::basics::units::wants_words() {
        return String::new();
    }
    let a = &model.arch;
    let p = model.params().total;
    let split = if n > 1.0 {
        words!(" ÷ {n} cards")
    } else {
        String::new()
    };
    if let Some(c) = model.checkpoint.as_ref().filter(|c| c.format == sc.weights) {
        return words!("from the checkpoint's headers, as stored: {}{split}", c.summary);
    }
    // Another format than the file's: an estimate from the count, and said so.
    let restated = model.checkpoint.as_ref().map_or(String::new(), |c| {
        words!(
            " (re-estimated from the parameter count; the checkpoint stores {})",
            c.format.label()
        )
    });
    // The image encoder's 16-bit bytes, said apart from the language model's.
    let vision = crate::engine::memory::images::vision_weight_bytes(model);
    let u = u - vision;
    let encoder = model.vision.map_or(String::new(), |v| {
        words!(
            " + image encoder {} params × 2 B = {}",
            group_thousands(v.params as i64),
            format_gb(vision)
        )
    });
    let split = words!("{encoder}{split}{restated}");
    if sc.weights == WeightPrecision::Q4KM && crate::engine::model::gguf_mix::q4_k_m_bytes(a, p).is_some() {
        return words!(
            "{} params in llama.cpp's Q4_K_M mix: Q6_K for the output and for attn_v and ffn_down in {} of {} layers, Q4_K (4.5 bits) for the rest, F32 norms = {} ({:.3} bits a param){split}",
            group_thousands(p as i64),
            crate::engine::model::gguf_mix::q4_k_m_raised_layers(a.layers),
            a.layers,
            format_gb(q),
            q * 8.0 / p as f64
        );
    }
    let unq = a.unquantized_params_in(Some(sc.weights)).min(p);
    let kept = if a.attention_16bit_in == Some(sc.weights) && a.edge_blocks_16bit {
        "embedding/norm/attention/first and last block"
    } else if a.attention_16bit_in == Some(sc.weights) {
        "embedding/norm/attention"
    } else {
        "embedding/norm"
    };
    if u > 0.0 {
        words!(
            "{} quantized params × {:.3} bits ({}) = {} + {} {kept} params × 2 B = {}{split}",
            group_thousands((p - unq) as i64),
            sc.weights.bits(),
            sc.weights.label(),
            format_gb(q),
            group_thousands(unq as i64),
            format_gb(u)
        )
    } else {
        words!(
            "{} params × {:.3} bits ({}) = {}{split}",
            group_thousands(p as i64),
            sc.weights.bits(),
            sc.weights.label(),
            format_gb(q)
        )
    }
}

/// Bytes read per generated token: the active weights (one embedding row, not the table)
/// and the KV cache of one sequence at the current context.
fn decode_read_bytes(model: &Model, sc: &Scenario, q: f64, u: f64) -> (f64, String) {
    let a = &model.arch;
    let p = model.params();
    let embedding_table = if a.tied_embeddings || a.active_excludes_embedding {
        0
    } else {
        a.vocab * a.hidden
    };
    let read_params = p.active.saturating_sub(embedding_table) as f64;
    // Same bytes per parameter as the resident weights (the image encoder is not read per
    // token).
    let per_param =
        (q + u - crate::engine::memory::images::vision_weight_bytes(model)).max(0.0) / p.total as f64;
    let weights = read_params * per_param;
    let kv = kv_cache_bytes(model, sc.kv.bytes_per_element(), sc.read_context(), 1);
    if !crate::engine::basics::units::wants_words() {
        return (weights + kv, String::new());
    }
    (
        weights + kv,
        words!(
            "{} active params (no embedding table) × {:.3} B = {} + KV of one sequence at {} tokens {} = {}",
            group_thousands(read_params as i64),
            per_param,
            format_gb(weights),
            group_thousands(sc.read_context() as i64),
            format_gb(kv),
            format_gb(weights + kv)
        ),
    )
}

/// Dequantize-on-the-fly kernels (bitsandbytes, GPTQ) expand the largest linear to 16-bit.
fn dequant_buffer(a: &Architecture, w: WeightPrecision) -> f64 {
    if w.is_quantized() && !w.is_gguf() && w != WeightPrecision::Fp8 {
        a.largest_linear() as f64 * 2.0
    } else {
        0.0
    }
}

/// DeepSpeed's communication buckets on every card (`--reduce-bucket-size`,
/// `--prefetch-bucket-size`): ZeRO-1/2 reduce and all-gather gradients through two buckets of
/// `reduce_bucket_size` elements; ZeRO-3 reduces through
/// one and prefetches parameters through `stage3_prefetch_bucket_size` elements. A bucket
/// never holds more than the model has to send (trainable gradients, 16-bit; parameters at
/// their stored width).
pub fn deepspeed_buckets(model: &Model, sc: &Scenario, trainable: f64) -> f64 {
    if sc.framework != Framework::Deepspeed || !sc.method.is_training() {
        return 0.0;
    }
    let gradients = (sc.reduce_bucket as f64).min(trainable) * 2.0;
    let total = model.params().total as f64;
    let (q, u) = weight_bytes(model, sc.weights);
    let per_param = (q + u) / total.max(1.0);
    let prefetch = (sc.prefetch_bucket as f64).min(total) * per_param;
    if sc.zero >= 3 {
        gradients + prefetch
    } else {
        2.0 * gradients
    }
}

/// What a card keeps aside before anything is placed on it: the CUDA context and its
/// workspaces, which Ollama reserves as its own minimum per card (`ml/device.go`
/// `MinimumMemory`, 457 MiB) when it places layers. The breakdown and the layer placement both
/// read this, so a plan and its split agree.
pub fn card_reserve(sc: &Scenario) -> f64 {
    if sc.framework == Framework::Ollama {
        crate::engine::runtimes::release::ollama_reserve_bytes(false)
    } else {
        CUDA_CONTEXT_BYTES
    }
}

fn overhead(reserve: f64, dynamic: f64, dequant: f64, gathered: f64, buckets: f64) -> Segment {
    let fragmentation = FRAGMENTATION * dynamic;
    let mut parts = vec![
        Part {
            name: "cuda_context",
            bytes: reserve,
        },
        Part {
            name: "allocator_fragmentation",
            bytes: fragmentation,
        },
    ];
    if dequant > 0.0 {
        parts.push(Part {
            name: "dequantization_buffer",
            bytes: dequant,
        });
    }
    if gathered > 0.0 {
        parts.push(Part {
            name: "zero3_gathered_layers",
            bytes: gathered,
        });
    }
    if buckets > 0.0 {
        parts.push(Part {
            name: "deepspeed_buckets",
            bytes: buckets,
        });
    }
    let slack = if dynamic > 0.0 {
        words!(
            " + allocator slack 5 % of dynamic memory {}",
            format_gb(fragmentation)
        )
    } else {
        " (no allocator slack: the runtime sizes its buffers itself)".to_string()
    };
    if !crate::engine::basics::units::wants_words() {
        return Segment::from_parts(SegmentKind::Overhead, parts, String::new());
    }
    let context = if reserve == CUDA_CONTEXT_BYTES {
        "CUDA context + workspaces"
    } else {
        "Ollama's minimum per card (the CUDA context and workspaces, 457 MiB)"
    };
    let formula = words!(
        "{context} {}{slack}{}{}{}",
        format_gb(reserve),
        if dequant > 0.0 {
            words!(
                " + dequantization buffer (largest linear in 16-bit) {}",
                format_gb(dequant)
            )
        } else {
            String::new()
        },
        if gathered > 0.0 {
            words!(" + ZeRO-3 gathered layers (2 in flight) {}", format_gb(gathered))
        } else {
            String::new()
        },
        if buckets > 0.0 {
            words!(
                " + DeepSpeed reduce and prefetch buckets (reduce_bucket_size, stage3_prefetch_bucket_size) {}",
                format_gb(buckets)
            )
        } else {
            String::new()
        },
    );
    Segment::from_parts(SegmentKind::Overhead, parts, formula)
}

#[cfg(test)]
mod tests;
