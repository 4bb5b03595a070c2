//! The CLI's readable tables: the plan, the guide's lookup table, models and cards.

use std::fmt::Write as _;

use serde::Serialize;

use super::json::round2;
use super::plan_table::Table;
use super::{i18n, money, option_label};
use crate::catalog::Catalog;
use crate::engine::basics::units::{format_gb, format_usd, group_thousands, to_gb};
use crate::engine::verdict::lookup::lookup_table as compute_lookup;
use crate::engine::{Choice, Gpu, Model, Plan, Scenario};
use crate::text::{pad, pad_left};
use crate::tr;

/// How many of the closest options the table lists when nothing fits.
const CLOSEST_ROWS: usize = 5;

/// The readable plan: header, breakdown, options.
pub fn plan_text(model: &Model, gpus: &[Gpu], scenario: &Scenario, plan: &Plan, all: bool) -> String {
    let mut s = String::new();
    breakdown_text(&mut s, model, gpus, scenario, plan);
    let _ = writeln!(s);
    let table = Table::for_scenario(scenario);
    table.header(&mut s, scenario.rent.hours);
    // Unless --all: per card only the smallest count that fits; when nothing fits, the
    // cards that come closest (ranked options list them first), each marked as a no.
    let per_card = crate::engine::verdict::rank::one_row_per_card(&plan.options);
    let rows: Vec<usize> = if all {
        (0..plan.options.len()).collect()
    } else if plan.best().is_none() {
        per_card.into_iter().take(CLOSEST_ROWS).collect()
    } else {
        per_card
            .into_iter()
            .filter(|&i| plan.options[i].verdict.is_fit())
            .collect()
    };
    if !all && plan.best().is_none() && !rows.is_empty() {
        let _ = writeln!(s, "  {}", tr!("plan.closest", n = rows.len()));
    }
    let hidden = plan.options.len() - rows.len();
    for o in rows.iter().map(|&i| &plan.options[i]) {
        table.line(&mut s, gpus, o);
    }
    closing_text(&mut s, gpus, scenario, plan, hidden);
    if let Some(line) = super::target_text::closing_line(gpus, scenario, &plan.options) {
        let _ = writeln!(s, "{line}");
    }
    if let Some(text) = plan
        .target()
        .and_then(|o| super::placement::placement_text(gpus, scenario, o))
    {
        let _ = write!(s, "\n{text}");
    }
    s
}

