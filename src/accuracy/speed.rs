//! Expected speed vs measured: every run of the public speed set
//! (`tests/data/speed-runs.toml`, and the serving runs of `speed-runs-serving.toml`) re-planned with the catalog, its ceiling computed, its
//! class's efficiency fitted, and the expected figure compared with what was measured, in
//! sample and leave-one-out (each run predicted by its class fitted without it).

use serde::Deserialize;

use crate::catalog::Catalog;
use crate::engine::hardware::host::{Host, Pin};
use crate::engine::speed::expected::{self, Family, Fitted, Hardware, Sample, Shape};
use crate::engine::verdict::plan::{Scope, Solve, plan_in};
use crate::engine::workload::scenario::Split;
use crate::engine::{Choice, Scenario, WeightPrecision};

pub const SPEED_RUNS: &str = include_str!("../../tests/data/speed-runs.toml");
/// vLLM, SGLang and NIM serving runs: per-user decode from TPOT at a known concurrency.
pub const SERVING_RUNS: &str = include_str!("../../tests/data/speed-runs-serving.toml");

/// The fields of a run this module reads (the file has its sources and quotes too).
#[derive(Debug, Deserialize)]
struct Run {
    id: String,
    kind: String,
    measured_tokens_per_s: f64,
    cpu_offload: Option<String>,
    plan: bool,
    why: Option<String>,
    plan_model: Option<String>,
    plan_gpu: Option<String>,
    plan_weights: Option<String>,
    plan_runtime: Option<String>,
    plan_cards: Option<u32>,
    plan_batch: Option<u64>,
    plan_context: Option<u64>,
    plan_prompt: Option<u64>,
    #[serde(default)]
    plan_aggregate: bool,
    plan_note: Option<String>,
    /// An offloaded run's host: its RAM (GB) and that RAM's bandwidth (GB/s), stated or
    /// measured by the source.
    plan_ram_gb: Option<f64>,
    plan_ram_bandwidth_gbs: Option<f64>,
    /// The run's pin: llama.cpp's `-ngl` and `--n-cpu-moe` (`-ot exps=CPU`: every layer).
    plan_gpu_layers: Option<u64>,
    plan_n_cpu_moe: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct File {
    run: Vec<Run>,
}

/// One mapped run: its ceiling, class and the expected figures.
#[derive(Debug, Clone)]
pub struct SpeedRow {
    pub id: String,
    pub prefill: bool,
    pub shape: Shape,
    pub measured: f64,
    /// Decode: the roofline's tokens/s (per stream, or the batch's aggregate where the run
    /// measured that); prefill: prompt ÷ the compute roofline's seconds.
    pub ceiling: f64,
    /// Users the measured figure covers: the batch where the run measured its aggregate, else
    /// 1 (the fit and the expected figure work per user, per step).
    pub streams: f64,
    /// The run's class keys, finest first.
    pub keys: Vec<String>,
    /// Expected from the class fitted on every run, and that class.
    pub expected: Option<f64>,
    pub class: Option<(String, usize)>,
    pub band: Option<[f64; 2]>,
    /// Expected from the class fitted without this run, and that class's band.
    pub loo_expected: Option<f64>,
    pub loo_band: Option<[f64; 2]>,
    pub note: String,
}

impl SpeedRow {
    pub fn share(&self) -> f64 {
        self.measured / self.ceiling
    }

    /// Signed relative error of the expected figure.
    pub fn error(&self) -> Option<f64> {
        self.expected.map(|e| e / self.measured - 1.0)
    }

    pub fn loo_error(&self) -> Option<f64> {
        self.loo_expected.map(|e| e / self.measured - 1.0)
    }

    pub fn outside_band(&self) -> bool {
        outside(self.measured, self.band)
    }

    pub fn loo_outside_band(&self) -> bool {
        outside(self.measured, self.loo_band)
    }

