//! The GPU Rent Hub guide's quick rules (seed 003 of the project's sources), exactly as it
//! states them in its sections 01 and 04: decimal GB, fixed bytes per parameter, +2 GB.
//! A sibling of `calibrated`; neither imports the dispatcher in `memory`.

use crate::engine::basics::choice::Choice;
use crate::engine::basics::units::words;
use crate::engine::basics::units::{format_gb, format_params, group_thousands};
use crate::engine::memory::breakdown::{Breakdown, Segment, SegmentKind};
use crate::engine::memory::kv::{kv_cache_bytes, kv_formula};
use crate::engine::model::Model;
use crate::engine::workload::scenario::{Method, Scenario};

/// "约 2 GB 运行时开销": CUDA context, framework and allocator, per process.
pub const RUNTIME_OVERHEAD_BYTES: f64 = 2e9;
/// Full fine-tune with Adam: 16 bytes per parameter before activations.
pub const FULL_FINE_TUNE_BYTES_PER_PARAM: f64 = 16.0;
/// "+15% for activations and fragmentation" on the full fine-tune column.
pub const FULL_FINE_TUNE_ACTIVATION_FACTOR: f64 = 0.15;
/// Rank-16 adapters on the attention projections are "about 0.5% of the parameters".
pub const ADAPTER_FRACTION_AT_RANK_16: f64 = 0.005;
/// Adapter state: bf16 weight 2 + bf16 gradient 2 + fp32 master 4 + Adam m, v 8 = 16 B.
pub const ADAPTER_BYTES_PER_PARAM: f64 = 16.0;
/// Adam's two fp32 moments.
pub const ADAM_MOMENT_BYTES: f64 = 8.0;
/// fp32 master copy kept when training in 16-bit weights.
pub const MASTER_COPY_BYTES: f64 = 4.0;
/// Activations are stored in 16-bit.
pub const ACTIVATION_BYTES: f64 = 2.0;

pub fn breakdown(model: &Model, sc: &Scenario) -> Breakdown {
    let params = model.params();
    let mut segments = vec![weights(params.total, sc)];
    let mut decode = None;
    match sc.method {
        Method::Inference => {
            segments.push(kv_cache(model, sc));
            segments.push(overhead());
            decode = Some(decode_bytes_per_token(params.active, sc));
        }
        Method::Full => {
            let gradients = full_gradients(params.total, sc);
            let optimizer = full_optimizer(params.total, sc);
            let stored = segments[0].bytes + gradients.bytes + optimizer.bytes;
            segments.push(full_activations(stored));
            segments.push(gradients);
            segments.push(optimizer);
        }
        Method::Lora | Method::Qlora => {
            let adapter_params = adapter_params(params.total, sc.lora_rank);
            segments.push(checkpointed_activations(model, sc));
            segments.push(adapter_gradients(adapter_params));
            segments.push(adapter_optimizer(adapter_params));
            segments.push(adapter_weights(adapter_params, params.total, sc.lora_rank));
            segments.push(overhead());
        }
    }
    Breakdown {
        segments,
        decode_bytes_per_token: decode.as_ref().map(|(b, _)| *b),
        decode_formula: decode.map(|(_, f)| f),
        decode_kv_bytes_per_sequence: 0.0,
        host_bytes: 0.0,
        notes: vec![
            "the quick rules fix AdamW in mixed precision, gradient checkpointing, attention-only adapters and one process".into(),
        ],
    }
}

/// params × bytes/param.
pub fn weights(params: u64, sc: &Scenario) -> Segment {
    let bpp = sc.weights.seed_bytes_per_param();
    let bytes = params as f64 * bpp;
    Segment::new(
        SegmentKind::Weights,
        bytes,
        words!(
            "{} params × {bpp} B ({}) = {}",
            group_thousands(params as i64),
            sc.weights.label(),
            format_gb(bytes)
        ),
    )
}

