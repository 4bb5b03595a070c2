//! What would make it fit: the solver on hand-computed cases, and a property over random
//! scenarios: every suggestion's `plan` flags, parsed as the CLI parses them, give the
//! promised verdict on the target; the limits fit and one step more does not.

use clap::Parser;
use proptest::prelude::*;
use vramfit::catalog::Catalog;
use vramfit::cli::{Cli, Command};
use vramfit::engine::verdict::advise::{advise, context_step, judge, max_batch, max_context};
use vramfit::engine::verdict::changes::Target;
use vramfit::engine::{Scenario, SegmentKind, WeightPrecision};

fn catalog() -> &'static Catalog {
    use std::sync::OnceLock;
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(|| Catalog::embedded().unwrap())
}

/// The scenario and target a `vramfit fit` command line describes.
fn parse(args: &[String]) -> (Scenario, Target) {
    let mut all = vec!["vramfit".to_string(), "fit".to_string()];
    all.extend(args.iter().cloned());
    let cli = Cli::try_parse_from(&all).unwrap_or_else(|e| panic!("{all:?}: {e}"));
    let Some(Command::Fit(a)) = cli.command else {
        panic!("not fit")
    };
    let sc = a.scenario().unwrap_or_else(|e| panic!("{all:?}: {e}"));
    let gpu = catalog().gpu_index(a.gpu.as_deref().unwrap()).unwrap();
    let count = sc.cards;
    (sc, Target { gpu, count })
}

