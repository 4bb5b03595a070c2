//! Expected speed beside the ceiling (issue 28): the fitted class tables match the public
//! speed set, no run is above its ceiling, the JSON carries the fields, and the accuracy
//! the issue asks for holds on the public set.

mod common;

use serde_json::Value;
use vramfit::accuracy::speed::{self, Evaluation, round4};
use vramfit::accuracy::speed_report::summary;
use vramfit::catalog::Catalog;
use vramfit::engine::WeightPrecision as W;
use vramfit::engine::speed::expected::{
    Efficiency, Family, Fitted, Hardware, MIN_FIXED_RUNS, MIN_RUNS, Shape, expected, table,
};

fn evaluation() -> Evaluation {
    speed::evaluate(&Catalog::embedded().unwrap()).unwrap()
}

fn same(kind: &str, stored: &[Efficiency], fitted: &[Fitted]) {
    let fitted: Vec<&Fitted> = fitted.iter().filter(|c| c.runs >= MIN_RUNS).collect();
    let names = |v: Vec<&str>| v.join(", ");
    assert_eq!(
        names(stored.iter().map(|c| c.name).collect()),
        names(fitted.iter().map(|c| c.name.as_str()).collect()),
        "{kind}: the classes of engine::speed::expected::table differ from the runs': regenerate it (print_the_table)"
    );
    for (s, f) in stored.iter().zip(&fitted) {
        assert_eq!(s.runs, f.runs, "{kind} {}", s.name);
        for (a, b, what) in [
            (s.median, f.median, "median"),
            (s.low, f.low, "low"),
            (s.high, f.high, "high"),
            (s.fixed_s, f.fixed_s, "fixed_s"),
        ] {
            let round = if what == "fixed_s" {
                speed::round_fixed
            } else {
                round4
            };
            assert_eq!(
                a,
                round(b),
                "{kind} {} {what}: the table drifted from the runs",
                s.name
            );
        }
    }
}

#[test]
fn the_tables_are_what_the_runs_give() {
    let e = evaluation();
    same("decode", table::DECODE, &e.decode_table);
    same("prefill", table::PREFILL, &e.prefill_table);
}

/// The source of `src/engine/speed/expected/table.rs` for the runs as they stand:
/// `cargo test --test expected_speed -- --ignored --nocapture print_the_table`.
#[test]
#[ignore]
fn print_the_table() {
    println!("{}", speed::table_source(&evaluation()));
}

/// The fewest runs a decode class needs for a fixed cost per token (`MIN_FIXED_RUNS`) is
/// the one among 3, 5, 6 and 8 with the lowest leave-one-out median |error|: the
/// leave-one-out figures it prints are in `src/engine/speed/expected/mod.rs`.
#[test]
fn the_fixed_cost_threshold_is_the_best_left_out() {
    let catalog = Catalog::embedded().unwrap();
    let loo = |n: usize| {
        let e = speed::evaluate_with(&catalog, n).unwrap();
        let s = summary(&e.decode);
        let (a, l) = (s.all.median_error.unwrap(), s.all.loo_median_error.unwrap());
        println!(
            "threshold {n}: in sample {:.2} %, leave-one-out {:.2} %",
            a * 100.0,
            l * 100.0
        );
        l
    };
    let chosen = loo(MIN_FIXED_RUNS);
    for n in [3, 5, 6, 8] {
        assert!(chosen <= loo(n), "{n} runs beats {MIN_FIXED_RUNS} left out");
    }
}

#[test]
fn no_run_is_above_its_ceiling() {
    let e = evaluation();
    for r in e.decode.iter().chain(&e.prefill) {
        assert!(
            r.measured <= r.ceiling,
            "{}: measured {:.1} above the ceiling {:.1}: the mapping or the card's figures are wrong",
            r.id,
            r.measured,
            r.ceiling
        );
    }
}

