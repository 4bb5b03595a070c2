//! `vramfit gpus`: the card catalog as a table or JSON, filtered by text, vendor and class,
//! and for a single card where each of its figures comes from.

use std::fmt::Write as _;

use serde::Serialize;

use super::i18n;
use crate::catalog::Catalog;
use crate::engine::Gpu;
use crate::engine::basics::units::{format_usd, group_thousands};
use crate::text::{pad, pad_left};
use crate::tr;

#[derive(Serialize)]
struct GpuJson<'a> {
    #[serde(flatten)]
    gpu: &'a Gpu,
    price_usd_month: Option<f64>,
    class: crate::engine::hardware::gpu::GpuClass,
    unified_memory: bool,
    native_formats: Vec<&'static str>,
    /// Where each kind of figure comes from: the memory totals, and the rest of the entry.
    sources: GpuSources<'a>,
    /// One flag per offer, in the order of `offers`: seen over a year before today.
    offers_stale: Vec<bool>,
}

#[derive(Serialize)]
struct GpuSources<'a> {
    memory: Option<&'a str>,
    figures: Option<&'a str>,
}

/// Which cards `vramfit gpus` lists.
#[derive(Debug, Default)]
pub struct GpuFilter<'a> {
    /// Part of the id or name, any case (spaces and dashes alike).
    pub search: Option<&'a str>,
    pub vendor: Option<&'a str>,
    pub class: Option<crate::engine::hardware::gpu::GpuClass>,
}

impl GpuFilter<'_> {
    pub fn admits(&self, g: &Gpu) -> bool {
        let norm = |s: &str| s.to_lowercase().replace(['-', '_', ' '], "");
        self.search
            .is_none_or(|q| norm(&g.id).contains(&norm(q)) || norm(&g.name).contains(&norm(q)))
            && self
                .vendor
                .is_none_or(|v| g.vendor.eq_ignore_ascii_case(v.trim()))
            && self.class.is_none_or(|c| g.class() == c)
    }
}

/// The card catalog as a table or JSON, the cards `filter` admits; empty when none does.
pub fn gpus(catalog: &Catalog, json: bool, filter: &GpuFilter) -> String {
    let shown: Vec<&Gpu> = catalog.gpus.iter().filter(|g| filter.admits(g)).collect();
    if shown.is_empty() {
        return String::new();
    }
    if json {
        let list: Vec<GpuJson> = shown
            .iter()
            .map(|g| GpuJson {
                gpu: g,
                price_usd_month: g.monthly_price_usd(1).map(|(p, _)| p),
                class: g.class(),
                unified_memory: g.unified_memory(),
                native_formats: g.native_formats(),
                sources: GpuSources {
                    memory: g.memory_source.as_deref(),
                    // Entries without a note of their own carry the vendor's datasheet
                    // figures, as the catalog file's header says.
                    figures: Some(g.notes.as_deref().unwrap_or("the vendor's datasheet")),
                },
                offers_stale: g
                    .offers
                    .iter()
                    .map(|o| crate::dates::is_stale(o.seen.as_deref(), crate::dates::today()))
                    .collect(),
            })
            .collect();
        return serde_json::to_string_pretty(&list).unwrap_or_default() + "\n";
    }
    let mut s = format!("{}\n\n", tr!("catalog_table.gpus_about"));
    let h = |key: &str| i18n::message(&format!("catalog_table.{key}"));
    // The id column fits the longest id ("rtx-4070-ti-super"), 16 at least.
    let id_w = shown
        .iter()
        .map(|g| g.id.chars().count())
        .max()
        .unwrap_or(0)
        .max(16);
    // The name column fits the longest name ("GeForce RTX 4090 48GB (modified)"), 26 at least.
    let name_w = shown
        .iter()
        .map(|g| g.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(26);
    let _ = writeln!(
        s,
        "{} {} {} {} {} {} {} {} {} {}",
        pad("id", id_w),
        pad(&h("name"), name_w),
        pad_left("GB", 6),
        pad_left("SMI MiB", 9),
        pad_left(&h("usable"), 8),
        pad_left("GB/s", 8),
        pad_left("BF16 TF", 7),
        pad_left("FP8 TF", 7),
        pad(&h("link"), 16),
        pad_left(&tr!("column.usd_month"), 9)
    );
    let one = (shown.len() == 1).then(|| shown[0]);
    for g in shown {
        let tf = |v: Option<f64>| v.map_or("-".to_string(), |t| format!("{t:.0}"));
        let price = match g.monthly_price_usd(1) {
            Some((p, _)) => format_usd(p),
            None if !g.offers.is_empty() => tr!(
                "price.from_cards",
                cards = g.offers.iter().map(|o| o.min_cards).min().unwrap_or(1)
            ),
            None => tr!("price.none"),
        };
        let _ = writeln!(
            s,
            "{:<id_w$} {:<name_w$} {:>6} {:>9} {:>8} {:>8} {:>7} {:>7} {} {}",
            g.id,
            g.name,
            g.memory_gb,
            g.memory_smi_mib.map_or("-".into(), |m| group_thousands(m as i64)),
            g.memory_visible_bytes
                .map_or("-".into(), |b| format!("{:.2}", b / 1e9)),
            g.bandwidth_gbs,
            tf(g.bf16_tflops),
            if g.fp8 {
                tf(g.fp8_tflops)
            } else {
                tr!("catalog_table.no_fp8")
            },
            pad(&i18n::label("link", g.link.label(), g.link.label()), 16),
            pad_left(&price, 9)
        );
    }
    if let Some(g) = one {
        sources(&mut s, g);
    }
    s
}

/// Where one card's figures come from: its memory totals, the rest of the entry, its share
/// of a whole card when it is a slice, and each rental offer.
fn sources(s: &mut String, g: &Gpu) {
    let _ = writeln!(s, "\n{}", tr!("catalog_table.sources_of", id = g.id.as_str()));
    let figures = g.notes.as_deref().unwrap_or("the vendor's datasheet");
    let mut lines = vec![(
        tr!("catalog_table.source_memory"),
        g.memory_source.clone().unwrap_or_else(|| "-".into()),
    )];
    if let Some(share) = g.mig.as_deref().filter(|_| g.is_slice()) {
        lines.push((tr!("catalog_table.source_slice"), share.to_string()));
    }
    lines.push((tr!("catalog_table.source_figures"), figures.to_string()));
    let today = crate::dates::today();
    for o in &g.offers {
        let at = o.source.as_deref().unwrap_or("-");
        let seen = super::seen_text(o, today).map_or(String::new(), |s| format!(" ({s})"));
        lines.push((
            tr!("catalog_table.source_offer"),
            format!("{}: {at}{seen}", o.provider),
        ));
    }
    for (what, text) in lines {
        let _ = writeln!(s, "  {what}: {text}");
    }
}
