//! The speed section of `docs/accuracy.md`: each mapped run's ceiling, expected and
//! measured speed, and the summary the issue asks for (median |error| overall, of MoE runs
//! and of offloaded runs, in sample and leave-one-out, against the trivial estimate).

use std::fmt::Write as _;

use super::speed::{Evaluation, SpeedRow};

/// Median of |values|; `None` when there are none.
pub fn median_abs(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.into_iter().map(f64::abs).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(crate::engine::speed::expected::quantile(&v, 0.5))
}

/// The median share of the ceiling over `rows`: the trivial estimate's one factor.
pub fn median_share(rows: &[&SpeedRow]) -> f64 {
    let mut v: Vec<f64> = rows.iter().map(|r| r.share()).collect();
    v.sort_by(f64::total_cmp);
    crate::engine::speed::expected::quantile(&v, 0.5)
}

/// One group's figures (all runs, MoE runs, offloaded runs).
#[derive(Debug, Clone, Copy, Default)]
pub struct Group {
    /// Runs in the group, and of them those with an expected figure.
    pub runs: usize,
    pub with_expected: usize,
    /// Median |expected ÷ measured − 1| in sample, and leave-one-out.
    pub median_error: Option<f64>,
    pub loo_median_error: Option<f64>,
    /// The same for the trivial estimate (every run at the set's median share), over the
    /// same runs, in sample and leave-one-out.
    pub trivial: Option<f64>,
    pub loo_trivial: Option<f64>,
}

/// The summary of one kind (decode or prefill).
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub all: Group,
    pub moe: Group,
    pub offload: Group,
    /// Runs outside their class's band (in sample, and of the class fitted without them).
    pub outside_band: usize,
    pub loo_outside_band: usize,
    /// Runs measured above their ceiling (there must be none).
    pub above_ceiling: Vec<String>,
}

fn group(rows: &[SpeedRow], keep: impl Fn(&SpeedRow) -> bool) -> Group {
    let all: Vec<&SpeedRow> = rows.iter().collect();
    let share = median_share(&all);
    let picked: Vec<&SpeedRow> = rows.iter().filter(|r| keep(r)).collect();
    let with: Vec<&&SpeedRow> = picked.iter().filter(|r| r.expected.is_some()).collect();
    // Leave-one-out trivial: the median share of every other run.
    let loo_share = |r: &SpeedRow| {
        let others: Vec<&SpeedRow> = rows.iter().filter(|o| o.id != r.id).collect();
        median_share(&others)
    };
    Group {
        runs: picked.len(),
        with_expected: with.len(),
        median_error: median_abs(with.iter().filter_map(|r| r.error())),
        loo_median_error: median_abs(with.iter().filter_map(|r| r.loo_error())),
        trivial: median_abs(with.iter().map(|r| r.ceiling * share / r.measured - 1.0)),
        loo_trivial: median_abs(with.iter().map(|r| r.ceiling * loo_share(r) / r.measured - 1.0)),
    }
}

pub fn summary(rows: &[SpeedRow]) -> Summary {
    Summary {
        all: group(rows, |_| true),
        moe: group(rows, |r| r.shape.moe),
        offload: group(rows, |r| r.shape.offload),
        outside_band: rows.iter().filter(|r| r.outside_band()).count(),
        loo_outside_band: rows.iter().filter(|r| r.loo_outside_band()).count(),
        above_ceiling: rows
            .iter()
            .filter(|r| r.above_ceiling())
            .map(|r| r.id.clone())
            .collect(),
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |x| format!("{:.1} %", x * 100.0))
}

fn group_line(name: &str, g: &Group) -> String {
    format!(
        "| {name} | {} | {} | {} | {} | {} | {} |",
        g.runs,
        g.with_expected,
        pct(g.median_error),
        pct(g.loo_median_error),
        pct(g.trivial),
        pct(g.loo_trivial)
    )
}

fn summary_table(s: &mut String, kind: &str, sum: &Summary) {
    let _ = writeln!(
        s,
        "| {kind} runs | mapped | with expected | median error | leave-one-out | trivial | trivial, leave-one-out |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for (name, g) in [("all", &sum.all), ("MoE", &sum.moe), ("offloaded", &sum.offload)] {
        let _ = writeln!(s, "{}", group_line(name, g));
    }
    let _ = writeln!(
        s,
        "\nOutside their class's band: {} in sample, {} leave-one-out · above their ceiling: {}.\n",
        sum.outside_band,
        sum.loo_outside_band,
        if sum.above_ceiling.is_empty() {
            "none".to_string()
        } else {
            sum.above_ceiling.join(", ")
        }
    );
}

