//! What would make it fit: for one target (a card and a count) and a scenario, the exact
//! limits (longest context, largest batch) and the single changes — or, when none is enough,
//! the cheapest pair — that make the plan fit, each judged on the target as `plan` would.
//!
//! The limits are solved by bisection over the engine's own arithmetic (memory never falls
//! when context or batch rise: a property test holds the engine to that), so they are exact
//! to the token, not stepped.

use super::fit::{self, Context, FitOption, Need};
use super::gpu::Gpu;
use super::memory;
use super::model::Model;
use super::plan::{equal_share, plan};
use super::precision::{KvPrecision, WeightPrecision};
use super::scenario::{Convention, Method, Offload, Optimizer, Scenario};
use super::serving::DecodeWork;
use super::{Breakdown, Choice, SegmentKind};

/// The card (index into the catalog's list) and count a plan is judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub gpu: usize,
    pub count: u32,
}

/// One change to the scenario (or the target).
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Weights(WeightPrecision),
    Kv(KvPrecision),
    Context(u64),
    Batch(u64),
    /// A lighter method; QLoRA brings its 4-bit base.
    Method(Method),
    Checkpointing,
    FusedCe,
    Optimizer(Optimizer),
    Zero(u8),
    Offload(Offload),
    /// More cards of the same kind.
    Cards(u32),
    /// Another card or combo, the scenario unchanged.
    Card(Target),
    /// Two changes together.
    Pair(Box<Change>, Box<Change>),
}

impl Change {
    /// What the user gives up, least first: knobs that cost nothing (checkpointing, fused
    /// cross-entropy, KV format), then context or batch, then precision, then method (and
    /// sharding or offload), then cards.
    pub fn cost(&self) -> u8 {
        match self {
            Change::Checkpointing | Change::FusedCe | Change::Kv(_) => 0,
            Change::Context(_) | Change::Batch(_) => 1,
            Change::Weights(_) | Change::Optimizer(_) => 2,
            Change::Method(_) | Change::Zero(_) | Change::Offload(_) => 3,
            Change::Cards(_) | Change::Card(_) => 4,
            Change::Pair(a, b) => a.cost().max(b.cost()),
        }
    }

    /// The scenario and target after the change.
    pub fn apply(&self, sc: &Scenario, target: Target) -> (Scenario, Target) {
        let mut sc = sc.clone();
        let mut target = target;
        match self {
            Change::Weights(w) => sc.weights = *w,
            Change::Kv(k) => sc.kv = *k,
            Change::Context(n) => sc.context = *n,
            Change::Batch(n) => sc.batch = *n,
            Change::Method(m) => {
                sc.method = *m;
                if sc.validate().is_err() {
                    sc.weights = m.default_weights();
                }
            }
            Change::Checkpointing => sc.checkpointing = true,
            Change::FusedCe => sc.fused_ce = true,
            Change::Optimizer(o) => sc.optimizer = *o,
            Change::Zero(z) => sc.zero = *z,
            Change::Offload(o) => sc.offload = *o,
            Change::Cards(n) => {
                sc.cards = *n;
                target.count = *n;
            }
            Change::Card(t) => {
                sc.cards = t.count;
                target = *t;
            }
            Change::Pair(a, b) => {
                let (s1, t1) = a.apply(&sc, target);
                return b.apply(&s1, t1);
            }
        }
        (sc, target)
    }
}

/// One way to make the plan fit, judged on its target.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    pub change: Change,
    /// The option after the change (verdict, free memory, price, decode ceiling).
    pub after: FitOption,
    /// Host RAM the changed plan needs (offload, paged states).
    pub host_bytes: f64,
}

