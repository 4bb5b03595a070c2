//! One scenario on one model against every card: the engine's main entry point.

use super::fit::{self, FitOption};
use super::gpu::Gpu;
use super::memory::{self, Breakdown};
use super::model::{Model, ParamCount};
use super::scenario::{Convention, Scenario};

/// Everything the screens and the CLI show for one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub params: ParamCount,
    /// KV bytes per token at full attention in the scenario's cache format.
    pub kv_bytes_per_token: f64,
    pub breakdown: Breakdown,
    /// Sorted: fitting single cards, fitting combos, the rest; cheapest first in each.
    pub options: Vec<FitOption>,
}

impl Plan {
    pub fn total_bytes(&self) -> f64 {
        self.breakdown.total()
    }

    /// The recommendation: the first fitting priced option, else the first fitting one.
    pub fn best(&self) -> Option<&FitOption> {
        fit::cheapest_fit(&self.options).or_else(|| self.options.iter().find(|o| o.verdict.is_fit()))
    }
}

/// Plan `scenario` for `model` on every card of `gpus`: alone and in 2/4/8-card combos when
/// `include_combos`, or only in `scenario.cards` when that is more than one. The scenario
/// must have passed [`Scenario::validate`].
pub fn plan(model: &Model, gpus: &[Gpu], scenario: &Scenario, include_combos: bool) -> Plan {
    let breakdown = memory::breakdown(model, scenario);
    let sizes: Vec<u32> = if scenario.cards > 1 {
        vec![scenario.cards]
    } else if include_combos {
        fit::COMBO_SIZES.to_vec()
    } else {
        vec![1]
    };
    let total = breakdown.total();
    let per_card = |n: u32| -> f64 {
        match scenario.convention {
            // Seed 003 adds the cards' memory up: each holds an equal share.
            Convention::Seed => total / f64::from(n),
            // Calibrated: the breakdown itself changes with the card count (sharding, splits).
            Convention::Calibrated if n == scenario.cards => total,
            Convention::Calibrated => memory::breakdown(
                model,
                &Scenario {
                    cards: n,
                    ..scenario.clone()
                },
            )
            .total(),
        }
    };
    let options = fit::options(
        gpus,
        scenario,
        &sizes,
        &per_card,
        per_card(1),
        breakdown.decode_bytes_per_token,
    );
    Plan {
        params: model.params(),
        kv_bytes_per_token: model.kv_bytes_per_token(scenario.kv.bytes_per_element()),
        breakdown,
        options,
    }
}
