//! The calibrated convention: what a real run allocates, term by term.
//!
//! Sources of the terms: exact parameter counts from the architecture; real bits per
//! weight of each format (bitsandbytes block scales, GPTQ/AWQ groups, GGUF file sizes);
//! activations per layer after Korthikanti et al. 2022 (arXiv 2205.05198), written out for
//! the architecture's real MLP and attention widths; the fp32 logits and their gradient;
//! optimizer states by optimizer and precision; ZeRO/FSDP sharding and CPU offload; the CUDA
//! context and the caching allocator's slack. Every function returns its bytes with the
//! formula that produced them.

use super::choice::Choice;
use super::memory::{Breakdown, Part, Segment, SegmentKind, kv_cache_bytes, kv_formula};
use super::model::{Architecture, MlpKind, Model};
use super::precision::WeightPrecision;
use super::scenario::{LoraTargets, Method, Offload, Optimizer, Scenario, Split, TrainingPrecision};
use super::units::{format_gb, group_thousands};

/// CUDA context plus cuBLAS/cuDNN workspaces of one process (torch does not count it).
pub const CUDA_CONTEXT_BYTES: f64 = 0.5e9;
/// Caching-allocator slack on the memory that comes and goes during a step.
pub const FRAGMENTATION: f64 = 0.05;
/// Activations are stored in 16-bit.
const ACT: f64 = 2.0;
/// Tokens a serving engine prefills at once (vLLM's default chunk).
pub const PREFILL_CHUNK_TOKENS: u64 = 8192;

fn bytes_of(params: f64, bits: f64) -> f64 {
    params * bits / 8.0
}

/// Weight bytes of `params` parameters of which `unquantized` stay 16-bit.
fn weight_bytes(a: &Architecture, total: u64, precision: WeightPrecision) -> (f64, f64) {
    if precision.is_gguf() || !precision.is_quantized() {
        return (bytes_of(total as f64, precision.bits()), 0.0);
    }
    let unq = a.unquantized_params().min(total) as f64;
    (bytes_of(total as f64 - unq, precision.bits()), unq * 2.0)
}

/// Trainable parameters of the LoRA adapters: r × (d_in + d_out) per targeted linear.
pub fn adapter_params(a: &Architecture, rank: u64, targets: LoraTargets) -> u64 {
    let h = a.hidden;
    let attention = (h + a.q_width()) + 2 * (h + a.kv_width()) + (a.q_width() + h);
    let mlp_one = |i: u64| match a.mlp {
        MlpKind::Gated => 3 * (h + i),
        MlpKind::Plain => 2 * (h + i),
    };
    let mlp = match &a.moe {
        None => a.layers * mlp_one(a.intermediate),
        Some(m) => {
            let dense = m.first_dense_layers.min(a.layers) * mlp_one(a.intermediate);
            let per_moe_layer = (m.experts + m.shared) * mlp_one(m.expert_intermediate);
            dense + a.moe_layers() * per_moe_layer
        }
    };
    let per_model = a.layers * attention + if targets == LoraTargets::All { mlp } else { 0 };
    rank * per_model
}