fn fits(model: &str, sc: &Scenario, t: Target) -> bool {
    let c = catalog();
    judge(c.model(model).unwrap(), &c.gpus[t.gpu], t.gpu, t.count, sc)
        .0
        .verdict
        .is_fit()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn llama_8b_bf16_on_a_4090_longest_context_by_hand() {
    let c = catalog();
    let m = c.model("llama-3.1-8b").unwrap();
    let (sc, t) = parse(&args(&[
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "rtx-4090",
        "--context",
        "32768",
    ]));
    let g = &c.gpus[t.gpu];
    // Past the 8,192-token prefill chunk only the KV cache grows with the context:
    // need(ctx) = fixed + 1.05 × 131,072 B × ctx (the 5 % allocator slack rides on the KV).
    let kv_per_token = 2.0 * 8.0 * 128.0 * 32.0 * 2.0;
    assert_eq!(m.kv_bytes_per_token(2.0), kv_per_token);
    let at = |ctx: u64| {
        judge(
            m,
            g,
            1,
            1,
            &Scenario {
                context: ctx,
                ..sc.clone()
            },
        )
        .1
        .total()
    };
    let slope = (at(20_000) - at(10_000)) / 10_000.0;
    assert!((slope - 1.05 * kv_per_token).abs() < 1e-6, "{slope}");
    let fixed = at(10_000) - slope * 10_000.0;
    let usable = 0.9 * g.memory_real_bytes();
    let by_hand = (((usable - fixed) / slope) as u64) / 16 * 16;
    let solved = max_context(m, g, 1, &sc).unwrap();
    assert_eq!(solved, by_hand);
    assert_eq!(solved, 37_136);
    assert!(fits(
        "llama-3.1-8b",
        &Scenario {
            context: solved,
            ..sc.clone()
        },
        t
    ));
    assert!(!fits(
        "llama-3.1-8b",
        &Scenario {
            context: solved + 16,
            ..sc.clone()
        },
        t
    ));
}

#[test]
fn seventy_b_fp8_on_one_h100_pcie_fits_with_a_shorter_context_or_4_bits() {
    let (sc, t) = parse(&args(&[
        "--model",
        "llama-3.1-70b",
        "--weights",
        "fp8",
        "--gpu",
        "h100-pcie",
    ]));
    let c = catalog();
    let a = advise(c.model("llama-3.1-70b").unwrap(), &c.gpus, &sc, t);
    assert!(!a.now.verdict.is_fit());
    // 78.05 GB needed, 76.45 GB usable: the KV cache must shrink by 1.61 GB (+5 % slack).
    assert_eq!(a.max_context, Some(5_504));
    let labels: Vec<String> = a
        .suggestions
        .iter()
        .map(|s| vramfit::present::advice::label(&s.change, &c.gpus))
        .collect();
    assert!(labels.contains(&"context ≤ 5,504".to_string()), "{labels:?}");
    assert!(labels.contains(&"q4_0 KV".to_string()), "{labels:?}");
    assert!(labels.contains(&"2 cards".to_string()), "{labels:?}");
    assert!(labels.contains(&"4× GeForce RTX 4090".to_string()), "{labels:?}");
    // FP8 KV saves 1.34 GB, not enough alone.
    assert!(!labels.contains(&"FP8 KV".to_string()), "{labels:?}");
    // Free knobs first, cards last.
    let costs: Vec<u8> = a.suggestions.iter().map(|s| s.change.cost()).collect();
    assert!(costs.windows(2).all(|w| w[0] <= w[1]), "{costs:?}");
}

#[test]
fn seventy_b_qlora_on_a_24_gb_card_needs_more_cards() {
    let (sc, t) = parse(&args(&[
        "--model",
        "llama-3.1-70b",
        "--method",
        "qlora",
        "--gpu",
        "rtx-4090",
    ]));
    let c = catalog();
    let m = c.model("llama-3.1-70b").unwrap();
    let a = advise(m, &c.gpus, &sc, t);
    // The 4-bit base alone (about 42.7 GB) is more than a 4090 holds: no sequence fits.
    assert!(m.params().total as f64 * 4.0 / 8.0 > c.gpus[t.gpu].memory_real_bytes());
    assert_eq!(a.max_context, None);
    assert_eq!(a.max_batch, None);
    let first_cards = a.suggestions.iter().find_map(|s| match s.change {
        vramfit::engine::verdict::changes::Change::Cards(n) => Some(n),
        _ => None,
    });
    assert_eq!(first_cards, Some(4), "4 × 24 GB with ZeRO-3 sharding");
}

#[test]
fn four_oh_five_b_on_8_h100s_fits_in_fp8() {
    let (sc, t) = parse(&args(&[
        "--model",
        "llama-3.1-405b",
        "--gpu",
        "h100-sxm",
        "--cards",
        "8",
    ]));
    let c = catalog();
    let a = advise(c.model("llama-3.1-405b").unwrap(), &c.gpus, &sc, t);
    assert!(!a.now.verdict.is_fit(), "811 GB of BF16 weights on 8 × 80 GB");
    let fp8 = a
        .suggestions
        .iter()
        .find(|s| s.change == vramfit::engine::verdict::changes::Change::Weights(WeightPrecision::Fp8))
        .expect("FP8 weights");
    assert!(fp8.after.verdict.is_fit());
    // Meta's FP8 checkpoint: 405.85B at 1 B with the embeddings and the 126 attention blocks
    // (71.9B) at 2 B: 329.8 GB + 152.1 GB over 8 cards ≈ 60 GB of weights a card.
    let per_card = judge(
        c.model("llama-3.1-405b").unwrap(),
        &c.gpus[t.gpu],
        t.gpu,
        8,
        &Scenario {
            weights: WeightPrecision::Fp8,
            ..sc.clone()
        },
    )
    .1
    .get(SegmentKind::Weights);
    assert!((59.5e9..61e9).contains(&per_card), "{per_card}");
}

#[test]
fn a_plan_that_fits_reports_its_headroom() {
    let (sc, t) = parse(&args(&["--model", "llama-3.1-8b", "--gpu", "h100-sxm"]));
    let c = catalog();
    let a = advise(c.model("llama-3.1-8b").unwrap(), &c.gpus, &sc, t);
    assert!(a.now.verdict.is_fit());
    assert!(a.suggestions.is_empty());
    let (longest, comfortable) = (a.max_context.unwrap(), a.comfortable_context.unwrap());
    // 8B on 80 GB holds its whole trained length: the limit stops there and says so.
    assert!(comfortable <= longest && longest > sc.context);
    assert_eq!(longest, 131_072);
    assert!(a.now.limits.context_at_model_max);
    assert!(a.comfortable_batch.unwrap() <= a.max_batch.unwrap());
}

fn flag_strategy() -> impl Strategy<Value = Vec<String>> {
    let models = [
        "llama-3.1-8b",
        "qwen3-14b",
        "llama-3.1-70b",
        "mixtral-8x7b",
        "gpt-oss-20b",
    ];
    let gpus = [
        "rtx-4090",
        "rtx-3090",
        "a100-80gb-pcie",
        "h100-sxm",
        "l4",
        "t4",
        "mi300x",
    ];
    let methods = ["inference", "full", "lora", "qlora"];
    (
        0..models.len(),
        0..gpus.len(),
        0..methods.len(),
        prop_oneof![Just(1u32), Just(2), Just(4), Just(8)],
        1u64..=65_536,
        1u64..=16,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(move |(m, g, me, cards, context, batch, quick, ckpt)| {
            let mut a = args(&["--model", models[m], "--gpu", gpus[g], "--method", methods[me]]);
            a.extend(args(&[
                "--cards",
                &cards.to_string(),
                "--context",
                &context.to_string(),
            ]));
            a.extend(args(&["--batch", &batch.to_string()]));
            if quick {
                a.extend(args(&["--convention", "quick"]));
            }
            if !ckpt {
                a.extend(args(&["--checkpointing", "off"]));
            }
            a
        })
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn suggestions_keep_their_promise_and_the_limits_are_exact(flags in flag_strategy()) {
        let (sc, t) = parse(&flags);
        let c = catalog();
        let id = flags[1].clone();
        let m = c.model(&id).unwrap();
        let a = advise(m, &c.gpus, &sc, t);
        prop_assert_eq!(a.now.verdict.is_fit(), fits(&id, &sc, t));
        for s in &a.suggestions {
            let mut more = flags.clone();
            more.extend(vramfit::present::advice::flags(&s.change, &c.gpus));
            let (changed, target) = parse(&more);
            let after = judge(m, &c.gpus[target.gpu], target.gpu, target.count, &changed).0;
            prop_assert_eq!(after.verdict, s.after.verdict, "{:?}", more);
            prop_assert!(after.verdict.is_fit());
        }
        let g = &c.gpus[t.gpu];
        if let Some(n) = a.max_context {
            let step = context_step(&sc);
            let at = |c: u64| fits(&id, &Scenario { context: c, ..sc.clone() }, t);
            prop_assert!(at(n), "longest context {} does not fit", n);
            // At the top of the knob's range the plan may not depend on it at all (the quick
            // rules' full fine-tune has no per-token term).
            let top = vramfit::engine::workload::ranges::MAX_CONTEXT / step * step;
            // Limits stop at the model's trained length (and say so).
            let ceiling = vramfit::engine::verdict::needs::context_ceiling(m, &sc) / step * step;
            prop_assert!(n <= ceiling, "limit {} past the model's length {}", n, ceiling);
            prop_assert_eq!(a.now.limits.context_at_model_max, n == ceiling && ceiling < top);
            prop_assert!(n == top || n == ceiling || !at(n + step), "{} more still fits", step);
            prop_assert_eq!(Some(n), max_context(m, g, t.count, &sc));
        }
        if let Some(b) = a.max_batch {
            let at = |n: u64| fits(&id, &Scenario { batch: n, ..sc.clone() }, t);
            prop_assert!(at(b), "largest batch {} does not fit", b);
            prop_assert!(b == vramfit::engine::workload::ranges::MAX_BATCH || !at(b + 1), "batch {} still fits", b + 1);
            prop_assert_eq!(Some(b), max_batch(m, g, t.count, &sc));
        }
    }
}
