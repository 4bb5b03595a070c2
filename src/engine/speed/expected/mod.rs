//! Expected speed beside the ceiling: what runs like this one reached of their ceiling.
//!
//! Decode: time per token = the ceiling's time ÷ the class's efficiency + the class's fixed
//! seconds per token (kernel launches, sampling, scheduling: what a step costs whatever the
//! card's bandwidth, why small models and very fast cards reach a lower share), so
//! expected = 1 ÷ (1 ÷ (efficiency × ceiling) + fixed). Both are fitted per class over the
//! published runs of that class (`tests/data/speed-runs.toml`), never per run: the fixed
//! cost on a grid, the efficiency as the MEDIAN of the runs' efficiencies once that cost is
//! taken out of each ([`fit`]); a class with no fixed cost is the ceiling × its median
//! share, as prefill's always are. The band is the lowest to the highest efficiency
//! (min–max: with three to twenty runs a class, a percentile band would leave its own
//! extreme runs outside). A class needs [`MIN_RUNS`] runs to give a figure; a run whose
//! finest class has fewer falls back to the coarser one, and with none the expected figure
//! is `None` and the ceiling stands alone.
//!
//! The fitted tables ([`table::DECODE`], [`table::PREFILL`]) are data kept here because
//! the engine cannot plan the runs itself (their ceilings come from the catalog and the
//! planner, layers above it): `accuracy::speed` re-plans every run and refits, and
//! `tests/expected_speed.rs` fails if the tables drift from what the runs give.

pub mod class;
pub mod table;

use serde::Serialize;

pub use class::{Family, Hardware, Shape};

use crate::engine::hardware::gpu::Gpu;
use crate::engine::model::Model;
use crate::engine::speed::serving::Roofline;
use crate::engine::workload::scenario::Scenario;

/// Fewest runs a class needs before its median is used.
pub const MIN_RUNS: usize = 3;

/// Fewest runs a decode class needs before it gets a fixed per-token cost (below, `fixed_s`
/// is 0 and the class is its median share alone): a second parameter fitted on a handful
/// of runs follows their scatter. Leave-one-out median |error| over the public set's decode
/// runs (`tests/expected_speed.rs::the_fixed_cost_threshold_is_the_best_left_out`): 3 runs
/// 14.6 %, 5 runs 13.9 %, 6 runs 15.1 %, 8 runs 15.2 % (in sample 8.5, 9.8, 10.0, 10.8 %):
/// 5 is the best left out.
pub const MIN_FIXED_RUNS: usize = 5;

/// The fixed costs the fit tries: 0 to 20 ms a token in steps of 0.2 ms.
const FIXED_STEP_S: f64 = 0.2e-3;
const FIXED_STEPS: usize = 100;

/// One class's fitted efficiency.
///
/// A token takes the ceiling's time ÷ `median` plus `fixed_s`: per user,
/// 1 ÷ (1 ÷ (median × ceiling) + fixed_s) ([`per_user`]). The fixed seconds are what a
/// step costs whatever the card's bandwidth (kernel launches, sampling, scheduling): why
/// small models and very fast cards reach a lower share of their ceiling. With `fixed_s`
/// 0 (prefill classes, decode classes under [`MIN_FIXED_RUNS`] runs or where none fits
/// better) the expected figure is the ceiling × the median share.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Efficiency {
    pub name: &'static str,
    pub runs: usize,
    /// Median efficiency: measured ÷ ceiling once the fixed cost is taken out of each run's
    /// time per token (with no fixed cost, the median share).
    pub median: f64,
    /// Lowest and highest efficiency of the class's runs (given `fixed_s`).
    pub low: f64,
    pub high: f64,
    /// Fixed seconds per token (per decode step).
    pub fixed_s: f64,
}

/// A class fitted from runs, owning its name (what [`fit`] returns).
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub name: String,
    pub runs: usize,
    pub median: f64,
    pub low: f64,
    pub high: f64,
    pub fixed_s: f64,
}

/// Tokens/s per user at a per-user `ceiling` for a class's `efficiency` and fixed cost.
pub fn per_user(ceiling: f64, efficiency: f64, fixed_s: f64) -> f64 {
    1.0 / (1.0 / (efficiency * ceiling) + fixed_s)
}

/// One run as the fit reads it: its class keys, measured and ceiling tokens/s per user
/// (a run that measured a batch's aggregate divided by the batch: the fixed cost is per
/// step, and a step gives each user one token).
#[derive(Debug, Clone)]
pub struct Sample {
    pub keys: Vec<String>,
    pub measured: f64,
    pub ceiling: f64,
}

/// The `q` quantile (0 to 1) of sorted values, linear between ranks.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = pos.ceil() as usize;
            sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
        }
    }
}

