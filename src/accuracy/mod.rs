//! Predicted vs measured: every published run of `tests/data/measurements.toml` (a copy of
//! the project's reference file) through the engine, under both conventions.
//!
//! Each case is mapped to a scenario by hand below: the sources describe their runs in
//! prose (optimizer, precision, checkpointing, sharding), so the mapping says what was set
//! and, where the engine has no knob for something the run did, says that too. Each case
//! is compared on what its source measured: torch's allocated bytes (no CUDA context, no
//! allocator slack), torch's reserved bytes (no CUDA context), what nvidia-smi or a write-up
//! shows (everything), the weights alone, an engine's KV budget, or decode speed (which
//! must stay under the bandwidth ceiling).

use serde::Deserialize;

use crate::catalog::{Catalog, hf};
use crate::engine::memory::{SegmentKind, breakdown};
use crate::engine::verdict::plan::plan;
use crate::engine::{Convention, Method, Model, Scenario, WeightPrecision};

pub const MEASUREMENTS: &str = include_str!("../../tests/data/measurements.toml");

/// The fields of a case this module reads (the file has many more).
#[derive(Debug, Deserialize)]
pub struct Case {
    pub id: String,
    pub kind: String,
    pub confidence: Option<String>,
    pub measured_value: f64,
    pub measured_unit: String,
    pub measured_metric: String,
    pub arch_params: Option<u64>,
    pub gpu_count: Option<u32>,
    /// The runtime the source names, as it names it ("torchtune (PyTorch 2.5 era)").
    pub framework: Option<String>,
}

#[derive(Debug, Deserialize)]
struct File {
    case: Vec<Case>,
}

pub fn cases() -> Result<Vec<Case>, toml::de::Error> {
    toml::from_str::<File>(MEASUREMENTS).map(|f| f.case)
}

/// What the source measured.
#[derive(Debug, Clone, PartialEq)]
pub enum Compare {
    /// torch allocated / active peak: the total without CUDA context and allocator slack.
    TorchAllocated,
    /// torch reserved: the total without the CUDA context.
    TorchReserved,
    /// nvidia-smi or a write-up's per-GPU figure: everything.
    Total,
    /// Bytes of the loaded weights.
    Weights,
    /// What vLLM on ROCm logs as "Model loading took": the device's total less its free
    /// memory across the load (`vllm/platforms/rocm.py`, `get_current_memory_usage`, 0.10
    /// and 0.11), so the caching allocator's whole segments and the HIP runtime's own memory
    /// beside the weights; compared with the planned weights, not counted as a weights case.
    DeviceUsed,
    /// One segment a runtime logs by itself (llama.cpp's KV and compute buffers, vLLM's
    /// activation peak).
    Segment(SegmentKind),
    /// KV bytes an engine allocates per card after weights, activations and overhead.
    KvBudget { gpu: String, util: f64 },
    /// Decode tokens/s: must stay under the bandwidth ceiling of this card.
    DecodeCeiling { gpu: String },
    /// vLLM's logged "GPU KV cache size: N tokens" for the KV memory the run logged per card
    /// (`kv_bytes`): the token rule alone, budget errors aside.
    KvTokens { kv_bytes: f64 },
}

mod setups;
pub mod speed;
pub mod speed_report;
pub use setups::{SETUPS, Setup, setups};

/// GPTBigCode 15.5B (bigcode/octocoder), which the catalog does not carry.
const OCTOCODER_CONFIG: &str = r#"{"model_type": "gpt_bigcode", "n_embd": 6144, "n_layer": 40, "n_head": 48,
 "n_inner": 24576, "n_positions": 8192, "vocab_size": 49152, "multi_query": true}"#;