/// Everything the "to fit" view shows for one target.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    pub target: Target,
    /// The option as the scenario stands.
    pub now: FitOption,
    /// Longest context (sequence, for training) that fits at the current batch; `None`
    /// when not even the shortest does.
    pub max_context: Option<u64>,
    pub max_batch: Option<u64>,
    /// When it fits: the longest context and largest batch that still fit comfortably
    /// (not tight).
    pub comfortable_context: Option<u64>,
    pub comfortable_batch: Option<u64>,
    /// Single changes that make it fit, least given up first; when none does, the
    /// cheapest pairs.
    pub suggestions: Vec<Suggestion>,
}

/// The step of the context solver: a paged KV cache (serving under the calibrated rules)
/// holds whole blocks of 16 tokens.
pub fn context_step(sc: &Scenario) -> u64 {
    if !sc.method.is_training() && sc.convention == Convention::Calibrated {
        16
    } else {
        1
    }
}

fn work_of(model: &Model, b: &Breakdown) -> Option<DecodeWork> {
    let a = &model.arch;
    b.decode_bytes_per_token.map(|read| DecodeWork {
        weights_bytes: read - b.decode_kv_bytes_per_sequence,
        kv_bytes_per_sequence: b.decode_kv_bytes_per_sequence,
        active_params: model.params().active as f64,
        hidden: a.hidden as f64,
        layers: a.layers as f64,
    })
}

/// The breakdown one of `target.count` cards holds under `sc`.
fn per_card(model: &Model, sc: &Scenario, count: u32) -> Breakdown {
    let sc = Scenario {
        cards: count,
        ..sc.clone()
    };
    let b = memory::breakdown(model, &sc);
    match sc.convention {
        Convention::Seed if count > 1 => equal_share(&b, count),
        _ => b,
    }
}

/// `sc` on exactly `count` × `gpu`, as `plan` judges it (prices, roofline and all).
pub fn judge(
    model: &Model,
    gpu: &Gpu,
    gpu_index: usize,
    count: u32,
    sc: &Scenario,
) -> (FitOption, Breakdown) {
    let sc = Scenario {
        cards: count,
        ..sc.clone()
    };
    let b = per_card(model, &sc, count);
    let ctx = Context {
        model,
        scenario: &sc,
        largest_count: count,
        work: work_of(model, &b),
        model_max_context: model.max_context,
    };
    let need = Need {
        per_card: b.total(),
        kv_per_card: b.get(SegmentKind::KvCache),
    };
    (fit::evaluate(gpu_index, gpu, count, &ctx, need, None), b)
}

/// Whether `sc` fits `count` × `gpu` (tight counts), and comfortably so: memory only.
fn fits(model: &Model, gpu: &Gpu, count: u32, sc: &Scenario) -> (bool, bool) {
    let sc = Scenario {
        cards: count,
        ..sc.clone()
    };
    if fit::unsupported_reason(gpu, count, &sc).is_some() {
        return (false, false);
    }
    let need = per_card(model, &sc, count).total();
    let free = fit::usable_per_card(gpu, &sc) - need;
    let n = f64::from(count);
    (
        free >= 0.0,
        free >= 0.0 && !fit::is_tight(sc.tight_rule, count, need * n, free * n),
    )
}

/// The largest `k` in `1..=hi` with `ok(k)`, given `ok` turns false once and stays false.
fn largest(hi: u64, ok: impl Fn(u64) -> bool) -> Option<u64> {
    if !ok(1) {
        return None;
    }
    let (mut lo, mut hi) = (1u64, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ok(mid) { lo = mid } else { hi = mid - 1 }
    }
    Some(lo)
}

/// The longest context (a multiple of [`context_step`]) at which `sc` still fits the target;
/// `comfortable` asks for a fit that is not tight.
pub fn max_context(model: &Model, gpu: &Gpu, count: u32, sc: &Scenario, comfortable: bool) -> Option<u64> {
    let step = context_step(sc);
    let top = super::ranges::MAX_CONTEXT / step;
    largest(top, |k| {
        let r = fits(
            model,
            gpu,
            count,
            &Scenario {
                context: k * step,
                ..sc.clone()
            },
        );
        if comfortable { r.1 } else { r.0 }
    })
    .map(|k| k * step)
}

