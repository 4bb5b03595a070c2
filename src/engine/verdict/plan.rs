//! One scenario on one model against every card: the engine's main entry point.

use crate::engine::hardware::gpu::Gpu;
use crate::engine::memory::SegmentKind;
pub use crate::engine::memory::breakdown::equal_share;
use crate::engine::memory::{self, Breakdown};
use crate::engine::model::{Model, ParamCount};
use crate::engine::speed::serving::DecodeWork;
use crate::engine::verdict::fit::{self, FitOption};
use crate::engine::verdict::fit::{Context, Need};
use crate::engine::verdict::needs::Needs;
use crate::engine::workload::scenario::{Convention, Scenario};

/// Everything the screens and the CLI show for one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub params: ParamCount,
    /// KV bytes per token at full attention in the scenario's cache format.
    pub kv_bytes_per_token: f64,
    /// The breakdown on `cards` cards (per card).
    pub breakdown: Breakdown,
    /// The scenario's own card count.
    pub cards: u32,
    /// What ONE card holds for every other card count considered: the calibrated breakdown
    /// re-planned for the count (sharded state, split weights, copied KV heads), or under
    /// the quick rules an equal share of the whole.
    pub per_count: Vec<(u32, Breakdown)>,
    /// Ranked: fitting options first (single cards and combos together), cheapest first.
    pub options: Vec<FitOption>,
    /// Where the runtime's defaults follow the card (vLLM's batch defaults by memory): what
    /// one card holds for the options whose card runs other batch values, by those values
    /// and count. Empty when every card runs the scenario as given.
    pub variants: Vec<CardVariant>,
}

/// The batch values some cards run (`max_num_batched_tokens`, `max_num_seqs`), the kernel
/// that holds MXFP4 experts there, the context the runtime picks there, and what one card of
/// each count holds under them.
pub type CardVariant = (
    ((u64, u64), crate::engine::workload::choices::Mxfp4Moe, u64),
    Vec<(u32, Breakdown)>,
);

impl Plan {
    pub fn total_bytes(&self) -> f64 {
        self.breakdown.total()
    }

    /// What one card of a `count`-card option holds, segment by segment.
    pub fn breakdown_for(&self, count: u32) -> &Breakdown {
        if count == self.cards {
            return &self.breakdown;
        }
        self.per_count
            .iter()
            .find(|(n, _)| *n == count)
            .map_or(&self.breakdown, |(_, b)| b)
    }

    /// What one card of option `o` holds: its card's batch defaults' breakdown where they
    /// differ from the scenario's, else [`Plan::breakdown_for`] its count.
    pub fn breakdown_of(&self, o: &FitOption) -> &Breakdown {
        if let Some(batch) = o.batch_defaults
            && let Some((_, per)) = self.variants.iter().find(|((b, kernel, context), _)| {
                *b == batch && *kernel == o.mxfp4_moe && *context == o.context
            })
            && let Some((_, b)) = per.iter().find(|(n, _)| *n == o.count)
        {
            return b;
        }
        self.breakdown_for(o.count)
    }

    /// The recommendation: the first fitting option in ranked order.
    pub fn best(&self) -> Option<&FitOption> {
        crate::engine::verdict::rank::first_fit(&self.options)
    }

    /// What the memory view draws against when nothing is pinned: the recommendation, or
    /// when nothing fits the option that comes closest.
    pub fn target(&self) -> Option<&FitOption> {
        self.best()
            .or_else(|| crate::engine::verdict::rank::closest(&self.options))
    }
}

/// What one of `count` cards holds, given `whole`, the scenario's own breakdown.
fn per_card_breakdown(model: &Model, scenario: &Scenario, whole: &Breakdown, count: u32) -> Breakdown {
    match scenario.convention {
        // The quick rules add the cards' memory up: each holds an equal share.
        Convention::Seed if count == 1 => whole.clone(),
        Convention::Seed => equal_share(whole, count),
        // Calibrated: the breakdown itself changes with the card count.
        Convention::Calibrated if count == scenario.cards => whole.clone(),
        Convention::Calibrated => memory::breakdown(
            model,
            &Scenario {
                cards: count,
                ..scenario.clone()
            },
        ),
    }
}

/// What one of `count` cards holds under `scenario` (for views that compare conventions).
pub fn breakdown_on(model: &Model, scenario: &Scenario, count: u32) -> Breakdown {
    match scenario.convention {
        Convention::Calibrated => memory::breakdown(
            model,
            &Scenario {
                cards: count,
                ..scenario.clone()
            },
        ),
        Convention::Seed => per_card_breakdown(model, scenario, &memory::breakdown(model, scenario), count),
    }
}