    pub fn above_ceiling(&self) -> bool {
        self.measured > self.ceiling
    }
}

/// Whether `measured` falls outside `band` (beyond rounding).
fn outside(measured: f64, band: Option<[f64; 2]>) -> bool {
    band.is_some_and(|[lo, hi]| measured < lo * (1.0 - 1e-9) || measured > hi * (1.0 + 1e-9))
}

/// A run the harness cannot re-plan, and why.
#[derive(Debug, Clone)]
pub struct Skipped {
    pub id: String,
    pub why: String,
}

/// Every run of both files, the public speed set's first.
fn runs() -> Result<Vec<Run>, String> {
    let mut all = Vec::new();
    for (name, text) in [
        ("speed-runs.toml", SPEED_RUNS),
        ("speed-runs-serving.toml", SERVING_RUNS),
    ] {
        all.extend(
            toml::from_str::<File>(text)
                .map_err(|e| format!("{name}: {e}"))?
                .run,
        );
    }
    Ok(all)
}

/// The scenario a mapped run is planned with: its weights, runtime, cards, batch and
/// context (decode) or prompt (prefill); llama.cpp splits layers, the others tensors. An
/// offloaded run gets its host (RAM and bandwidth) and its pin, so that the plan places
/// layers or experts in RAM where the run did.
fn scenario(r: &Run, family: Family, weights: WeightPrecision) -> Scenario {
    let mut sc = Scenario::seed_inference(weights).calibrated();
    let host = r.plan_ram_gb.map(|gb| Host::new(gb, r.plan_ram_bandwidth_gbs));
    // KTransformers keeps the routed experts in RAM and runs them on the CPU, as llama.cpp's
    // `-ot exps=CPU` does: its runs are placed as llama.cpp places experts (the generic
    // runtime would stream the weights over PCIe instead), their class stays their own.
    let placed_as = if host.is_some() && family == Family::Other {
        Family::Ggml
    } else {
        family
    };
    expected::class::framework_of(placed_as).apply(&mut sc);
    let prompt = r.plan_prompt.unwrap_or(1).max(1);
    Scenario {
        weights,
        cards: r.plan_cards.unwrap_or(1).max(1),
        batch: r.plan_batch.unwrap_or(1).max(1),
        context: r.plan_context.unwrap_or(prompt).max(1),
        prompt: if r.kind == "prefill" {
            prompt
        } else {
            sc.prompt.min(r.plan_context.unwrap_or(1).max(1))
        },
        split: if placed_as == Family::Ggml {
            Split::Layer
        } else {
            Split::Tensor
        },
        host,
        pin: Pin {
            gpu_layers: r.plan_gpu_layers,
            cpu_moe: r.plan_n_cpu_moe,
        },
        ..sc
    }
}

/// A mapped run's row, or (inner `Err`) why the catalog cannot give its ceiling.
fn row(catalog: &Catalog, r: &Run) -> Result<Result<SpeedRow, String>, String> {
    let id = &r.id;
    let field = |v: &Option<String>, name: &str| v.clone().ok_or_else(|| format!("{id}: {name} missing"));
    let model = catalog
        .model(&field(&r.plan_model, "plan_model")?)
        .cloned()
        .ok_or_else(|| format!("{id}: catalog lacks {:?}", r.plan_model))?;
    let gpu_id = field(&r.plan_gpu, "plan_gpu")?;
    let gpu = catalog
        .gpu_index(&gpu_id)
        .map(|i| catalog.gpus[i].clone())
        .ok_or_else(|| format!("{id}: catalog lacks card {gpu_id}"))?;
    let weights = WeightPrecision::from_id(&field(&r.plan_weights, "plan_weights")?)
        .ok_or_else(|| format!("{id}: unknown weights {:?}", r.plan_weights))?;
    let family = Family::from_id(&field(&r.plan_runtime, "plan_runtime")?)
        .ok_or_else(|| format!("{id}: unknown runtime family {:?}", r.plan_runtime))?;
    let sc = scenario(r, family, weights);
    let cards = sc.cards;
    let gpus = [gpu.clone()];
    let plan = plan_in(
        &model,
        &gpus,
        &sc,
        &Scope {
            include_combos: cards > 1,
            limits: Solve::Nothing,
            cards: &|_| true,
        },
    );
    let option = plan
        .options
        .iter()
        .find(|o| o.count == cards)
        .ok_or_else(|| format!("{id}: no option for {cards} × {gpu_id}"))?;
    // An offloaded run's ceiling is its spilled placement's (VRAM part ÷ the card's
    // bandwidth + RAM part ÷ the host's): a plan that keeps everything on the card would
    // give the GPU's ceiling instead, so the run's pin must make it spill.
    let offload = sc.host.is_some();
    let stated = r.cpu_offload.as_deref().is_some_and(|o| !o.starts_with("none"));
    if stated != offload {
        return Err(format!(
            "{id}: cpu_offload and plan_ram_gb disagree on whether it offloads"
        ));
    }
    let placed = option
        .placement
        .as_ref()
        .filter(|p| option.spills() && p.offloads())
        .and_then(|p| p.speed.as_ref());
    if offload && placed.is_none() {
        return Ok(Err(format!(
            "the plan does not spill on {cards} × {gpu_id} as the run did (its placement does not fit)"
        )));
    }
    let roof = option
        .roofline
        .ok_or_else(|| format!("{id}: no ceiling for {cards} × {gpu_id}"))?;
    if let Some(p) = placed
        && p.tokens_per_s != roof.per_stream
    {
        return Err(format!("{id}: the option's ceiling is not its placement's"));
    }
    let prefill = r.kind == "prefill";
    let ceiling = if prefill {
        let Some(secs) = roof.prefill_seconds else {
            return Ok(Err(format!("the catalog has no BF16 TFLOPS for {gpu_id}")));
        };
        sc.prompt as f64 / secs
    } else if r.plan_aggregate {
        roof.aggregate
    } else {
        roof.per_stream
    };
    let shape = Shape {
        family,
        hardware: Hardware::of(&gpu),
        weights,
        params: model.params().total as f64,
        moe: model.is_moe(),
        batch: sc.batch,
        offload,
    };
    Ok(Ok(SpeedRow {
        id: id.clone(),
        prefill,
        keys: if prefill {
            shape.prefill_keys()
        } else {
            shape.decode_keys()
        },
        shape,
        measured: r.measured_tokens_per_s,
        ceiling,
        streams: if r.plan_aggregate && !prefill {
            sc.batch as f64
        } else {
            1.0
        },
        expected: None,
        class: None,
        band: None,
        loo_expected: None,
        loo_band: None,
        note: r.plan_note.clone().unwrap_or_default(),
    }))
}

/// Fit one kind's rows (decode or prefill) and fill their expected figures, in sample
/// and leave-one-out. Each run is fitted per user (an aggregate run's measured and ceiling
/// ÷ its batch) and its expected figure taken back to what it measured (× the batch).
fn fill(rows: &mut [SpeedRow], min_fixed_runs: usize) -> Vec<Fitted> {
    let runs: Vec<Sample> = rows
        .iter()
        .map(|r| Sample {
            keys: r.keys.clone(),
            measured: r.measured / r.streams,
            ceiling: r.ceiling / r.streams,
        })
        .collect();
    let table = expected::fit(&runs, min_fixed_runs);
    for (i, r) in rows.iter_mut().enumerate() {
        let user = r.ceiling / r.streams;
        let at = |c: &Fitted, eff: f64| r.streams * expected::per_user(user, eff, c.fixed_s);
        if let Some(c) = expected::pick_fitted(&table, &r.keys) {
            r.expected = Some(at(c, c.median));
            r.band = Some([at(c, c.low), at(c, c.high)]);
            r.class = Some((c.name.clone(), c.runs));
        }
        let others: Vec<Sample> = runs
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, x)| x.clone())
            .collect();
        let loo = expected::fit(&others, min_fixed_runs);
        if let Some(c) = expected::pick_fitted(&loo, &r.keys) {
            r.loo_expected = Some(at(c, c.median));
            r.loo_band = Some([at(c, c.low), at(c, c.high)]);
        }
    }
    table
}

