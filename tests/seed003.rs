//! Seed 003 (`../shared/seeds/003_699b2185f8bd031f.txt`) as a test oracle: every cell of
//! sections 02, 03, 06, the full fine-tune columns of 04 and the bandwidth ceilings of 07
//! at the seed's own rounding; the LoRA/QLoRA cells of 04 within 20 % from the stated
//! rules; and the 30 picks of section 05. Where the seed is not the cheapest option under
//! its own rules, the engine's cheaper pick is asserted and the reason is written down.

use vramfit::catalog::Catalog;
use vramfit::engine::hardware::offers::{
    bandwidth_gbs_per_usd_month, usd_per_gb_month, usd_per_hour_from_month,
};
use vramfit::engine::memory::{SegmentKind, breakdown};
use vramfit::engine::verdict::lookup::{LookupColumn, lookup_cell};
use vramfit::engine::{Method, Scenario, Verdict, WeightPrecision, plan};

const SIZES: [&str; 5] = ["seed-7b", "seed-13b", "seed-34b", "seed-70b", "seed-405b"];

fn catalog() -> Catalog {
    Catalog::embedded().expect("embedded catalog parses")
}

/// Round to `decimals` places the way the seed prints.
fn r(v: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (v * f).round() / f
}

fn gb(bytes: f64) -> f64 {
    bytes / 1e9
}

#[test]
fn section_02_inference_totals_at_8k_batch_1() {
    // (KV at 8k, BF16 total, FP8 total, INT4 total) as printed.
    let seed = [
        (1.1, 17.0, 10.0, 7.0),
        (6.7, 35.0, 22.0, 15.0),
        (2.0, 72.0, 38.0, 21.0),
        (2.7, 145.0, 75.0, 40.0),
        (4.2, 816.0, 411.0, 209.0),
    ];
    let c = catalog();
    for (id, (kv, bf16, fp8, int4)) in SIZES.iter().zip(seed) {
        let m = c.model(id).unwrap();
        let totals: Vec<f64> = [WeightPrecision::Bf16, WeightPrecision::Fp8, WeightPrecision::Int4]
            .iter()
            .map(|&w| gb(breakdown(m, &Scenario::seed_inference(w)).total()))
            .collect();
        let kv_gb =
            gb(breakdown(m, &Scenario::seed_inference(WeightPrecision::Bf16)).get(SegmentKind::KvCache));
        assert_eq!(r(kv_gb, 1), kv, "{id} KV at 8k");
        assert_eq!(
            [r(totals[0], 0), r(totals[1], 0), r(totals[2], 0)],
            [bf16, fp8, int4],
            "{id}"
        );
    }
}

#[test]
fn section_01_worked_example_70b_fp8_leaves_5_gb_on_80() {
    let c = catalog();
    let m = c.model("seed-70b").unwrap();
    let total = breakdown(m, &Scenario::seed_inference(WeightPrecision::Fp8)).total();
    assert_eq!(r(gb(total), 2), 74.68);
    assert_eq!(r(80.0 - gb(total), 0), 5.0);
}

#[test]
fn section_03_kv_cache_by_context() {
    // (per-token MB, 8k, 32k, 128k GB)
    let seed = [
        (0.13, 1.1, 4.3, 17.2),
        (0.82, 6.7, 26.8, 107.4),
        (0.25, 2.0, 8.1, 32.2),
        (0.33, 2.7, 10.7, 42.9),
        (0.52, 4.2, 16.9, 67.6),
    ];
    let c = catalog();
    for (id, (per_token, k8, k32, k128)) in SIZES.iter().zip(seed) {
        let m = c.model(id).unwrap();
        assert_eq!(r(m.kv_bytes_per_token(2.0) / 1e6, 2), per_token, "{id} per token");
        let at = |ctx| {
            let sc = Scenario {
                context: ctx,
                ..Scenario::seed_inference(WeightPrecision::Bf16)
            };
            r(gb(breakdown(m, &sc).get(SegmentKind::KvCache)), 1)
        };
        assert_eq!([at(8192), at(32768), at(131072)], [k8, k32, k128], "{id}");
    }
}