/// The card counts a plan considers: one card and 2/4/8-card combos, and for calibrated
/// training also 16/32/64 cards in nodes of eight; plus the scenario's own count.
pub fn candidate_counts(scenario: &Scenario) -> Vec<u32> {
    let mut sizes: Vec<u32> = fit::COMBO_SIZES.to_vec();
    if scenario.convention == Convention::Calibrated && scenario.method.is_training() {
        sizes.extend(fit::MULTI_NODE_SIZES);
    }
    if !sizes.contains(&scenario.cards) {
        sizes.push(scenario.cards);
        sizes.sort_unstable();
    }
    sizes
}

/// A context beyond what the checkpoint is configured for: planned anyway (RoPE scaling can
/// stretch it), but said.
pub fn context_warning(model: &Model, scenario: &Scenario) -> Option<String> {
    (scenario.context > model.max_context).then(|| {
        format!(
            "context {} is beyond {}'s configured maximum of {} tokens (max_position_embeddings)",
            crate::engine::basics::units::group_thousands(scenario.context as i64),
            model.name,
            crate::engine::basics::units::group_thousands(model.max_context as i64)
        )
    })
}

/// Plan `scenario` for `model` on every card of `gpus`: alone and in 2/4/8-card combos when
/// `include_combos` (and 16/32/64 cards for calibrated training), or only in
/// `scenario.cards` when that is more than one. The scenario must have passed
/// [`Scenario::validate`].
pub fn plan(model: &Model, gpus: &[Gpu], scenario: &Scenario, include_combos: bool) -> Plan {
    plan_in(
        model,
        gpus,
        scenario,
        &Scope {
            include_combos,
            limits: Solve::All,
            cards: &|_| true,
        },
    )
}

/// What a plan judges: which cards, whether in combos, which options' limits.
pub struct Scope<'a> {
    pub include_combos: bool,
    pub limits: Solve<'a>,
    /// Only the cards this accepts get options; the options keep the catalog's indices.
    pub cards: &'a dyn Fn(&Gpu) -> bool,
}

/// Which options get their limits solved (most of an option's cost): every one (the CLI,
/// the JSON), none (the lookup table), or the rows a view shows, picked from the ranked
/// options (the planner).
#[derive(Clone, Copy)]
pub enum Solve<'a> {
    All,
    Nothing,
    Rows(&'a dyn Fn(&[FitOption]) -> Vec<usize>),
}

/// [`plan`] within a [`Scope`]. Where the runtime's defaults follow the card
/// ([`crate::engine::verdict::card_defaults::on_card`]), each group of cards that runs the same values is
/// planned with them and the options ranked together.
pub fn plan_in(model: &Model, gpus: &[Gpu], scenario: &Scenario, scope: &Scope) -> Plan {
    if !scenario.card_batch_defaults && !crate::engine::verdict::card_defaults::layout_follows_card(scenario)
    {
        return plan_one(model, gpus, scenario, scope);
    }
    // The cards by the batch values they run and how they hold the weights; the scenario's
    // own come first (its plan holds the breakdown the views show when no card is targeted).
    let batch = |sc: &Scenario| (sc.max_batched_tokens, sc.max_num_seqs);
    let run = |sc: &Scenario| (batch(sc), sc.mxfp4_moe, sc.context);
    let own = run(scenario);
    let mut groups: Vec<(Scenario, Vec<usize>)> = vec![(scenario.clone(), Vec::new())];
    for (i, g) in gpus.iter().enumerate().filter(|(_, g)| (scope.cards)(g)) {
        let sc = crate::engine::verdict::card_defaults::on_card(model, scenario, g)
            .unwrap_or_else(|| scenario.clone());
        match groups.iter_mut().find(|(v, _)| run(v) == run(&sc)) {
            Some((_, members)) => members.push(i),
            None => groups.push((sc, vec![i])),
        }
    }
    let plan_group = |sc: &Scenario, members: &[usize]| {
        let member = |g: &Gpu| members.iter().any(|&i| std::ptr::eq(g, &gpus[i]));
        plan_one(
            model,
            gpus,
            sc,
            &Scope {
                cards: &member,
                limits: scope.limits,
                include_combos: scope.include_combos,
            },
        )
    };
    match groups.as_slice() {
        // Every card runs the scenario's own values.
        [_] => return plan_one(model, gpus, scenario, scope),
        // Every card planned runs the same other values (`--gpu h100-sxm`): the plan is theirs.
        [(_, none), (only, _)] if none.is_empty() => {
            let mut plan = plan_one(model, gpus, only, scope);
            for o in &mut plan.options {
                o.batch_defaults = Some(batch(only));
            }
            return plan;
        }
        _ => {}
    }
    let (base, rest) = groups.split_first().expect("the scenario's own group");
    let mut plan = plan_group(&base.0, &base.1);
    for (sc, members) in rest {
        debug_assert_ne!(run(sc), own);
        let sub = plan_group(sc, members);
        let mut per = sub.per_count;
        per.push((sub.cards, sub.breakdown));
        plan.variants.push((run(sc), per));
        plan.options.extend(sub.options.into_iter().map(|mut o| {
            o.batch_defaults = Some(batch(sc));
            o
        }));
    }
    crate::engine::verdict::rank::rank_options(
        &mut plan.options,
        crate::engine::verdict::rank::SortBy::Price,
    );
    plan
}