/// The largest batch at which `sc` still fits the target.
pub fn max_batch(model: &Model, gpu: &Gpu, count: u32, sc: &Scenario, comfortable: bool) -> Option<u64> {
    largest(super::ranges::MAX_BATCH, |b| {
        let r = fits(
            model,
            gpu,
            count,
            &Scenario {
                batch: b,
                ..sc.clone()
            },
        );
        if comfortable { r.1 } else { r.0 }
    })
}

/// The candidate single changes for a scenario, before judging.
fn candidates(model: &Model, gpus: &[Gpu], sc: &Scenario, target: Target) -> Vec<Change> {
    let gpu = &gpus[target.gpu];
    let mut out = Vec::new();
    let training = sc.method.is_training();
    if training {
        if !sc.checkpointing {
            out.push(Change::Checkpointing);
        }
        if !sc.fused_ce {
            out.push(Change::FusedCe);
        }
    } else {
        let bytes = sc.kv.bytes_per_element();
        out.extend(
            KvPrecision::ALL
                .iter()
                .filter(|k| k.bytes_per_element() < bytes)
                .map(|k| Change::Kv(*k)),
        );
    }
    if let Some(c) = max_context(model, gpu, target.count, sc, false).filter(|c| *c < sc.context) {
        out.push(Change::Context(c));
    }
    if let Some(b) = max_batch(model, gpu, target.count, sc, false).filter(|b| *b < sc.batch) {
        out.push(Change::Batch(b));
    }
    // Each lower weight format the method takes, closest first.
    let mut lower: Vec<WeightPrecision> = WeightPrecision::ALL
        .iter()
        .copied()
        .filter(|w| w.bits() < sc.weights.bits() && w.is_gguf() == sc.weights.is_gguf())
        .filter(|w| {
            Scenario {
                weights: *w,
                ..sc.clone()
            }
            .validate()
            .is_ok()
        })
        .collect();
    lower.sort_by(|a, b| b.bits().total_cmp(&a.bits()));
    out.extend(lower.into_iter().map(Change::Weights));
    if training {
        if sc.optimizer == Optimizer::AdamW {
            out.push(Change::Optimizer(Optimizer::AdamW8bit));
            out.push(Change::Optimizer(Optimizer::Adafactor));
        }
        match sc.method {
            Method::Full => out.push(Change::Method(Method::Lora)),
            Method::Lora => out.push(Change::Method(Method::Qlora)),
            _ => {}
        }
        if target.count > 1 && sc.zero < 3 {
            out.push(Change::Zero(3));
        }
        if sc.offload == Offload::None {
            out.push(Change::Offload(Offload::Optimizer));
        }
        if sc.offload != Offload::All && target.count > 1 {
            out.push(Change::Offload(Offload::All));
        }
    }
    // More cards of the same kind: the smallest count that holds it.
    let counts = super::plan::candidate_counts(sc);
    if let Some(n) = counts
        .iter()
        .copied()
        .filter(|n| *n > target.count)
        .find(|n| fits(model, gpu, *n, sc).0)
    {
        out.push(Change::Cards(n));
    }
    out
}

/// Judge every candidate on its target; keep those that fit.
fn judged(
    model: &Model,
    gpus: &[Gpu],
    sc: &Scenario,
    target: Target,
    changes: Vec<Change>,
) -> Vec<Suggestion> {
    changes
        .into_iter()
        .filter_map(|change| {
            let (s, t) = change.apply(sc, target);
            s.validate().ok()?;
            let (after, b) = judge(model, &gpus[t.gpu], t.gpu, t.count, &s);
            after.verdict.is_fit().then_some(Suggestion {
                change,
                after,
                host_bytes: b.host_bytes,
            })
        })
        .collect()
}

