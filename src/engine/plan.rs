//! One scenario on one model against every card: the engine's main entry point.

use super::fit::{self, FitOption};
use super::fit::{Context, Need};
use super::gpu::Gpu;
use super::memory::SegmentKind;
use super::memory::{self, Breakdown};
use super::model::{Model, ParamCount};
use super::scenario::{Convention, Scenario};
use super::serving::DecodeWork;

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

/// A context beyond what the checkpoint is configured for: planned anyway (RoPE scaling can
/// stretch it), but said.
pub fn context_warning(model: &Model, scenario: &Scenario) -> Option<String> {
    (scenario.context > model.max_context).then(|| {
        format!(
            "context {} is beyond {}'s configured maximum of {} tokens (max_position_embeddings)",
            super::units::group_thousands(scenario.context as i64),
            model.name,
            super::units::group_thousands(model.max_context as i64)
        )
    })
}

/// Plan `scenario` for `model` on every card of `gpus`: alone and in 2/4/8-card combos when
/// `include_combos`, or only in `scenario.cards` when that is more than one. The scenario
/// must have passed [`Scenario::validate`].
pub fn plan(model: &Model, gpus: &[Gpu], scenario: &Scenario, include_combos: bool) -> Plan {
    let mut breakdown = memory::breakdown(model, scenario);
    if let Some(w) = context_warning(model, scenario) {
        breakdown.notes.insert(0, w);
    }
    let calibrated = scenario.convention == Convention::Calibrated;
    let sizes: Vec<u32> = if scenario.cards > 1 {
        vec![scenario.cards]
    } else if !include_combos {
        vec![1]
    } else if calibrated && scenario.method.is_training() {
        // Training shards over nodes of 8 joined by a network (ZeRO-3 for the largest models).
        fit::COMBO_SIZES
            .iter()
            .copied()
            .chain(fit::MULTI_NODE_SIZES.iter().copied())
            .collect()
    } else {
        fit::COMBO_SIZES.to_vec()
    };
    let total = breakdown.total();
    let kv = breakdown.get(SegmentKind::KvCache);
    let need = |n: u32| -> Need {
        match scenario.convention {
            // Seed 003 adds the cards' memory up: each holds an equal share.
            Convention::Seed => Need {
                per_card: total / f64::from(n),
                kv_per_card: kv / f64::from(n),
            },
            // Calibrated: the breakdown itself changes with the card count (sharding, splits).
            Convention::Calibrated if n == scenario.cards => Need {
                per_card: total,
                kv_per_card: kv,
            },
            Convention::Calibrated => {
                let b = memory::breakdown(
                    model,
                    &Scenario {
                        cards: n,
                        ..scenario.clone()
                    },
                );
                Need {
                    per_card: b.total(),
                    kv_per_card: b.get(SegmentKind::KvCache),
                }
            }
        }
    };
    let a = &model.arch;
    let work = breakdown.decode_bytes_per_token.map(|read| DecodeWork {
        weights_bytes: read - breakdown.decode_kv_bytes_per_sequence,
        kv_bytes_per_sequence: breakdown.decode_kv_bytes_per_sequence,
        active_params: model.params().active as f64,
        hidden: a.hidden as f64,
        layers: a.layers as f64,
    });
    let ctx = Context {
        model,
        scenario,
        single_card_need: need(1).per_card,
        work,
        model_max_context: model.max_context,
    };
    let options = fit::options(gpus, &ctx, &sizes, &need);
    Plan {
        params: model.params(),
        kv_bytes_per_token: model.kv_bytes_per_token(scenario.kv.bytes_per_element()),
        breakdown,
        options,
    }
}