/// EleutherAI Pythia 1.4B (GPT-NeoX), which llama.cpp's CI runs and the catalog does not carry.
const PYTHIA_CONFIG: &str = r#"{"model_type": "gpt_neox", "hidden_size": 2048, "num_hidden_layers": 24,
 "num_attention_heads": 16, "intermediate_size": 8192, "vocab_size": 50304, "max_position_embeddings": 2048,
 "rotary_pct": 0.25, "use_parallel_residual": true, "tie_word_embeddings": false}"#;

/// One line of the accuracy table.
#[derive(Debug, Clone)]
pub struct Row {
    pub id: String,
    pub confidence: String,
    pub compare: Compare,
    /// Bytes, or tokens/s for decode cases.
    pub measured: f64,
    /// Under the run's framework preset (the generic rules where it names none).
    pub predicted: f64,
    /// Under the generic rules, for the generic-vs-preset column.
    pub generic_predicted: f64,
    pub framework: crate::engine::Framework,
    /// The framework's release the run was planned for, where the case names one.
    pub release: Option<crate::engine::workload::version::Version>,
    /// The engine and version as the source gives them ("vLLM 0.11.0 (V1)", "llama.cpp b3600").
    pub engine: String,
    pub seed_predicted: f64,
    pub tolerance: f64,
    pub note: String,
    pub model_params_match: bool,
}

impl Row {
    /// Signed relative error of the calibrated prediction (decode: ceiling over measured − 1).
    pub fn error(&self) -> f64 {
        self.predicted / self.measured - 1.0
    }

    pub fn generic_error(&self) -> f64 {
        self.generic_predicted / self.measured - 1.0
    }

    pub fn seed_error(&self) -> f64 {
        self.seed_predicted / self.measured - 1.0
    }

    pub fn is_decode(&self) -> bool {
        matches!(self.compare, Compare::DecodeCeiling { .. })
    }

    /// Compared in tokens, not bytes.
    pub fn is_tokens(&self) -> bool {
        matches!(self.compare, Compare::KvTokens { .. })
    }

    /// Memory cases: within tolerance. Decode cases: the measured speed is under the ceiling.
    pub fn passes(&self) -> bool {
        if self.is_decode() {
            self.measured <= self.predicted
        } else {
            self.error().abs() <= self.tolerance
        }
    }
}

fn unit_bytes(unit: &str) -> f64 {
    if unit.starts_with("GiB") {
        1_073_741_824.0
    } else if unit.starts_with("MiB") {
        1_048_576.0
    } else {
        1e9
    }
}

/// The run's scenario on the card it names: how vLLM holds MXFP4 experts there (its batch
/// values are the case's own).
fn on_card(catalog: &Catalog, sc: &Scenario, setup: &setups::Setup) -> Scenario {
    let gpu = setup.gpu.as_deref().and_then(|g| catalog.gpu_index(g));
    gpu.map_or_else(
        || sc.clone(),
        |i| crate::engine::verdict::card_defaults::with_card_layout(sc, &catalog.gpus[i]),
    )
}

fn predict(catalog: &Catalog, model: &Model, sc: &Scenario, compare: &Compare) -> f64 {
    let b = breakdown(model, sc);
    let overhead = b.segment(SegmentKind::Overhead);
    let part = |name: &str| overhead.map_or(0.0, |s| s.part(name));
    match compare {
        Compare::TorchAllocated => b.total() - part("cuda_context") - part("allocator_fragmentation"),
        Compare::TorchReserved => b.total() - part("cuda_context"),
        Compare::Total => b.total(),
        Compare::Weights | Compare::DeviceUsed => b.get(SegmentKind::Weights),
        Compare::Segment(kind) => b.get(*kind),
        Compare::KvBudget { gpu, util } => {
            let g = catalog
                .gpu_index(gpu)
                .map(|i| catalog.gpus[i].memory_real_bytes())
                .unwrap_or(0.0);
            g * util - (b.total() - b.get(SegmentKind::KvCache))
        }
        Compare::KvTokens { kv_bytes } => {
            crate::engine::memory::kv::vllm_logged_tokens(model, sc, *kv_bytes) as f64
        }
        Compare::DecodeCeiling { gpu } => {
            let Some(i) = catalog.gpu_index(gpu) else {
                return 0.0;
            };
            let one = vec![catalog.gpus[i].clone()];
            let p = plan(
                model,
                &one,
                &Scenario {
                    cards: 1,
                    ..sc.clone()
                },
                false,
            );
            p.options
                .first()
                .and_then(|o| o.decode_tokens_per_s)
                .unwrap_or(0.0)
        }
    }
}

