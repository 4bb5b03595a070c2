//! Breakdown × cards and combos → verdicts, free memory, price and decode ceiling.

use serde::Serialize;

use crate::engine::hardware::gpu::{Gpu, LinkKind};
use crate::engine::hardware::offers::HOURS_PER_MONTH;
use crate::engine::memory::kv::kv_pool_tokens;
use crate::engine::model::Model;
use crate::engine::model::precision::WeightPrecision;
use crate::engine::placement::{self, Cards, Placement};
use crate::engine::speed::expected::{self, Ceilings, Expected};
use crate::engine::speed::serving::{Capacity, DecodeWork, Link, Roofline, link_of, roofline};
use crate::engine::speed::time_to_finish::{Training, training_time};
use crate::engine::verdict::judge::{self};
use crate::engine::verdict::needs::{Limits, Needs};
pub use crate::engine::verdict::{Reason, TIGHT_PER_CARD_BYTES, TIGHT_SINGLE_BYTES, Verdict};
use crate::engine::workload::scenario::{Convention, Scenario, Split, TightRule};

/// Card counts offered for every card: one card and seed 003's 2/4/8 combos.
pub const COMBO_SIZES: [u32; 4] = [1, 2, 4, 8];
/// Training plans beyond one node: 2, 4 and 8 nodes of 8 cards.
pub const MULTI_NODE_SIZES: [u32; 3] = [16, 32, 64];

/// One card or combo judged against one requirement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitOption {
    /// Index of the card in the catalog's list.
    #[serde(skip)]
    pub gpu: usize,
    pub count: u32,
    pub verdict: Verdict,
    /// Why a card that has the room is still ruled out (FP8, interconnect), or what is missing.
    pub reason: Option<Reason>,
    pub capacity_bytes: f64,
    /// What the plan may use of the capacity (all of it, or a serving engine's share).
    pub usable_bytes: f64,
    /// Bytes each card of the option must hold.
    pub per_card_bytes: f64,
    /// Usable memory minus requirement over all cards of the option (negative: the shortfall).
    pub free_bytes: f64,
    pub free_bytes_per_card: f64,
    /// The smallest count of this card that holds the plan, every per-card cost counted
    /// (its own share of sharded state, copied KV heads, per-card overheads); `None` when no
    /// count up to the largest combo does, or the card cannot run the plan at all.
    pub cards_needed: Option<u32>,
    pub price_usd_month: Option<f64>,
    /// Decode ceiling of one stream, tokens/s (the roofline's per-stream figure).
    pub decode_tokens_per_s: Option<f64>,
    pub split: OptionSplit,
    /// The card-to-card link the split uses.
    pub link: Link,
    /// Tensor parallel over PCIe: it works, but every layer pays over a slow link.
    pub tp_over_pcie: bool,
    pub roofline: Option<Roofline>,
    /// KV budget in tokens and sequences (inference).
    pub serving: Option<Capacity>,
    /// The longest context and largest batch the judge still fits on this option (serving
    /// options; a training option's are solved where shown: `judge::Needs::shown_limits`).
    pub limits: Limits,
    /// The cheapest non-spot offer for the rental term (index into the card's offers) and
    /// its cost in dollars for `count` cards.
    pub offer: Option<usize>,
    pub rent_cost_usd: Option<f64>,
    /// The cheapest spot (interruptible) offer for the term, shown apart.
    pub spot_offer: Option<usize>,
    pub spot_rent_cost_usd: Option<f64>,
    /// Time to finish the fine-tune on this option, and what renting it for that long costs.
    pub training: Option<Training>,
    pub train_offer: Option<usize>,
    pub train_cost_usd: Option<f64>,
    /// What goes where (each kind of card, the host) and the runtime's flags; a spilled
    /// placement (layers, experts or weights in RAM) is what the verdict is for.
    #[serde(skip)]
    pub placement: Option<Placement>,
    /// A rig of mixed cards: each kind (catalog index) and its count; empty for `count` ×
    /// the card `gpu`.
    #[serde(skip)]
    pub rig: Vec<(usize, u32)>,
    /// The batch values (`max_num_batched_tokens`, `max_num_seqs`) this option's card runs
    /// where the runtime's defaults follow the card and differ from the scenario's.
    pub batch_defaults: Option<(u64, u64)>,
    /// How vLLM holds an MXFP4 checkpoint's experts on this option's card.
    pub mxfp4_moe: crate::engine::workload::choices::Mxfp4Moe,
    /// The context this option was planned at: the scenario's, or the one the runtime picks
    /// from the option's cards (Ollama's `num_ctx` by VRAM).
    pub context: u64,
    /// The expected decode tokens/s per stream (`FitOption::expected`), filled in
    /// where options are made (the plan, one option's judgement, a rig): what the cards pane
    /// shows and ranking by speed reads; `None` where no class has enough runs.
    pub expected_decode_tokens_per_s: Option<f64>,
    /// The option judged against the scenario's target (`engine::verdict::meets_target`): replicas, whether
    /// it meets it and each limit's margin; `None` without a target.
    pub target: Option<crate::engine::workload::serving_target::Check>,
}

