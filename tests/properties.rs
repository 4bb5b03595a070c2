//! Invariants over random scenarios: memory never falls when context, batch or precision
//! bits rise; segments sum to the total; a fit at a longer context is a fit at a shorter one.

use proptest::prelude::*;
use vramfit::catalog::Catalog;
use vramfit::engine::memory::breakdown;
use vramfit::engine::workload::scenario::{Offload, Optimizer, TrainingPrecision};
use vramfit::engine::{Choice, Convention, KvPrecision, Method, Scenario, WeightPrecision, plan};

fn catalog() -> &'static Catalog {
    use std::sync::OnceLock;
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(|| Catalog::embedded().unwrap())
}

/// Weight formats valid for a method.
fn weights_for(method: Method) -> Vec<WeightPrecision> {
    WeightPrecision::ALL
        .iter()
        .copied()
        .filter(|w| {
            Scenario {
                method,
                weights: *w,
                ..Scenario::seed_inference(*w)
            }
            .validate()
            .is_ok()
        })
        .collect()
}

fn scenario_strategy() -> impl Strategy<Value = (usize, Scenario)> {
    let n = catalog().models.len();
    let knobs = (
        0..Optimizer::ALL.len(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0u8..=3,
        0..Offload::ALL.len(),
        prop_oneof![Just(1u32), Just(2), Just(4), Just(8)],
        any::<bool>(),
    );
    (
        (
            0..n,
            0..Method::ALL.len(),
            0..16usize,
            0..KvPrecision::ALL.len(),
            1u64..=262_144,
            1u64..=64,
            1u64..=256,
        ),
        knobs,
    )
        .prop_map(
            |(
                (m, method, w, kv, context, batch, rank),
                (opt, mixed, ckpt, flash, fused, zero, off, cards, seed),
            )| {
                let method = Method::ALL[method];
                let ws = weights_for(method);
                let scenario = Scenario {
                    method,
                    weights: ws[w % ws.len()],
                    kv: KvPrecision::ALL[kv],
                    context,
                    batch,
                    lora_rank: rank,
                    optimizer: Optimizer::ALL[opt],
                    training_precision: if mixed {
                        TrainingPrecision::Mixed
                    } else {
                        TrainingPrecision::Bf16
                    },
                    checkpointing: ckpt,
                    flash_attention: flash,
                    fused_ce: fused,
                    zero,
                    offload: Offload::ALL[off],
                    cards,
                    convention: if seed {
                        Convention::Seed
                    } else {
                        Convention::Calibrated
                    },
                    ..Scenario::seed_inference(WeightPrecision::Bf16)
                };
                (m, scenario)
            },
        )
}

proptest! {
    // 256 cases by default; PROPTEST_CASES raises it for a deeper search.
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn segments_sum_to_the_total_and_are_non_negative((m, sc) in scenario_strategy()) {
        prop_assert!(sc.validate().is_ok());
        let model = &catalog().models[m];
        let b = breakdown(model, &sc);
        let sum: f64 = b.segments.iter().map(|s| s.bytes).sum();
        prop_assert_eq!(sum, b.total());
        for s in &b.segments {
            prop_assert!(s.bytes.is_finite() && s.bytes >= 0.0, "{:?}", s);
        }
    }

    #[test]
    fn memory_never_falls_when_context_or_batch_rise((m, sc) in scenario_strategy(), more_ctx in 0u64..100_000, more_batch in 0u64..64) {
        let model = &catalog().models[m];
        let base = breakdown(model, &sc).total();
        let longer = Scenario { context: sc.context + more_ctx, ..sc.clone() };
        let bigger = Scenario { batch: sc.batch + more_batch, ..sc.clone() };
        prop_assert!(breakdown(model, &longer).total() >= base);
        prop_assert!(breakdown(model, &bigger).total() >= base);
    }

    #[test]
    fn memory_never_falls_when_precision_bits_rise((m, sc) in scenario_strategy()) {
        let model = &catalog().models[m];
        let ws = weights_for(sc.method);
        // Within one family (GGUF formats quantize every tensor, the others only the linears),
        // and not across a format whose published checkpoint keeps attention 16-bit (gpt-oss's
        // MXFP4 quantizes fewer tensors than NF4 would).
        let scope = |w: &WeightPrecision| (w.is_gguf(), model.arch.attention_16bit_in == Some(*w));
        for a in &ws {
            for b in ws.iter().filter(|b| scope(b) == scope(a)) {
                if a.bits() < b.bits() {
                    let lo = breakdown(model, &Scenario { weights: *a, ..sc.clone() }).total();
                    let hi = breakdown(model, &Scenario { weights: *b, ..sc.clone() }).total();
                    prop_assert!(hi >= lo, "{:?} {} > {:?} {}", a, lo, b, hi);
                }
            }
        }
        let fp8 = breakdown(model, &Scenario { kv: KvPrecision::Fp8, ..sc.clone() }).total();
        let fp16 = breakdown(model, &Scenario { kv: KvPrecision::Fp16, ..sc.clone() }).total();
        prop_assert!(fp16 >= fp8);
    }

    #[test]
    fn a_fit_at_a_longer_context_is_a_fit_at_a_shorter_one((m, sc) in scenario_strategy(), shorter in 1u64..=1_048_576) {
        let model = &catalog().models[m];
        let gpus = &catalog().gpus;
        let short = Scenario { context: shorter.min(sc.context), ..sc.clone() };
        let long_plan = plan(model, gpus, &sc, true);
        let short_plan = plan(model, gpus, &short, true);
        for o in long_plan.options.iter().filter(|o| o.verdict.is_fit()) {
            let same = short_plan.options.iter().find(|s| s.gpu == o.gpu && s.count == o.count).unwrap();
            prop_assert!(same.verdict.is_fit());
            prop_assert!(same.free_bytes >= o.free_bytes);
        }
    }
}
