//! Breakdown × cards and combos → verdicts, free memory, price and decode ceiling.

use serde::Serialize;

use super::gpu::{Gpu, HOURS_PER_MONTH, LinkKind};
use super::model::Model;
use super::precision::WeightPrecision;
use super::renting::{Training, training_time};
use super::scenario::{Convention, Method, Scenario, Split, TightRule};
use super::serving::{Capacity, DecodeWork, Link, Roofline, capacity as capacity_of, link_of, roofline};

/// Card counts offered for every card: one card and seed 003's 2/4/8 combos.
pub const COMBO_SIZES: [u32; 4] = [1, 2, 4, 8];
/// Training plans beyond one node: 2, 4 and 8 nodes of 8 cards.
pub const MULTI_NODE_SIZES: [u32; 3] = [16, 32, 64];

/// Seed 003: a single card is tight with under 5 GB left.
pub const TIGHT_SINGLE_BYTES: f64 = 5e9;
/// Seed 003: a combo is tight with under 2 GB left per card.
pub const TIGHT_PER_CARD_BYTES: f64 = 2e9;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Fits,
    Tight,
    No,
}

impl Verdict {
    pub fn id(self) -> &'static str {
        match self {
            Self::Fits => "fits",
            Self::Tight => "tight",
            Self::No => "no",
        }
    }

    pub fn is_fit(self) -> bool {
        self != Self::No
    }
}

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
    /// Cards of this kind the requirement needs by capacity alone.
    pub cards_needed: u64,
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
}

impl FitOption {
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

/// Why a card can never run this scenario, whatever its memory.
pub fn unsupported_reason(gpu: &Gpu, count: u32, scenario: &Scenario) -> Option<Reason> {
    if scenario.weights.needs_fp8_hardware() && !gpu.fp8 {
        return Some(Reason::NoFp8);
    }
    if scenario.method == Method::Full && count > 1 && !gpu.link.is_node_wide() {
        return Some(Reason::NeedsFabric);
    }
    None
}

/// Why an option gets "no". A value, formatted only when shown (a plan judges hundreds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// FP8 weights on a card without FP8 tensor cores.
    NoFp8,
    /// Multi-card full fine-tune without a node-wide fabric.
    NeedsFabric,
    /// Not enough memory: about this many cards of the kind would hold it.
    NeedsCards(u64),
}

impl Reason {
    pub fn text(self, gpu: &Gpu) -> String {
        match self {
            Reason::NoFp8 => format!("no FP8 support on {}", gpu.name),
            Reason::NeedsFabric => {
                format!(
                    "multi-card full fine-tune needs NVLink/NVSwitch; {} has {}",
                    gpu.name,
                    gpu.link.label()
                )
            }
            Reason::NeedsCards(n) => format!("needs about {n} cards of this kind"),
        }
    }
}

/// Whether an option with `free` bytes left is tight under `rule`.
pub fn is_tight(rule: TightRule, count: u32, need: f64, free: f64) -> bool {
    match rule {
        TightRule::Seed if count <= 1 => free < TIGHT_SINGLE_BYTES,
        TightRule::Seed => free / f64::from(count) < TIGHT_PER_CARD_BYTES,
        TightRule::Margin(fraction) => free < fraction * need,
    }
}