/// One class at fixed cost `b`: its sorted efficiencies (measured ÷ ceiling with `b` taken
/// out of each run's time per token), or `None` where `b` leaves a run faster than its
/// ceiling (an efficiency above 1: the ceiling is the fastest a step can read, the fixed
/// cost comes on top of it, so a larger `b` only bends the fit, and its band would pass the
/// ceiling on slow cards).
fn efficiencies(runs: &[(f64, f64)], b: f64) -> Option<Vec<f64>> {
    let mut v = Vec::with_capacity(runs.len());
    for &(m, c) in runs {
        // 1 ÷ ((1/m − b) · c) written so that b = 0 gives exactly m ÷ c, the share: a class
        // with no fixed cost keeps the figures of the share model.
        let left = 1.0 - b * m;
        let e = m / (c * left);
        if left <= 0.0 || e > 1.0 {
            return None;
        }
        v.push(e);
    }
    v.sort_by(f64::total_cmp);
    Some(v)
}

/// (median efficiency, lowest, highest, fixed seconds) of one class's (measured, ceiling)
/// runs: the fixed cost on the grid (only 0 when `fixed` is false) whose median
/// efficiency gives the lowest median |error| over the class's runs.
///
/// A grid and not a solver: the median |error| is flat in steps and has several local
/// minima, so a derivative-based fit would depend on its start; 101 tries of a few dozen
/// runs are cheap and give the same table on every machine. Ties keep the smaller cost.
fn fit_class(runs: &[(f64, f64)], fixed: bool) -> (f64, f64, f64, f64) {
    let steps = if fixed { FIXED_STEPS } else { 0 };
    let mut best: Option<(f64, Vec<f64>, f64)> = None;
    for k in 0..=steps {
        let b = k as f64 * FIXED_STEP_S;
        let Some(v) = efficiencies(runs, b) else {
            continue;
        };
        let eff = quantile(&v, 0.5);
        let mut errors: Vec<f64> = runs
            .iter()
            .map(|&(m, c)| (per_user(c, eff, b) / m - 1.0).abs())
            .collect();
        errors.sort_by(f64::total_cmp);
        let err = quantile(&errors, 0.5);
        if best.as_ref().is_none_or(|(e, _, _)| err < *e) {
            best = Some((err, v, b));
        }
    }
    // b = 0 fits wherever no run is above its ceiling (`tests/expected_speed.rs` asserts it
    // of the public set); a class with one that is keeps its shares.
    let (_, v, b) = best.unwrap_or_else(|| {
        let mut shares: Vec<f64> = runs.iter().map(|&(m, c)| m / c).collect();
        shares.sort_by(f64::total_cmp);
        (0.0, shares, 0.0)
    });
    (quantile(&v, 0.5), v[0], v[v.len() - 1], b)
}

/// Fit every class from runs: each key a run names gets the run, so a coarse class holds
/// every run of its finer ones. A class of at least `min_fixed_runs` runs gets a fixed
/// per-token cost ([`MIN_FIXED_RUNS`] for decode; `usize::MAX` keeps every class a share,
/// as prefill's are). Sorted by name; classes with fewer than [`MIN_RUNS`] runs are kept
/// (with their count) so that the table says why a figure is missing.
pub fn fit(runs: &[Sample], min_fixed_runs: usize) -> Vec<Fitted> {
    let mut by: std::collections::BTreeMap<&str, Vec<(f64, f64)>> = Default::default();
    for r in runs {
        for k in &r.keys {
            by.entry(k.as_str()).or_default().push((r.measured, r.ceiling));
        }
    }
    by.into_iter()
        .map(|(name, v)| {
            let (median, low, high, fixed_s) = fit_class(&v, v.len() >= min_fixed_runs);
            Fitted {
                name: name.to_string(),
                runs: v.len(),
                median,
                low,
                high,
                fixed_s,
            }
        })
        .collect()
}

/// The finest of `keys` that `table` holds with at least [`MIN_RUNS`] runs.
pub fn pick<'a>(table: &'a [Efficiency], keys: &[String]) -> Option<&'a Efficiency> {
    keys.iter()
        .find_map(|k| table.iter().find(|e| e.name == k && e.runs >= MIN_RUNS))
}

/// The same pick over a freshly fitted table (leave-one-out, the drift test).
pub fn pick_fitted<'a>(table: &'a [Fitted], keys: &[String]) -> Option<&'a Fitted> {
    keys.iter()
        .find_map(|k| table.iter().find(|e| &e.name == k && e.runs >= MIN_RUNS))
}

/// The expected speeds of one option, beside its ceilings.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Expected {
    pub decode_tokens_per_s: Option<f64>,
    pub decode_band: Option<[f64; 2]>,
    pub aggregate_tokens_per_s: Option<f64>,
    pub decode_class: Option<Efficiency>,
    pub prefill_tokens_per_s: Option<f64>,
    pub ttft_s: Option<f64>,
    pub prefill_class: Option<Efficiency>,
}