/// Bytes saved per token by one decoder layer for its backward pass, without recomputation.
///
/// Korthikanti et al. count 34·h (+5·a·s for the scores) for a GPT layer with a 4h MLP and
/// dropout. Written out for a modern decoder (no dropout, 16-bit activations):
/// each norm keeps its fp32 input and its normalized output (6·h); attention keeps the
/// projection input, q, k, v and its output (2·h + 2·q + 4·kv + 2·q); a gated MLP keeps its
/// input, gate, up, activation and product (2·h + 8·I), a plain one 2·h + 4·I; eager attention
/// adds the 5·a·s score terms, flash attention only the fp32 log-sum-exp (4·a).
pub fn layer_activation_bytes_per_token(a: &Architecture, sc: &Scenario) -> f64 {
    let h = a.hidden as f64;
    let norms = a.norms_per_layer as f64 * 6.0 * h;
    let attention = ACT * h + ACT * a.q_width() as f64 * 2.0 + 2.0 * ACT * a.kv_width() as f64;
    let mlp_one = |i: f64| match a.mlp {
        MlpKind::Gated => ACT * h + 4.0 * ACT * i,
        MlpKind::Plain => ACT * h + 2.0 * ACT * i,
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

fn training_tokens(sc: &Scenario) -> f64 {
    (sc.context * sc.batch) as f64
}

/// Activations of a training step, per card: every layer's saved tensors (or, with
/// checkpointing, each layer's 16-bit input plus one layer recomputed), and the logits.
pub fn training_activations(model: &Model, sc: &Scenario) -> Segment {
    let a = &model.arch;
    let tokens = training_tokens(sc);
    let per_layer = layer_activation_bytes_per_token(a, sc) * tokens;
    let layers = a.layers as f64;
    let (stored, how) = if sc.checkpointing {
        let inputs = ACT * a.hidden as f64 * tokens * layers;
        (
            inputs + per_layer,
            format!(
                "checkpointing: layer inputs 2·h·tokens·L = {} + one layer recomputed {}",
                format_gb(inputs),
                format_gb(per_layer)
            ),
        )
    } else {
        (
            per_layer * layers,
            format!("{} layers × {} each", a.layers, format_gb(per_layer)),
        )
    };
    // The full logits tensor in fp32 and its gradient: b·s·V·(4 + 4) bytes, unless a fused
    // or chunked cross-entropy never materializes it.
    let logits = if sc.fused_ce {
        0.0
    } else {
        tokens * a.vocab as f64 * 8.0
    };
    let formula = format!(
        "{how}; per layer per token {} B ({}, {}); logits b·s·V·8 = {}{} (tokens {})",
        layer_activation_bytes_per_token(a, sc).round(),
        if sc.flash_attention {
            "flash attention"
        } else {
            "eager attention 5·a·s"
        },
        match a.mlp {
            MlpKind::Gated => "gated MLP 8·I",
            MlpKind::Plain => "plain MLP 4·I",
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

/// Serving: the working set of prefilling one chunk, plus last-token logits in fp32.
pub fn inference_activations(model: &Model, sc: &Scenario) -> Segment {
    let a = &model.arch;
    let chunk = (sc.context * sc.batch).min(PREFILL_CHUNK_TOKENS) as f64;
    let h = a.hidden as f64;
    let i = match &a.moe {
        None => a.intermediate as f64,
        Some(m) => (m.active + m.shared) as f64 * m.expert_intermediate as f64,
    };
    // Residual and normed hidden states, q/k/v and the attention output, the MLP's fused
    // gate-up output and its activation.
    let per_token = ACT * (2.0 * h + a.q_width() as f64 * 2.0 + 2.0 * a.kv_width() as f64 + 3.0 * i);
    let logits = sc.batch as f64 * a.vocab as f64 * 4.0;
    // Tensor parallel divides the working set over the cards; a layer split runs whole
    // layers on each card in turn.
    let cards = if sc.split == Split::Tensor {
        f64::from(sc.cards.max(1))
    } else {
        1.0
    };
    // Eager attention materializes one layer's scores for the chunk against the whole
    // context: 5·a bytes per pair (Korthikanti's term); flash attention never does.
    // Each query of the chunk attends to at most `context` keys (its own sequence).
    let scores = if sc.flash_attention {
        0.0
    } else {
        5.0 * a.heads as f64 * chunk * sc.context as f64
    };
    let prefill = chunk * per_token / cards;
    let bytes = prefill + scores / cards + logits;
    Segment::from_parts(
        SegmentKind::Activations,
        vec![
            Part {
                name: "prefill",
                bytes: prefill,
            },
            Part {
                name: "attention_scores",
                bytes: scores / cards,
            },
            Part {
                name: "logits",
                bytes: logits,
            },
        ],
        format!(
            "prefill chunk {} tokens × {} B/token{}{} + logits {} × V × 4 B = {}",
            chunk,
            per_token.round(),
            if cards > 1.0 {
                format!(" ÷ {cards} cards")
            } else {
                String::new()
            },
            if scores > 0.0 {
                format!(" + eager scores 5·a·chunk·s = {}", format_gb(scores / cards))
            } else {
                String::new()
            },
            sc.batch,
            format_gb(bytes)
        ),
    )
}

/// Optimizer state bytes per trainable parameter (without a master copy).
pub fn optimizer_state_bytes(optimizer: Optimizer, precision: TrainingPrecision, a: &Architecture) -> f64 {
    let state = match precision {
        TrainingPrecision::Mixed => 4.0,
        TrainingPrecision::Bf16 => 2.0,
    };
    match optimizer {
        Optimizer::AdamW => 2.0 * state,
        // Two 8-bit moments with block-wise scales (under 0.1 B).
        Optimizer::AdamW8bit | Optimizer::PagedAdamW8bit => 2.0,
        // Factored second moment: a row and a column vector per matrix ≈ 2/h of the weights.
        Optimizer::Adafactor => state * 2.0 / a.hidden as f64,
        Optimizer::Sgd | Optimizer::Lion => state,
    }
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
        training(model, sc)
    } else {
        inference(model, sc)
    }
}

fn inference(model: &Model, sc: &Scenario) -> Breakdown {
    let a = &model.arch;
    let p = model.params();
    let n = f64::from(sc.cards.max(1));
    let (q, u) = weight_bytes(a, p.total, sc.weights);
    let weights_total = q + u;
    let weights = Segment::new(
        SegmentKind::Weights,
        weights_total / n,
        weights_formula(model, sc, q, u, n),
    );
    // Tensor parallel splits KV heads over the cards; past one head per card they repeat.
    let kv_full = kv_cache_bytes(model, sc.kv.bytes_per_element(), sc.context, sc.batch);
    let kv_share = match sc.split {
        // Layer split: each card caches only its own layers.
        Split::Layer => 1.0 / n,
        // MLA's latent is not split by heads: every tensor-parallel card keeps all of it.
        Split::Tensor if a.mla.is_some() => 1.0,
        Split::Tensor => (a.kv_heads as f64 / n).max(1.0) / a.kv_heads as f64,
    };
    let kv_bytes = kv_full * kv_share;
    let mut kv_text = kv_formula(model, sc.kv.bytes_per_element(), sc, kv_full);
    if n > 1.0 {
        kv_text = format!("{kv_text}; × {kv_share:.3} per card of {n}");
    }
    let kv = Segment::new(SegmentKind::KvCache, kv_bytes, kv_text);
    let activations = inference_activations(model, sc);
    let dequant = dequant_buffer(a, sc.weights);
    let overhead = overhead(activations.bytes + kv_bytes, dequant, 0.0);
    let (read, read_text) = decode_read_bytes(model, sc, q, u);
    let kv_read = kv_cache_bytes(model, sc.kv.bytes_per_element(), sc.context, 1);
    Breakdown {
        segments: vec![weights, kv, activations, overhead],
        decode_bytes_per_token: Some(read),
        decode_formula: Some(read_text),
        decode_kv_bytes_per_sequence: kv_read,
        host_bytes: 0.0,
        notes: vec![format!(
            "a serving engine takes {:.0} % of each card (gpu_memory_utilization) and fills what is left with KV cache",
            sc.gpu_util * 100.0
        )],
    }
}

fn weights_formula(model: &Model, sc: &Scenario, q: f64, u: f64, n: f64) -> String {
    let a = &model.arch;
    let p = model.params().total;
    let split = if n > 1.0 {
        format!(" ÷ {n} cards")
    } else {
        String::new()
    };
    if u > 0.0 {
        format!(
            "{} quantized params × {:.3} bits ({}) = {} + {} embedding/norm params × 2 B = {}{split}",
            group_thousands((p - a.unquantized_params().min(p)) as i64),
            sc.weights.bits(),
            sc.weights.label(),
            format_gb(q),
            group_thousands(a.unquantized_params().min(p) as i64),
            format_gb(u)
        )
    } else {
        format!(
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
    // Same bytes per parameter as the resident weights.
    let per_param = (q + u) / p.total as f64;
    let weights = read_params * per_param;
    let kv = kv_cache_bytes(model, sc.kv.bytes_per_element(), sc.context, 1);
    (
        weights + kv,
        format!(
            "{} active params (no embedding table) × {:.3} B = {} + KV of one sequence at {} tokens {} = {}",
            group_thousands(read_params as i64),
            per_param,
            format_gb(weights),
            group_thousands(sc.context as i64),
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

fn overhead(dynamic: f64, dequant: f64, gathered: f64) -> Segment {
    let fragmentation = FRAGMENTATION * dynamic;
    let mut parts = vec![
        Part {
            name: "cuda_context",
            bytes: CUDA_CONTEXT_BYTES,
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
    let formula = format!(
        "CUDA context + workspaces {} + allocator slack 5 % of dynamic memory {}{}{}",
        format_gb(CUDA_CONTEXT_BYTES),
        format_gb(fragmentation),
        if dequant > 0.0 {
            format!(
                " + dequantization buffer (largest linear in 16-bit) {}",
                format_gb(dequant)
            )
        } else {
            String::new()
        },
        if gathered > 0.0 {
            format!(" + ZeRO-3 gathered layers (2 in flight) {}", format_gb(gathered))
        } else {
            String::new()
        },
    );
    Segment::from_parts(SegmentKind::Overhead, parts, formula)
}

fn training(model: &Model, sc: &Scenario) -> Breakdown {
    let a = &model.arch;
    let p = model.params().total;
    let n = sc.cards.max(1);
    let multi = n > 1;
    let z = if multi { sc.zero } else { 0 };
    let offload_opt = sc.offload != Offload::None;
    let offload_params = sc.offload == Offload::All && z == 3;
    let mixed = sc.training_precision == TrainingPrecision::Mixed;
    let mut host = 0.0;
    let mut notes = Vec::new();

    // Frozen or trainable weights.
    let (q, u) = weight_bytes(a, p, sc.weights);
    let weights_total = q + u;
    let weights_card = if offload_params {
        0.0
    } else {
        shard(weights_total, z == 3, n)
    };
    if offload_params {
        host += weights_total;
    }
    let weights = Segment::new(
        SegmentKind::Weights,
        weights_card,
        format!(
            "{}{}",
            weights_formula(model, sc, q, u, 1.0),
            match (offload_params, z == 3) {
                (true, _) => " → on the host (ZeRO-3 parameter offload)".to_string(),
                (false, true) => format!(" ÷ {n} cards (ZeRO-3)"),
                _ => String::new(),
            }
        ),
    );

    // What trains: every parameter, or the adapters.
    let trainable = match sc.method {
        Method::Full => p as f64,
        _ => adapter_params(a, sc.lora_rank, sc.lora_targets) as f64,
    };
    // Gradients match the trainable weights: the model's format for a full fine-tune,
    // fp32 adapters under mixed precision, bf16 adapters otherwise.
    let grad_bytes = match sc.method {
        Method::Full => sc.weights.bits() / 8.0,
        _ if mixed => 4.0,
        _ => 2.0,
    };
    let gradients_total = trainable * grad_bytes;
    let gradients = if sc.optimizer_in_backward {
        // Only the gradient being applied exists: at most the largest tensor.
        let largest = if sc.method == Method::Full {
            (a.vocab * a.hidden).max(a.largest_linear()) as f64
        } else {
            trainable / a.layers.max(1) as f64
        };
        Segment::new(
            SegmentKind::Gradients,
            largest * grad_bytes,
            format!(
                "optimizer in backward: one gradient at a time, the largest tensor {} × {grad_bytes} B",
                group_thousands(largest as i64)
            ),
        )
    } else {
        Segment::new(
            SegmentKind::Gradients,
            shard(gradients_total, z >= 2, n),
            format!(
                "{} trainable params × {grad_bytes} B{}",
                group_thousands(trainable as i64),
                if z >= 2 {
                    format!(" ÷ {n} cards (ZeRO-{z})")
                } else {
                    String::new()
                }
            ),
        )
    };

    // Optimizer states and, in mixed precision with 16-bit trainable weights, the fp32 master.
    let state = optimizer_state_bytes(sc.optimizer, sc.training_precision, a);
    let master = if mixed && sc.method == Method::Full && sc.weights != WeightPrecision::Fp32 {
        4.0
    } else {
        0.0
    };
    let optimizer_total = trainable * (state + master);
    let paged = sc.optimizer == Optimizer::PagedAdamW8bit;
    let optimizer_card = if offload_opt || paged {
        0.0
    } else {
        shard(optimizer_total, z >= 1, n)
    };
    if offload_opt {
        host += optimizer_total;
    }
    if paged {
        notes.push(format!(
            "paged 8-bit states ({}) live in CUDA unified memory and page to host RAM when the card is full",
            format_gb(optimizer_total)
        ));
        host += optimizer_total;
    }
    let optimizer = Segment::new(
        SegmentKind::Optimizer,
        optimizer_card,
        format!(
            "{} trainable params × ({} states {:.2} B{}) = {}{}",
            group_thousands(trainable as i64),
            sc.optimizer.label(),
            state,
            if master > 0.0 { " + fp32 master 4 B" } else { "" },
            format_gb(optimizer_total),
            if offload_opt {
                " → on the host (offload)".to_string()
            } else if paged {
                " → paged to unified memory".to_string()
            } else if z >= 1 {
                format!(" ÷ {n} cards (ZeRO-{z})")
            } else {
                String::new()
            }
        ),
    );

    let activations = training_activations(model, sc);
    let mut segments = vec![weights, activations.clone(), gradients.clone(), optimizer];
    if sc.method != Method::Full {
        let adapter_bytes = trainable * if mixed { 4.0 } else { 2.0 };
        segments.push(Segment::new(
            SegmentKind::Adapter,
            shard(adapter_bytes, z == 3, n),
            format!(
                "rank {} on {} linears: r × (d_in + d_out) summed = {} params × {} B",
                sc.lora_rank,
                sc.lora_targets.label(),
                group_thousands(trainable as i64),
                if mixed { 4 } else { 2 }
            ),
        ));
    }
    // ZeRO-3 gathers two layers (the current and the prefetched next) in full on every card.
    let gathered = if z == 3 {
        2.0 * weights_total / a.layers.max(1) as f64
    } else {
        0.0
    };
    let dequant = if sc.method == Method::Qlora {
        dequant_buffer(a, sc.weights)
    } else {
        0.0
    };
    segments.push(overhead(activations.bytes + gradients.bytes, dequant, gathered));
    if mixed && sc.method != Method::Full {
        notes.push("adapters train in fp32 under mixed precision (PEFT's default upcast)".into());
    }
    Breakdown {
        segments,
        decode_bytes_per_token: None,
        decode_formula: None,
        decode_kv_bytes_per_sequence: 0.0,
        host_bytes: host,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::engine::Convention;

    fn model(id: &str) -> Model {
        Catalog::embedded().unwrap().model(id).unwrap().clone()
    }

    fn sc(method: Method) -> Scenario {
        Scenario {
            convention: Convention::Calibrated,
            ..Scenario::seed_training(method)
        }
    }

    #[test]
    fn adapter_params_are_rank_times_in_plus_out() {
        let a = model("llama-3.1-8b").arch;
        // q 4096→4096, k,v 4096→1024, o 4096→4096: 16 × 26,624 per layer × 32 layers.
        assert_eq!(adapter_params(&a, 16, LoraTargets::Attention), 13_631_488);
        // + gate, up 4096→14336 and down 14336→4096: 3 × (4096 + 14336) more per layer.
        assert_eq!(
            adapter_params(&a, 16, LoraTargets::All),
            16 * 32 * (26_624 + 3 * 18_432)
        );
    }

    #[test]
    fn logits_spike_at_4k_for_a_7b() {
        // Llama 2 7B, batch 1, 4,096 tokens: fp32 logits and their gradient, 4096 × 32000 × 8 B.
        let m = model("llama-2-7b");
        let s = Scenario {
            context: 4096,
            ..sc(Method::Full)
        };
        assert_eq!(training_activations(&m, &s).part("logits"), 1_048_576_000.0);
        let fused = Scenario { fused_ce: true, ..s };
        assert_eq!(training_activations(&m, &fused).part("logits"), 0.0);
    }

    #[test]
    fn layer_activations_by_hand() {
        // Llama 3.1 8B, flash: norms 2·6h + attention (2h + 2·2q + 4kv) + MLP (2h + 8I) + lse 4a
        // = 49,152 + 8,192 + 16,384 + 4,096 + 8,192 + 114,688 + 128 = 200,832 … + LoRA none.
        let m = model("llama-3.1-8b");
        let s = sc(Method::Full);
        let want = 12.0 * 4096.0
            + 2.0 * 4096.0
            + 4.0 * 4096.0
            + 4.0 * 1024.0
            + 2.0 * 4096.0
            + 8.0 * 14336.0
            + 4.0 * 32.0;
        assert_eq!(layer_activation_bytes_per_token(&m.arch, &s), want);
        // Eager attention adds 5·a·s bytes per token.
        let eager = Scenario {
            flash_attention: false,
            ..s.clone()
        };
        assert_eq!(
            layer_activation_bytes_per_token(&m.arch, &eager) - want,
            5.0 * 32.0 * 2048.0 - 4.0 * 32.0
        );
        // Checkpointing keeps 2·h per token per layer plus one layer.
        let t = training_activations(&m, &s).part("layers");
        assert_eq!(t, 2.0 * 4096.0 * 2048.0 * 32.0 + want * 2048.0);
    }

    #[test]
    fn full_fine_tune_bytes_per_param_by_precision() {
        let m = model("llama-3.1-8b");
        let p = m.params().total as f64;
        let mixed = breakdown(&m, &sc(Method::Full));
        let stored = |b: &Breakdown| {
            b.get(SegmentKind::Weights) + b.get(SegmentKind::Gradients) + b.get(SegmentKind::Optimizer)
        };
        assert_eq!(
            stored(&mixed),
            16.0 * p,
            "bf16 weights + grads, fp32 master + m + v"
        );
        let pure = breakdown(
            &m,
            &Scenario {
                training_precision: TrainingPrecision::Bf16,
                ..sc(Method::Full)
            },
        );
        assert_eq!(stored(&pure), 8.0 * p, "torchtune's pure bf16 AdamW");
        let eight = breakdown(
            &m,
            &Scenario {
                optimizer: Optimizer::AdamW8bit,
                ..sc(Method::Full)
            },
        );
        assert_eq!(stored(&eight), 10.0 * p, "2 + 2 + master 4 + two 8-bit moments");
        let sgd = breakdown(
            &m,
            &Scenario {
                optimizer: Optimizer::Sgd,
                ..sc(Method::Full)
            },
        );
        assert_eq!(stored(&sgd), 12.0 * p);
    }

    #[test]
    fn zero_stages_shard_what_they_should() {
        let m = model("llama-3.1-70b");
        let p = m.params().total as f64;
        let on = |zero, cards| {
            breakdown(
                &m,
                &Scenario {
                    zero,
                    cards,
                    ..sc(Method::Full)
                },
            )
        };
        let z1 = on(1, 8);
        assert_eq!(z1.get(SegmentKind::Optimizer), 12.0 * p / 8.0);
        assert_eq!(z1.get(SegmentKind::Gradients), 2.0 * p);
        let z2 = on(2, 8);
        assert_eq!(z2.get(SegmentKind::Gradients), 2.0 * p / 8.0);
        let z3 = on(3, 8);
        assert_eq!(z3.get(SegmentKind::Weights), 2.0 * p / 8.0);
        let off = breakdown(
            &m,
            &Scenario {
                zero: 3,
                cards: 8,
                offload: Offload::Optimizer,
                ..sc(Method::Full)
            },
        );
        assert_eq!(off.get(SegmentKind::Optimizer), 0.0);
        assert_eq!(
            off.host_bytes,
            12.0 * p,
            "the host holds every rank's optimizer shard"
        );
    }

    #[test]
    fn nf4_keeps_embeddings_in_16_bit() {
        let m = model("llama-3.1-8b");
        let b = breakdown(
            &m,
            &Scenario {
                weights: WeightPrecision::Nf4Dq,
                ..sc(Method::Qlora)
            },
        );
        let unq = m.arch.unquantized_params() as f64;
        let q = m.params().total as f64 - unq;
        let want = q * WeightPrecision::Nf4Dq.bits() / 8.0 + unq * 2.0;
        assert!((b.get(SegmentKind::Weights) - want).abs() < 1.0);
        // 2 × 128,256 × 4,096 embedding/lm_head + 65 norms × 4,096.
        assert_eq!(m.arch.unquantized_params(), 2 * 128_256 * 4096 + 65 * 4096);
    }

    #[test]
    fn tensor_parallel_replicates_kv_heads_beyond_one_per_card() {
        // Qwen3-235B has 4 KV heads: on 8 cards each holds one (half the heads are copies).
        let m = model("qwen3-235b-a22b");
        let s = |cards| Scenario {
            cards,
            context: 8192,
            ..Scenario::seed_inference(WeightPrecision::Fp8).calibrated()
        };
        let full = kv_cache_bytes(&m, 2.0, 8192, 1);
        assert_eq!(breakdown(&m, &s(2)).get(SegmentKind::KvCache), full / 2.0);
        assert_eq!(breakdown(&m, &s(4)).get(SegmentKind::KvCache), full / 4.0);
        assert_eq!(breakdown(&m, &s(8)).get(SegmentKind::KvCache), full / 4.0);
    }

    #[test]
    fn moe_decode_reads_active_weights_only() {
        let m = model("mixtral-8x7b");
        let b = breakdown(
            &m,
            &Scenario {
                context: 1,
                ..Scenario::seed_inference(WeightPrecision::Bf16).calibrated()
            },
        );
        let read = b.decode_bytes_per_token.unwrap();
        // Active 12.88 B minus the 131 M embedding table, in bf16, plus one token of KV.
        let want = (12_879_925_248.0 - 32000.0 * 4096.0) * 2.0 + 131_072.0;
        assert!((read - want).abs() < 1.0, "{read} vs {want}");
        assert!(read < b.get(SegmentKind::Weights) / 3.0);
    }
}