fn plan_one(model: &Model, gpus: &[Gpu], scenario: &Scenario, scope: &Scope) -> Plan {
    let include_combos = scope.include_combos;
    let mut whole = memory::breakdown(model, scenario);
    if let Some(w) = context_warning(model, scenario) {
        whole.notes.insert(0, w);
    }
    let counts = candidate_counts(scenario);
    let judged: Vec<u32> = if scenario.cards > 1 {
        vec![scenario.cards]
    } else if include_combos {
        counts.clone()
    } else {
        vec![1]
    };
    let per_count: Vec<(u32, Breakdown)> = counts
        .iter()
        .filter(|&&n| n != scenario.cards)
        .map(|&n| (n, per_card_breakdown(model, scenario, &whole, n)))
        .collect();
    let breakdown = match scenario.convention {
        Convention::Seed if scenario.cards > 1 => equal_share(&whole, scenario.cards),
        _ => whole,
    };
    let need_of = |b: &Breakdown| Need {
        per_card: b.total(),
        kv_per_card: b.get(SegmentKind::KvCache),
    };
    let mut needs: Vec<(u32, Need)> = per_count.iter().map(|(n, b)| (*n, need_of(b))).collect();
    needs.push((scenario.cards, need_of(&breakdown)));
    needs.sort_by_key(|(n, _)| *n);
    let a = &model.arch;
    let work = breakdown.decode_bytes_per_token.map(|read| DecodeWork {
        weights_bytes: read - breakdown.decode_kv_bytes_per_sequence,
        kv_bytes_per_sequence: breakdown.decode_kv_bytes_per_sequence,
        active_params: model.params().active as f64,
        hidden: a.hidden as f64,
        layers: a.layers as f64,
    });
    let memo = Needs::new(model, scenario);
    for (n, need) in &needs {
        memo.remember(*n, scenario.context, scenario.batch, need.per_card);
    }
    let ctx = Context {
        model,
        scenario,
        largest_count: counts.iter().copied().max().unwrap_or(1),
        work,
        needs: &memo,
        // A target reads every option's largest batch (its users per replica).
        limits: matches!(scope.limits, Solve::All) || scenario.target.is_serving(),
    };
    // The cards the scope and the scenario's class admit (this machine's own always).
    let admitted =
        |g: &Gpu| (scope.cards)(g) && (g.local || scenario.card_class.is_none_or(|c| g.class() == c));
    let mut options = options(gpus, &ctx, &judged, &needs, &admitted);
    if let Solve::Rows(pick) = scope.limits {
        let ctx = Context { limits: true, ..ctx };
        for i in pick(&options) {
            let o = &mut options[i];
            if let Some(&(_, need)) = needs.iter().find(|(n, _)| *n == o.count) {
                fit::solve_limits(o, &gpus[o.gpu], &ctx, need);
            }
        }
    }
    Plan {
        params: model.params(),
        kv_bytes_per_token: model.kv_bytes_per_token(scenario.kv.bytes_per_element()),
        breakdown,
        cards: scenario.cards,
        per_count,
        options,
        variants: Vec::new(),
    }
}

/// Every card in every count of `sizes`, ranked by price (see [`crate::engine::verdict::rank::rank_options`]). `needs`
/// holds the need per card for every count considered (a superset of `sizes`), from which
/// each card's `cards_needed` is found.
pub fn options(
    gpus: &[Gpu],
    ctx: &Context,
    sizes: &[u32],
    needs: &[(u32, Need)],
    cards: &dyn Fn(&Gpu) -> bool,
) -> Vec<FitOption> {
    let judged: Vec<(u32, Need)> = needs.iter().filter(|(n, _)| sizes.contains(n)).copied().collect();
    let mut out: Vec<FitOption> = Vec::new();
    for (i, g) in gpus.iter().enumerate().filter(|(_, g)| cards(g)) {
        let cards_needed = fit::smallest_holding_count(ctx.model, g, ctx.scenario, needs);
        for &(n, need) in &judged {
            // A slice or a unified-memory chip never joins a combo: its combos are listed
            // only when the scenario asks for that many cards (to say why not).
            if n > 1 && n != ctx.scenario.cards && !g.combines() {
                continue;
            }
            let mut o = fit::evaluate(i, g, n, ctx, need, cards_needed);
            o.expected_decode_tokens_per_s = o.expected(ctx.model, ctx.scenario, g).decode_tokens_per_s;
            o.target = crate::engine::verdict::meets_target::check(ctx.model, ctx.scenario, g, &o, ctx.work);
            out.push(o);
        }
    }
    crate::engine::verdict::rank::rank_options(&mut out, crate::engine::verdict::rank::SortBy::Price);
    out
}