/// Expected decode per user = 1 ÷ (1 ÷ (median × per-stream ceiling) + fixed seconds); the
/// band, the same at the class's lowest and highest efficiency; the aggregate, that per
/// user × the batch (aggregate ÷ per-stream ceiling): the fixed cost is per step, and each
/// step gives every user one token. `per_stream` and `aggregate` are the option's
/// ceilings (tokens/s).
pub fn expected_decode(per_stream: f64, aggregate: f64, class: &Efficiency) -> (f64, [f64; 2], f64) {
    let at = |eff: f64| per_user(per_stream, eff, class.fixed_s);
    let d = at(class.median);
    (d, [at(class.low), at(class.high)], d * aggregate / per_stream)
}

/// Expected prefill = the compute roofline's prefill rate (prompt tokens ÷ its seconds) ×
/// the prefill class's median share; time to first token = the roofline's seconds ÷ that
/// share.
pub fn expected_prefill(prompt: u64, roofline_seconds: f64, class: &Efficiency) -> (f64, f64) {
    (
        prompt as f64 / roofline_seconds * class.median,
        roofline_seconds / class.median,
    )
}

/// Expected speeds for a shape under its ceilings: decode from [`table::DECODE`], prefill
/// from [`table::PREFILL`]. `prefill` is (prompt tokens, the roofline's prefill seconds).
/// An offloaded shape gets no prefill figure: the runs hold no offloaded prefill class.
pub fn expected(
    shape: &Shape,
    per_stream: Option<f64>,
    aggregate: Option<f64>,
    prefill: Option<(u64, f64)>,
) -> Expected {
    let mut e = Expected::default();
    if let (Some(p), Some(class)) = (per_stream, pick(table::DECODE, &shape.decode_keys())) {
        let (d, band, agg) = expected_decode(p, aggregate.unwrap_or(p), class);
        e.decode_tokens_per_s = Some(d);
        e.decode_band = Some(band);
        e.aggregate_tokens_per_s = aggregate.map(|_| agg);
        e.decode_class = Some(*class);
    }
    let prefill_class = (!shape.offload)
        .then(|| pick(table::PREFILL, &shape.prefill_keys()))
        .flatten();
    if let (Some((prompt, secs)), Some(class)) = (prefill, prefill_class)
        && secs > 0.0
    {
        let (rate, ttft) = expected_prefill(prompt, secs, class);
        e.prefill_tokens_per_s = Some(rate);
        e.ttft_s = Some(ttft);
        e.prefill_class = Some(*class);
    }
    e
}

/// What an option gives the expected speed to work from: its ceilings and whether layers,
/// experts or weights live in host RAM (the verdict's `FitOption` fills it in, so this room
/// needs nothing of the verdict's).
#[derive(Debug, Clone, Copy, Default)]
pub struct Ceilings {
    /// The serving roofline (none for training).
    pub roofline: Option<Roofline>,
    /// The decode ceiling per stream, tokens/s.
    pub decode_tokens_per_s: Option<f64>,
    /// Layers, experts or weights in host RAM: the placement's decode time is the ceiling.
    pub offload: bool,
}

/// The class shape of a plan option: its runtime's family (`Family::of_plan`), its card's
/// hardware, its weights, the model's size and experts, the batch, and whether layers,
/// experts or weights live in host RAM (then the placement's decode time is the ceiling,
/// and the offload class applies). An option that spills only its token embedding (one row
/// read a token) keeps the cards' ceiling, and so their class.
pub fn shape_of(model: &Model, sc: &Scenario, gpu: &Gpu, offload: bool) -> Shape {
    Shape {
        family: Family::of_plan(sc.framework, sc.weights, gpu.class()),
        hardware: Hardware::of(gpu),
        weights: sc.weights,
        params: model.params().total as f64,
        moe: model.is_moe(),
        batch: sc.batch.max(1),
        offload,
    }
}

