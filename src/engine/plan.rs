//! One scenario on one model against every card: the engine's main entry point.

use super::fit::{self, FitOption};
use super::gpu::Gpu;
use super::memory::{self, Breakdown};
use super::model::{Model, ParamCount};
use super::scenario::Scenario;

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

/// Plan `scenario` for `model` on every card of `gpus` (and their 2/4/8 combos when
/// `include_combos`). The scenario must have passed [`Scenario::validate`].
pub fn plan(model: &Model, gpus: &[Gpu], scenario: &Scenario, include_combos: bool) -> Plan {
    let breakdown = memory::breakdown(model, scenario);
    let options = fit::options(gpus, scenario, &breakdown, include_combos);
    Plan {
        params: model.params(),
        kv_bytes_per_token: model.kv_bytes_per_token(scenario.kv.bytes_per_element()),
        breakdown,
        options,
    }
}