#[test]
fn every_run_is_mapped_or_says_why() {
    let e = evaluation();
    assert_eq!(e.decode.len() + e.prefill.len() + e.skipped.len(), 149 + 41 + 99);
    assert!(e.skipped.iter().all(|s| !s.why.is_empty()));
}

/// A batch-1 dense 8B shape; each case changes what its class keys on.
fn shape(family: Family, hardware: Hardware, weights: W) -> Shape {
    Shape {
        family,
        hardware,
        weights,
        params: 8e9,
        moe: false,
        batch: 1,
        offload: false,
    }
}

/// One hand-computed case per class a plan can land in: a ceiling of 100 tokens/s per
/// stream (200 aggregate) gives 1 ÷ (0.01 s ÷ the class's efficiency + its fixed seconds a
/// token), the class's figures written out from `engine::speed::expected::table` (which
/// `the_tables_are_what_the_runs_give` ties to the runs); with no fixed cost, 100 × the
/// median share.
#[test]
fn expected_is_the_ceiling_at_the_class_efficiency_plus_its_fixed_cost() {
    use Family::*;
    use Hardware::*;
    let moe = |s: Shape| Shape {
        moe: true,
        params: 30e9,
        ..s
    };
    let small = |s: Shape| Shape { params: 1.1e9, ..s };
    let batch = |s: Shape| Shape { batch: 32, ..s };
    let offload = |s: Shape| Shape {
        offload: true,
        ..moe(s)
    };
    let cases: Vec<(Shape, &str, (f64, f64))> = vec![
        // llama.cpp on a GDDR card, K-quants: 12 runs (RTX 4090, 3090, 4070 Ti, 3080, …).
        (
            shape(Ggml, Gddr, W::Q4KM),
            "ggml · gddr · k-quant",
            (0.6967, 0.001),
        ),
        (
            small(shape(Ggml, Gddr, W::Q4KM)),
            "ggml · gddr · small",
            (0.4766, 0.0),
        ),
        (shape(Ggml, Hbm, W::Q4KM), "ggml · hbm · k-quant", (0.339, 0.0)),
        (shape(Ggml, Hbm, W::Bf16), "ggml · hbm · 16-bit", (0.5128, 0.0)),
        // 16-bit on a GDDR card has 2 runs of its own: the 6 of llama.cpp's 16-bit kernels.
        (shape(Ggml, Gddr, W::Fp16), "ggml · 16-bit", (0.7415, 0.0032)),
        (
            shape(Ggml, Apple, W::Q4KM),
            "ggml · apple · k-quant",
            (0.7148, 0.0044),
        ),
        (
            moe(shape(Ggml, Apple, W::Q4_0)),
            "ggml · apple · moe",
            (0.6709, 0.0),
        ),
        (small(shape(Ggml, Apple, W::Q4KM)), "ggml · small", (0.4341, 0.0)),
        (
            shape(Ggml, Apple, W::Q8_0),
            "ggml · legacy-quant",
            (0.7926, 0.0032),
        ),
        (
            moe(shape(Ggml, Integrated, W::Mxfp4)),
            "ggml · integrated · moe",
            (0.7357, 0.0014),
        ),
        // A MoE on a GDDR card (one llama.cpp run) keeps to GDDR's runs, not other memories' MoE.
        (moe(shape(Ggml, Gddr, W::Mxfp4)), "ggml · gddr", (0.6662, 0.0006)),
        (
            shape(Ggml, Integrated, W::Q4_0),
            "ggml · integrated · legacy-quant",
            (0.8174, 0.0032),
        ),
        (
            shape(Ggml, Integrated, W::Q4KM),
            "ggml · k-quant",
            (0.6565, 0.001),
        ),
        // vLLM, SGLang and NIM on HBM (tests/data/speed-runs-serving.toml): one stream by
        // kernel, a batched dense model, and a batched MoE apart.
        (
            shape(Serving, Hbm, W::Bf16),
            "serving · hbm · 16-bit",
            (0.5512, 0.0),
        ),
        (
            shape(Serving, Hbm, W::Int4),
            "serving · hbm · int4",
            (0.518, 0.0018),
        ),
        (
            moe(shape(Serving, Hbm, W::Bf16)),
            "serving · hbm · moe",
            (0.1354, 0.0034),
        ),
        (
            batch(shape(Serving, Hbm, W::Fp8)),
            "serving · hbm · batch",
            (0.6344, 0.0036),
        ),
        (
            batch(shape(Serving, Gddr, W::Bf16)),
            "serving · batch",
            (0.6344, 0.0036),
        ),
        (
            moe(batch(shape(Serving, Hbm, W::Mxfp4))),
            "serving · hbm · moe-batch",
            (0.075, 0.0022),
        ),
        (
            shape(Mlx, Apple, W::Q4_0),
            "mlx · apple · legacy-quant",
            (0.7996, 0.0),
        ),
        (shape(Mlx, Apple, W::Int4), "mlx · apple", (0.8352, 0.0008)),
        (shape(GptFast, Hbm, W::Bf16), "gpt-fast · hbm", (0.8993, 0.003)),
        (
            shape(Transformers, Gddr, W::Fp16),
            "transformers · gddr · 16-bit",
            (0.5365, 0.0),
        ),
        (
            shape(Transformers, Gddr, W::Nf4),
            "transformers · gddr",
            (0.2859, 0.006),
        ),
        // Offloaded: llama.cpp and ik_llama.cpp (14 runs), KTransformers (6), and the 20
        // together for another runtime that computes in RAM.
        (
            offload(shape(Ggml, Gddr, W::Q4KM)),
            "offload · ggml",
            (0.5755, 0.013),
        ),
        (
            offload(shape(Other, Gddr, W::Q4KM)),
            "offload · other",
            (0.5166, 0.02),
        ),
    ];
    for (s, class, (efficiency, fixed_s)) in cases {
        let e = expected(&s, Some(100.0), Some(200.0), None);
        let c = e.decode_class.unwrap_or_else(|| panic!("{class}: no class"));
        assert_eq!(c.name, class);
        assert!(c.runs >= MIN_RUNS);
        assert_eq!((c.median, c.fixed_s), (efficiency, fixed_s), "{class}");
        // 100 tokens/s: 10 ms ÷ the efficiency plus the fixed cost a token.
        let per_user = 1.0 / (0.01 / efficiency + fixed_s);
        assert!(
            (e.decode_tokens_per_s.unwrap() - per_user).abs() < 1e-9,
            "{class}"
        );
        // The batch of two streams: two users' tokens a step.
        assert!(
            (e.aggregate_tokens_per_s.unwrap() - 2.0 * per_user).abs() < 1e-9,
            "{class}"
        );
        let [lo, hi] = e.decode_band.unwrap();
        assert!(
            lo <= per_user && per_user <= hi && hi <= 100.0,
            "{class}: the band holds the median, under the ceiling"
        );
    }
}