pub fn kv_cache(model: &Model, sc: &Scenario) -> Segment {
    let bpe = sc.kv.bytes_per_element();
    let bytes = kv_cache_bytes(model, bpe, sc.context, sc.batch);
    Segment::new(SegmentKind::KvCache, bytes, kv_formula(model, bpe, sc, bytes))
}

pub fn overhead() -> Segment {
    Segment::new(
        SegmentKind::Overhead,
        RUNTIME_OVERHEAD_BYTES,
        "CUDA context, framework and allocator: 2 GB per process (quick rules)".into(),
    )
}

/// Seed 003 section 07: decoding one token reads every resident weight once, so the
/// bytes per token are the weights (only the active experts of a MoE model). The seed
/// leaves the KV read out of its examples; this convention follows it.
pub fn decode_bytes_per_token(active_params: u64, sc: &Scenario) -> (f64, String) {
    let bpp = sc.weights.seed_bytes_per_param();
    let bytes = active_params as f64 * bpp;
    let formula = words!(
        "{} active params × {bpp} B = {} read per token (quick rules: weights only)",
        group_thousands(active_params as i64),
        format_gb(bytes)
    );
    (bytes, formula)
}

pub fn full_gradients(params: u64, sc: &Scenario) -> Segment {
    let bpp = sc.weights.seed_bytes_per_param();
    let bytes = params as f64 * bpp;
    Segment::new(
        SegmentKind::Gradients,
        bytes,
        words!(
            "{} params × {bpp} B = {}",
            format_params(params),
            format_gb(bytes)
        ),
    )
}

/// Adam's m and v in fp32 (8 B), plus an fp32 master copy (4 B) when the weights are
/// 16-bit: 16 B/param in total with weights and gradients, whatever the weight format.
pub fn full_optimizer(params: u64, sc: &Scenario) -> Segment {
    let master = if sc.weights.seed_bytes_per_param() < 4.0 {
        MASTER_COPY_BYTES
    } else {
        0.0
    };
    let bpp = ADAM_MOMENT_BYTES + master;
    let bytes = params as f64 * bpp;
    let what = if master > 0.0 {
        "Adam m, v fp32 8 B + fp32 master 4 B"
    } else {
        "Adam m, v fp32 8 B"
    };
    Segment::new(
        SegmentKind::Optimizer,
        bytes,
        words!(
            "{} params × ({what}) = {}",
            format_params(params),
            format_gb(bytes)
        ),
    )
}

/// The ×1.15 of the full fine-tune column: 15% of weights + gradients + optimizer.
pub fn full_activations(stored_bytes: f64) -> Segment {
    let bytes = stored_bytes * FULL_FINE_TUNE_ACTIVATION_FACTOR;
    Segment::new(
        SegmentKind::Activations,
        bytes,
        words!(
            "15% of weights + gradients + optimizer ({}) for activations and fragmentation = {}",
            format_gb(stored_bytes),
            format_gb(bytes)
        ),
    )
}

/// Adapter parameters: 0.5% of the model at rank 16, in proportion to the rank.
pub fn adapter_params(params: u64, rank: u64) -> f64 {
    params as f64 * ADAPTER_FRACTION_AT_RANK_16 * rank as f64 / 16.0
}

fn adapter_part(kind: SegmentKind, adapter_params: f64, bpp: f64, what: &str) -> Segment {
    let bytes = adapter_params * bpp;
    Segment::new(
        kind,
        bytes,
        words!(
            "{} adapter params × {bpp} B ({what}) = {}",
            format_params(adapter_params.round() as u64),
            format_gb(bytes)
        ),
    )
}

pub fn adapter_weights(adapter_params: f64, params: u64, rank: u64) -> Segment {
    let mut s = adapter_part(SegmentKind::Adapter, adapter_params, 2.0, "bf16");
    s.formula = words!(
        "0.5% × {} params × rank {rank}/16 = {}; {}",
        format_params(params),
        format_params(adapter_params.round() as u64),
        s.formula
    );
    s
}

