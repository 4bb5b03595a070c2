//! The target in words: the line that states it, each option's cell in the table ("✓ 2×",
//! "✗ speed"), and the closing line naming the cheapest option that meets it.

use super::{money, option_label};
use crate::engine::target::{Check, Limit, Target};
use crate::engine::units::group_thousands;
use crate::engine::{FitOption, Gpu, Scenario};
use crate::tr;

/// "Target: 40 users at 8,192 tokens · ≥ 20 tokens/s each · first token ≤ 2 s (prompt
/// 1,024 tokens)"; `None` without a target.
pub fn target_line(sc: &Scenario) -> Option<String> {
    let t = &sc.target;
    if !t.is_set() {
        return None;
    }
    Some(tr!("target.line", what = target_parts(sc, t).join(" · ")))
}

/// The target's parts, each in words.
pub fn target_parts(sc: &Scenario, t: &Target) -> Vec<String> {
    let mut parts = Vec::new();
    if t.is_serving() {
        parts.push(tr!(
            "target.users",
            users = group_thousands(t.users() as i64),
            context = group_thousands(sc.context as i64)
        ));
    }
    if let Some(v) = t.min_tps {
        parts.push(tr!("target.min_tps", tps = plain(v)));
    }
    if let Some(v) = t.max_ttft_s {
        parts.push(tr!(
            "target.max_ttft",
            secs = plain(v),
            prompt = group_thousands(sc.prompt as i64)
        ));
    }
    if let Some(h) = t.deadline_h {
        parts.push(tr!("target.deadline", hours = plain(h)));
    }
    parts
}

fn plain(v: f64) -> String {
    crate::engine::units::plain_number(v)
}

/// A limit in a word, for the table's cell and the planner's rows.
pub fn limit_word(l: Limit) -> String {
    match l {
        Limit::Memory => tr!("target.limit_memory"),
        Limit::PerUserTps => tr!("target.limit_speed"),
        Limit::Ttft => tr!("target.limit_ttft"),
        Limit::Deadline => tr!("target.limit_deadline"),
        Limit::Replicas => tr!("target.limit_replicas", n = crate::engine::target::MAX_REPLICAS),
    }
}

/// An option's cell: "✓ 1×", "✓ 3×" (replicas), "✗ speed"; "-" where the target does not
/// judge the option.
pub fn cell(check: Option<&Check>) -> String {
    match check {
        None => "-".into(),
        Some(c) if c.meets => tr!("target.cell_meets", n = c.replicas),
        Some(c) => tr!(
            "target.cell_fails",
            why = c.binding.map_or_else(|| "?".into(), limit_word)
        ),
    }
}

/// "one replica", "3 replicas".
pub fn replicas_text(n: u32) -> String {
    if n == 1 {
        tr!("target.one_replica")
    } else {
        tr!("target.replicas", n = n)
    }
}

/// The closing line: the cheapest option that meets the target, its replicas, users per
/// replica, per-user speed and price; or that none does and what stops the closest.
pub fn closing_line(gpus: &[Gpu], sc: &Scenario, options: &[FitOption]) -> Option<String> {
    if !sc.target.is_set() {
        return None;
    }
    let rent = &sc.rent;
    let price = |usd: f64| money(usd, &rent.rates, &rent.display_currency);
    let Some(o) = crate::engine::target::cheapest_meeting(options) else {
        return Some(tr!("target.none"));
    };
    let c = o.target?;
    let mut line = if sc.method.is_training() {
        tr!(
            "target.cheapest_training",
            option = option_label(gpus, o),
            hours = c
                .finish_h
                .map_or_else(|| "-".into(), |m| format!("{:.1}", m.value)),
            cost = c.cost_usd.map_or_else(|| "-".into(), price)
        )
    } else {
        tr!(
            "target.cheapest_serving",
            option = option_label(gpus, o),
            replicas = replicas_text(c.replicas),
            users = c.users_per_replica,
            tps = c
                .per_user_tps
                .map_or_else(|| "-".into(), |m| format!("{:.1}", m.value)),
            price = c.price_usd_month.map_or_else(|| "-".into(), price)
        )
    };
    if c.optimistic {
        line.push(' ');
        line.push_str(&tr!("target.optimistic"));
    }
    Some(line)
}