#[test]
fn section_02_batch_32_multiplies_only_the_cache() {
    // "That 70B at batch 32 adds 85 GB of cache": 2.684 GB × 32 = 85.90 GB (the seed truncates).
    let c = catalog();
    let m = c.model("seed-70b").unwrap();
    let sc = Scenario {
        batch: 32,
        ..Scenario::seed_inference(WeightPrecision::Bf16)
    };
    let b = breakdown(m, &sc);
    assert_eq!(r(gb(b.get(SegmentKind::KvCache)), 2), 85.9);
    assert_eq!(gb(b.get(SegmentKind::Weights)), 140.0);
}

#[test]
fn section_03_70b_fp8_fits_80_gb_at_8k_not_at_32k() {
    let c = catalog();
    let m = c.model("seed-70b").unwrap();
    let h100 = c
        .gpus
        .iter()
        .filter(|g| g.id == "h100-pcie")
        .cloned()
        .collect::<Vec<_>>();
    let at = |ctx| {
        let sc = Scenario {
            context: ctx,
            ..Scenario::seed_inference(WeightPrecision::Fp8)
        };
        plan(m, &h100, &sc, false).options[0].verdict
    };
    assert_eq!(at(8192), Verdict::Fits);
    assert_eq!(at(32768), Verdict::No);
}

#[test]
fn section_04_full_fine_tune_columns() {
    // (weights + Adam, with activations) as printed.
    let seed = [
        (112.0, 129.0),
        (208.0, 239.0),
        (544.0, 626.0),
        (1120.0, 1288.0),
        (6480.0, 7452.0),
    ];
    let c = catalog();
    for (id, (adam, with_act)) in SIZES.iter().zip(seed) {
        let m = c.model(id).unwrap();
        let b = breakdown(m, &Scenario::seed_training(Method::Full));
        let stored =
            b.get(SegmentKind::Weights) + b.get(SegmentKind::Gradients) + b.get(SegmentKind::Optimizer);
        assert_eq!(r(gb(stored), 0), adam, "{id} weights + Adam");
        assert_eq!(r(gb(b.total()), 0), with_act, "{id} with activations");
    }
}

#[test]
fn section_04_lora_and_qlora_from_the_stated_rules_within_20_percent() {
    // The seed's LoRA/QLoRA cells follow from no formula built on its stated assumptions
    // (seed003-arithmetic.md). The engine uses those assumptions only — frozen base at
    // 2 / 0.5 B/param, rank-16 adapters = 0.5 % of params at 16 B each, +2 GB, gradient
    // checkpointing at seq 2048 batch 1 with the textbook activation terms — and lands
    // 1–16 % under the seed. Each cell's difference is printed and kept within 20 %.
    let seed = [
        (21.0, 10.0),
        (33.0, 14.0),
        (79.0, 28.0),
        (156.0, 51.0),
        (856.0, 249.0),
    ];
    let c = catalog();
    let mut report = String::new();
    for (id, (lora, qlora)) in SIZES.iter().zip(seed) {
        let m = c.model(id).unwrap();
        for (method, want) in [(Method::Lora, lora), (Method::Qlora, qlora)] {
            let got = gb(breakdown(m, &Scenario::seed_training(method)).total());
            let diff = (got - want) / want;
            report += &format!(
                "{id} {:?}: engine {got:.1} GB, seed {want} GB, {:+.1} %\n",
                method,
                diff * 100.0
            );
            assert!(
                diff.abs() <= 0.20,
                "{id} {method:?}: {got:.2} GB vs seed {want} GB ({diff:+.3})"
            );
        }
        // LoRA − QLoRA is exactly 1.5 B/param × P in the seed and in the engine.
        let l = breakdown(m, &Scenario::seed_training(Method::Lora)).total();
        let q = breakdown(m, &Scenario::seed_training(Method::Qlora)).total();
        assert!((l - q - 1.5 * m.params().total as f64).abs() < 1.0, "{id}");
    }
    println!("{report}");
}