/// Expected speeds of one plan option beside its ceilings (decode per stream and
/// aggregate, the prefill of the batch's prompts): none for training options.
pub fn for_ceilings(model: &Model, sc: &Scenario, gpu: &Gpu, c: Ceilings) -> Expected {
    let Some(roof) = c.roofline.filter(|_| !sc.method.is_training()) else {
        return Expected::default();
    };
    let tokens = sc.prompt.max(1) * sc.batch.max(1);
    expected(
        &shape_of(model, sc, gpu, c.offload),
        c.decode_tokens_per_s,
        Some(roof.aggregate),
        roof.prefill_seconds.map(|s| (tokens, s)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_linear_between_ranks() {
        let v = [0.2, 0.4, 0.6, 0.8];
        assert_eq!(quantile(&v, 0.5), 0.5);
        assert_eq!(quantile(&v, 0.0), 0.2);
        assert_eq!(quantile(&v, 1.0), 0.8);
        assert_eq!(quantile(&[0.3], 0.5), 0.3);
    }

    #[test]
    fn a_coarse_class_holds_its_finer_runs_and_three_runs_give_a_figure() {
        let k = |keys: &[&str]| keys.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let run = |keys: &[&str], share: f64| Sample {
            keys: k(keys),
            measured: share * 10.0,
            ceiling: 10.0,
        };
        let runs = vec![
            run(&["a · x", "a"], 0.5),
            run(&["a · x", "a"], 0.7),
            run(&["a · y", "a"], 0.6),
        ];
        let t = fit(&runs, MIN_FIXED_RUNS);
        let a = t.iter().find(|c| c.name == "a").unwrap();
        // Three runs: no fixed cost, the median share.
        assert_eq!(
            (a.runs, a.median, a.low, a.high, a.fixed_s),
            (3, 0.6, 0.5, 0.7, 0.0)
        );
        // "a · x" has two runs: the pick falls back to "a".
        assert_eq!(pick_fitted(&t, &k(&["a · x", "a"])).unwrap().name, "a");
        assert!(pick_fitted(&t, &k(&["b"])).is_none());
    }

    /// Six runs that took 80 % of their ceiling's time ÷ 0.8 plus 2 ms a token, from 20 to
    /// 800 tokens/s: the fit finds the 2 ms and the 80 %, and every run in its band; with
    /// three of them the class stays a share (the median share 0.6897 of 20, 100, 400).
    #[test]
    fn the_fit_finds_a_fixed_cost_per_token() {
        let runs: Vec<Sample> = [20.0, 50.0, 100.0, 200.0, 400.0, 800.0]
            .iter()
            .map(|&c| Sample {
                keys: vec!["a".into()],
                measured: per_user(c, 0.8, 0.002),
                ceiling: c,
            })
            .collect();
        let a = &fit(&runs, MIN_FIXED_RUNS)[0];
        assert!((a.fixed_s - 0.002).abs() < 1e-12, "{a:?}");
        assert!(
            (a.median - 0.8).abs() < 1e-9 && (a.low - 0.8).abs() < 1e-9,
            "{a:?}"
        );
        let three = [runs[0].clone(), runs[2].clone(), runs[4].clone()];
        let a = &fit(&three, MIN_FIXED_RUNS)[0];
        assert_eq!(a.fixed_s, 0.0);
        // 100 × 0.8 ÷ (1 + 100 × 0.8 × 0.002) = 80 ÷ 1.16.
        assert!((a.median - 0.8 / 1.16).abs() < 1e-12);
        // Per stream and for a batch of 4 at one step each.
        let c = Efficiency {
            name: "a",
            runs: 6,
            median: 0.8,
            low: 0.5,
            high: 0.9,
            fixed_s: 0.002,
        };
        let (d, [lo, hi], agg) = expected_decode(100.0, 400.0, &c);
        assert!((d - 80.0 / 1.16).abs() < 1e-9 && (agg - 4.0 * d).abs() < 1e-9);
        assert!((lo - 50.0 / 1.1).abs() < 1e-9 && (hi - 90.0 / 1.18).abs() < 1e-9);
    }

    #[test]
    fn the_modifier_order_is_offload_batch_moe_small_kernel_a_batched_moe_apart() {
        let s = Shape {
            family: Family::Ggml,
            hardware: Hardware::Gddr,
            weights: crate::engine::WeightPrecision::Q4KM,
            params: 2e9,
            moe: true,
            batch: 8,
            offload: true,
        };
        assert_eq!(s.decode_keys(), vec!["offload · ggml", "offload"]);
        let s = Shape { offload: false, ..s };
        assert_eq!(s.modifier(), "moe-batch");
        assert_eq!(Shape { moe: false, ..s }.modifier(), "batch");
        assert_eq!(Shape { batch: 1, ..s }.modifier(), "moe");
        // A MoE keeps to its memory's runs, batched or not.
        assert_eq!(
            Shape { batch: 1, ..s }.decode_keys(),
            vec!["ggml · gddr · moe", "ggml · gddr"]
        );
        assert_eq!(s.decode_keys(), vec!["ggml · gddr · moe-batch"]);
        assert_eq!(
            Shape {
                batch: 1,
                moe: false,
                ..s
            }
            .modifier(),
            "small"
        );
        let dense = Shape {
            batch: 1,
            moe: false,
            params: 8e9,
            ..s
        };
        assert_eq!(
            dense.decode_keys(),
            vec!["ggml · gddr · k-quant", "ggml · k-quant", "ggml · gddr"]
        );
    }
}