/// The plan's header and its breakdown, segment by segment with the formulas.
fn breakdown_text(s: &mut String, model: &Model, gpus: &[Gpu], scenario: &Scenario, plan: &Plan) {
    let p = plan.params;
    let params = if p.active != p.total {
        tr!(
            "params.active",
            total = i18n::params(p.total),
            active = i18n::params(p.active)
        )
    } else {
        tr!("params.total", total = i18n::params(p.total))
    };
    // A state-space model's cache is a state per sequence, not bytes per token.
    let state = crate::engine::memory::kv::state_elements(model) as f64 * scenario.kv.bytes_per_element();
    let _ = writeln!(
        *s,
        "{}{}",
        tr!(
            "plan.header",
            name = model.name,
            id = model.id,
            params = params,
            kv_bytes = group_thousands(plan.kv_bytes_per_token.round() as i64),
            kv = scenario.kv.label()
        ),
        if state > 0.0 {
            format!(" · {}", tr!("plan.state", mb = format!("{:.2}", state / 1e6)))
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        *s,
        "{}",
        tr!(
            "plan.scenario",
            method = i18n::word("method", scenario.method.id()),
            weights = scenario.weights.label(),
            kv = scenario.kv.label(),
            // Every option on one context the runtime picked (Ollama on `--gpu X`): that one,
            // as the breakdown below uses it.
            context = group_thousands(planned_context(scenario, plan) as i64),
            batch = scenario.batch,
            convention = i18n::word("convention", scenario.convention.id())
        )
    );
    if let Some(line) = super::target_text::target_line(scenario) {
        let _ = writeln!(*s, "{line}");
    }
    if scenario.framework != crate::engine::Framework::Generic {
        let values: Vec<String> = scenario
            .framework
            .presets(scenario)
            .iter()
            .map(|p| match p.setting {
                // Evaluated for each option's card count: say so, with the values.
                crate::engine::runtimes::presets::Setting::GpuUtilByCount(_) => format!(
                    "--{} {}",
                    p.setting.flag(),
                    crate::engine::verdict::fit::COMBO_SIZES
                        .iter()
                        .map(|n| format!("{n}×{}", scenario.gpu_util_on(*n)))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                _ => format!("--{} {}", p.setting.flag(), p.setting.value()),
            })
            .collect();
        let _ = writeln!(
            *s,
            "{}",
            tr!(
                "plan.framework",
                framework = scenario.runtime_label(),
                values = values.join(" · ")
            )
        );
    }
    let _ = writeln!(*s);
    for seg in &plan.breakdown.segments {
        let _ = writeln!(
            s,
            "  {} {:>11}  {}",
            pad(&i18n::word("segment", seg.kind.id()), 12),
            format_gb(seg.bytes),
            i18n::formula(&seg.formula)
        );
    }
    let per_card = if scenario.cards > 1 {
        format!("  {}", tr!("plan.per_card", cards = scenario.cards))
    } else {
        String::new()
    };
    let _ = writeln!(
        *s,
        "  {} {:>11}{per_card}",
        pad(&tr!("plan.total"), 12),
        format_gb(plan.total_bytes())
    );
    if plan.breakdown.host_bytes > 0.0 {
        let _ = writeln!(
            s,
            "  {} {:>11}  {}",
            pad(&tr!("plan.host"), 12),
            format_gb(plan.breakdown.host_bytes),
            tr!("plan.host_about")
        );
    }
    if let Some(f) = &plan.breakdown.decode_formula {
        let _ = writeln!(*s, "  {}", tr!("plan.decode_reads", formula = i18n::formula(f)));
    }
    for note in &plan.breakdown.notes {
        let _ = writeln!(*s, "  {}", tr!("plan.note", note = i18n::formula(note)));
    }
    // Cards that run other batch values than the scenario's (vLLM's and SGLang's defaults
    // follow the card's memory), named from the options planned with them.
    let own = (scenario.max_batched_tokens, scenario.max_num_seqs);
    let mut said: Vec<(u64, u64)> = Vec::new();
    for (((tokens, seqs), _, _), _) in &plan.variants {
        // A group apart only for its MXFP4 kernel or context runs the scenario's own batch.
        if (*tokens, *seqs) == own || said.contains(&(*tokens, *seqs)) {
            continue;
        }
        said.push((*tokens, *seqs));
        let Some(cards) = cards_named(gpus, plan, |o| o.batch_defaults == Some((*tokens, *seqs))) else {
            continue;
        };
        let tokens = crate::engine::basics::units::group_thousands(*tokens as i64);
        let line = if scenario.framework == crate::engine::Framework::Sglang {
            tr!(
                "plan.card_chunk",
                cards = cards,
                runtime = scenario.runtime_label(),
                tokens = tokens
            )
        } else {
            tr!(
                "plan.card_batch",
                cards = cards,
                runtime = scenario.runtime_label(),
                tokens = tokens,
                seqs = crate::engine::basics::units::group_thousands(*seqs as i64)
            )
        };
        let _ = writeln!(*s, "  {line}");
    }
    // Cards on which the runtime picks another context (Ollama's num_ctx by VRAM).
    let mut contexts: Vec<u64> = plan
        .options
        .iter()
        .map(|o| o.context)
        .filter(|c| *c != scenario.context)
        .collect();
    contexts.sort_unstable();
    contexts.dedup();
    // llama.cpp's --fit gives nearly every card its own: one line says how.
    if scenario.framework == crate::engine::Framework::LlamaCpp {
        if !contexts.is_empty() {
            let line = tr!("plan.fit_context", runtime = scenario.runtime_label());
            let _ = writeln!(*s, "  {line}");
        }
        return;
    }
    for context in contexts {
        if let Some(cards) = cards_named(gpus, plan, |o| o.context == context) {
            let line = tr!(
                "plan.card_context",
                cards = cards,
                runtime = scenario.runtime_label(),
                context = crate::engine::basics::units::group_thousands(context as i64)
            );
            let _ = writeln!(*s, "  {line}");
        }
    }
}

/// The context the header states: the one every option was planned at where the runtime
/// picked it for all of them, else the scenario's.
fn planned_context(scenario: &Scenario, plan: &Plan) -> u64 {
    match plan.options.first() {
        Some(first) if plan.options.iter().all(|o| o.context == first.context) => first.context,
        _ => scenario.context,
    }
}

/// The cards of the options `which` picks, named as a note does: "A", "A, B" or "A, B, …".
fn cards_named(
    gpus: &[Gpu],
    plan: &Plan,
    which: impl Fn(&crate::engine::FitOption) -> bool,
) -> Option<String> {
    let mut names: Vec<&str> = Vec::new();
    for o in plan.options.iter().filter(|o| which(o)) {
        let name = gpus[o.gpu].name.as_str();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    match names.as_slice() {
        [a] => Some((*a).to_string()),
        [a, b] => Some(format!("{a}, {b}")),
        [a, b, ..] => Some(format!("{a}, {b}, …")),
        [] => None,
    }
}

/// How many options were left out, the pick, and what decode figures are.
fn closing_text(s: &mut String, gpus: &[Gpu], scenario: &Scenario, plan: &Plan, hidden: usize) {
    if hidden > 0 {
        let _ = writeln!(*s, "  {}", tr!("plan.hidden", hidden = hidden));
    }
    let rent = &scenario.rent;
    match (super::cheapest_priced(&plan.options), plan.best()) {
        // With a target the closing line names the cheapest that meets it instead.
        (Some(_), _) if scenario.target.is_set() => {}
        (Some(best), _) => {
            let line = tr!(
                "plan.cheapest_at",
                option = option_label(gpus, best),
                price = best.price_usd_month.map_or_else(String::new, |p| money(
                    p,
                    &rent.rates,
                    &rent.display_currency
                ))
            );
            let _ = writeln!(*s, "\n{line}");
            // A stale price still ranks as given; the reader is told it may have moved.
            let offer = best.offer.map(|i| &gpus[best.gpu].offers[i]);
            if let Some(o) =
                offer.filter(|o| crate::dates::is_stale(o.seen.as_deref(), crate::dates::today()))
            {
                let _ = writeln!(
                    *s,
                    "{}",
                    tr!(
                        "plan.cheapest_stale",
                        provider = o.provider,
                        date = crate::text::clean(o.seen.as_deref().unwrap_or_default())
                    )
                );
            }
        }
        // Something fits, but nothing that fits has a price to compare.
        (None, Some(first)) => {
            let option = option_label(gpus, first);
            let _ = writeln!(*s, "\n{}", tr!("plan.no_priced_fit", option = option));
        }
        (None, None) if gpus.len() == 1 => {
            let first = plan.options.first();
            let option = first.map_or_else(|| gpus[0].name.clone(), |o| option_label(gpus, o));
            // A card that cannot run the plan at all is not short of memory: say why.
            let line = match first.and_then(|o| o.reason.filter(|r| r.is_unsupported())) {
                // A busy card: no change to the plan helps, so no pointer to `fit`.
                Some(r @ crate::engine::verdict::fit::Reason::Busy { .. }) => tr!(
                    "plan.cannot_start",
                    option = option,
                    reason = i18n::formula(&r.text(&gpus[0]))
                ),
                Some(r) => tr!(
                    "plan.cannot_run",
                    option = option,
                    reason = i18n::formula(&r.text(&gpus[0]))
                ),
                None => tr!("plan.one_card_short", option = option),
            };
            let _ = writeln!(*s, "\n{line}");
        }
        (None, None) => {
            let most = plan.options.iter().map(|o| o.count).max().unwrap_or(1);
            let _ = writeln!(*s, "\n{}", tr!("plan.nothing_fits", most = most));
        }
    }
    if scenario.method == crate::engine::Method::Inference {
        let _ = writeln!(*s, "{}", tr!("plan.ceilings"));
    }
}

#[derive(Serialize)]
struct LookupCellJson<'a> {
    model: &'a str,
    column: &'static str,
    need_bytes: crate::engine::memory::breakdown::UnsignedBytes,
    gpu: Option<&'a str>,
    count: Option<u32>,
    verdict: Option<&'static str>,
    price_usd_month: Option<f64>,
    free_bytes_per_card: Option<crate::engine::memory::breakdown::SignedBytes>,
    cluster_nodes: Option<u64>,
}

/// Seed 003 section 05, computed: the seed's five sizes by six methods.
pub fn lookup_table(catalog: &Catalog, json: bool) -> Result<String, String> {
    let ids = ["seed-7b", "seed-13b", "seed-34b", "seed-70b", "seed-405b"];
    let models: Vec<&Model> = ids
        .iter()
        .map(|id| {
            catalog
                .model(id)
                .ok_or_else(|| format!("catalog lacks model '{id}'"))
        })
        .collect::<Result<_, _>>()?;
    let table = compute_lookup(&models, &catalog.gpus);
    let gpus = &catalog.gpus;
    if json {
        let mut cells = Vec::new();
        for (m, row) in models.iter().zip(&table) {
            for c in row {
                cells.push(LookupCellJson {
                    model: &m.id,
                    column: c.column.id(),
                    need_bytes: crate::engine::memory::breakdown::unsigned_bytes(c.need_bytes()),
                    gpu: c.pick.as_ref().map(|o| gpus[o.gpu].id.as_str()),
                    count: c.pick.as_ref().map(|o| o.count),
                    verdict: c.pick.as_ref().map(|o| o.verdict.id()),
                    price_usd_month: c.pick.as_ref().and_then(|o| o.price_usd_month).map(round2),
                    free_bytes_per_card: c
                        .pick
                        .as_ref()
                        .map(|o| crate::engine::memory::breakdown::signed_bytes(o.free_bytes_per_card)),
                    cluster_nodes: c.cluster.as_ref().map(|k| k.nodes),
                });
            }
        }
        return serde_json::to_string_pretty(&cells)
            .map(|s| s + "\n")
            .map_err(|e| e.to_string());
    }
    let mut s = String::new();
    let _ = writeln!(s, "{}\n", tr!("table.about"));
    for (m, row) in models.iter().zip(&table) {
        let _ = writeln!(s, "{}", m.name);
        for c in row {
            let pick = match (&c.pick, &c.cluster) {
                (Some(o), _) => format!(
                    "{} {}{}",
                    option_label(gpus, o),
                    o.price_usd_month.map_or(tr!("price.none"), format_usd),
                    if o.verdict == crate::engine::Verdict::Tight {
                        format!(", {}", i18n::word("verdict", "tight"))
                    } else {
                        String::new()
                    }
                ),
                (None, Some(k)) => tr!(
                    "table.beyond_node",
                    nodes_exact = format!("{:.2}", k.nodes_exact),
                    card = gpus[k.gpu].name.clone(),
                    nodes = k.nodes,
                    price = format_usd(k.price_usd_month)
                ),
                (None, None) => tr!("tui.nothing_fits"),
            };
            let _ = writeln!(
                s,
                "  {} {:>9.0} GB  {pick}",
                pad(&i18n::label("lookup", c.column.id(), c.column.label()), 16),
                to_gb(c.need_bytes()).round()
            );
        }
    }
    Ok(s)
}

pub use super::cards::{GpuFilter, gpus};
pub use super::models::{ModelFilter, models};

/// `vramfit detect`: what this machine's tools reported, and the catalog card each is.
pub fn detected(d: &crate::detect::Detection, json: bool) -> String {
    if json {
        return serde_json::to_string_pretty(&d.gpus).unwrap_or_default() + "\n";
    }
    if d.gpus.is_empty() {
        return format!("{}\n", tr!("catalog_table.no_gpu"));
    }
    let mut s = String::new();
    let h = |key: &str| i18n::message(&format!("catalog_table.{key}"));
    let _ = writeln!(
        s,
        "{:>3}  {} {} {}  {} {} {}",
        "#",
        pad(&h("name"), 30),
        pad_left(&h("total_gb"), 10),
        pad_left(&h("used_gb"), 9),
        pad(&h("catalog_card"), 18),
        pad(&h("driver"), 12),
        h("source")
    );
    for g in &d.gpus {
        let _ = writeln!(
            s,
            "{:>3}  {:<30} {:>10.2} {:>9.2}  {:<18} {:<12} {}",
            g.index,
            g.name,
            g.memory_total_bytes as f64 / 1e9,
            g.memory_used_bytes as f64 / 1e9,
            g.gpu
                .clone()
                .unwrap_or_else(|| tr!("catalog_table.not_in_catalog")),
            g.driver.as_deref().unwrap_or("-"),
            g.source
        );
    }
    s
}