/// The seed convention's figure for the same run (it has no knobs: only method, weights,
/// context and batch carry over; combos share the total equally).
fn predict_seed(catalog: &Catalog, model: &Model, sc: &Scenario, compare: &Compare) -> f64 {
    let mut seed = Scenario {
        convention: Convention::Seed,
        ..sc.clone()
    };
    if seed.method == Method::Qlora && !seed.weights.is_4bit_base() {
        seed.weights = WeightPrecision::Nf4;
    }
    let b = breakdown(model, &seed);
    let n = f64::from(sc.cards.max(1));
    match compare {
        Compare::Weights | Compare::DeviceUsed => b.get(SegmentKind::Weights) / n,
        Compare::Segment(kind) => b.get(*kind) / n,
        Compare::KvBudget { gpu, util } => {
            let g = catalog
                .gpu_index(gpu)
                .map(|i| catalog.gpus[i].memory_bytes())
                .unwrap_or(0.0);
            g * util - (b.total() - b.get(SegmentKind::KvCache)) / n
        }
        Compare::DecodeCeiling { .. } | Compare::KvTokens { .. } => predict(catalog, model, &seed, compare),
        _ => b.total() / n,
    }
}

/// Run every case. Errors name a case that has no setup or a model that is missing.
pub fn evaluate(catalog: &Catalog) -> Result<Vec<Row>, String> {
    let cases = cases().map_err(|e| format!("measurements.toml: {e}"))?;
    let setups = setups()?;
    let octocoder =
        hf::from_str("octocoder/config.json", OCTOCODER_CONFIG, "octocoder").map_err(|e| e.to_string())?;
    let pythia =
        hf::from_str("pythia-1.4b/config.json", PYTHIA_CONFIG, "pythia-1.4b").map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for case in &cases {
        let setup = setups
            .iter()
            .find(|s| s.id == case.id)
            .ok_or_else(|| format!("no setup for case {}", case.id))?;
        let mut model = if setup.model == "octocoder" {
            octocoder.clone()
        } else if setup.model == "pythia-1.4b" {
            pythia.clone()
        } else {
            catalog
                .model(&setup.model)
                .cloned()
                .ok_or_else(|| format!("catalog lacks {}", setup.model))?
        };
        // The case's count is the model's as published, before a day-of-run override.
        let model_params_match = case
            .arch_params
            .is_none_or(|p| p == model.params().total + model.vision.map_or(0, |v| v.params));
        if let Some(k) = setup.checkpoint_kv_heads {
            model.arch.kv_heads = k;
        }
        setup
            .scenario
            .validate()
            .map_err(|e| format!("{}: {e}", case.id))?;
        let measured = if case.kind == "decode" || case.measured_unit.starts_with("tokens") {
            case.measured_value
        } else {
            case.measured_value * unit_bytes(&case.measured_unit)
        };
        rows.push(Row {
            id: case.id.clone(),
            confidence: case.confidence.clone().unwrap_or_default(),
            compare: setup.compare.clone(),
            measured,
            predicted: predict(
                catalog,
                &model,
                &on_card(catalog, &setup.scenario, setup),
                &setup.compare,
            ),
            generic_predicted: predict(catalog, &model, &setup.generic, &setup.compare),
            framework: setup.framework,
            release: setup.release,
            engine: case.framework.clone().unwrap_or_default(),
            seed_predicted: predict_seed(catalog, &model, &setup.scenario, &setup.compare),
            tolerance: setup.tolerance,
            note: setup.note.clone(),
            // A case's count is the whole checkpoint's: a vision model's encoder included.
            model_params_match,
        });
    }
    Ok(rows)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    let m = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[m - 1] + v[m]) / 2.0
    } else {
        v[m]
    }
}