fn rows_table(s: &mut String, rows: &[SpeedRow]) {
    let _ = writeln!(
        s,
        "| run | ceiling t/s | share | class (runs) | expected t/s | band | measured t/s | error | leave-one-out | mapping |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let (class, expected, band, error, loo) = match (&r.class, r.expected) {
            (Some((name, n)), Some(e)) => (
                format!("{name} ({n})"),
                format!("{e:.1}"),
                r.band
                    .map_or(String::new(), |[lo, hi]| format!("{lo:.1}–{hi:.1}")),
                pct(r.error()),
                pct(r.loo_error()),
            ),
            _ => (
                "none with 3 runs".into(),
                "—".into(),
                "—".into(),
                "—".into(),
                "—".into(),
            ),
        };
        let _ = writeln!(
            s,
            "| {} | {:.1} | {:.0} % | {class} | {expected} | {band} | {:.1} | {error} | {loo} | {} |",
            r.id,
            r.ceiling,
            r.share() * 100.0,
            r.measured,
            r.note
        );
    }
}

/// The speed section of `docs/accuracy.md`.
pub fn markdown(e: &Evaluation) -> String {
    let mut s = String::new();
    let min = crate::engine::speed::expected::MIN_FIXED_RUNS;
    let _ = writeln!(
        s,
        "\n## Speed: expected vs measured\n\n\
         From `tests/data/speed-runs.toml` and `tests/data/speed-runs-serving.toml` (published measured\n\
         runs, each with its quote and link; the `plan_*` fields map it to the catalog; a serving run's\n\
         speed is per user, 1000 ÷ its mean TPOT). Each run is re-planned; its ceiling is the roofline\n\
         (decode: bandwidth ÷ bytes read per token, the batch's aggregate where the run measured that;\n\
         prefill: 2 × active parameters × prompt ÷ peak FLOP/s). A decode token takes the ceiling's time ÷\n\
         the class's efficiency plus the class's fixed seconds a token (kernel launches, sampling,\n\
         scheduling), so expected = 1 ÷ (1 ÷ (efficiency × ceiling) + fixed), per user (a batch's\n\
         aggregate is the batch × that); the fixed cost is fitted on a 0–20 ms grid for classes of {min}\n\
         runs or more, the efficiency is the median over the class's runs with that cost taken out\n\
         (`engine::speed::expected`). With no fixed cost (smaller classes, every prefill class) expected =\n\
         ceiling × the class's median share. The band is the class's lowest to highest efficiency,\n\
         and a class needs 3 runs. Error = expected / measured − 1; the\n\
         leave-one-out column predicts each run from its class fitted without it. The trivial estimate\n\
         puts every run at the whole set's median share of its ceiling.\n"
    );
    let _ = writeln!(s, "### Decode\n");
    summary_table(&mut s, "decode", &summary(&e.decode));
    let _ = writeln!(s, "### Prefill\n");
    summary_table(&mut s, "prefill", &summary(&e.prefill));
    let _ = writeln!(s, "### Classes\n");
    let _ = writeln!(
        s,
        "| kind | class | runs | median efficiency | lowest | highest | fixed ms a token |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for (kind, t) in [("decode", &e.decode_table), ("prefill", &e.prefill_table)] {
        for c in t.iter() {
            let _ = writeln!(
                s,
                "| {kind} | {} | {} | {:.3} | {:.3} | {:.3} | {:.1} |",
                c.name,
                c.runs,
                c.median,
                c.low,
                c.high,
                c.fixed_s * 1e3
            );
        }
    }
    let _ = writeln!(s, "\n### Decode runs\n");
    rows_table(&mut s, &e.decode);
    let _ = writeln!(s, "\n### Prefill runs\n");
    rows_table(&mut s, &e.prefill);
    let _ = writeln!(s, "\n### Runs not re-planned\n");
    let _ = writeln!(s, "| run | why |");
    let _ = writeln!(s, "|---|---|");
    for k in &e.skipped {
        let _ = writeln!(s, "| {} | {} |", k.id, k.why);
    }
    s
}
