//! Seed 003 section 05: model size × method → the cheapest card or combo that holds it.

use crate::engine::basics::choice::Choice;
use crate::engine::hardware::gpu::Gpu;
use crate::engine::model::Model;
use crate::engine::model::precision::WeightPrecision;
use crate::engine::verdict::fit::FitOption;
use crate::engine::verdict::plan::{Plan, Scope, Solve, plan_in};
use crate::engine::workload::scenario::{Method, Scenario};

/// The provider whose price list seed 003 is.
pub const SEED_PROVIDER: &str = "GPU Rent Hub";

/// The six columns of the lookup table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LookupColumn {
    InferenceBf16,
    InferenceFp8,
    InferenceInt4,
    Qlora,
    Lora,
    Full,
}

impl LookupColumn {
    pub const ALL: [LookupColumn; 6] = [
        Self::InferenceBf16,
        Self::InferenceFp8,
        Self::InferenceInt4,
        Self::Qlora,
        Self::Lora,
        Self::Full,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Self::InferenceBf16 => "Inference BF16",
            Self::InferenceFp8 => "Inference FP8",
            Self::InferenceInt4 => "Inference INT4",
            Self::Qlora => "QLoRA",
            Self::Lora => "LoRA",
            Self::Full => "Full fine-tune",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Self::InferenceBf16 => "inference-bf16",
            Self::InferenceFp8 => "inference-fp8",
            Self::InferenceInt4 => "inference-int4",
            Self::Qlora => Method::Qlora.id(),
            Self::Lora => Method::Lora.id(),
            Self::Full => Method::Full.id(),
        }
    }

    /// The seed's setting for the column: inference at 8,192 tokens, training at 2,048, batch 1.
    pub fn scenario(self) -> Scenario {
        let mut sc = match self {
            Self::InferenceBf16 => Scenario::seed_inference(WeightPrecision::Bf16),
            Self::InferenceFp8 => Scenario::seed_inference(WeightPrecision::Fp8),
            Self::InferenceInt4 => Scenario::seed_inference(WeightPrecision::Int4),
            Self::Qlora => Scenario::seed_training(Method::Qlora),
            Self::Lora => Scenario::seed_training(Method::Lora),
            Self::Full => Scenario::seed_training(Method::Full),
        };
        // The seed's table prices its own fleet.
        sc.rent.filter.provider = Some(SEED_PROVIDER.into());
        sc
    }
}

/// Beyond one 8-card node: how many nodes of the cheapest suitable card.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterPick {
    pub gpu: usize,
    /// Requirement ÷ one node's memory (4.85 for 405B full fine-tune on MI300X).
    pub nodes_exact: f64,
    pub nodes: u64,
    pub price_usd_month: f64,
}

/// One cell: the requirement and the pick. Only what the table shows is kept: a cell of a
/// 10,000-card catalog would otherwise hold 40,000 judged options.
#[derive(Debug, Clone, PartialEq)]
pub struct LookupCell {
    pub column: LookupColumn,
    /// What the column's scenario needs in all (one card's breakdown).
    pub need_bytes: f64,
    pub pick: Option<FitOption>,
    pub cluster: Option<ClusterPick>,
}

impl LookupCell {
    pub fn need_bytes(&self) -> f64 {
        self.need_bytes
    }
}

/// Compute one cell of the table: the plan of the column's scenario over the cards the
/// table's provider prices (a pick needs a price, so no other card can be it), without the
/// limits the table does not show.
pub fn lookup_cell(model: &Model, gpus: &[Gpu], column: LookupColumn) -> LookupCell {
    let scenario = column.scenario();
    let filter = &scenario.rent.filter;
    let priced = |g: &Gpu| g.offers.iter().any(|o| filter.admits(o));
    let scope = Scope {
        include_combos: true,
        limits: Solve::Nothing,
        cards: &priced,
    };
    let plan = plan_in(model, gpus, &scenario, &scope);
    let pick = single_card_first(&plan.options).cloned();
    let cluster = match pick {
        Some(_) => None,
        None => cheapest_cluster(&plan),
    };
    LookupCell {
        column,
        need_bytes: plan.total_bytes(),
        pick,
        cluster,
    }
}

/// The GPU Rent Hub guide's own pick for its lookup table: the cheapest priced single card
/// that fits, and only when none does, the cheapest priced combo. (The planner ranks single
/// cards and combos together; this rule belongs to the guide's table alone.)
pub fn single_card_first(options: &[FitOption]) -> Option<&FitOption> {
    let cheapest = |combo: bool| {
        options
            .iter()
            .filter(|o| o.verdict.is_fit() && o.is_combo() == combo)
            .filter_map(|o| o.price_usd_month.map(|p| (p, o)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, o)| o)
    };
    cheapest(false).or_else(|| cheapest(true))
}

/// Nodes of eight cards: among the eight-card options ruled out only by memory, the one
/// whose whole number of nodes costs least.
fn cheapest_cluster(plan: &Plan) -> Option<ClusterPick> {
    let need = plan.total_bytes();
    plan.options
        .iter()
        .filter(|o| o.count == 8 && o.free_bytes < 0.0)
        .filter(|o| {
            matches!(
                o.reason,
                Some(
                    crate::engine::verdict::fit::Reason::NeedsCards(_)
                        | crate::engine::verdict::fit::Reason::NoCountFits(_)
                )
            )
        })
        .filter_map(|o| {
            let price = o.price_usd_month?;
            let nodes_exact = need / o.capacity_bytes;
            let nodes = nodes_exact.ceil() as u64;
            Some(ClusterPick {
                gpu: o.gpu,
                nodes_exact,
                nodes,
                price_usd_month: price * nodes as f64,
            })
        })
        .min_by(|a, b| a.price_usd_month.total_cmp(&b.price_usd_month))
}

/// The whole table: one row per model, six cells each.
pub fn lookup_table(models: &[&Model], gpus: &[Gpu]) -> Vec<Vec<LookupCell>> {
    models
        .iter()
        .map(|m| {
            LookupColumn::ALL
                .iter()
                .map(|&c| lookup_cell(m, gpus, c))
                .collect()
        })
        .collect()
}
