//! The present layer: every number and label as a user reads it — money in a currency,
//! option and card labels, verdict words, the plan as text, JSON and Markdown, the explain
//! view's lines. The CLI and the TUI both speak through it; it speaks through the engine.
//! Strings meet the translation layer here ([`i18n`]).

pub mod advice;
pub mod cards;
pub mod explain;
mod explain_serving;
pub mod i18n;
pub mod json;
pub mod markdown;
pub mod models;
pub mod placement;
mod plan_table;
pub mod speed_json;
pub mod target_text;
pub mod text;

use crate::engine::basics::units::format_usd;
use crate::engine::hardware::offers::{OfferKind, Rates};
use crate::engine::workload::scenario::TightRule;
use crate::engine::{FitOption, Gpu};

/// A rig's cards joined: each by `name`, a count before it as `2{times} ` ("2x rtx-3090",
/// "2× GeForce RTX 3090").
fn rig_text(gpus: &[Gpu], o: &FitOption, name: fn(&Gpu) -> &str, times: &str) -> String {
    let parts: Vec<String> = o
        .rig
        .iter()
        .map(|&(i, n)| {
            let g = name(&gpus[i]);
            if n > 1 {
                format!("{n}{times} {g}")
            } else {
                g.to_string()
            }
        })
        .collect();
    parts.join(" + ")
}

/// An option's card id as `--gpu` takes it: the card's id, or a rig of mixed cards in the
/// rig syntax (`rtx-4090 + 2x rtx-3090`), so that the JSON never names a rig as one kind.
pub fn option_gpu_id(gpus: &[Gpu], o: &FitOption) -> String {
    if o.rig.is_empty() {
        gpus[o.gpu].id.clone()
    } else {
        rig_text(gpus, o, |g| &g.id, "x")
    }
}

/// An option's card by name, a rig's cards joined ("GeForce RTX 4090 + 2× GeForce RTX 3090"):
/// what the JSON's `name` says.
pub fn option_card_names<'a>(gpus: &'a [Gpu], o: &FitOption) -> std::borrow::Cow<'a, str> {
    if o.rig.is_empty() {
        std::borrow::Cow::Borrowed(&gpus[o.gpu].name)
    } else {
        std::borrow::Cow::Owned(rig_text(gpus, o, |g| &g.name, "×"))
    }
}

/// "2× A40" / "A40".
pub fn option_label(gpus: &[Gpu], o: &FitOption) -> String {
    let g = &gpus[o.gpu];
    let label = if !o.rig.is_empty() {
        // A rig of mixed cards: "RTX 4090 + 2× RTX 3090".
        option_card_names(gpus, o).into_owned()
    } else if o.count > 1 {
        format!("{}× {}", o.count, g.name)
    } else {
        g.name.clone()
    };
    // Part of the plan lives in host memory: said beside the card, in every view.
    let label = if o.spills() {
        crate::tr!("option.with_ram", label = label)
    } else {
        label
    };
    // This machine's own cards, beside the same kind for rent.
    if g.local {
        crate::tr!("option.here", label = label)
    } else {
        label
    }
}

/// A segment's name as the planner and explain show it ("KV cache" / "KV 缓存").
pub fn segment_label(kind: crate::engine::memory::SegmentKind) -> String {
    i18n::label("segment", kind.id(), kind.label())
}

/// "fits" / "tight" / "no", in the current language.
pub fn verdict_text(o: &FitOption) -> String {
    i18n::word("verdict", o.verdict.id())
}

/// An amount of dollars in the display currency: "$1,590" or "¥11,448".
pub fn money(usd: f64, rates: &Rates, currency: &str) -> String {
    let v = rates.from_usd(usd, currency);
    if currency == "CNY" {
        format_usd(v).replacen('$', "¥", 1)
    } else {
        format_usd(v)
    }
}

/// Sequences served at once. llama.cpp and Ollama start a fixed number of slots (llama.cpp's
/// n_parallel, Ollama's OLLAMA_NUM_PARALLEL: the plan's batch) and never serve more at once,
/// whatever memory is left; an engine with a paged pool (vLLM, SGLang) admits as many as its
/// KV budget holds.
pub fn concurrent_sequences(
    sc: &crate::engine::Scenario,
    c: &crate::engine::speed::serving::Capacity,
) -> u64 {
    if sc.framework.is_ggml() {
        c.max_concurrent_sequences.min(sc.batch)
    } else {
        c.max_concurrent_sequences
    }
}