/// The advice for `target` under `sc` (whose `cards` is taken as the target's count).
pub fn advise(model: &Model, gpus: &[Gpu], sc: &Scenario, target: Target) -> Advice {
    let sc = Scenario {
        cards: target.count,
        ..sc.clone()
    };
    let gpu = &gpus[target.gpu];
    let (now, _) = judge(model, gpu, target.gpu, target.count, &sc);
    let longest = max_context(model, gpu, target.count, &sc, false);
    let largest_batch = max_batch(model, gpu, target.count, &sc, false);
    let (comfortable_context, comfortable_batch) = if now.verdict.is_fit() {
        (
            max_context(model, gpu, target.count, &sc, true),
            max_batch(model, gpu, target.count, &sc, true),
        )
    } else {
        (None, None)
    };
    let mut suggestions = Vec::new();
    if !now.verdict.is_fit() {
        let singles = candidates(model, gpus, &sc, target);
        suggestions = judged(model, gpus, &sc, target, singles.clone());
        // The cheapest other card or combo that fits unchanged.
        let others = plan(
            model,
            gpus,
            &Scenario {
                cards: 1,
                ..sc.clone()
            },
            true,
        );
        let mut ranked = others.options;
        super::rank::rank_options(&mut ranked, super::rank::SortBy::Price);
        if let Some(o) = ranked
            .iter()
            .find(|o| o.verdict.is_fit() && o.gpu != target.gpu && o.price_usd_month.is_some())
        {
            let change = Change::Card(Target {
                gpu: o.gpu,
                count: o.count,
            });
            suggestions.extend(judged(model, gpus, &sc, target, vec![change]));
        }
        if suggestions.is_empty() {
            suggestions = pairs(model, gpus, &sc, target, &singles);
        }
        suggestions.sort_by_key(|s| s.change.cost());
    }
    Advice {
        target,
        now,
        max_context: longest,
        max_batch: largest_batch,
        comfortable_context,
        comfortable_batch,
        suggestions,
    }
}

/// When no single change fits: pairs of candidates (the second solved again after the
/// first, so "FP8 KV + context N" gets the N that fits with FP8 KV), least given up first.
fn pairs(model: &Model, gpus: &[Gpu], sc: &Scenario, target: Target, singles: &[Change]) -> Vec<Suggestion> {
    let mut out = Vec::new();
    for (i, a) in singles.iter().enumerate() {
        let (after_a, target_a) = a.apply(sc, target);
        if after_a.validate().is_err() {
            continue;
        }
        let gpu = &gpus[target_a.gpu];
        // The limits re-solved after the first change.
        let mut seconds: Vec<Change> = singles[i + 1..]
            .iter()
            .filter(|b| !matches!(b, Change::Context(_) | Change::Batch(_)))
            .cloned()
            .collect();
        if let Some(c) =
            max_context(model, gpu, target_a.count, &after_a, false).filter(|c| *c < after_a.context)
        {
            seconds.push(Change::Context(c));
        }
        if let Some(b) = max_batch(model, gpu, target_a.count, &after_a, false).filter(|b| *b < after_a.batch)
        {
            seconds.push(Change::Batch(b));
        }
        let combined: Vec<Change> = seconds
            .into_iter()
            .filter(|b| {
                !matches!(
                    (a, b),
                    (Change::Context(_), Change::Context(_)) | (Change::Batch(_), Change::Batch(_))
                )
            })
            .map(|b| Change::Pair(Box::new(a.clone()), Box::new(b)))
            .collect();
        out.extend(judged(model, gpus, sc, target, combined));
    }
    // Least given up: the larger of the two costs, then the sum.
    out.sort_by_key(|s| match &s.change {
        Change::Pair(a, b) => (a.cost().max(b.cost()), a.cost() + b.cost()),
        c => (c.cost(), c.cost()),
    });
    out.truncate(5);
    out
}