/// Classes below 3 runs give nothing, so the ceiling stands alone: a small model under vLLM on
/// a GDDR card (one vLLM run on GDDR, none small), vLLM streaming weights from RAM (no run: it
/// never borrows the RAM-computing runtimes' offload class), an unknown runtime, llama.cpp
/// batched (one dense run, two MoE), MLX batched.
#[test]
fn too_few_runs_give_no_figure() {
    let batched = |s: Shape| Shape { batch: 8, ..s };
    let none = [
        Shape {
            params: 0.6e9,
            ..shape(Family::Serving, Hardware::Gddr, W::Bf16)
        },
        batched(shape(Family::Ggml, Hardware::Integrated, W::Q8_0)),
        Shape {
            moe: true,
            ..batched(shape(Family::Ggml, Hardware::Integrated, W::Mxfp4))
        },
        Shape {
            offload: true,
            ..shape(Family::Serving, Hardware::Gddr, W::Bf16)
        },
        shape(Family::Other, Hardware::Gddr, W::Int4),
        batched(shape(Family::Mlx, Hardware::Apple, W::Q4_0)),
    ];
    for s in none {
        let e = expected(&s, Some(100.0), Some(100.0), Some((512, 0.1)));
        assert_eq!(e.decode_tokens_per_s, None, "{s:?}");
        assert_eq!(e.decode_class, None, "{s:?}");
    }
}

