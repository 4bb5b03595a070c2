//! Serving and multi-card plans against hand computations.

use serde_json::Value;
use vramfit::catalog::Catalog;
use vramfit::engine::memory::breakdown;
use vramfit::engine::speed::serving::Bound;
use vramfit::engine::workload::scenario::Split;
use vramfit::engine::{Scenario, SegmentKind, Verdict, WeightPrecision, plan};

mod common;

fn catalog() -> Catalog {
    Catalog::embedded().unwrap()
}

fn one(c: &Catalog, id: &str) -> Vec<vramfit::engine::Gpu> {
    vec![c.gpus[c.gpu_index(id).unwrap()].clone()]
}

#[test]
fn seventy_b_fp8_on_one_h100_fits_at_8k_not_at_32k_under_the_seed_rules() {
    // Seed 003 section 03: 70 + 2.7 + 2 = 74.7 GB fits 80 GB; at 32k, 70 + 10.7 + 2 = 82.7 does not.
    let c = catalog();
    let m = c.model("seed-70b").unwrap();
    let at = |context| {
        let sc = Scenario {
            context,
            ..Scenario::seed_inference(WeightPrecision::Fp8)
        };
        plan(m, &one(&c, "h100-sxm"), &sc, false).options[0].clone()
    };
    let o8 = at(8192);
    assert!(o8.verdict.is_fit());
    // The KV budget is what weights and overhead leave: 80 − 70 − 2 = 8.0 GB (the 8k
    // sequence's own 2.68 GB included) = 24,414 tokens of 327,680 B (the quick rules count
    // tokens, not blocks); the longest context is the judge's, the same number.
    let cap = o8.serving.unwrap();
    assert_eq!(cap.kv_capacity_tokens, 24_414);
    assert_eq!(cap.max_concurrent_sequences, 2);
    assert_eq!(cap.max_context, 24_414);
    assert!(at(24_414).verdict.is_fit());
    assert_eq!(at(24_415).verdict, Verdict::No);
    assert_eq!(at(32768).verdict, Verdict::No);
}

#[test]
fn batch_32_adds_85_9_gb_of_kv() {
    let c = catalog();
    let m = c.model("seed-70b").unwrap();
    for sc in [
        Scenario::seed_inference(WeightPrecision::Fp8),
        Scenario::seed_inference(WeightPrecision::Fp8).calibrated(),
    ] {
        let one = breakdown(m, &sc).get(SegmentKind::KvCache);
        let many = breakdown(
            m,
            &Scenario {
                batch: 32,
                ..sc.clone()
            },
        )
        .get(SegmentKind::KvCache);
        assert_eq!(
            ((many - one) / 1e7).round() / 100.0,
            83.21,
            "31 more sequences × 2.684 GB"
        );
        assert_eq!((many / 1e7).round() / 100.0, 85.9);
    }
}

#[test]
fn eight_cards_replicate_four_kv_heads() {
    let c = catalog();
    let m = c.model("qwen3-235b-a22b").unwrap();
    let sc = |cards, split| Scenario {
        cards,
        split,
        ..Scenario::seed_inference(WeightPrecision::Fp8).calibrated()
    };
    let full = breakdown(m, &sc(1, Split::Tensor)).get(SegmentKind::KvCache);
    assert_eq!(
        breakdown(m, &sc(4, Split::Tensor)).get(SegmentKind::KvCache),
        full / 4.0
    );
    assert_eq!(
        breakdown(m, &sc(8, Split::Tensor)).get(SegmentKind::KvCache),
        full / 4.0,
        "one head per card, copied"
    );
    assert_eq!(
        breakdown(m, &sc(8, Split::Layer)).get(SegmentKind::KvCache),
        full / 8.0,
        "a layer split keeps its layers"
    );
}

#[test]
fn moe_decode_reads_active_weights_but_keeps_all_resident() {
    let c = catalog();
    let m = c.model("qwen3-30b-a3b").unwrap();
    let sc = Scenario {
        context: 16,
        ..Scenario::seed_inference(WeightPrecision::Bf16).calibrated()
    };
    let p = plan(m, &one(&c, "h100-sxm"), &sc, false);
    let o = &p.options[0];
    // Resident: all 30.5 B parameters. Read per token: 3.35 B active minus the input embedding.
    assert!(p.breakdown.get(SegmentKind::Weights) > 60e9);
    let read = (3_353_032_704.0 - 151_936.0 * 2048.0) * 2.0;
    let ceiling = 3350e9 / (read + p.breakdown.decode_kv_bytes_per_sequence);
    assert!((o.decode_tokens_per_s.unwrap() - ceiling).abs() < 0.01);
    assert!(o.decode_tokens_per_s.unwrap() > 500.0, "ten times a dense 30B");
}