#[test]
fn section_06_price_columns() {
    // (card, VRAM, bandwidth as printed in GB/s, $/month, $/GB, GB/s per $, $/hour)
    let seed = [
        ("mi300x", 192.0, 5300.0, 1590.0, 8.28, 3.33, 2.21),
        ("b200", 180.0, 8000.0, 3890.0, 21.61, 2.06, 5.40),
        ("h200-sxm", 141.0, 4800.0, 2290.0, 16.24, 2.10, 3.18),
        ("h100-sxm", 80.0, 3350.0, 1690.0, 21.13, 1.98, 2.35),
        ("h100-pcie", 80.0, 2000.0, 1490.0, 18.63, 1.34, 2.07),
        ("a100-sxm", 80.0, 2040.0, 990.0, 12.38, 2.06, 1.38),
        ("l40s", 48.0, 864.0, 520.0, 10.83, 1.66, 0.72),
        ("rtx-6000-ada", 48.0, 960.0, 460.0, 9.58, 2.09, 0.64),
        ("rtx-a6000", 48.0, 768.0, 290.0, 6.04, 2.65, 0.40),
        ("a40", 48.0, 696.0, 240.0, 5.00, 2.90, 0.33),
        ("rtx-5090", 32.0, 1790.0, 540.0, 16.88, 3.31, 0.75),
        ("rtx-4090", 24.0, 1010.0, 390.0, 16.25, 2.59, 0.54),
        ("l4", 24.0, 300.0, 250.0, 10.42, 1.20, 0.35),
        ("rtx-3090", 24.0, 936.0, 230.0, 9.58, 4.07, 0.32),
        ("rtx-a5000", 24.0, 768.0, 190.0, 7.92, 4.04, 0.26),
    ];
    let c = catalog();
    for (id, vram, bw_printed, month, per_gb, bw_per_usd, hourly) in seed {
        let g = &c.gpus[c.gpu_index(id).unwrap()];
        assert_eq!(g.memory_gb, vram, "{id}");
        // The seed prints bandwidth in TB/s to three figures; the catalog keeps the
        // datasheet value (RTX 5090 1792, RTX 4090 1008, A100 SXM 2039), which rounds to it.
        assert_eq!(
            r(g.bandwidth_gbs / 1000.0, 2),
            r(bw_printed / 1000.0, 2),
            "{id} bandwidth"
        );
        let price = g
            .offers
            .iter()
            .find(|o| o.provider == "GPU Rent Hub")
            .unwrap()
            .price;
        assert_eq!(price, month, "{id}");
        assert_eq!(r(usd_per_gb_month(price, g.memory_gb), 2), per_gb, "{id} $/GB");
        // The ratio column is computed from the seed's own printed bandwidth column.
        assert_eq!(
            r(bandwidth_gbs_per_usd_month(bw_printed, price), 2),
            bw_per_usd,
            "{id} GB/s per $"
        );
        assert_eq!(r(usd_per_hour_from_month(price), 2), hourly, "{id} $/hour");
    }
}

#[test]
fn section_06_b200_rents_in_pairs() {
    let c = catalog();
    let b200 = &c.gpus[c.gpu_index("b200").unwrap()];
    assert_eq!(b200.monthly_price_usd(1), None, "no single B200");
    let (pair, _) = b200.monthly_price_usd(2).unwrap();
    assert_eq!(r(pair, 2), 7391.0, "$3,890 × 2 = $7,780 list, $7,391 after 5 %");
}