/// Median |error| of the memory cases, calibrated (presets applied) and seed.
pub fn medians(rows: &[Row]) -> (f64, f64) {
    let mem: Vec<&Row> = rows.iter().filter(|r| !r.is_decode()).collect();
    (
        median(mem.iter().map(|r| r.error().abs()).collect()),
        median(mem.iter().map(|r| r.seed_error().abs()).collect()),
    )
}

/// Median |error| of the memory cases under the generic rules (no preset).
pub fn generic_median(rows: &[Row]) -> f64 {
    median(
        rows.iter()
            .filter(|r| !r.is_decode())
            .map(|r| r.generic_error().abs())
            .collect(),
    )
}

fn compare_label(c: &Compare) -> &'static str {
    match c {
        Compare::TorchAllocated => "torch allocated",
        Compare::TorchReserved => "torch reserved",
        Compare::Total => "per-GPU total",
        Compare::Weights => "weights",
        Compare::DeviceUsed => "device memory after load",
        Compare::Segment(SegmentKind::KvCache) => "KV buffer",
        Compare::Segment(SegmentKind::Activations) => "activations",
        Compare::Segment(_) => "segment",
        Compare::KvBudget { .. } => "KV budget",
        Compare::DecodeCeiling { .. } => "decode t/s",
        Compare::KvTokens { .. } => "KV tokens logged (thousands)",
    }
}

/// The table of `docs/accuracy.md`.
pub fn markdown(rows: &[Row]) -> String {
    use std::fmt::Write as _;
    let gib = |b: f64| b / 1_073_741_824.0;
    // Token rows read in thousands of tokens, byte rows in GiB.
    let unit = |r: &Row, v: f64| if r.is_tokens() { v / 1000.0 } else { gib(v) };
    let (cal, seed) = medians(rows);
    let generic = generic_median(rows);
    let mem: Vec<&Row> = rows.iter().filter(|r| !r.is_decode()).collect();
    let within15 = mem.iter().filter(|r| r.error().abs() <= 0.15).count();
    let high: Vec<&&Row> = mem.iter().filter(|r| r.confidence == "high").collect();
    let high_within = high.iter().filter(|r| r.error().abs() <= 0.15).count();
    let mut s = String::new();
    let _ = writeln!(s, "# Accuracy: predicted vs measured\n");
    let _ = writeln!(
        s,
        "Generated by `cargo run --release -- accuracy > docs/accuracy.md` from `tests/data/measurements.toml`\n\
         (published runs, copied from the project's reference file); `tests/accuracy.rs` asserts the same\n\
         numbers. Memory in GiB. Error = predicted / measured − 1. The mapping of each run to a scenario\n\
         is in `tests/data/accuracy-setups.toml`: a run that names its framework is planned with that\n\
         framework's preset (`--framework`, at the release the run used: `vllm@0.11`), and the generic\n\
         column plans the same knobs without it. \"Engine as run\" is the engine and version as the source\n\
         gives them.\n"
    );
    let _ = writeln!(
        s,
        "Memory cases: {} · median |error| with presets **{:.1} %**, generic rules {:.1} %, quick rules {:.1} % · within 15 %: {within15} of {} · high-confidence cases within 15 %: {high_within} of {}.\n",
        mem.len(),
        cal * 100.0,
        generic * 100.0,
        seed * 100.0,
        mem.len(),
        high.len()
    );
    s.push_str(&serving_summary(rows));
    let _ = writeln!(
        s,
        "| case | framework | engine as run | conf. | compared | measured | preset | error | generic | generic error | quick rules | quick error | accepted | note |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        if r.is_decode() {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {:.1} t/s | ≤ {:.1} t/s | {:.0} % of ceiling | ≤ {:.1} t/s | {:.0} % of ceiling | ≤ {:.1} t/s | {:.0} % | {} | {} |",
                r.id,
                crate::engine::workload::version::runtime_id(r.framework, r.release),
                r.engine.replace('|', "/"),
                r.confidence,
                compare_label(&r.compare),
                r.measured,
                r.predicted,
                100.0 * r.measured / r.predicted,
                r.generic_predicted,
                100.0 * r.measured / r.generic_predicted,
                r.seed_predicted,
                100.0 * r.measured / r.seed_predicted,
                if r.passes() {
                    "under ceiling"
                } else {
                    "**over ceiling**"
                },
                r.note
            );
        } else {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {:.3} | {:.3} | {:+.1} % | {:.3} | {:+.1} % | {:.2} | {:+.1} % | ±{:.0} %{} | {} |",
                r.id,
                crate::engine::workload::version::runtime_id(r.framework, r.release),
                r.engine.replace('|', "/"),
                r.confidence,
                compare_label(&r.compare),
                unit(r, r.measured),
                unit(r, r.predicted),
                r.error() * 100.0,
                unit(r, r.generic_predicted),
                r.generic_error() * 100.0,
                unit(r, r.seed_predicted),
                r.seed_error() * 100.0,
                r.tolerance * 100.0,
                if r.passes() { "" } else { " **missed**" },
                r.note
            );
        }
    }
    let _ = writeln!(
        s,
        "\nDecode rows check the other direction: a bandwidth ceiling is an upper bound, so a measured speed must\n\
         stay under it; the column shows how much of the ceiling the run reached."
    );
    s
}

