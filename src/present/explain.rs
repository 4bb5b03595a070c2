//! The explain view's text for a card or combo: every figure with its formula and numbers.

use crate::engine::basics::choice::Choice;
use crate::engine::basics::units::{format_gb, group_thousands};
use crate::engine::hardware::gpu::Gpu;
use crate::engine::hardware::offers::HOURS_PER_MONTH;
use crate::engine::verdict::fit::{FitOption, TIGHT_PER_CARD_BYTES, TIGHT_SINGLE_BYTES, Verdict};
use crate::engine::verdict::plan::Plan;
use crate::engine::workload::scenario::{Rent, Scenario, TightRule};
use crate::present::explain_serving::serving_lines;
use crate::present::i18n::{formula, label, word};
use crate::tr;

/// Lines explaining why `option` got its verdict, price and decode ceiling.
pub fn explain_option(
    model: &crate::engine::Model,
    gpu: &Gpu,
    option: &FitOption,
    plan: &Plan,
    scenario: &Scenario,
) -> Vec<String> {
    let mut lines = memory_lines(gpu, option, plan, scenario);
    lines.extend(rent_lines(gpu, option, scenario));
    lines.extend(serving_lines(gpu, option, plan, scenario));
    lines.extend(expected_lines(model, gpu, option, scenario));
    lines.extend(super::target_text::explain_lines(option, scenario));
    lines
}

/// The expected speeds beside the ceilings: the class whose measured runs give them, how many
/// runs and what share of their ceilings they reached; or that no class has enough runs.
fn expected_lines(
    model: &crate::engine::Model,
    gpu: &Gpu,
    option: &FitOption,
    scenario: &Scenario,
) -> Vec<String> {
    if option.roofline.is_none() || scenario.method.is_training() {
        return Vec::new();
    }
    let e = option.expected(model, scenario, gpu);
    let pct = |x: f64| format!("{:.0}", x * 100.0);
    let mut lines = Vec::new();
    match (e.decode_tokens_per_s, e.decode_band, e.decode_class) {
        // A class with a fixed cost per token says it: its percentages are of the ceiling's
        // time alone, not shares of the ceiling (the other message has no `fixed`).
        (Some(d), Some([lo, hi]), Some(c)) => lines.push(tr!(
            if c.fixed_s > 0.0 {
                "explain.expected_decode_fixed"
            } else {
                "explain.expected_decode"
            },
            tps = format!("{d:.1}"),
            low = format!("{lo:.0}"),
            high = format!("{hi:.0}"),
            aggregate = format!("{:.0}", e.aggregate_tokens_per_s.unwrap_or(d)),
            class = c.name,
            runs = c.runs,
            fixed = format!("{:.1}", c.fixed_s * 1e3),
            median = pct(c.median),
            lowest = pct(c.low),
            highest = pct(c.high)
        )),
        _ => lines.push(tr!("explain.expected_none")),
    }
    if let (Some(p), Some(t), Some(c)) = (e.prefill_tokens_per_s, e.ttft_s, e.prefill_class) {
        lines.push(tr!(
            "explain.expected_prefill",
            tps = format!("{p:.0}"),
            ttft = format!("{t:.2}"),
            class = c.name,
            runs = c.runs,
            median = pct(c.median)
        ));
    }
    lines
}