impl FitOption {
    /// What the expected speed works from: this option's ceilings and whether it offloads.
    pub fn ceilings(&self) -> Ceilings {
        Ceilings {
            roofline: self.roofline,
            decode_tokens_per_s: self.decode_tokens_per_s,
            offload: self.spills() && self.placement.as_ref().is_some_and(|p| p.offloads()),
        }
    }

    /// Expected speeds of this option beside its ceilings (`speed::expected`).
    pub fn expected(&self, model: &Model, sc: &Scenario, gpu: &Gpu) -> Expected {
        expected::for_ceilings(model, sc, gpu, self.ceilings())
    }

    /// Whether the plan runs only because part of it lives in host memory.
    pub fn spills(&self) -> bool {
        // Layers, experts or weights in RAM, or the token embedding kept there so that
        // every layer fits on the cards.
        self.placement
            .as_ref()
            .is_some_and(|p| p.offloads() || p.host().is_some_and(|h| h.bytes > 0.0))
    }

    pub fn is_combo(&self) -> bool {
        self.count > 1
    }

    /// The warning a split earns, in words.
    pub fn warning(&self) -> Option<String> {
        self.tp_over_pcie.then(|| {
            format!(
                "tensor parallel over PCIe: two all-reduces per layer per token over {:.0} GB/s",
                self.link.gbs
            )
        })
    }
}

/// What each card must hold when the plan runs on `count` cards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Need {
    pub per_card: f64,
    /// Of which KV cache.
    pub kv_per_card: f64,
}

/// What every option of one plan shares.
pub struct Context<'a> {
    pub model: &'a Model,
    pub scenario: &'a Scenario,
    /// The largest card count considered (for "no count up to N holds it").
    pub largest_count: u32,
    /// Decode work per step; `None` for training.
    pub work: Option<DecodeWork>,
    /// Needs per card at other contexts and batches, for the limits.
    pub needs: &'a Needs<'a>,
    /// Whether each option's limits (and a serving option's KV pool) are solved: the lookup
    /// table's pick shows none, and they are most of an option's cost.
    pub limits: bool,
}

/// How an option spreads the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OptionSplit {
    Single,
    Tensor,
    Layer,
    /// Training: data parallel with the ZeRO stage of the scenario.
    Data,
}

impl OptionSplit {
    pub fn id(self) -> &'static str {
        match self {
            Self::Single => "single",
            Self::Tensor => "tensor",
            Self::Layer => "layer",
            Self::Data => "data",
        }
    }
}

/// The smallest count among `needs` (card count → need per card) that holds the plan, as
/// the judge says.
pub fn smallest_holding_count(
    model: &Model,
    gpu: &Gpu,
    scenario: &Scenario,
    needs: &[(u32, Need)],
) -> Option<u32> {
    needs
        .iter()
        .filter(|(n, need)| judge::judge(model, gpu, *n, scenario, need.per_card).fits())
        .map(|(n, _)| *n)
        .min()
}

