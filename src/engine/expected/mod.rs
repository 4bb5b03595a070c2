//! Expected speed beside the ceiling: what runs like this one reached of their ceiling.
//!
//! expected = ceiling × efficiency of the run's class, where a class's efficiency is the
//! MEDIAN share of the ceiling (measured ÷ ceiling) over the published runs of that class
//! (`tests/data/speed-runs.toml`), fitted per class and never per run; its band is the
//! lowest to the highest of those shares (min–max: with three to twenty runs a class, a
//! percentile band would leave its own extreme runs outside). A class needs [`MIN_RUNS`]
//! runs to give a figure; a run whose finest class has fewer falls back to the coarser
//! one, and with none the expected figure is `None` and the ceiling stands alone.
//!
//! The fitted tables ([`table::DECODE`], [`table::PREFILL`]) are data kept here because
//! the engine cannot plan the runs itself (their ceilings come from the catalog and the
//! planner, layers above it): `accuracy::speed` re-plans every run and refits, and
//! `tests/expected_speed.rs` fails if the tables drift from what the runs give.

pub mod class;
pub mod table;

use serde::Serialize;

pub use class::{Family, Hardware, Shape};

use crate::engine::fit::FitOption;
use crate::engine::gpu::Gpu;
use crate::engine::model::Model;
use crate::engine::scenario::Scenario;

/// Fewest runs a class needs before its median is used.
pub const MIN_RUNS: usize = 3;

/// One class's fitted efficiency.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Efficiency {
    pub name: &'static str,
    pub runs: usize,
    /// Median measured ÷ ceiling.
    pub median: f64,
    /// Lowest and highest measured ÷ ceiling.
    pub low: f64,
    pub high: f64,
}

/// A class fitted from runs, owning its name (what [`fit`] returns).
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub name: String,
    pub runs: usize,
    pub median: f64,
    pub low: f64,
    pub high: f64,
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

/// Fit every class from runs given as (their class keys, measured ÷ ceiling): each key a
/// run names gets the run's share, so a coarse class holds every run of its finer ones.
/// Sorted by name; classes with fewer than [`MIN_RUNS`] runs are kept (with their count)
/// so that the table says why a figure is missing.
pub fn fit(runs: &[(Vec<String>, f64)]) -> Vec<Fitted> {
    let mut by: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
    for (keys, share) in runs {
        for k in keys {
            by.entry(k.as_str()).or_default().push(*share);
        }
    }
    by.into_iter()
        .map(|(name, mut v)| {
            v.sort_by(f64::total_cmp);
            Fitted {
                name: name.to_string(),
                runs: v.len(),
                median: quantile(&v, 0.5),
                low: v[0],
                high: v[v.len() - 1],
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

/// Expected decode = ceiling × the class's median share; the band, ceiling × its lowest
/// and highest shares. `per_stream` and `aggregate` are the option's ceilings (tokens/s).
pub fn expected_decode(per_stream: f64, aggregate: f64, class: &Efficiency) -> (f64, [f64; 2], f64) {
    (
        per_stream * class.median,
        [per_stream * class.low, per_stream * class.high],
        aggregate * class.median,
    )
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

/// The class shape of a plan option: its runtime's family (`Family::of_plan`), its card's
/// hardware, its weights, the model's size and experts, the batch, and whether layers,
/// experts or weights live in host RAM (then the placement's decode time is the ceiling,
/// and the offload class applies). An option that spills only its token embedding (one row
/// read a token) keeps the cards' ceiling, and so their class.
pub fn shape_of(model: &Model, sc: &Scenario, gpu: &Gpu, o: &FitOption) -> Shape {
    Shape {
        family: Family::of_plan(sc.framework, sc.weights, gpu.class()),
        hardware: Hardware::of(gpu),
        weights: sc.weights,
        params: model.params().total as f64,
        moe: model.is_moe(),
        batch: sc.batch.max(1),
        offload: o.spills() && o.placement.as_ref().is_some_and(|p| p.offloads()),
    }
}

/// Expected speeds of one plan option beside its ceilings (decode per stream and
/// aggregate, the prefill of the batch's prompts): none for training options.
pub fn for_option(model: &Model, sc: &Scenario, gpu: &Gpu, o: &FitOption) -> Expected {
    let Some(roof) = o.roofline.filter(|_| !sc.method.is_training()) else {
        return Expected::default();
    };
    let tokens = sc.prompt.max(1) * sc.batch.max(1);
    expected(
        &shape_of(model, sc, gpu, o),
        o.decode_tokens_per_s,
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
        let runs = vec![
            (k(&["a · x", "a"]), 0.5),
            (k(&["a · x", "a"]), 0.7),
            (k(&["a · y", "a"]), 0.6),
        ];
        let t = fit(&runs);
        let a = t.iter().find(|c| c.name == "a").unwrap();
        assert_eq!((a.runs, a.median, a.low, a.high), (3, 0.6, 0.5, 0.7));
        // "a · x" has two runs: the pick falls back to "a".
        assert_eq!(pick_fitted(&t, &k(&["a · x", "a"])).unwrap().name, "a");
        assert!(pick_fitted(&t, &k(&["b"])).is_none());
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