fn decode(c: &Catalog, model: &str, gpu: &str, w: WeightPrecision, count: u32) -> f64 {
    let m = c.model(model).unwrap();
    let g = vec![c.gpus[c.gpu_index(gpu).unwrap()].clone()];
    let p = plan(m, &g, &Scenario::seed_inference(w), true);
    p.options
        .iter()
        .find(|o| o.count == count)
        .unwrap()
        .decode_tokens_per_s
        .unwrap()
}

#[test]
fn section_07_bandwidth_ceilings() {
    let c = catalog();
    // 7B BF16 = 14 GB read per token.
    assert_eq!(
        decode(&c, "seed-7b", "a40", WeightPrecision::Bf16, 1).round(),
        50.0
    );
    assert_eq!(
        decode(&c, "seed-7b", "rtx-5090", WeightPrecision::Bf16, 1).round(),
        128.0
    );
    assert_eq!(
        decode(&c, "seed-7b", "rtx-a5000", WeightPrecision::Bf16, 1).round(),
        55.0
    );
    // "One of them is 2.6× faster."
    let ratio = decode(&c, "seed-7b", "rtx-5090", WeightPrecision::Bf16, 1)
        / decode(&c, "seed-7b", "a40", WeightPrecision::Bf16, 1);
    assert_eq!(r(ratio, 1), 2.6);
    // 34B: BF16 68 GB on an A100 → 30; INT4 17 GB on an RTX 4090 → 59.
    assert_eq!(
        decode(&c, "seed-34b", "a100-sxm", WeightPrecision::Bf16, 1).round(),
        30.0
    );
    assert_eq!(
        decode(&c, "seed-34b", "rtx-4090", WeightPrecision::Int4, 1).round(),
        59.0
    );
}

#[test]
fn section_07_two_cheap_cards() {
    let c = catalog();
    let price = |id: &str, n| c.gpus[c.gpu_index(id).unwrap()].monthly_price_usd(n).unwrap().0;
    assert_eq!(price("a40", 2), 456.0, "2× A40 = 96 GB for $456");
    assert_eq!(price("rtx-5090", 2), 1026.0, "2× RTX 5090 for $1,026");
    let g = &c.gpus[c.gpu_index("rtx-5090").unwrap()];
    assert_eq!(r(2.0 * g.bandwidth_gbs / 1000.0, 2), 3.58, "3.58 TB/s together");
}

/// (model, column, card, cards, monthly price after discount, tight)
type Pick = (&'static str, LookupColumn, &'static str, u32, f64, bool);