/// Judge `count` × `gpu` for a plan that needs `need` on each card; `cards_needed` is the
/// smallest count of this card that holds the plan (see [`smallest_holding_count`]).
pub fn evaluate(
    gpu_index: usize,
    gpu: &Gpu,
    count: u32,
    ctx: &Context,
    need: Need,
    cards_needed: Option<u32>,
) -> FitOption {
    let scenario = ctx.scenario;
    let n = f64::from(count);
    let capacity = judge::card_capacity(gpu, scenario);
    let mut verdict_of = judge::judge(ctx.model, gpu, count, scenario, need.per_card);
    let usable = verdict_of.usable_per_card;
    let cards = Cards { gpu, count, usable };
    // With a host to spill into, an option the GPUs alone cannot hold is judged by the
    // placement the runtime would make (the same the limits search).
    // A layer or expert count the user pinned is placed as given, whatever fits.
    let pinned = scenario.pin.gpu_layers.is_some() || scenario.pin.cpu_moe.is_some();
    let spilled = (verdict_of.unsupported.is_none() && (verdict_of.verdict == Verdict::No || pinned))
        .then(|| ctx.needs.placed_at(gpu, count, scenario.context, scenario.batch))
        .flatten()
        // Where the cards alone fall short, any placement that holds is the verdict (the
        // limit searches ask the same); a pin that keeps everything on the cards is not news.
        .filter(|p| p.fits() && (p.offloads() || verdict_of.verdict == Verdict::No))
        .map(|p| with_speed(p, ctx, gpu, count));
    if let Some(p) = &spilled {
        verdict_of.verdict = if crate::engine::verdict::needs::placed_comfortably(p, scenario) {
            Verdict::Fits
        } else {
            Verdict::Tight
        };
        verdict_of.free_per_card = p.devices[0].free_bytes;
    }
    // Training that offloads (ZeRO, activations) keeps its host bytes in the hosts' RAM,
    // one host per node of eight cards.
    if let Some(host) = scenario.host.as_ref().filter(|_| scenario.method.is_training())
        && verdict_of.unsupported.is_none()
    {
        let held = placement::host_share(ctx.needs.breakdown(count).host_bytes, count);
        if held > host.ram_bytes {
            verdict_of.verdict = Verdict::No;
            verdict_of.unsupported = Some(Reason::HostShort);
        }
    }
    // What each card holds: the plan's breakdown, or once it spills, the placed share.
    let per_card_bytes = spilled.as_ref().map_or(need.per_card, |p| p.devices[0].bytes);
    let free_per_card = verdict_of.free_per_card;
    let reason = match verdict_of.unsupported {
        Some(r) => Some(r),
        None if verdict_of.free_per_card < 0.0 => Some(match cards_needed {
            Some(k) => Reason::NeedsCards(k),
            // A slice or a unified-memory chip never joins a combo: too big for itself alone.
            None => Reason::NoCountFits(if gpu.combines() { ctx.largest_count } else { 1 }),
        }),
        None => None,
    };
    let split = match (count, scenario.method.is_training(), scenario.split) {
        (1, _, _) => OptionSplit::Single,
        (_, true, _) => OptionSplit::Data,
        (_, false, Split::Tensor) => OptionSplit::Tensor,
        (_, false, Split::Layer) => OptionSplit::Layer,
    };
    let network = (scenario.convention == Convention::Calibrated).then_some(scenario.network_gbps);
    let link = link_of(gpu, count, network);
    let tp_over_pcie = split == OptionSplit::Tensor && matches!(link.kind, LinkKind::Pcie | LinkKind::None);
    // A card of unknown bandwidth (detected, not in the catalog) gets no decode ceiling.
    let roof = ctx.work.filter(|_| gpu.bandwidth_gbs > 0.0).map(|w| {
        roofline(
            gpu,
            count,
            scenario.split,
            &w,
            scenario.batch,
            scenario.prompt,
            scenario.weights == WeightPrecision::Fp8,
        )
    });
    // Serving options show their limits in every row (seqs); a training option's are
    // solved where shown (the JSON, the advice), each a search over training breakdowns.
    let (limits, serving) = if ctx.limits {
        limits_and_pool(gpu, count, ctx, need, usable)
    } else {
        (Limits::default(), None)
    };
    let placement = spilled.or_else(|| {
        (ctx.work.is_some() || scenario.host.is_some()).then(|| {
            placement::gpu_only(
                scenario,
                ctx.model,
                cards,
                &ctx.needs.breakdown(count),
                scenario.host.as_ref(),
            )
        })
    });
    let roof = match placement.as_ref() {
        // A spilled placement's ceiling replaces the GPUs' own; unknown when the host's
        // bandwidth is.
        Some(p) if p.offloads() => p.speed.as_ref().and_then(|s| {
            roof.map(|r| Roofline {
                per_stream: s.tokens_per_s,
                aggregate: s.aggregate_tokens_per_s,
                prefill_seconds: s.prefill_seconds,
                ..r
            })
        }),
        _ => roof,
    };
    let training = training_time(ctx.model, scenario, gpu, count);
    let prices = prices(gpu, count, scenario, training);
    FitOption {
        gpu: gpu_index,
        count,
        verdict: verdict_of.verdict,
        reason,
        capacity_bytes: capacity * n,
        usable_bytes: usable * n,
        per_card_bytes,
        free_bytes: free_per_card * n,
        free_bytes_per_card: free_per_card,
        cards_needed,
        price_usd_month: prices.month.map(|(p, _)| p),
        decode_tokens_per_s: roof.map(|r| r.per_stream),
        split,
        link,
        tp_over_pcie,
        roofline: roof,
        serving,
        limits,
        offer: prices.term.map(|(_, i)| i),
        rent_cost_usd: prices.term.map(|(c, _)| c),
        spot_offer: prices.spot.map(|(_, i)| i),
        spot_rent_cost_usd: prices.spot.map(|(c, _)| c),
        training,
        train_offer: prices.train.map(|(_, i)| i),
        train_cost_usd: prices.train.map(|(c, _)| c),
        placement,
        rig: Vec::new(),
        batch_defaults: None,
        mxfp4_moe: scenario.mxfp4_moe,
        context: scenario.context,
        expected_decode_tokens_per_s: None,
        target: None,
    }
}