pub fn adapter_gradients(adapter_params: f64) -> Segment {
    adapter_part(SegmentKind::Gradients, adapter_params, 2.0, "bf16 gradients")
}

pub fn adapter_optimizer(adapter_params: f64) -> Segment {
    adapter_part(
        SegmentKind::Optimizer,
        adapter_params,
        ADAPTER_BYTES_PER_PARAM - 4.0,
        "fp32 master 4 + Adam m, v 8",
    )
}

/// Activations with gradient checkpointing (Korthikanti et al. 2022): the checkpointed
/// input of every layer (2·s·b·h·L bytes), one layer recomputed during the backward pass
/// (s·b·h·34 + 5·a·s²·b bytes) and the fp32 logits (4·s·b·V bytes).
pub fn checkpointed_activations(model: &Model, sc: &Scenario) -> Segment {
    let a = &model.arch;
    let (s, b, h) = (sc.context as f64, sc.batch as f64, a.hidden as f64);
    let layer_inputs = ACTIVATION_BYTES * s * b * h * a.layers as f64;
    let one_layer = s * b * h * 34.0 + 5.0 * a.heads as f64 * s * s * b;
    let logits = 4.0 * s * b * a.vocab as f64;
    let bytes = layer_inputs + one_layer + logits;
    Segment::new(
        SegmentKind::Activations,
        bytes,
        words!(
            "checkpointing on: layer inputs 2·s·b·h·L = {} + one layer recomputed \
             34·s·b·h + 5·a·s²·b = {} + fp32 logits 4·s·b·V = {} (s {}, b {}, h {}, L {}, a {}, V {}) = {}",
            format_gb(layer_inputs),
            format_gb(one_layer),
            format_gb(logits),
            sc.context,
            sc.batch,
            a.hidden,
            a.layers,
            a.heads,
            a.vocab,
            format_gb(bytes)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::engine::memory::breakdown::SegmentKind;
    use crate::engine::model::precision::{KvPrecision, WeightPrecision};

    fn model(id: &str) -> Model {
        Catalog::embedded().unwrap().model(id).unwrap().clone()
    }

    #[test]
    fn weights_are_params_times_bytes() {
        let m = model("llama-3.1-8b");
        let sc = Scenario::seed_inference(WeightPrecision::Int4);
        assert_eq!(weights(m.params().total, &sc).bytes, 8_030_261_248.0 * 0.5);
    }

    #[test]
    fn kv_cache_is_the_seed_formula_for_plain_gqa() {
        // 2 × 32 layers × 8 kv heads × 128 × 2 B × 8,192 × batch 3
        let m = model("llama-3.1-8b");
        assert_eq!(
            kv_cache_bytes(&m, 2.0, 8192, 3),
            2.0 * 32.0 * 8.0 * 128.0 * 2.0 * 8192.0 * 3.0
        );
    }

    #[test]
    fn sliding_window_layers_hold_at_most_the_window() {
        // Gemma 2 9B: 21 global layers hold 8,192 tokens, 21 local layers hold 4,096.
        let m = model("gemma-2-9b");
        let per_layer_token = 2.0 * 8.0 * 256.0 * 2.0;
        assert_eq!(
            kv_cache_bytes(&m, 2.0, 8192, 1),
            (21.0 * 8192.0 + 21.0 * 4096.0) * per_layer_token
        );
        // Below the window every layer holds the whole context.
        assert_eq!(kv_cache_bytes(&m, 2.0, 1000, 1), 42.0 * 1000.0 * per_layer_token);
        // Gemma 3 27B: 10 of 62 layers are global.
        assert_eq!(model("gemma-3-27b").arch.sliding_layers(), 52);
    }

    #[test]
    fn mla_caches_the_latent_not_the_heads() {
        // DeepSeek-V3: (512 + 64) × 61 layers × 2 B = 70,272 B/token, not 2 × 128 × 128 × 61 × 2.
        let m = model("deepseek-v3");
        assert_eq!(kv_cache_bytes(&m, 2.0, 1, 1), 70_272.0);
        assert_eq!(kv_cache_bytes(&m, 1.0, 1000, 1), 35_136_000.0);
    }

    #[test]
    fn full_fine_tune_is_16_bytes_per_param_whatever_the_weight_format() {
        let m = model("seed-7b");
        for w in [WeightPrecision::Bf16, WeightPrecision::Fp32] {
            let sc = Scenario {
                weights: w,
                ..Scenario::seed_training(Method::Full)
            };
            let b = breakdown(&m, &sc);
            let stored =
                b.get(SegmentKind::Weights) + b.get(SegmentKind::Gradients) + b.get(SegmentKind::Optimizer);
            assert_eq!(stored, 112e9, "{w:?}");
            assert_eq!(b.get(SegmentKind::Activations), 0.15 * 112e9);
        }
    }

    #[test]
    fn adapter_state_is_16_bytes_per_adapter_param() {
        // 0.5 % of 7e9 = 35e6 adapter params at rank 16; rank 64 is four times that.
        assert_eq!(adapter_params(7_000_000_000, 16), 35e6);
        assert_eq!(adapter_params(7_000_000_000, 64), 140e6);
        let b = breakdown(&model("seed-7b"), &Scenario::seed_training(Method::Lora));
        let adapter =
            b.get(SegmentKind::Adapter) + b.get(SegmentKind::Gradients) + b.get(SegmentKind::Optimizer);
        assert!((adapter - 35e6 * 16.0).abs() < 1.0);
    }

    #[test]
    fn checkpointed_activations_by_hand_for_the_seed_7b() {
        // s 2048, b 1, h 4096, L 32, a 32, V 128,256:
        // 2·s·h·L = 536,870,912; 34·s·h + 5·a·s² = 285,212,672 + 671,088,640; 4·s·V = 1,050,673,152
        let b = breakdown(&model("seed-7b"), &Scenario::seed_training(Method::Qlora));
        let want = 536_870_912.0 + 285_212_672.0 + 671_088_640.0 + 1_050_673_152.0;
        assert_eq!(b.get(SegmentKind::Activations), want);
        // QLoRA 7B: 3.5 + 0.56 + 2 + 2.544 GB = 8.60 GB
        assert_eq!((b.total() / 1e7).round() / 100.0, 8.6);
    }

    #[test]
    fn inference_has_weights_kv_and_overhead_and_reads_active_weights() {
        let m = model("mixtral-8x7b");
        let sc = Scenario {
            kv: KvPrecision::Fp8,
            ..Scenario::seed_inference(WeightPrecision::Fp8)
        };
        let b = breakdown(&m, &sc);
        let kinds: Vec<SegmentKind> = b.segments.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [SegmentKind::Weights, SegmentKind::KvCache, SegmentKind::Overhead]
        );
        assert_eq!(b.decode_bytes_per_token, Some(12_879_925_248.0));
        assert_eq!(b.get(SegmentKind::Overhead), 2e9);
    }

    #[test]
    fn formulas_carry_the_numbers() {
        let b = breakdown(
            &model("seed-70b"),
            &Scenario::seed_inference(WeightPrecision::Fp8),
        );
        assert_eq!(
            b.segment(SegmentKind::Weights).unwrap().formula,
            "70,000,000,000 params × 1 B (FP8) = 70.00 GB"
        );
        assert_eq!(
            b.segment(SegmentKind::KvCache).unwrap().formula,
            "2 × 8 kv heads × 128 head_dim × 80 layers × 8,192 tokens × 2 B (FP16) × batch 1 = 2.68 GB"
        );
    }
}