/// The "seqs" cell: the count, called slots where the runtime has fixed slots, and the
/// context of each where the runtime picks another one on the option's cards (Ollama's
/// `num_ctx` by VRAM): "1 slot × 32K".
pub fn seqs_text(
    sc: &crate::engine::Scenario,
    c: &crate::engine::speed::serving::Capacity,
    o: &FitOption,
) -> String {
    let n = concurrent_sequences(sc, c);
    let count = if sc.framework.is_ggml() && n == 1 {
        crate::tr!("tui.slot_one")
    } else if sc.framework.is_ggml() {
        crate::tr!("tui.slots", n = n)
    } else {
        n.to_string()
    };
    if o.context == sc.context {
        count
    } else {
        format!("{count} × {}", short_tokens(o.context))
    }
}

/// A token count as the runtimes' docs write context sizes: 32K, 128K, 4,000.
pub fn short_tokens(n: u64) -> String {
    if n >= 1024 && n.is_multiple_of(1024) {
        format!("{}K", n / 1024)
    } else {
        crate::engine::basics::units::group_thousands(n as i64)
    }
}

/// The option a "cheapest" line names: the first fitting one, in ranked order, that has a
/// price (an option with no offer is never called the cheapest).
pub fn cheapest_priced(options: &[FitOption]) -> Option<&FitOption> {
    options
        .iter()
        .find(|o| o.verdict.is_fit() && o.price_usd_month.is_some())
}

/// "$1,590", or why there is none: "pairs only" (B200), "no price".
pub fn price_text(gpu: &Gpu, o: &FitOption) -> String {
    price_text_in(gpu, o, &Rates::default(), "USD")
}

/// The monthly price in the display currency, or why there is none.
pub fn price_text_in(gpu: &Gpu, o: &FitOption, rates: &Rates, currency: &str) -> String {
    let spot = o.offer.is_some_and(|i| gpu.offers[i].kind == OfferKind::Spot);
    if gpu.local {
        return crate::tr!("price.yours");
    }
    match o.price_usd_month {
        Some(p) if spot => crate::tr!("price.spot", price = money(p, rates, currency)),
        Some(p) => money(p, rates, currency),
        None => match gpu.offers.iter().map(|x| x.min_cards).min() {
            Some(2) => crate::tr!("price.pairs_only"),
            Some(n) if n > o.count => crate::tr!("price.from_cards", cards = n),
            _ => crate::tr!("price.none"),
        },
    }
}

/// When an offer's price was seen: "seen 2026-09-01", or "stale: seen 2025-06-01, over a
/// year ago" when it is more than a year before `today` (a day count, [`crate::dates`]);
/// `None` when the source gives no date.
pub fn seen_text(offer: &crate::engine::Offer, today: i64) -> Option<String> {
    // Every offer says when it was seen, or that its source gives no date.
    let Some(date) = offer.seen.as_deref() else {
        return Some(crate::tr!("price.unseen"));
    };
    let key = if crate::dates::is_stale(Some(date), today) {
        "price.stale"
    } else {
        "price.seen"
    };
    Some(crate::tr!(key, date = crate::text::clean(date)))
}

/// Hours in at most six columns: "9.5 h", "740 h", "22k h".
pub fn compact_hours(hours: f64) -> String {
    if hours < 100.0 {
        format!("{hours:.1} h")
    } else if hours < 10_000.0 {
        format!("{hours:.0} h")
    } else {
        format!("{:.0}k h", hours / 1000.0)
    }
}

/// A rental term: "720 h (a month)".
pub fn hours_label(hours: f64) -> String {
    let h = hours.round() as u64;
    let what = match h {
        1 => "hour",
        24 => "day",
        168 => "week",
        720 => "month",
        2160 => "quarter",
        8640 => "year",
        _ => return crate::tr!("term.hours", hours = h),
    };
    let key = format!("term.{what}");
    crate::tr!(&key, hours = h)
}

/// When a fit is called tight: "< 5 GB free (2 GB/card)", "< 30 % margin".
pub fn tight_rule_label(rule: TightRule) -> String {
    match rule {
        TightRule::Seed => crate::tr!("term.tight_quick"),
        TightRule::Margin(f) => crate::tr!("term.tight_margin", percent = format!("{:.0}", f * 100.0)),
    }
}