/// A spilled placement found by the judge (sized without words or speed), given the
/// speed the option's decode work allows.
fn with_speed(p: Placement, ctx: &Context, gpu: &Gpu, count: u32) -> Placement {
    let sc = ctx.scenario;
    let per_card = ctx.needs.breakdown(count);
    let rig = [Cards {
        gpu,
        count,
        usable: judge::usable_per_card(gpu, count, sc),
    }];
    // The judge's placement was sized without words or speed; the shown one has both.
    drop(p);
    placement::place(&placement::Request {
        model: ctx.model,
        scenario: sc,
        rig: &rig,
        host: sc.host.as_ref(),
        per_card: &per_card,
        work: ctx.work,
    })
}

/// Solve the limits (and a serving option's KV pool) of an option judged without them.
pub fn solve_limits(o: &mut FitOption, gpu: &Gpu, ctx: &Context, need: Need) {
    let usable = judge::usable_per_card(gpu, o.count, ctx.scenario);
    (o.limits, o.serving) = limits_and_pool(gpu, o.count, ctx, need, usable);
}

/// An option's limits from the judge, and for serving the KV pool they imply.
fn limits_and_pool(
    gpu: &Gpu,
    count: u32,
    ctx: &Context,
    need: Need,
    usable: f64,
) -> (Limits, Option<Capacity>) {
    let scenario = ctx.scenario;
    let limits = if ctx.work.is_some() {
        ctx.needs.shown_limits(gpu, count)
    } else {
        Limits::default()
    };
    let serving = ctx.work.map(|_| {
        // The pool in tokens, priced as the judge prices one more sequence at the largest
        // batch (its KV and whatever grows with it: the allocator's slack, its logits), so
        // that the pool ÷ tokens per sequence is the judge's largest batch, not a second
        // answer.
        let context = scenario.context;
        let at = limits.max_batch.unwrap_or(scenario.batch);
        let here = ctx.needs.per_card(count, context, at);
        let one_more = ctx.needs.per_card(count, context, at + 1) - here;
        let per_token = if one_more > 0.0 {
            one_more / context as f64
        } else {
            need.kv_per_card / (context * scenario.batch) as f64
        };
        let budget = usable - here + per_token * (context * at) as f64;
        // A plan that spills into the host keeps its KV where its layers are: the pool is
        // the cells the largest batch allocates, not what the GPUs have left.
        let spills = crate::engine::verdict::needs::may_spill(scenario, gpu) && need.per_card > usable;
        // vLLM's hybrid allocator: the pool in blocks of all groups, its logged token figure.
        // The judge prices a sequence by the same blocks, so its largest batch is the pool's
        // sequences.
        let sc_count = Scenario {
            cards: count,
            ..scenario.clone()
        };
        let kv_groups = crate::engine::memory::vllm_pool::pool(ctx.model, scenario).map(|p| {
            p.capacity(
                budget,
                crate::engine::memory::kv::card_share(ctx.model, &sc_count),
                scenario,
            )
        });
        Capacity {
            kv_capacity_tokens: match kv_groups {
                _ if spills => context * limits.max_batch.unwrap_or(0),
                Some(g) => g.logged_tokens,
                None => kv_pool_tokens(
                    budget,
                    per_token,
                    crate::engine::verdict::needs::context_step(scenario),
                ),
            },
            max_concurrent_sequences: limits.max_batch.unwrap_or(0),
            max_context: limits.max_context.unwrap_or(0),
            max_batch: limits.max_batch.unwrap_or(0),
            kv_groups,
        }
    });
    (limits, serving)
}

