//! The calibrated convention against hand computations.

use super::*;
use crate::catalog::Catalog;
use crate::engine::Convention;
use crate::engine::workload::scenario::{LoraTargets, Method, Offload, Optimizer, TrainingPrecision};

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