/// The card's memory, what the plan needs of it, what is left and the verdict.
fn memory_lines(gpu: &Gpu, option: &FitOption, plan: &Plan, scenario: &Scenario) -> Vec<String> {
    let n = option.count;
    let need = plan.total_bytes();
    let mut lines = vec![
        format!(
            "{}{}",
            if n > 1 { format!("{n}× ") } else { String::new() },
            gpu.name
        ),
        tr!(
            "explain.memory",
            marketed = gpu.memory_gb,
            reported = gpu.memory_smi_mib.map_or(String::new(), |mib| tr!(
                "explain.reports",
                tool = gpu.stack.smi_tool(),
                mib = group_thousands(mib as i64)
            )),
            runtime = gpu.stack.runtime(),
            visible = gpu
                .memory_visible_bytes
                .map_or(tr!("explain.not_known"), format_gb),
        ),
        match scenario.convention {
            crate::engine::workload::scenario::Convention::Calibrated => tr!(
                "explain.capacity_calibrated",
                n = n,
                each = format_gb(gpu.memory_real_bytes()),
                runtime = gpu.stack.runtime(),
                total = format_gb(option.capacity_bytes)
            ),
            crate::engine::workload::scenario::Convention::Seed => tr!(
                "explain.capacity_quick",
                n = n,
                marketed = gpu.memory_gb,
                total = format_gb(option.capacity_bytes)
            ),
        },
        tr!(
            "explain.usable",
            usable = format_gb(option.usable_bytes),
            share = if crate::engine::verdict::judge::usable_fraction(scenario, gpu, option.count) < 1.0 {
                tr!(
                    "explain.serving_share",
                    percent = format!(
                        "{:.0}",
                        crate::engine::runtimes::settle::gpu_util_for(scenario, gpu, option.count) * 100.0
                    )
                )
            } else {
                String::new()
            } + &if gpu.in_use_bytes > 0.0 {
                // This machine's cards: what other processes hold (how it counts depends on
                // the runtime: `engine::verdict::judge::usable_per_card`).
                tr!("explain.in_use", used = format_gb(gpu.in_use_bytes))
            } else {
                String::new()
            }
        ),
        tr!(
            "explain.requirement",
            method = label("method", scenario.method.id(), scenario.method.label()),
            rules = word("rules", scenario.convention.id()),
            per_card = format_gb(option.per_card_bytes),
            // The plan's own total is the whole plan only when it is drawn for one card.
            cards = match (n, scenario.cards) {
                (1, _) => String::new(),
                (_, 1) => tr!("explain.on_cards", n = n, one = format_gb(need)),
                (_, drawn) if drawn == n => tr!("explain.on_n_cards", n = n),
                (_, drawn) => tr!(
                    "explain.on_cards_drawn",
                    n = n,
                    cards = drawn,
                    per_card = format_gb(need)
                ),
            }
        ),
        tr!(
            "explain.free",
            usable = format_gb(option.usable_bytes / f64::from(n)),
            need = format_gb(option.per_card_bytes),
            free = format_gb(option.free_bytes_per_card),
            all = if n > 1 {
                tr!("explain.in_all", gb = format_gb(option.free_bytes))
            } else {
                String::new()
            }
        ),
    ];
    if let Some(src) = gpu.memory_source.as_deref() {
        lines.insert(2, tr!("explain.memory_source", source = src));
    }
    // A slice's share of its card: where its bandwidth and throughput come from.
    if gpu.is_slice()
        && let Some(share) = gpu.mig.as_deref()
    {
        lines.insert(
            3,
            tr!(
                "explain.slice_of",
                share = share,
                gbs = format!("{}", gpu.bandwidth_gbs)
            ),
        );
    }
    lines.push(verdict_line(gpu, option, scenario));
    lines
}

/// The verdict with the rule that made it, or why it is no.
fn verdict_line(gpu: &Gpu, option: &FitOption, scenario: &Scenario) -> String {
    let n = option.count;
    let rule = match scenario.tight_rule {
        TightRule::Seed if n == 1 => tr!("explain.tight_one", gb = format_gb(TIGHT_SINGLE_BYTES)),
        TightRule::Seed => tr!("explain.tight_per_card", gb = format_gb(TIGHT_PER_CARD_BYTES)),
        TightRule::Margin(f) => tr!("explain.tight_margin", percent = format!("{:.0}", f * 100.0)),
    };
    match option.verdict {
        Verdict::Fits => tr!("explain.verdict_fits", rule = rule),
        Verdict::Tight => tr!("explain.verdict_tight", rule = rule),
        Verdict::No => tr!(
            "explain.verdict_no",
            why = option
                .reason
                .map(|r| formula(&r.text(gpu)).into_owned())
                .unwrap_or_default()
        ),
    }
}