/// The cheapest offers for one option, in dollars with the offer's index.
struct Prices {
    month: Option<(f64, usize)>,
    term: Option<(f64, usize)>,
    spot: Option<(f64, usize)>,
    train: Option<(f64, usize)>,
}

fn prices(gpu: &Gpu, count: u32, scenario: &Scenario, training: Option<Training>) -> Prices {
    let rent = &scenario.rent;
    // A card offered only as spot (RunPod, Vast.ai) is priced by its spot offer, which the
    // offer's kind marks; otherwise spot prices stay apart.
    let offer = |hours: f64| {
        gpu.cheapest_offer(count, hours, &rent.rates, &rent.filter, false)
            .or_else(|| gpu.cheapest_offer(count, hours, &rent.rates, &rent.filter, true))
    };
    Prices {
        month: offer(HOURS_PER_MONTH),
        term: offer(rent.hours),
        spot: gpu.cheapest_offer(count, rent.hours, &rent.rates, &rent.filter, true),
        train: training.and_then(|t| offer(t.hours)),
    }
}

/// The largest requirement that `count` cards of `capacity` bytes in all hold without being
/// tight: where the bar draws its margin marker.
pub fn largest_comfortable_need(rule: TightRule, count: u32, capacity: f64) -> f64 {
    match rule {
        TightRule::Seed if count <= 1 => capacity - TIGHT_SINGLE_BYTES,
        TightRule::Seed => capacity - TIGHT_PER_CARD_BYTES * f64::from(count),
        TightRule::Margin(fraction) => capacity / (1.0 + fraction),
    }
    .max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::verdict::judge::is_tight;

    #[test]
    fn seed_tight_rule_is_5_gb_single_and_2_gb_per_card() {
        assert!(is_tight(TightRule::Seed, 1, 10e9, 4.99e9));
        assert!(!is_tight(TightRule::Seed, 1, 10e9, 5e9));
        assert!(is_tight(TightRule::Seed, 8, 10e9, 15.9e9), "1.99 GB per card");
        assert!(!is_tight(TightRule::Seed, 8, 10e9, 16e9));
    }

    #[test]
    fn margin_marker_sits_where_tight_begins() {
        assert_eq!(largest_comfortable_need(TightRule::Seed, 1, 80e9), 75e9);
        assert_eq!(largest_comfortable_need(TightRule::Seed, 4, 320e9), 312e9);
        assert_eq!(largest_comfortable_need(TightRule::Margin(0.25), 1, 100e9), 80e9);
    }

    #[test]
    fn margin_rule_is_a_fraction_of_the_requirement() {
        // Seed 004: keep 30 % on top of 40 GB → under 12 GB free is tight.
        assert!(is_tight(TightRule::Margin(0.3), 1, 40e9, 11.9e9));
        assert!(!is_tight(TightRule::Margin(0.3), 1, 40e9, 12e9));
    }
}