#[test]
fn the_roofline_turns_from_bandwidth_to_compute_as_the_batch_grows() {
    let c = catalog();
    let m = c.model("llama-3.1-8b").unwrap();
    let bound = |batch| {
        // Short sequences, so the batch's KV reads do not dominate the weights.
        let sc = Scenario {
            batch,
            context: 128,
            ..Scenario::seed_inference(WeightPrecision::Bf16).calibrated()
        };
        plan(m, &one(&c, "h100-sxm"), &sc, false).options[0]
            .roofline
            .unwrap()
            .bound
    };
    assert_eq!(bound(1), Bound::Bandwidth);
    assert_eq!(bound(64), Bound::Bandwidth);
    assert_eq!(bound(1024), Bound::Compute);
}

#[test]
fn a_layer_split_adds_capacity_not_speed() {
    let c = catalog();
    let m = c.model("llama-3.1-70b").unwrap();
    let run = |split| {
        let sc = Scenario {
            cards: 2,
            split,
            ..Scenario::seed_inference(WeightPrecision::Fp8).calibrated()
        };
        plan(m, &one(&c, "l40s"), &sc, false).options[0].clone()
    };
    let tp = run(Split::Tensor);
    let layer = run(Split::Layer);
    assert!(tp.verdict.is_fit() && layer.verdict.is_fit());
    assert!(tp.decode_tokens_per_s.unwrap() > 1.8 * layer.decode_tokens_per_s.unwrap());
    assert!(tp.warning().unwrap().contains("tensor parallel over PCIe"));
    assert!(layer.warning().is_none());
}

#[test]
fn cli_serving_flags_and_json_fields() {
    let out = common::vramfit()
        .args([
            "plan",
            "--model",
            "llama-3.1-70b",
            "--weights",
            "fp8",
            "--cards",
            "2",
            "--split",
            "layer",
        ])
        .args([
            "--prompt",
            "2048",
            "--gpu-util",
            "0.95",
            "--batch",
            "8",
            "--gpu",
            "h100-sxm",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &v["options"][0];
    assert_eq!(o["count"], 2);
    assert_eq!(o["split"], "layer");
    assert!(o["link"].as_str().unwrap().contains("NVLink"));
    for key in [
        "per_card_bytes",
        "decode_tokens_per_s",
        "decode_aggregate_tokens_per_s",
        "decode_bound",
        "prefill_seconds",
        "kv_capacity_tokens",
        "max_concurrent_sequences",
        "max_context",
        "max_batch",
    ] {
        assert!(!o[key].is_null(), "{key} missing");
    }
    assert_eq!(o["decode_bound"], "bandwidth");
    assert_eq!(v["scenario"]["gpu_util"], 0.95);
    assert_eq!(
        o["usable_bytes"].as_f64().unwrap(),
        // What CUDA can allocate on an H100 SXM: 81,082 MiB (PyTorch's total_memory).
        (2.0 * 0.95 * 81_082.0 * 1_048_576.0_f64).round()
    );
    // Time to first token for 8 × 2,048 prompt tokens on one card's compute (layer split).
    let prefill = 2.0 * 70_553_706_496.0 * 2048.0 * 8.0 / 1979e12;
    assert!((o["prefill_seconds"].as_f64().unwrap() - prefill).abs() < 1e-3);
}

/// `--max-batched-tokens`: the prefill chunk sets serving's activation peak. Llama 3.1 8B
/// keeps 2·(2h + 2q + 2kv + 3I) = 122,880 B a token in flight (h 4096, q 4096, kv 1024,
/// I 14,336); 8 prompts of 2,048 are 16,384 tokens: in one step when allowed, else in two of
/// the default 8,192. The last token's fp32 logits come on top: 8 × 128,256 × 4 B.
#[test]
fn the_prefill_chunk_sets_the_activation_peak() {
    let run = |extra: &[&str]| -> Value {
        let out = common::vramfit()
            .args([
                "plan",
                "--model",
                "llama-3.1-8b",
                "--context",
                "2048",
                "--batch",
                "8",
                "--json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let activations = |v: &Value| common::segment(v, "activations")["bytes"].as_u64().unwrap();
    let per_token = 2 * (2 * 4096 + 2 * 4096 + 2 * 1024 + 3 * 14336);
    assert_eq!(per_token, 122_880);
    let logits = 8 * 128_256 * 4;
    let whole = run(&["--max-batched-tokens", "16384"]);
    assert_eq!(activations(&whole), 16_384 * per_token + logits);
    assert_eq!(whole["scenario"]["max_batched_tokens"], 16_384);
    let default = run(&[]);
    assert_eq!(activations(&default), 8_192 * per_token + logits);
    // A chunk larger than the work prefills the work.
    let big = run(&["--max-batched-tokens", "65536"]);
    assert_eq!(activations(&big), activations(&whole));
    // Below one KV block is refused.
    let out = common::vramfit()
        .args(["plan", "--model", "llama-3.1-8b", "--max-batched-tokens", "8"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-batched-tokens must be between 16 and"));
}
