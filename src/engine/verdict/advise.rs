//! What would make it fit: for one target (a card and a count) and a scenario, the exact
//! limits (longest context, largest batch) and the single changes — or, when none is enough,
//! the cheapest pair — that make the plan fit, each judged on the target as `plan` would.
//!
//! The limits are solved by bisection over the engine's own arithmetic (memory never falls
//! when context or batch rise: a property test holds the engine to that), so they are exact
//! to the token, not stepped.

use crate::engine::hardware::gpu::Gpu;
use crate::engine::model::Model;
use crate::engine::model::precision::{KvPrecision, WeightPrecision};
use crate::engine::speed::serving::DecodeWork;
use crate::engine::verdict::changes::{Change, Target};
use crate::engine::verdict::fit::{self, Context, FitOption, Need};
use crate::engine::verdict::judge::{self};
use crate::engine::verdict::needs::{Limits, Needs};
use crate::engine::verdict::plan::plan;
use crate::engine::workload::scenario::{Method, Offload, Optimizer, Scenario, Split};
use crate::engine::{Breakdown, Choice, SegmentKind};

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

pub use crate::engine::verdict::needs::context_step;

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

/// `sc` on exactly `count` × `gpu`, as `plan` judges it (prices, roofline, limits and all).
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
    let sc = crate::engine::verdict::card_defaults::on_card(model, &sc, gpu).unwrap_or(sc);
    let (mut option, b) = judge_with(&Needs::new(model, &sc), model, gpu, gpu_index, &sc);
    if sc.card_batch_defaults {
        option.batch_defaults = Some((sc.max_batched_tokens, sc.max_num_seqs));
    }
    (option, b)
}

/// [`judge`] for a scenario already drawn for its count, asking `needs` (so the limits
/// solved afterwards reuse what the judgement computed).
fn judge_with(
    needs: &Needs,
    model: &Model,
    gpu: &Gpu,
    gpu_index: usize,
    sc: &Scenario,
) -> (FitOption, Breakdown) {
    let count = sc.cards;
    let b = judge::breakdown_per_card(model, sc, count);
    needs.remember(count, sc.context, sc.batch, b.total());
    let ctx = Context {
        model,
        scenario: sc,
        largest_count: count,
        work: work_of(model, &b),
        needs,
        limits: true,
    };
    let need = Need {
        per_card: b.total(),
        kv_per_card: b.get(SegmentKind::KvCache),
    };
    let mut option = fit::evaluate(gpu_index, gpu, count, &ctx, need, None);
    // Filled where options are made, as the plan does (`plan::options`).
    option.expected_decode_tokens_per_s = option.expected(model, sc, gpu).decode_tokens_per_s;
    option.target = crate::engine::verdict::meets_target::check(model, sc, gpu, &option, ctx.work);
    (option, b)
}

/// Whether `sc` fits `count` × `gpu` (tight counts), as the judge says.
fn fits(model: &Model, gpu: &Gpu, count: u32, sc: &Scenario) -> bool {
    let sc = Scenario {
        cards: count,
        ..sc.clone()
    };
    let sc = crate::engine::verdict::card_defaults::on_card(model, &sc, gpu).unwrap_or(sc);
    let need = judge::breakdown_per_card(model, &sc, count).total();
    judge::judge(model, gpu, count, &sc, need).fits()
}

/// The limits of `count` × `gpu` under `sc`, from the judge.
pub fn limits(model: &Model, gpu: &Gpu, count: u32, sc: &Scenario) -> Limits {
    let sc = Scenario {
        cards: count,
        ..sc.clone()
    };
    let sc = crate::engine::verdict::card_defaults::on_card(model, &sc, gpu).unwrap_or(sc);
    Needs::new(model, &sc).limits(gpu, count)
}

/// The longest context at which `sc` still fits the target (the judge's limit).
pub fn max_context(model: &Model, gpu: &Gpu, count: u32, sc: &Scenario) -> Option<u64> {
    limits(model, gpu, count, sc).max_context
}

