//! The target in words: the line that states it, each option's cell in the table ("✓ 2×",
//! "✗ speed"), and the closing line naming the cheapest option that meets it.

use super::{money, option_label};
use crate::engine::basics::units::group_thousands;
use crate::engine::renting::reach::{Reach, Remedy};
use crate::engine::verdict::meets_target::{Check, Limit, Margin, Target};
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
    crate::engine::basics::units::plain_number(v)
}

/// A limit in a word, for the table's cell and the planner's rows.
pub fn limit_word(l: Limit) -> String {
    match l {
        Limit::Memory => tr!("target.limit_memory"),
        Limit::PerUserTps => tr!("target.limit_speed"),
        Limit::Ttft => tr!("target.limit_ttft"),
        Limit::Deadline => tr!("target.limit_deadline"),
        Limit::Replicas => tr!(
            "target.limit_replicas",
            n = crate::engine::verdict::meets_target::MAX_REPLICAS
        ),
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

/// The planner's title: "target: 2× A40, one replica, $456/mo", or that nothing meets it.
pub fn title(gpus: &[Gpu], sc: &Scenario, options: &[FitOption]) -> Option<String> {
    if !sc.target.is_set() {
        return None;
    }
    let rent = &sc.rent;
    Some(match crate::engine::renting::cheapest_meeting(options) {
        Some(o) if sc.method.is_training() => {
            let c = o.target?;
            tr!(
                "tui.title_target_training",
                option = option_label(gpus, o),
                hours = c
                    .finish_h
                    .map_or_else(|| "-".into(), |m| crate::present::compact_hours(m.value)),
                cost = c.cost_usd.map_or_else(
                    || "-".into(),
                    |usd| money(usd, &rent.rates, &rent.display_currency)
                )
            )
        }
        Some(o) => {
            let c = o.target?;
            tr!(
                "tui.title_target_meets",
                option = option_label(gpus, o),
                replicas = replicas_text(c.replicas),
                price = c.cost().map_or_else(
                    || "-".into(),
                    |usd| money(usd, &rent.rates, &rent.display_currency)
                )
            )
        }
        None => tr!("tui.title_target_none"),
    })
}

/// The closing line: the cheapest option that meets the target, its replicas, users per
/// replica, per-user speed and price; or that none does and what stops the closest.
pub fn closing_line(gpus: &[Gpu], sc: &Scenario, options: &[FitOption]) -> Option<String> {
    if !sc.target.is_set() {
        return None;
    }
    let rent = &sc.rent;
    let price = |usd: f64| money(usd, &rent.rates, &rent.display_currency);
    let Some(o) = crate::engine::renting::cheapest_meeting(options) else {
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
    if let Some(said) = optimism(&c) {
        line.push(' ');
        line.push_str(&said);
    }
    Some(line)
}

/// A change toward the target, in words: "FP8 KV cache", "context 4,096", "20 users".
pub fn remedy_label(r: Remedy) -> String {
    let plain = crate::engine::basics::units::plain_number;
    match r {
        Remedy::KvFp8 => tr!("target.remedy_kv"),
        Remedy::Context { tokens } => tr!("target.remedy_context", n = group_thousands(tokens as i64)),
        Remedy::Users { users } => tr!("target.remedy_users", n = group_thousands(users as i64)),
        Remedy::MinTps { tokens_per_s } => tr!("target.remedy_tps", tps = plain(tokens_per_s)),
        Remedy::MaxTtft { seconds } => tr!("target.remedy_ttft", secs = plain(seconds)),
        Remedy::Deadline { hours } => tr!("target.remedy_deadline", hours = plain(hours)),
    }
}

/// What a change would give: "2× A40, one replica, $456/month", or that nothing meets it.
pub fn reach_result(gpus: &[Gpu], sc: &Scenario, cheapest: Option<(usize, u32, u32, f64)>) -> String {
    let rent = &sc.rent;
    match cheapest {
        Some((g, n, replicas, cost)) => {
            let card = if n > 1 {
                format!("{n}× {}", gpus[g].name)
            } else {
                gpus[g].name.clone()
            };
            let price = money(cost, &rent.rates, &rent.display_currency);
            if sc.method.is_training() {
                tr!("target.reach_training", option = card, cost = price)
            } else {
                tr!(
                    "target.reach_serving",
                    option = card,
                    replicas = replicas_text(replicas),
                    price = price
                )
            }
        }
        None => tr!("target.reach_none"),
    }
}

/// The section `vramfit fit` prints under a target: each change and what it would cost.
pub fn remedies_text(
    gpus: &[Gpu],
    sc: &Scenario,
    asked: Option<(usize, u32, u32, f64)>,
    reaches: &[Reach],
) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    if !sc.target.is_set() {
        return s;
    }
    let _ = writeln!(s, "\n{}", tr!("target.remedies"));
    let _ = writeln!(
        s,
        "  {:<28} {}",
        tr!("target.as_asked"),
        reach_result(gpus, sc, asked)
    );
    for r in reaches {
        let _ = writeln!(
            s,
            "  {:<28} {}  ({})",
            remedy_label(r.remedy),
            reach_result(gpus, sc, r.cheapest),
            r.remedy.flags().join(" ")
        );
    }
    s
}

/// One change toward the target in `vramfit fit --json`.
#[derive(serde::Serialize)]
pub struct ReachJson {
    #[serde(flatten)]
    pub remedy: Remedy,
    pub flags: Vec<String>,
    /// The cheapest option that meets the target after the change; null: none does.
    pub gpu: Option<String>,
    pub count: Option<u32>,
    pub replicas: Option<u32>,
    /// A month of the replicas (serving) or the cost to finish (a fine-tune), in dollars.
    pub cost_usd: Option<f64>,
}

pub fn reach_json(gpus: &[Gpu], r: &Reach) -> ReachJson {
    ReachJson {
        remedy: r.remedy,
        flags: r.remedy.flags(),
        gpu: r.cheapest.map(|(g, ..)| gpus[g].id.clone()),
        count: r.cheapest.map(|(_, n, ..)| n),
        replicas: r.cheapest.map(|(_, _, k, _)| k),
        cost_usd: r.cheapest.map(|(.., c)| super::json::round2(c)),
    }
}

/// The explain view's lines for one option under a target: how many users one copy holds and
/// what holds it there (its KV budget, each user's speed at that batch, the first token), the
/// replicas and their month; a fine-tune's time against the deadline.
pub fn explain_lines(o: &FitOption, sc: &Scenario) -> Vec<String> {
    let Some(c) = o.target else {
        return Vec::new();
    };
    let rent = &sc.rent;
    let price = |usd: f64| money(usd, &rent.rates, &rent.display_currency);
    let mut lines = vec![target_line(sc).unwrap_or_default()];
    if let Some(f) = c.finish_h {
        lines.push(tr!(
            "target.explain_finish",
            hours = format!("{:.1}", f.value),
            deadline = f
                .limit
                .map_or_else(String::new, crate::engine::basics::units::plain_number),
            cost = c.cost_usd.map_or_else(|| "-".into(), price)
        ));
    } else {
        let v = |m: Option<Margin>| m.map_or_else(|| "-".into(), |m| format!("{:.2}", m.value));
        lines.push(tr!(
            "target.explain_copy",
            users = c.users_per_replica,
            held = c.memory.map_or(0.0, |m| m.value),
            context = group_thousands(sc.context as i64),
            tps = v(c.per_user_tps),
            ttft = v(c.ttft_s)
        ));
        if c.replicas > 0 {
            lines.push(tr!(
                "target.explain_replicas",
                replicas = replicas_text(c.replicas),
                total = c.price_usd_month.map_or_else(|| "-".into(), price)
            ));
        }
    }
    lines.push(match (c.meets, c.binding) {
        (true, None) => tr!("target.explain_meets_one"),
        (true, Some(l)) => tr!("target.explain_meets", why = limit_word(l)),
        (false, l) => tr!(
            "target.explain_fails",
            why = l.map_or_else(|| "?".into(), limit_word)
        ),
    });
    lines.extend(optimism(&c));
    lines
}

/// What a check's figures rest on when no class of measured runs backs them: the speed (and
/// so everything) is the ceiling's, or only the time to first token is.
fn optimism(c: &Check) -> Option<String> {
    if c.speed_from_ceiling {
        Some(tr!("target.optimistic"))
    } else if c.ttft_from_ceiling {
        Some(tr!("target.optimistic_ttft"))
    } else {
        None
    }
}