/// Every run of the speed set: the mapped rows (decode then prefill), the runs left out
/// with their reason, and the decode and prefill tables fitted from them.
pub struct Evaluation {
    pub decode: Vec<SpeedRow>,
    pub prefill: Vec<SpeedRow>,
    pub skipped: Vec<Skipped>,
    pub decode_table: Vec<Fitted>,
    pub prefill_table: Vec<Fitted>,
}

pub fn evaluate(catalog: &Catalog) -> Result<Evaluation, String> {
    evaluate_with(catalog, expected::MIN_FIXED_RUNS)
}

/// [`evaluate`] with decode classes of at least `min_fixed_runs` runs given a fixed cost
/// (the threshold's own test compares several); prefill classes stay shares.
pub fn evaluate_with(catalog: &Catalog, min_fixed_runs: usize) -> Result<Evaluation, String> {
    let mut decode = Vec::new();
    let mut prefill = Vec::new();
    let mut skipped = Vec::new();
    for r in runs()? {
        if !r.plan {
            skipped.push(Skipped {
                id: r.id.clone(),
                why: r.why.clone().unwrap_or_default(),
            });
            continue;
        }
        let row = match row(catalog, &r)? {
            Ok(row) => row,
            Err(why) => {
                skipped.push(Skipped {
                    id: r.id.clone(),
                    why,
                });
                continue;
            }
        };
        if row.prefill {
            prefill.push(row);
        } else {
            decode.push(row);
        }
    }
    let decode_table = fill(&mut decode, min_fixed_runs);
    // A prefill's time is its compute's: the share alone (no fixed cost per token).
    let prefill_table = fill(&mut prefill, usize::MAX);
    Ok(Evaluation {
        decode,
        prefill,
        skipped,
        decode_table,
        prefill_table,
    })
}

/// The Rust source of `engine::speed::expected::table` for these tables: the classes with at
/// least [`expected::MIN_RUNS`] runs (the others give no figure), shares to four decimals.
pub fn table_source(e: &Evaluation) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for (name, t) in [("DECODE", &e.decode_table), ("PREFILL", &e.prefill_table)] {
        let _ = writeln!(s, "pub const {name}: &[Efficiency] = &[");
        for c in t.iter().filter(|c| c.runs >= expected::MIN_RUNS) {
            let _ = writeln!(
                s,
                "    Efficiency {{ name: {:?}, runs: {}, median: {}, low: {}, high: {}, fixed_s: {:?} }},",
                c.name,
                c.runs,
                round4(c.median),
                round4(c.low),
                round4(c.high),
                round_fixed(c.fixed_s)
            );
        }
        let _ = writeln!(s, "];");
    }
    s
}

/// Fixed costs are kept to the microsecond in the table (the grid's steps are 200 µs).
pub fn round_fixed(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// Shares are kept to four decimals in the table.
pub fn round4(v: f64) -> f64 {
    (v * 1e4).round() / 1e4
}
