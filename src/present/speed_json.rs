//! The JSON of an option's expected speeds and of its judgement against the target: parts
//! of `plan --json` and `fit --json` (`present::json`).

use serde::Serialize;

use crate::engine::hardware::gpu::Gpu;
use crate::engine::model::Model;
use crate::engine::verdict::fit::FitOption;
use crate::engine::verdict::meets_target::{Check, Margin};
use crate::engine::workload::scenario::Scenario;

/// Money and speeds in the JSON: two decimals.
pub fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The expected speeds beside an option's ceilings, in `plan --json` and `fit --json`.
#[derive(Serialize, Default)]
pub struct ExpectedJson {
    /// Expected decode per stream (tokens/s): 1 ÷ (1 ÷ (efficiency × ceiling) + fixed
    /// seconds per token), the median efficiency and the fixed cost fitted on published runs
    /// of this option's class (no fixed cost: the ceiling × their median share); null where
    /// the class has fewer than 3 runs.
    pub expected_decode_tokens_per_s: Option<f64>,
    /// [low, high]: the same at the class's lowest and highest efficiency.
    pub expected_decode_band: Option<[f64; 2]>,
    pub expected_aggregate_tokens_per_s: Option<f64>,
    /// The compute roofline's prefill rate × the prefill class's median share.
    pub expected_prefill_tokens_per_s: Option<f64>,
    /// Time to first token for the batch's prompts at the expected prefill rate.
    pub expected_ttft_s: Option<f64>,
    /// The decode class the expected figures come from, and its runs.
    pub speed_class: Option<SpeedClassJson>,
}

#[derive(Serialize)]
pub struct SpeedClassJson {
    pub name: &'static str,
    pub runs: usize,
}

/// An option's expected speeds (`FitOption::expected`) as the JSON gives them.
pub fn expected_json(model: &Model, scenario: &Scenario, gpu: &Gpu, o: &FitOption) -> ExpectedJson {
    let e = o.expected(model, scenario, gpu);
    ExpectedJson {
        expected_decode_tokens_per_s: e.decode_tokens_per_s.map(round2),
        expected_decode_band: e.decode_band.map(|[lo, hi]| [round2(lo), round2(hi)]),
        expected_aggregate_tokens_per_s: e.aggregate_tokens_per_s.map(round2),
        expected_prefill_tokens_per_s: e.prefill_tokens_per_s.map(round2),
        expected_ttft_s: e.ttft_s.map(|s| (s * 1e4).round() / 1e4),
        speed_class: e.decode_class.map(|c| SpeedClassJson {
            name: c.name,
            runs: c.runs,
        }),
    }
}

/// An option against the scenario's target (`engine::verdict::meets_target::check`): flattened into the
/// option's JSON; every field null without a target.
#[derive(Serialize, Default)]
pub struct TargetJson {
    /// Independent copies of the option the target needs (0: not even one serves).
    pub replicas: Option<u32>,
    pub meets_target: Option<bool>,
    /// Each limit: what the option gives (`value`), what the target asks (`limit`) and the
    /// headroom (`margin`, positive when met).
    pub target_limits: Option<TargetLimitsJson>,
}

#[derive(Serialize)]
pub struct TargetLimitsJson {
    /// Users each replica serves.
    pub users_per_replica: u64,
    /// What stops a replica from serving more: memory, per-user-tps, ttft, deadline,
    /// replicas; null when one replica serves every user.
    pub binding: Option<&'static str>,
    /// Sequences one replica holds at the context, against its users.
    pub memory: Option<MarginJson>,
    pub per_user_tps: Option<MarginJson>,
    pub ttft_s: Option<MarginJson>,
    pub finish_h: Option<MarginJson>,
    /// A speed came from the ceiling alone (no class of measured runs): real runs are slower.
    pub optimistic: bool,
    /// Replicas × the option's monthly price.
    pub price_usd_month: Option<f64>,
}

#[derive(Serialize)]
pub struct MarginJson {
    pub value: f64,
    pub limit: Option<f64>,
    pub margin: Option<f64>,
}

fn margin_json(m: Margin) -> MarginJson {
    let r3 = |v: f64| (v * 1e3).round() / 1e3;
    MarginJson {
        value: r3(m.value),
        limit: m.limit,
        margin: m.margin.map(r3),
    }
}

/// An option's target fields.
pub fn target_json(check: Option<&Check>) -> TargetJson {
    let Some(c) = check else {
        return TargetJson::default();
    };
    TargetJson {
        replicas: Some(c.replicas),
        meets_target: Some(c.meets),
        target_limits: Some(TargetLimitsJson {
            users_per_replica: c.users_per_replica,
            binding: c.binding.map(|b| b.id()),
            memory: c.memory.map(margin_json),
            per_user_tps: c.per_user_tps.map(margin_json),
            ttft_s: c.ttft_s.map(margin_json),
            finish_h: c.finish_h.map(margin_json),
            optimistic: c.optimistic(),
            price_usd_month: c.price_usd_month.map(round2),
        }),
    }
}