/// Prefill: the compute roofline's rate × the prefill class's median; TTFT its seconds ÷ it.
#[test]
fn prefill_is_the_roofline_times_the_class_median() {
    // 512 tokens in 0.05 s at the roofline: 10,240 tokens/s; llama.cpp on GDDR reaches 0.3961.
    let e = expected(
        &shape(Family::Ggml, Hardware::Gddr, W::Q4KM),
        None,
        None,
        Some((512, 0.05)),
    );
    assert_eq!(e.prefill_class.unwrap().name, "ggml · gddr");
    assert!((e.prefill_tokens_per_s.unwrap() - 10_240.0 * 0.3961).abs() < 1e-6);
    assert!((e.ttft_s.unwrap() - 0.05 / 0.3961).abs() < 1e-12);
    // On Apple chips no llama.cpp prefill class: the family's 22 runs.
    let a = expected(
        &shape(Family::Ggml, Hardware::Apple, W::Q4KM),
        None,
        None,
        Some((512, 0.05)),
    );
    assert_eq!(a.prefill_class.unwrap().name, "ggml");
    assert!((a.ttft_s.unwrap() - 0.05 / 0.3131).abs() < 1e-12);
}

fn plan_json(args: &[&str]) -> Value {
    let out = common::vramfit()
        .args(["plan", "--json", "--no-detect"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

const FIELDS: [&str; 6] = [
    "expected_decode_tokens_per_s",
    "expected_decode_band",
    "expected_aggregate_tokens_per_s",
    "expected_prefill_tokens_per_s",
    "expected_ttft_s",
    "speed_class",
];

#[test]
fn the_plan_json_carries_the_expected_speeds() {
    // llama.cpp (K-quants) on an RTX 4090: the ceiling's time ÷ 0.6967 plus 1 ms a token.
    let v = plan_json(&[
        "--model",
        "llama-3.1-8b",
        "--weights",
        "q4_k_m",
        "--gpu",
        "rtx-4090",
    ]);
    let o = &v["options"][0];
    for key in FIELDS {
        assert!(!o[key].is_null(), "{key} missing");
    }
    let ceiling = o["decode_tokens_per_s"].as_f64().unwrap();
    let expected = o["expected_decode_tokens_per_s"].as_f64().unwrap();
    assert!(
        (expected - 1.0 / (1.0 / (0.6967 * ceiling) + 0.001)).abs() < 0.02,
        "{expected} vs {ceiling}"
    );
    assert_eq!(o["speed_class"]["name"], "ggml · gddr · k-quant");
    assert_eq!(o["speed_class"]["runs"], 12);
    let band = o["expected_decode_band"].as_array().unwrap();
    assert!(band[0].as_f64().unwrap() <= expected && expected <= band[1].as_f64().unwrap());
    assert!(band[1].as_f64().unwrap() <= ceiling);
    // TTFT: the roofline's prefill seconds ÷ 0.3961.
    let ttft = o["expected_ttft_s"].as_f64().unwrap();
    assert!((ttft - o["prefill_seconds"].as_f64().unwrap() / 0.3961).abs() < 1e-3);
}

#[test]
fn the_plan_json_is_null_where_the_class_has_too_few_runs() {
    // A small model under vLLM on a GDDR card: one vLLM run on GDDR, none of a small model.
    let v = plan_json(&[
        "--model",
        "qwen3-0.6b",
        "--weights",
        "bf16",
        "--gpu",
        "rtx-4090",
        "--framework",
        "vllm",
    ]);
    let o = &v["options"][0];
    for key in FIELDS {
        assert!(o.get(key).is_some(), "{key} absent");
        assert!(o[key].is_null(), "{key} should be null");
    }
}

/// The accuracy of the expected decode on the public set. The issue asks for a median
/// |error| ≤ 10 % overall, ≤ 20 % on MoE runs and ≤ 25 % offloaded, clearly better than
/// putting every run at the set's median share. With a fixed cost per token beside each
/// class's efficiency (classes of 5 runs or more): 9.8 % in sample over 152 runs (13.6 %
/// as shares alone), 13.9 % leave-one-out (17.0 %); MoE 8.5 % (10.9 % leave-one-out),
/// offloaded 10.6 % (10.4 %), asserted here so that it cannot slip. Leave-one-out stays
/// above 10 %: the serving runs are more scattered than llama.cpp's (SGLang on the H20
/// reaches about half the share vLLM reaches on the A100 in the same class). Offloaded: 20
/// runs with their host RAM stated.
#[test]
fn the_expected_decode_is_accurate_on_the_public_set() {
    let e = evaluation();
    let s = summary(&e.decode);
    let all = s.all.median_error.unwrap();
    let loo = s.all.loo_median_error.unwrap();
    let trivial = s.all.trivial.unwrap();
    assert!(all <= 0.10, "median |error| {all:.3}");
    assert!(loo <= 0.14, "leave-one-out median |error| {loo:.3}");
    assert!(all <= 0.6 * trivial, "{all:.3} vs trivial {trivial:.3}");
    // Batched runs never fall back into single-stream classes (nor the reverse).
    assert!(
        loo <= 0.9 * s.all.loo_trivial.unwrap(),
        "leave-one-out {loo:.3} vs trivial"
    );
    let moe = s.moe.median_error.unwrap();
    assert!(moe <= 0.09, "MoE median |error| {moe:.3}");
    assert!(s.moe.loo_median_error.unwrap() <= 0.11);
    assert_eq!(s.offload.runs, 20);
    let off = s.offload.median_error.unwrap();
    let off_loo = s.offload.loo_median_error.unwrap();
    assert!(off <= 0.11, "offloaded median |error| {off:.3}");
    assert!(off_loo <= 0.11, "offloaded leave-one-out {off_loo:.3}");
    assert!(off_loo < s.offload.loo_trivial.unwrap(), "offloaded vs trivial");
    // Most runs have a class with 3 runs or more (vLLM and SGLang at batch 1 have none yet).
    assert!(s.all.with_expected * 100 >= s.all.runs * 85);
    assert_eq!(s.outside_band, 0, "a min–max band holds its own runs");
    assert!(s.above_ceiling.is_empty(), "{:?}", s.above_ceiling);
}

#[test]
fn the_fit_json_carries_the_expected_speeds() {
    let out = common::vramfit()
        .args([
            "fit",
            "--json",
            "--no-detect",
            "--model",
            "llama-3.1-8b",
            "--weights",
            "q4_k_m",
            "--gpu",
            "rtx-4090",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let t = &v["target"];
    let ceiling = t["decode_tokens_per_s"].as_f64().unwrap();
    let expected = 1.0 / (1.0 / (0.6967 * ceiling) + 0.001);
    assert!((t["expected_decode_tokens_per_s"].as_f64().unwrap() - expected).abs() < 0.02);
    assert_eq!(t["speed_class"]["name"], "ggml · gddr · k-quant");
    for s in v["suggestions"].as_array().unwrap() {
        for key in FIELDS {
            assert!(s.get(key).is_some(), "{key} absent from a suggestion");
        }
    }
}

/// A class of batched runs never stands for one stream: vLLM at batch 1 on an H100 gets the
/// single-stream class of vLLM and SGLang on HBM in 16-bit (the Qwen docs' A100 and H20
/// runs, the dennislee22 A100 run), not the batched one.
#[test]
fn a_single_stream_never_borrows_a_batched_class() {
    let v = plan_json(&["-m", "llama-3.1-8b", "--framework", "vllm", "--gpu", "h100-sxm"]);
    let o = &v["options"][0];
    assert_eq!(o["speed_class"]["name"], "serving · hbm · 16-bit", "{o}");
    let ceiling = o["decode_tokens_per_s"].as_f64().unwrap();
    let expected = o["expected_decode_tokens_per_s"].as_f64().unwrap();
    assert!(
        (expected - ceiling * 0.5512).abs() < 0.01,
        "{expected} vs {ceiling}"
    );
}

/// vLLM serving 16 users of a dense 8B on an A100: the batched dense class of the serving
/// runs (per-user speed ÷ the per-stream ceiling at that batch, 12 runs from 4 to 100
/// concurrent requests), so per user the per-stream ceiling's time ÷ 0.6344 plus 3.6 ms a
/// step, and for the batch 16 users of that.
#[test]
fn a_served_batch_gets_the_batched_serving_class() {
    let v = plan_json(&[
        "-m",
        "llama-3.1-8b",
        "--gpu",
        "a100-sxm",
        "--framework",
        "vllm",
        "--batch",
        "16",
    ]);
    let o = &v["options"][0];
    assert_eq!(o["gpu"], "a100-sxm");
    assert_eq!(o["speed_class"]["name"], "serving · hbm · batch", "{o}");
    assert_eq!(o["speed_class"]["runs"], 12);
    let class = table::DECODE
        .iter()
        .find(|c| c.name == "serving · hbm · batch")
        .unwrap();
    assert_eq!((class.median, class.fixed_s), (0.6344, 0.0036));
    let per_stream = o["decode_tokens_per_s"].as_f64().unwrap();
    let aggregate = o["decode_aggregate_tokens_per_s"].as_f64().unwrap();
    // The ceilings at batch 16: 16 streams of one step each.
    assert!(
        (aggregate - 16.0 * per_stream).abs() < 0.1,
        "{aggregate} vs {per_stream}"
    );
    let by_hand = 1.0 / (1.0 / (0.6344 * per_stream) + 0.0036);
    let expected = o["expected_aggregate_tokens_per_s"].as_f64().unwrap();
    assert!(
        (expected - 16.0 * by_hand).abs() < 0.05,
        "{expected} vs {aggregate}"
    );
    let per_user = o["expected_decode_tokens_per_s"].as_f64().unwrap();
    assert!((per_user - by_hand).abs() < 0.01, "{per_user} vs {per_stream}");
    // Below the ceiling, inside the class's band.
    let band = o["expected_decode_band"].as_array().unwrap();
    assert!(band[0].as_f64().unwrap() <= per_user && per_user <= band[1].as_f64().unwrap());
    assert!(band[1].as_f64().unwrap() < per_stream);
}

/// "Rank by: speed": the fitting options come fastest first by expected decode (the ceiling
/// where no class has 3 runs), on the command line as in the planner's Rank row.
#[test]
fn ranking_by_speed_puts_the_fastest_expected_first() {
    let out = common::vramfit()
        .args([
            "plan",
            "-m",
            "llama-3.1-8b",
            "--framework",
            "llama.cpp",
            "--weights",
            "q4_k_m",
            "--sort",
            "speed",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let speed = |o: &Value| {
        o["expected_decode_tokens_per_s"]
            .as_f64()
            .or(o["decode_tokens_per_s"].as_f64())
            .unwrap_or(0.0)
    };
    let fits: Vec<&Value> = v["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["verdict"] != "no")
        .collect();
    assert!(fits.len() > 10);
    for pair in fits.windows(2) {
        assert!(
            speed(pair[0]) >= speed(pair[1]),
            "{} before {}",
            pair[0]["gpu"],
            pair[1]["gpu"]
        );
    }
    // The planner cycles to it.
    use vramfit::engine::Choice;
    assert!(
        vramfit::engine::verdict::rank::SortBy::ALL.contains(&vramfit::engine::verdict::rank::SortBy::Speed)
    );
}