/// One offer's arithmetic: "provider (kind): price per card × n … for h → $cost".
/// The cost is shown in the display currency, to the cent; the rate is named when the
/// offer's own currency is another.
fn describe_offer(gpu: &Gpu, n: u32, index: usize, hours: f64, cost: f64, rent: &Rent) -> String {
    let o = &gpu.offers[index];
    let currency = rent.display_currency.as_str();
    let symbol = if currency == "CNY" { "¥" } else { "$" };
    let range = o.price_max.map_or(String::new(), |m| format!("–{m}"));
    let discount = o.discount_for(n);
    tr!(
        "explain.offer",
        provider = o.provider,
        kind = word("offer_kind", o.kind.id()),
        region = o.region.as_deref().map_or(String::new(), |r| format!(", {r}")),
        price = format!("{}{range} {}/{}", o.price, o.currency, word("per", o.per.id())),
        n = n,
        discount = if discount > 0.0 {
            format!(" × (1 − {:.0} %)", discount * 100.0)
        } else {
            String::new()
        },
        minimum = o
            .min_term_days
            .map_or(String::new(), |d| tr!("explain.minimum_days", days = d)),
        hours = group_thousands(hours.round() as i64),
        cost = format!("{symbol}{:.2}", rent.rates.from_usd(cost, currency)),
        rate = if !o.currency.eq_ignore_ascii_case(currency) {
            tr!("explain.at_rate", rate = rent.rates.usd_cny)
        } else {
            String::new()
        },
        seen = super::seen_text(o, crate::dates::today())
            .map_or(String::new(), |s| tr!("explain.seen", seen = s))
    )
}

/// The rental: the term's offer, the monthly price, spot apart, and the time and cost to
/// finish a fine-tune.
fn rent_lines(gpu: &Gpu, option: &FitOption, scenario: &Scenario) -> Vec<String> {
    let n = option.count;
    let rent = &scenario.rent;
    let describe = |index: usize, hours: f64, cost: f64| describe_offer(gpu, n, index, hours, cost, rent);
    let mut lines = Vec::new();
    match (option.offer, option.rent_cost_usd) {
        (Some(i), Some(cost)) => lines.push(tr!("explain.rent", offer = describe(i, rent.hours, cost))),
        _ if !gpu.offers.is_empty() => lines.push(tr!(
            "explain.rent_no_offer",
            n = n,
            min = gpu.offers.iter().map(|o| o.min_cards).min().unwrap_or(1)
        )),
        _ => lines.push(tr!("explain.rent_no_price")),
    }
    if let Some(p) = option.price_usd_month {
        lines.push(tr!(
            "explain.per_month",
            month = super::money(p, &rent.rates, &rent.display_currency),
            hour = super::money(p / HOURS_PER_MONTH, &rent.rates, &rent.display_currency)
        ));
    }
    if let (Some(i), Some(cost)) = (option.spot_offer, option.spot_rent_cost_usd) {
        lines.push(tr!("explain.spot", offer = describe(i, rent.hours, cost)));
    }
    if let Some(t) = option.training {
        lines.push(tr!(
            "explain.finish_formula",
            tokens = group_thousands(t.tokens as i64),
            flops = format!("{:.2e}", t.flops_per_token),
            n = n,
            tflops = gpu.bf16_tflops.unwrap_or(0.0),
            utilization = format!("{:.0}", rent.utilization * 100.0),
            hours = format!("{:.1}", t.compute_hours),
            dequant = if t.dequant_hours > 0.0 {
                tr!("explain.dequant", hours = format!("{:.1}", t.dequant_hours))
            } else {
                String::new()
            }
        ));
        if t.comm_hours > 0.0 {
            lines.push(tr!(
                "explain.traffic",
                hours = format!("{:.1}", t.comm_hours),
                link = formula(&option.link.to_string())
            ));
        }
        lines.push(tr!("explain.finish", hours = format!("{:.1}", t.hours)));
        if let (Some(i), Some(cost)) = (option.train_offer, option.train_cost_usd) {
            lines.push(tr!("explain.finish_cost", offer = describe(i, t.hours, cost)));
        }
    }
    lines
}

/// Why the calibrated and quick rules give a segment different sizes, in the current
/// language (`difference.<segment>`).
pub fn convention_difference(kind: crate::engine::memory::SegmentKind) -> String {
    crate::present::i18n::message(&format!("difference.{}", kind.id()))
}
