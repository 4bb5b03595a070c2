//! Every published measurement through the engine (see `src/accuracy.rs` for the mapping
//! and `docs/accuracy.md` for the table).

use vramfit::accuracy::{cases, evaluate, generic_median, markdown, medians, setups};
use vramfit::catalog::Catalog;

#[test]
fn every_case_has_a_setup_and_the_right_model() {
    let catalog = Catalog::embedded().unwrap();
    let rows = evaluate(&catalog).unwrap();
    assert_eq!(rows.len(), cases().unwrap().len());
    assert_eq!(rows.len(), setups().unwrap().len(), "a setup without a case");
    for r in &rows {
        assert!(
            r.model_params_match,
            "{}: the model's parameter count differs from the case's arch_params",
            r.id
        );
    }
}

#[test]
fn every_prediction_is_within_its_tolerance() {
    let catalog = Catalog::embedded().unwrap();
    let rows = evaluate(&catalog).unwrap();
    let failures: Vec<String> = rows
        .iter()
        .filter(|r| !r.passes())
        .map(|r| {
            format!(
                "{}: predicted {:.3e} vs measured {:.3e} ({:+.1} %, tolerance {:.0} %)",
                r.id,
                r.predicted,
                r.measured,
                r.error() * 100.0,
                r.tolerance * 100.0
            )
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Only documented exceptions get more than the default 15 %.
    for r in rows.iter().filter(|r| r.tolerance > 0.15) {
        assert!(r.note.len() > 30, "{}: a wider tolerance needs its reason", r.id);
    }
    assert!(
        rows.iter().filter(|r| r.tolerance > 0.15).count() <= 10,
        "more exceptions than the ten documented"
    );
}

#[test]
fn calibrated_is_closer_than_the_seed_rules() {
    let catalog = Catalog::embedded().unwrap();
    let rows = evaluate(&catalog).unwrap();
    let (calibrated, seed) = medians(&rows);
    assert!(calibrated < 0.10, "median |error| {calibrated:.3}");
    assert!(
        calibrated < seed / 2.0,
        "calibrated {calibrated:.3} vs seed {seed:.3}"
    );
}

/// Issue 16's bar: with each run planned under the framework it names, the median memory
/// error is at most 5 % over at least 50 published runs, and every high-confidence run is
/// within 15 %.
#[test]
fn presets_bring_the_median_within_five_percent_and_every_high_confidence_run_within_fifteen() {
    let catalog = Catalog::embedded().unwrap();
    let rows = evaluate(&catalog).unwrap();
    let memory: Vec<_> = rows.iter().filter(|r| !r.is_decode()).collect();
    assert!(memory.len() >= 50, "{} memory runs", memory.len());
    let (with_presets, _) = medians(&rows);
    assert!(
        with_presets <= 0.05,
        "median |error| with presets {with_presets:.3}"
    );
    assert!(
        with_presets <= generic_median(&rows),
        "presets made the median worse"
    );
    for r in memory.iter().filter(|r| r.confidence == "high") {
        assert!(r.error().abs() <= 0.15, "{}: {:+.1} %", r.id, r.error() * 100.0);
    }
}

/// A run whose source names its framework is planned with that framework's preset.
#[test]
fn every_run_that_names_a_framework_uses_its_preset() {
    use vramfit::engine::{Choice, Framework};
    let catalog = Catalog::embedded().unwrap();
    let rows = evaluate(&catalog).unwrap();
    for case in cases().unwrap() {
        let Some(named) = case.framework.as_deref() else {
            continue;
        };
        let named = named.to_ascii_lowercase();
        let expected = Framework::ALL
            .iter()
            .copied()
            .filter(|f| *f != Framework::Generic)
            .find(|f| named.starts_with(f.id()) || named.starts_with(&f.label().to_ascii_lowercase()));
        if let Some(expected) = expected {
            let row = rows.iter().find(|r| r.id == case.id).unwrap();
            assert_eq!(row.framework, expected, "{} names {named}", case.id);
        }
    }
}

#[test]
fn bandwidth_ceilings_hold_for_every_decode_measurement() {
    let catalog = Catalog::embedded().unwrap();
    for r in evaluate(&catalog).unwrap().iter().filter(|r| r.is_decode()) {
        assert!(
            r.measured <= r.predicted,
            "{}: {} t/s measured over a ceiling of {}",
            r.id,
            r.measured,
            r.predicted
        );
    }
}

#[test]
fn docs_accuracy_md_is_the_generated_table() {
    let catalog = Catalog::embedded().unwrap();
    let speed = vramfit::accuracy::speed::evaluate(&catalog).unwrap();
    let table = markdown(&evaluate(&catalog).unwrap()) + &vramfit::accuracy::speed_report::markdown(&speed);
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/accuracy.md")).unwrap();
    assert_eq!(
        doc, table,
        "docs/accuracy.md is stale: run `cargo run --release -- accuracy > docs/accuracy.md`"
    );
}
