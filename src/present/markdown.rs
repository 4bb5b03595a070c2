//! The plan as Markdown, for slides and chat (`plan --markdown`, the planner's `x`).

use std::fmt::Write as _;

use super::i18n::{formula, label, word};
use super::{money, option_label, segment_label};
use crate::engine::basics::units::{format_params, group_thousands, to_gb};
use crate::engine::{Choice, Gpu, Model, Plan, Scenario};
use crate::tr;

/// The plan as Markdown: scenario, breakdown with formulas, the fitting options.
pub fn plan_markdown(model: &Model, gpus: &[Gpu], scenario: &Scenario, plan: &Plan) -> String {
    let rent = &scenario.rent;
    let cur = rent.display_currency.as_str();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## {} — {} {}\n",
        model.name,
        label("method", scenario.method.id(), scenario.method.label()),
        scenario.weights.label()
    );
    let _ = writeln!(
        s,
        "{}{}\n",
        tr!(
            "markdown.scenario",
            params = format_params(plan.params.total),
            context = group_thousands(scenario.context as i64),
            batch = scenario.batch,
            kv = scenario.kv.label(),
            rules = word("rules", scenario.convention.id())
        ),
        if scenario.cards > 1 {
            format!(" · {}", tr!("tui.per_card_of", cards = scenario.cards))
        } else {
            String::new()
        }
    );
    if let Some(line) = super::target_text::target_line(scenario) {
        let _ = writeln!(s, "{line}\n");
    }
    let _ = writeln!(s, "| {} |\n|---|---:|---|", tr!("markdown.segment_header"));
    for seg in &plan.breakdown.segments {
        let _ = writeln!(
            s,
            "| {} | {:.2} | {} |",
            segment_label(seg.kind),
            to_gb(seg.bytes),
            formula(&seg.formula).replace('|', "\\|")
        );
    }
    let _ = writeln!(
        s,
        "| **{}** | **{:.2}** | |",
        tr!("plan.total"),
        to_gb(plan.total_bytes())
    );
    if plan.breakdown.host_bytes > 0.0 {
        let _ = writeln!(
            s,
            "| {} | {:.2} | {} |",
            tr!("plan.host"),
            to_gb(plan.breakdown.host_bytes),
            tr!("plan.host_about")
        );
    }
    let train = rent.train_tokens.is_some() && scenario.method.is_training();
    let _ = writeln!(
        s,
        "\n| {} | {}{} |\n|---|---|---:|---:|---:|{}---:|",
        tr!("markdown.options_header", hours = rent.hours),
        if train {
            format!("{} | ", tr!("markdown.finish_header"))
        } else {
            String::new()
        },
        tr!("markdown.decode_header"),
        if train { "---:|---:|" } else { "" }
    );
    let m = |v: Option<f64>| v.map_or("–".to_string(), |u| money(u, &rent.rates, cur));
    let mut seen = std::collections::HashSet::new();
    for o in plan
        .options
        .iter()
        .filter(|o| o.verdict.is_fit() && seen.insert(o.gpu))
        .take(12)
    {
        let _ = write!(
            s,
            "| {} | {} | {:.1} | {} | {} | ",
            word("verdict", o.verdict.id()),
            option_label(gpus, o),
            to_gb(o.free_bytes_per_card),
            m(o.price_usd_month),
            m(o.rent_cost_usd)
        );
        if train {
            let _ = write!(
                s,
                "{} | {} | ",
                o.training.map_or("–".into(), |t| format!("{:.1}", t.hours)),
                m(o.train_cost_usd)
            );
        }
        let _ = writeln!(
            s,
            "{} |",
            o.decode_tokens_per_s.map_or("–".into(), |t| format!("{t:.1}"))
        );
    }
    if let Some(line) = super::target_text::closing_line(gpus, scenario, &plan.options) {
        let _ = writeln!(s, "\n**{line}**");
    }
    let _ = writeln!(s, "\n{}", tr!("markdown.footer"));
    s
}