/// The largest batch at which `sc` still fits the target (the judge's limit).
pub fn max_batch(model: &Model, gpu: &Gpu, count: u32, sc: &Scenario) -> Option<u64> {
    limits(model, gpu, count, sc).max_batch
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
    if let Some(c) = max_context(model, gpu, target.count, sc).filter(|c| *c < sc.context) {
        out.push(Change::Context(c));
    }
    if let Some(b) = max_batch(model, gpu, target.count, sc).filter(|b| *b < sc.batch) {
        out.push(Change::Batch(b));
    }
    // Weight formats the method takes and the card runs. When the card cannot run the
    // current format, every format it does run, highest quality first (BF16 and INT8 lose
    // nothing a 4-bit format would); otherwise each lower format, closest first.
    let format_blocked = judge::unsupported_reason(model, gpu, target.count, sc).is_some_and(|r| {
        matches!(
            r,
            crate::engine::verdict::fit::Reason::NoFp8 | crate::engine::verdict::fit::Reason::NoFormat
        )
    });
    let mut formats: Vec<WeightPrecision> = WeightPrecision::ALL
        .iter()
        .copied()
        .filter(|w| *w != sc.weights)
        .filter(|w| w.is_gguf() == sc.weights.is_gguf() && w.bits() <= 16.0)
        .filter(|w| format_blocked || w.bits() < sc.weights.bits())
        .filter(|w| judge::runs_format(gpu, sc, *w))
        .filter(|w| {
            Scenario {
                weights: *w,
                ..sc.clone()
            }
            .validate()
            .is_ok()
        })
        .collect();
    formats.sort_by(|a, b| b.bits().total_cmp(&a.bits()));
    out.extend(formats.into_iter().map(Change::Weights));
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
    out.extend(spill(model, gpu, target.count, sc));
    let counts = crate::engine::verdict::plan::candidate_counts(sc);
    // A count tensor parallel cannot split: whole layers per card run on it, and so does
    // the largest smaller count that holds the plan.
    if let Some(crate::engine::verdict::fit::Reason::HeadsIndivisible(_)) =
        judge::unsupported_reason(model, gpu, target.count, sc)
    {
        out.push(Change::Split(Split::Layer));
        if let Some(n) = counts
            .iter()
            .copied()
            .filter(|n| *n < target.count)
            .rev()
            .find(|n| fits(model, gpu, *n, sc))
        {
            out.push(Change::Cards(n));
        }
    }
    // More cards of the same kind: the smallest count that holds it.
    if let Some(n) = counts
        .iter()
        .copied()
        .filter(|n| *n > target.count)
        .find(|n| fits(model, gpu, *n, sc))
    {
        out.push(Change::Cards(n));
    }
    out
}

/// The RAM that would let the runtime run the plan by spilling into it: the placement with
/// unbounded RAM keeps the most on the cards, and what it puts in RAM, in whole GB, is the
/// RAM to have. Offered where the runtime spills and that is more than the host given.
fn spill(model: &Model, gpu: &Gpu, count: u32, sc: &Scenario) -> Option<Change> {
    crate::engine::placement::spill_of(sc)?;
    if crate::engine::placement::is_unified(gpu) && sc.framework.is_ggml() {
        return None; // a unified-memory machine already spills into its own pool
    }
    let unbounded = Scenario {
        cards: count,
        host: Some(crate::engine::hardware::host::Host {
            ram_bytes: f64::MAX / 4.0,
            ..sc.host
                .clone()
                .unwrap_or_else(|| crate::engine::hardware::host::Host::new(0.0, None))
        }),
        ..sc.clone()
    };
    let p = Needs::new(model, &unbounded).placed_at(gpu, count, sc.context, sc.batch)?;
    if !p.fits() || !p.offloads() {
        return None;
    }
    let gb = (p.host()?.bytes / 1e9).ceil() as u64;
    let has = sc.host.as_ref().map_or(0.0, |h| h.ram_bytes);
    ((gb as f64) * 1e9 > has).then(|| Change::Ram {
        gb,
        strategy: p.strategy,
        runtime_flags: p.runtime_flags.clone(),
    })
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
    let sc = crate::engine::verdict::card_defaults::on_card(model, &sc, gpu).unwrap_or(sc);
    let needs = Needs::new(model, &sc);
    let (mut now, _) = judge_with(&needs, model, gpu, target.gpu, &sc);
    // Every limit of the target, comfortable ones too, from the judge.
    let l = needs.limits(gpu, target.count);
    now.limits = l;
    let (longest, largest_batch) = (l.max_context, l.max_batch);
    let (comfortable_context, comfortable_batch) = if now.verdict.is_fit() {
        (l.comfortable_context, l.comfortable_batch)
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
        crate::engine::verdict::rank::rank_options(&mut ranked, crate::engine::verdict::rank::SortBy::Price);
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
        if let Some(c) = max_context(model, gpu, target_a.count, &after_a).filter(|c| *c < after_a.context) {
            seconds.push(Change::Context(c));
        }
        if let Some(b) = max_batch(model, gpu, target_a.count, &after_a).filter(|b| *b < after_a.batch) {
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
