//! How the workload pane's rows step: through a list of values, through a choice's values,
//! and the rows whose next value depends on the others (method, framework, weights).

use crate::engine::{Choice, Framework, Scenario, TightRule};

/// The next value in `steps` above (`up`) or below `value`, or `value` at the ends.
pub fn step(steps: &[u64], value: u64, up: bool) -> u64 {
    if up {
        steps.iter().copied().find(|s| *s > value).unwrap_or(value)
    } else {
        steps.iter().rev().copied().find(|s| *s < value).unwrap_or(value)
    }
}

pub fn cycle<T: Choice>(v: T, up: bool) -> T {
    if up { v.next() } else { v.prev() }
}

/// The next method. A serving engine does not fine-tune (nor a trainer serve): the plan
/// goes back to the generic rules. The method's defaults (weights, sequence length) come
/// from `settle::settle`, which the planner runs after every turn.
pub fn next_method(sc: &mut Scenario, up: bool) {
    sc.method = cycle(sc.method, up);
    keep_for_method(sc);
    if !sc.framework.supports(sc.method) {
        sc.framework = Framework::Generic;
        // The generic rules have no releases: the old runtime's release must not follow.
        sc.release = None;
    }
}

/// The next framework that runs the plan's method (its preset's values come from
/// `settle::settle`: only the knobs the user did not set follow it).
pub fn next_framework(sc: &mut Scenario, up: bool) {
    let all: Vec<Framework> = Framework::for_method(sc.method).collect();
    let pos = all.iter().position(|f| *f == sc.framework).unwrap_or(0);
    let n = all.len();
    sc.framework = all[if up { (pos + 1) % n } else { (pos + n - 1) % n }];
    // Another runtime's release means nothing here: the new one starts at its newest.
    sc.release = None;
}

/// The next release among those where the framework's rules change; the newest stands for
/// "the current release" (no release saved), as `--framework vllm` does.
pub fn next_release(sc: &mut Scenario, up: bool) {
    let all = crate::engine::workload::version::rule_releases(sc.framework);
    let (Some(newest), Some(now)) = (all.last().copied(), sc.version()) else {
        return;
    };
    // The list's entry this release follows the rules of (the last at or before it); one
    // older than the list (a plan file's vllm@0.4) steps up to its first entry, not down.
    let next = match (all.iter().rposition(|v| *v <= now), up) {
        (Some(pos), true) => all.get(pos + 1).copied().unwrap_or(newest),
        (Some(pos), false) => all[pos.saturating_sub(1)],
        (None, true) => all[0],
        (None, false) => return,
    };
    sc.release = (next != newest).then_some(next);
}

/// The next weight format among those valid for the method.
pub fn next_weights(sc: &mut Scenario, up: bool) {
    let valid: Vec<_> = crate::engine::WeightPrecision::ALL
        .iter()
        .copied()
        .filter(|w| {
            Scenario {
                weights: *w,
                ..sc.clone()
            }
            .validate()
            .is_ok()
        })
        .collect();
    let pos = valid.iter().position(|w| *w == sc.weights).unwrap_or(0);
    let n = valid.len();
    sc.weights = valid[if up { (pos + 1) % n } else { (pos + n - 1) % n }];
}

/// A method's other kind of target is dropped: serving's on a fine-tune, a deadline on
/// serving (the command line refuses them, and a saved plan keeps only what applies).
fn keep_for_method(sc: &mut Scenario) {
    if sc.method.is_training() {
        sc.target.users = None;
        sc.target.min_tps = None;
        sc.target.max_ttft_s = None;
    } else {
        sc.target.deadline_h = None;
    }
}

/// Context lengths a slider steps through: powers of two and the common marketed sizes.
pub const CONTEXT_STEPS: &[u64] = &[
    512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131_072, 200_000, 262_144, 524_288, 1_048_576,
];
/// Prefill chunks: vLLM's defaults over its versions (2,048, 8,192, 16,384) and around them.
pub const PREFILL_STEPS: &[u64] = &[512, 1024, 2048, 4096, 8192, 16384, 32768, 65536];
/// llama.cpp's physical batch: its default 512 and the values people set.
pub const UBATCH_STEPS: &[u64] = &[64, 128, 256, 512, 1024, 2048, 4096];
pub const BATCH_STEPS: &[u64] = &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
pub const RANK_STEPS: &[u64] = &[4, 8, 16, 32, 64, 128, 256];
pub const TIGHT_RULES: &[TightRule] = &[TightRule::Seed, TightRule::Margin(0.3), TightRule::Margin(0.5)];
pub const CARD_STEPS: &[u64] = &[1, 2, 4, 8, 16, 32, 64];
pub const HOUR_STEPS: &[u64] = &[1, 8, 24, 72, 168, 720, 2160, 4320, 8640];
pub const TRAIN_TOKEN_STEPS: &[u64] = &[
    0,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
];
pub const EPOCH_STEPS: &[u64] = &[1, 2, 3, 4, 5, 10];
pub const UTILIZATION_STEPS: &[u64] = &[20, 30, 35, 40, 45, 50, 60];

pub const GPU_UTIL_STEPS: &[f64] = &[0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.92, 0.95, 0.98];

/// Images per request, a step at a time.
pub const IMAGE_STEPS: &[u64] = &[0, 1, 2, 4, 8, 16, 32];