#[test]
fn section_05_lookup_table_all_30_cells() {
    use LookupColumn::*;
    let seed_cells: [Pick; 29] = [
        ("seed-7b", InferenceBf16, "rtx-a5000", 1, 190.0, false),
        ("seed-7b", InferenceFp8, "l4", 1, 250.0, false),
        ("seed-7b", InferenceInt4, "rtx-a5000", 1, 190.0, false),
        ("seed-7b", Qlora, "rtx-a5000", 1, 190.0, false),
        ("seed-7b", Lora, "rtx-a5000", 1, 190.0, true),
        ("seed-7b", Full, "mi300x", 1, 1590.0, false),
        ("seed-13b", InferenceBf16, "a40", 1, 240.0, false),
        ("seed-13b", InferenceFp8, "l4", 1, 250.0, true),
        ("seed-13b", InferenceInt4, "rtx-a5000", 1, 190.0, false),
        ("seed-13b", Qlora, "rtx-a5000", 1, 190.0, false),
        ("seed-13b", Lora, "a40", 1, 240.0, false),
        // Seed: 4× A100 $3,643. Under its own rules 2× MI300X (384 GB, Infinity Fabric,
        // which the seed itself accepts for 70B full fine-tune) costs $3,021: 17 % less.
        ("seed-13b", Full, "mi300x", 2, 3021.0, false),
        ("seed-34b", InferenceBf16, "a100-sxm", 1, 990.0, false),
        ("seed-34b", InferenceFp8, "rtx-6000-ada", 1, 460.0, false),
        ("seed-34b", InferenceInt4, "rtx-a5000", 1, 190.0, true),
        ("seed-34b", Qlora, "a40", 1, 240.0, false),
        ("seed-34b", Lora, "a100-sxm", 1, 990.0, true),
        // Seed: 8× A100 $7,130, tight. 4× MI300X (768 GB, 35.6 GB/card left) is $5,851.20.
        ("seed-34b", Full, "mi300x", 4, 5851.2, false),
        ("seed-70b", InferenceBf16, "mi300x", 1, 1590.0, false),
        ("seed-70b", InferenceFp8, "h100-pcie", 1, 1490.0, false),
        ("seed-70b", InferenceInt4, "a40", 1, 240.0, false),
        ("seed-70b", Qlora, "a100-sxm", 1, 990.0, false),
        ("seed-70b", Lora, "mi300x", 1, 1590.0, false),
        // Seed prints $11,450: 8 × $1,590 × 0.90 = $11,448 rounded to $10.
        ("seed-70b", Full, "mi300x", 8, 11448.0, false),
        ("seed-405b", InferenceBf16, "mi300x", 8, 11448.0, false),
        // Seed: 8× MI300X $11,450. 411 GB fits 4× MI300X (768 GB) for $5,851.20: an
        // inference cell, so no interconnect rule applies under any reading.
        ("seed-405b", InferenceFp8, "mi300x", 4, 5851.2, false),
        ("seed-405b", InferenceInt4, "a40", 8, 1728.0, false),
        ("seed-405b", Qlora, "a40", 8, 1728.0, false),
        ("seed-405b", Lora, "mi300x", 8, 11448.0, false),
    ];
    let c = catalog();
    for (model, column, gpu, count, price, tight) in seed_cells {
        let m = c.model(model).unwrap();
        let cell = lookup_cell(m, &c.gpus, column);
        let pick = cell
            .pick
            .unwrap_or_else(|| panic!("{model} {column:?}: nothing fits"));
        let got = (
            c.gpus[pick.gpu].id.as_str(),
            pick.count,
            r(pick.price_usd_month.unwrap(), 2),
        );
        assert_eq!(got, (gpu, count, price), "{model} {column:?}");
        assert_eq!(
            pick.verdict == Verdict::Tight,
            tight,
            "{model} {column:?} tight flag"
        );
    }
    // The 30th cell: 405B full fine-tune (7,452 GB) is beyond one 8-card node —
    // "five nodes, ask sales": 7,452 / 1,536 = 4.85 nodes of 8× MI300X.
    let cell = lookup_cell(c.model("seed-405b").unwrap(), &c.gpus, Full);
    assert!(cell.pick.is_none());
    let cluster = cell.cluster.expect("a cluster estimate");
    assert_eq!(c.gpus[cluster.gpu].id, "mi300x");
    assert_eq!(r(cluster.nodes_exact, 2), 4.85);
    assert_eq!(cluster.nodes, 5);
}

#[test]
fn section_05_fp8_only_on_fp8_cards_and_full_fine_tune_only_over_a_fabric() {
    let c = catalog();
    let m = c.model("seed-13b").unwrap();
    let p = plan(m, &c.gpus, &Scenario::seed_inference(WeightPrecision::Fp8), true);
    let a5000 = p
        .options
        .iter()
        .find(|o| c.gpus[o.gpu].id == "rtx-a5000" && o.count == 1)
        .unwrap();
    assert_eq!(a5000.verdict, Verdict::No, "RTX A5000 has the room but no FP8");
    let p = plan(m, &c.gpus, &Scenario::seed_training(Method::Full), true);
    let a40x8 = p
        .options
        .iter()
        .find(|o| c.gpus[o.gpu].id == "a40" && o.count == 8)
        .unwrap();
    assert!(a40x8.free_bytes > 0.0, "8× A40 has 384 GB");
    assert_eq!(a40x8.verdict, Verdict::No, "but only a two-card bridge");
}
