//! What would reach a target, or reach it for less: each change (an 8-bit KV cache, half the
//! context, half the users, a lower speed, a longer wait, a later deadline) re-planned over
//! the catalog, and the cheapest option meeting the target after it (`engine::verdict::meets_target`).

use serde::Serialize;

use crate::engine::hardware::gpu::Gpu;
use crate::engine::model::Model;
use crate::engine::model::precision::KvPrecision;
use crate::engine::renting::cheapest_meeting;
use crate::engine::workload::scenario::Scenario;

/// One change that could make the target reachable (or cheaper).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "kebab-case")]
pub enum Remedy {
    /// An 8-bit KV cache: half the memory per user, half the KV read per token.
    KvFp8,
    /// A shorter context for every user.
    Context { tokens: u64 },
    /// Fewer users.
    Users { users: u64 },
    /// A lower speed per user.
    MinTps { tokens_per_s: f64 },
    /// A longer wait for the first token.
    MaxTtft { seconds: f64 },
    /// A later deadline.
    Deadline { hours: f64 },
}

impl Remedy {
    /// The scenario with the change made.
    pub fn apply(self, sc: &Scenario) -> Scenario {
        let mut s = sc.clone();
        match self {
            Remedy::KvFp8 => s.kv = KvPrecision::Fp8,
            Remedy::Context { tokens } => s.context = tokens,
            Remedy::Users { users } => s.target.users = Some(users),
            Remedy::MinTps { tokens_per_s } => s.target.min_tps = Some(tokens_per_s),
            Remedy::MaxTtft { seconds } => s.target.max_ttft_s = Some(seconds),
            Remedy::Deadline { hours } => s.target.deadline_h = Some(hours),
        }
        s
    }

    /// The `plan` flags that make the change.
    pub fn flags(self) -> Vec<String> {
        let plain = crate::engine::basics::units::plain_number;
        match self {
            Remedy::KvFp8 => vec!["--kv".into(), "fp8".into()],
            Remedy::Context { tokens } => vec!["--context".into(), tokens.to_string()],
            Remedy::Users { users } => vec!["--users".into(), users.to_string()],
            Remedy::MinTps { tokens_per_s } => vec!["--min-tps".into(), plain(tokens_per_s)],
            Remedy::MaxTtft { seconds } => vec!["--max-ttft".into(), plain(seconds)],
            Remedy::Deadline { hours } => vec!["--deadline".into(), format!("{}h", plain(hours))],
        }
    }
}

/// The cheapest option that meets the target as asked, over `gpus` with combos (`None`
/// without a target or when none meets it).
pub fn as_asked(model: &Model, gpus: &[Gpu], sc: &Scenario) -> Option<(usize, u32, u32, f64)> {
    let plan = crate::engine::verdict::plan::plan(model, gpus, sc, true);
    cheapest_meeting(&plan.options).and_then(|o| {
        o.target
            .and_then(|c| c.cost().map(|cost| (o.gpu, o.count, c.replicas, cost)))
    })
}

/// What the cheapest option meeting the target is under one change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    pub remedy: Remedy,
    /// The option (catalog index, count), its replicas and its cost (a month of the
    /// replicas, or a fine-tune's cost to finish); `None`: still nothing meets it.
    pub cheapest: Option<(usize, u32, u32, f64)>,
}

/// The changes a user can make to reach the target (or reach it for less), each re-planned
/// over `gpus` with combos: an 8-bit KV cache, half the context, half the users, three
/// quarters of the speed, twice the TTFT, half again the deadline, as far as they apply.
pub fn reachable(model: &Model, gpus: &[Gpu], sc: &Scenario) -> Vec<Reach> {
    let t = sc.target;
    if !t.is_set() {
        return Vec::new();
    }
    let cheapest = |s: &Scenario| as_asked(model, gpus, s);
    let mut remedies = Vec::new();
    if sc.method.is_training() {
        if let Some(h) = t.deadline_h {
            remedies.push(Remedy::Deadline {
                hours: (h * 1.5).round(),
            });
        }
    } else {
        if sc.kv.bytes_per_element() >= 2.0 {
            remedies.push(Remedy::KvFp8);
        }
        if sc.context >= 2048 {
            remedies.push(Remedy::Context {
                tokens: sc.context / 2,
            });
        }
        if t.users() >= 2 {
            remedies.push(Remedy::Users { users: t.users() / 2 });
        }
        if let Some(v) = t.min_tps {
            remedies.push(Remedy::MinTps {
                tokens_per_s: (v * 0.75 * 10.0).round() / 10.0,
            });
        }
        if let Some(v) = t.max_ttft_s {
            remedies.push(Remedy::MaxTtft { seconds: v * 2.0 });
        }
    }
    remedies
        .into_iter()
        .filter_map(|remedy| {
            let changed = remedy.apply(sc);
            changed.validate().ok()?;
            Some(Reach {
                remedy,
                cheapest: cheapest(&changed),
            })
        })
        .collect()
}
