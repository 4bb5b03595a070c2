//! Breakdown × cards and combos → verdicts, free memory, price and decode ceiling.

use serde::Serialize;

use super::gpu::{Gpu, HOURS_PER_MONTH, LinkKind};
use super::model::Model;
use super::precision::WeightPrecision;
use super::renting::{Training, training_time};
use super::scenario::{Convention, Framework, Method, Scenario, Split, TightRule};
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
    // vLLM refuses to start when less than its share of the total is free (see
    // [`usable_per_card`]).
    if gpu.in_use_bytes > 0.0 && takes_share_of_total(scenario) && scenario.framework != Framework::Sglang {
        let capacity = card_capacity(gpu, scenario);
        let wanted = capacity * usable_fraction(scenario);
        let free = (capacity - gpu.in_use_bytes).max(0.0);
        if free < wanted {
            return Some(Reason::Busy {
                free: free as u64,
                wanted: wanted as u64,
            });
        }
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
    /// Not enough memory: this many cards of the kind would hold it.
    NeedsCards(u32),
    /// Not enough memory, and no count up to this many cards holds it.
    NoCountFits(u32),
    /// Other processes hold so much of a card that the serving engine will not start: it
    /// wants `wanted` bytes free (its share of the card's total), `free` are.
    Busy { free: u64, wanted: u64 },
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
            Reason::NeedsCards(n) => format!("needs {n} cards of this kind"),
            Reason::NoCountFits(n) => format!("too big for {n} cards of this kind"),
            Reason::Busy { free, wanted } => format!(
                "other processes leave {} free per card; the serving engine wants {} free to start (gpu_memory_utilization × the card's total)",
                super::units::format_gb(free as f64),
                super::units::format_gb(wanted as f64)
            ),
        }
    }

    /// A few words, for a narrow table column.
    pub fn short_text(self) -> String {
        match self {
            Reason::NoFp8 => "no FP8".into(),
            Reason::NeedsFabric => "needs NVLink".into(),
            Reason::NeedsCards(n) => format!("needs {n} cards"),
            Reason::NoCountFits(n) => format!("too big for {n}"),
            Reason::Busy { .. } => "card busy".into(),
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
    /// The largest card count considered (for "no count up to N holds it").
    pub largest_count: u32,
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

/// The bytes one card offers under the scenario's rules: the marketed label for the quick
/// rules, what the runtime can allocate (CUDA-visible) for the calibrated ones.
pub fn card_capacity(gpu: &Gpu, scenario: &Scenario) -> f64 {
    match scenario.convention {
        Convention::Seed => gpu.memory_bytes(),
        Convention::Calibrated => gpu.memory_real_bytes(),
    }
}

/// Whether the runtime takes a share of each card's total (a serving engine under the
/// calibrated rules: vLLM, SGLang, the generic engine modelled on vLLM), rather than
/// allocating what it needs (llama.cpp and Ollama, training, the quick rules).
fn takes_share_of_total(scenario: &Scenario) -> bool {
    scenario.convention == Convention::Calibrated
        && !scenario.method.is_training()
        && !scenario.framework.is_ggml()
}

/// The bytes one card offers the plan: its capacity, less what other processes hold (a
/// detected card's `in_use_bytes`), under the runtime's own rule:
/// - vLLM (and the generic serving engine the calibrated rules model on it) takes
///   `gpu_memory_utilization` × the card's TOTAL memory, busy or not, and refuses to start
///   when less than that is free (vllm/v1/worker/gpu_worker.py, `Worker.init_device`:
///   `requested_memory = total_memory * gpu_memory_utilization`, "Free memory on device …
///   on startup is less than desired GPU memory utilization"; the refusal is
///   [`Reason::Busy`]);
/// - SGLang keeps `(1 − mem_fraction_static)` × the total free and takes the rest of what
///   is free (python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py,
///   `profile_max_num_token`: `rest_memory = available_gpu_memory − total_gpu_memory ×
///   (1 − mem_fraction_static)`), so what others hold comes out of its share;
/// - everything else (training, llama.cpp, Ollama, the quick rules) allocates what it
///   needs from what is free.
pub fn usable_per_card(gpu: &Gpu, scenario: &Scenario) -> f64 {
    let capacity = card_capacity(gpu, scenario);
    let in_use = gpu.in_use_bytes;
    if !takes_share_of_total(scenario) {
        return (capacity * usable_fraction(scenario) - in_use).max(0.0);
    }
    let share = capacity * usable_fraction(scenario);
    if scenario.framework == Framework::Sglang {
        (share - in_use).max(0.0)
    } else {
        share
    }
}

/// Whether `count` × `gpu` holds a plan needing `need_per_card` on each card (tight counts).
pub fn holds(gpu: &Gpu, count: u32, scenario: &Scenario, need_per_card: f64) -> bool {
    unsupported_reason(gpu, count, scenario).is_none()
        && usable_per_card(gpu, scenario) - need_per_card >= 0.0
}

/// The smallest count among `needs` (card count → need per card) that holds the plan.
pub fn smallest_holding_count(gpu: &Gpu, scenario: &Scenario, needs: &[(u32, Need)]) -> Option<u32> {
    needs
        .iter()
        .filter(|(n, need)| holds(gpu, *n, scenario, need.per_card))
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
    let capacity = card_capacity(gpu, scenario);
    let usable = usable_per_card(gpu, scenario);
    let free_per_card = usable - need.per_card;
    let free = free_per_card * n;
    let (verdict, reason) = judge(gpu, count, ctx, need.per_card * n, free, cards_needed);
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
    let training = training_time(ctx.model, scenario, gpu, count);
    let prices = prices(gpu, count, scenario, training);
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
        price_usd_month: prices.month.map(|(p, _)| p),
        decode_tokens_per_s: roof.map(|r| r.per_stream),
        split,
        link,
        tp_over_pcie,
        roofline: roof,
        serving,
        offer: prices.term.map(|(_, i)| i),
        rent_cost_usd: prices.term.map(|(c, _)| c),
        spot_offer: prices.spot.map(|(_, i)| i),
        spot_rent_cost_usd: prices.spot.map(|(c, _)| c),
        training,
        train_offer: prices.train.map(|(_, i)| i),
        train_cost_usd: prices.train.map(|(c, _)| c),
    }
}

/// The verdict and its reason: a card that cannot run the plan, one short of memory (how
/// many it would take), tight under the rule, or a fit.
fn judge(
    gpu: &Gpu,
    count: u32,
    ctx: &Context,
    need: f64,
    free: f64,
    cards_needed: Option<u32>,
) -> (Verdict, Option<Reason>) {
    if let Some(r) = unsupported_reason(gpu, count, ctx.scenario) {
        (Verdict::No, Some(r))
    } else if free < 0.0 {
        let r = match cards_needed {
            Some(k) => Reason::NeedsCards(k),
            None => Reason::NoCountFits(ctx.largest_count),
        };
        (Verdict::No, Some(r))
    } else if is_tight(ctx.scenario.tight_rule, count, need, free) {
        (Verdict::Tight, None)
    } else {
        (Verdict::Fits, None)
    }
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