/// The serving engines' runs (vLLM, SGLang, llama.cpp, Ollama): the KV budget's median
/// |error| and how many high-confidence budgets land within 10 %; how many weights and KV
/// buffers land within 1 %.
pub fn serving_summary(rows: &[Row]) -> String {
    use crate::engine::Framework::{LlamaCpp, Ollama, Sglang, Vllm};
    let serving: Vec<&Row> = rows
        .iter()
        .filter(|r| matches!(r.framework, Vllm | Sglang | LlamaCpp | Ollama) && !r.is_decode())
        .collect();
    let budgets: Vec<&&Row> = serving
        .iter()
        .filter(|r| matches!(r.compare, Compare::KvBudget { .. }))
        .collect();
    let budget_median = median(budgets.iter().map(|r| r.error().abs()).collect());
    let high: Vec<&&&Row> = budgets.iter().filter(|r| r.confidence == "high").collect();
    let high_within = high.iter().filter(|r| r.error().abs() <= 0.10).count();
    let exact: Vec<&&Row> = serving
        .iter()
        .filter(|r| {
            matches!(
                r.compare,
                Compare::Weights | Compare::Segment(crate::engine::SegmentKind::KvCache)
            )
        })
        .collect();
    let exact_within = exact.iter().filter(|r| r.error().abs() <= 0.01).count();
    // Logs whose "weights" line is the device's used memory (ROCm): shown, not in the tally.
    let device: Vec<String> = serving
        .iter()
        .filter(|r| matches!(r.compare, Compare::DeviceUsed))
        .map(|r| format!("{} {:+.1} %", r.id, r.error() * 100.0))
        .collect();
    let device = if device.is_empty() {
        String::new()
    } else {
        format!(
            " · device memory after load (ROCm logs used memory, not weights): {}",
            device.join(", ")
        )
    };
    format!(
        "Serving engines: {} runs · KV budget median |error| **{:.1} %** over {} budgets, high-confidence budgets within 10 %: {high_within} of {} · weights and KV buffers within 1 %: {exact_within} of {}{device}.\n\n",
        serving.len(),
        budget_median * 100.0,
        budgets.len(),
        high.len(),
        exact.len()
    )
}