/// The share of a card a plan may use: a serving engine under the calibrated convention
/// takes `gpu_util` of it (vLLM's default 0.9), anything else all of it.
pub fn usable_fraction(scenario: &Scenario) -> f64 {
    if scenario.convention == Convention::Calibrated && !scenario.method.is_training() {
        scenario.gpu_util
    } else {
        1.0
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
    /// The plan's requirement on one card (for "how many cards it would need").
    pub single_card_need: f64,
    /// Decode work per step; `None` for training.
    pub work: Option<DecodeWork>,
    pub model_max_context: u64,
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

/// Judge `count` × `gpu` for a plan that needs `need` on each card.
pub fn evaluate(gpu_index: usize, gpu: &Gpu, count: u32, ctx: &Context, need: Need) -> FitOption {
    let scenario = ctx.scenario;
    let n = f64::from(count);
    let capacity = match scenario.convention {
        Convention::Seed => gpu.memory_bytes(),
        Convention::Calibrated => gpu.memory_real_bytes(),
    };
    let usable = capacity * usable_fraction(scenario);
    let free_per_card = usable - need.per_card;
    let free = free_per_card * n;
    let cards_needed = (ctx.single_card_need / usable).ceil().max(1.0) as u64;
    let unsupported = unsupported_reason(gpu, count, scenario);
    let (verdict, reason) = if let Some(r) = unsupported {
        (Verdict::No, Some(r))
    } else if free < 0.0 {
        (Verdict::No, Some(Reason::NeedsCards(cards_needed)))
    } else if is_tight(scenario.tight_rule, count, need.per_card * n, free) {
        (Verdict::Tight, None)
    } else {
        (Verdict::Fits, None)
    };
    let split = match (count, scenario.method.is_training(), scenario.split) {
        (1, _, _) => OptionSplit::Single,
        (_, true, _) => OptionSplit::Data,
        (_, false, Split::Tensor) => OptionSplit::Tensor,
        (_, false, Split::Layer) => OptionSplit::Layer,
    };
    let network = (scenario.convention == Convention::Calibrated).then_some(scenario.network_gbps);
    let link = link_of(gpu, count, network);
    let tp_over_pcie = split == OptionSplit::Tensor && matches!(gpu.link, LinkKind::Pcie | LinkKind::None);
    let roof = ctx.work.map(|w| {
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
    let serving = ctx.work.map(|_| {
        let budget = usable - (need.per_card - need.kv_per_card);
        let tokens = (scenario.context * scenario.batch) as f64;
        capacity_of(
            budget,
            need.kv_per_card / tokens,
            scenario.context,
            scenario.batch,
            ctx.model_max_context,
        )
    });
    let rent = &scenario.rent;
    let month = gpu.cheapest_offer(count, HOURS_PER_MONTH, &rent.rates, &rent.filter, false);
    let term = gpu.cheapest_offer(count, rent.hours, &rent.rates, &rent.filter, false);
    let spot = gpu.cheapest_offer(count, rent.hours, &rent.rates, &rent.filter, true);
    let training = training_time(ctx.model, scenario, gpu, count);
    let train = training.and_then(|t| gpu.cheapest_offer(count, t.hours, &rent.rates, &rent.filter, false));
    FitOption {
        gpu: gpu_index,
        count,
        verdict,
        reason,
        capacity_bytes: capacity * n,
        usable_bytes: usable * n,
        per_card_bytes: need.per_card,
        free_bytes: free,
        free_bytes_per_card: free_per_card,
        cards_needed,
        price_usd_month: month.map(|(p, _)| p),
        decode_tokens_per_s: roof.map(|r| r.per_stream),
        split,
        link,
        tp_over_pcie,
        roofline: roof,
        serving,
        offer: term.map(|(_, i)| i),
        rent_cost_usd: term.map(|(c, _)| c),
        spot_offer: spot.map(|(_, i)| i),
        spot_rent_cost_usd: spot.map(|(c, _)| c),
        training,
        train_offer: train.map(|(_, i)| i),
        train_cost_usd: train.map(|(c, _)| c),
    }
}

/// Every card in every count of `sizes`, sorted (see [`sort_options`]).
pub fn options(gpus: &[Gpu], ctx: &Context, sizes: &[u32], need: &dyn Fn(u32) -> Need) -> Vec<FitOption> {
    let needs: Vec<(u32, Need)> = sizes.iter().map(|&n| (n, need(n))).collect();
    let mut out: Vec<FitOption> = gpus
        .iter()
        .enumerate()
        .flat_map(|(i, g)| needs.iter().map(move |&(n, need)| (i, g, n, need)))
        .map(|(i, g, n, need)| evaluate(i, g, n, ctx, need))
        .collect();
    sort_options(&mut out);
    out
}

fn group(o: &FitOption) -> u8 {
    match (o.verdict.is_fit(), o.price_usd_month.is_some(), o.is_combo()) {
        (true, true, false) => 0,
        (true, true, true) => 1,
        (true, false, false) => 2,
        (true, false, true) => 3,
        (false, _, _) => 4,
    }
}

/// What the fitting options are ranked by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SortBy {
    /// Monthly price (seed 003's order: a single card first when one fits).
    Price,
    /// Cost of the rental term.
    Rent,
    /// Cost to finish the fine-tune.
    Finish,
}

impl crate::engine::Choice for SortBy {
    const ALL: &'static [Self] = &[SortBy::Price, SortBy::Rent, SortBy::Finish];

    fn id(self) -> &'static str {
        match self {
            SortBy::Price => "price",
            SortBy::Rent => "rent",
            SortBy::Finish => "finish",
        }
    }

    fn label(self) -> &'static str {
        match self {
            SortBy::Price => "price per month",
            SortBy::Rent => "cost of the rental term",
            SortBy::Finish => "cost to finish",
        }
    }
}

/// Re-rank: fitting options by `by` (cheapest first, unknown last), then the rest as before.
pub fn rank_options(options: &mut [FitOption], by: SortBy) {
    let key = |o: &FitOption| match by {
        SortBy::Price => None,
        SortBy::Rent => o.rent_cost_usd,
        SortBy::Finish => o.train_cost_usd,
    };
    if by == SortBy::Price {
        return;
    }
    options.sort_by(|a, b| {
        (!a.verdict.is_fit())
            .cmp(&!b.verdict.is_fit())
            .then_with(|| match (key(a), key(b)) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
    });
}

pub fn sort_options(options: &mut [FitOption]) {
    options.sort_by(|a, b| {
        group(a)
            .cmp(&group(b))
            .then_with(|| match (a.price_usd_month, b.price_usd_month) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
            .then_with(|| b.free_bytes.total_cmp(&a.free_bytes))
            .then_with(|| a.count.cmp(&b.count))
    });
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

/// Indices into `options` (kept in their order) with one row per card: the smallest count
/// that fits, or for a card that fits in no count, its single-card row.
pub fn one_row_per_card(options: &[FitOption]) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    let mut rows: Vec<usize> = Vec::new();
    for (i, o) in options.iter().enumerate() {
        if o.verdict.is_fit() && seen.insert(o.gpu) {
            rows.push(i);
        }
    }
    for (i, o) in options.iter().enumerate() {
        if o.count == 1 && !seen.contains(&o.gpu) {
            rows.push(i);
        }
    }
    rows
}

/// The pick of seed 003 section 05: the first priced option that fits.
pub fn cheapest_fit(options: &[FitOption]) -> Option<&FitOption> {
    options
        .iter()
        .find(|o| o.verdict.is_fit() && o.price_usd_month.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

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
