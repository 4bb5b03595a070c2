//! `vramfit models`: the model catalog grouped by family, filtered by family, text and size,
//! as a table or JSON.

use std::fmt::Write as _;

use super::i18n;
use super::json::ModelJson;
use crate::catalog::Catalog;
use crate::engine::Model;
use crate::engine::basics::units::{format_params, group_thousands};
use crate::text::{pad, pad_left};

/// Which models `vramfit models` lists.
#[derive(Debug, Default)]
pub struct ModelFilter<'a> {
    /// A family, or the start of one's name (`qwen2.5` finds Qwen2.5 and Qwen2.5 Coder).
    pub family: Option<&'a str>,
    /// Part of the id or name, any case (spaces, dashes and underscores alike).
    pub search: Option<&'a str>,
    /// Total parameters, in billions, at least and at most.
    pub min_params_b: Option<f64>,
    pub max_params_b: Option<f64>,
}

/// Lower case without spaces, dashes or underscores: `Qwen2.5 Coder`, `qwen2.5-coder` and
/// `qwen2.5_coder` read alike.
fn norm(s: &str) -> String {
    s.to_lowercase().replace(['-', '_', ' '], "")
}

impl ModelFilter<'_> {
    pub fn admits(&self, m: &Model) -> bool {
        let billions = m.params().total as f64 / 1e9;
        self.family.is_none_or(|f| norm(&m.family).starts_with(&norm(f)))
            && self
                .search
                .is_none_or(|q| norm(&m.id).contains(&norm(q)) || norm(&m.name).contains(&norm(q)))
            && self.min_params_b.is_none_or(|lo| billions >= lo)
            && self.max_params_b.is_none_or(|hi| billions <= hi)
    }
}

/// The models `filter` admits, each family together (families in catalog order, models in
/// their order within it); empty when none is admitted.
pub fn models(catalog: &Catalog, json: bool, filter: &ModelFilter) -> String {
    let mut families: Vec<(&str, Vec<&Model>)> = Vec::new();
    for m in catalog.models.iter().filter(|m| filter.admits(m)) {
        match families.iter_mut().find(|(f, _)| *f == m.family) {
            Some((_, list)) => list.push(m),
            None => families.push((&m.family, vec![m])),
        }
    }
    if families.is_empty() {
        return String::new();
    }
    let shown = families.iter().flat_map(|(_, list)| list.iter().copied());
    if json {
        let list: Vec<ModelJson> = shown
            .map(|m| ModelJson::new(m, 2.0, crate::engine::model::vision::DEFAULT_IMAGE_SIDE))
            .collect();
        return serde_json::to_string_pretty(&list).unwrap_or_default() + "\n";
    }
    // The id and name columns fit the longest shown (20 and 26 at least).
    let id_w = shown
        .clone()
        .map(|m| m.id.chars().count())
        .max()
        .unwrap_or(0)
        .max(20);
    let name_w = shown.map(|m| m.name.chars().count()).max().unwrap_or(0).max(26);
    let h = |key: &str| i18n::message(&format!("catalog_table.{key}"));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} {} {} {} {} {} {} {}",
        pad("id", id_w),
        pad(&h("name"), name_w),
        pad_left(&h("params"), 8),
        pad_left(&h("active"), 8),
        pad_left(&h("layers"), 6),
        pad_left("kv", 4),
        pad_left("KV B/tok", 10),
        pad_left(&h("context"), 8)
    );
    for (family, list) in &families {
        // A family's heading: its name, as the catalog spells it.
        let _ = writeln!(s, "\n{family}");
        for m in list {
            let p = m.params();
            let _ = writeln!(
                s,
                "{} {} {:>8} {:>8} {:>6} {:>4} {:>10} {:>8}",
                pad(&m.id, id_w),
                pad(&m.name, name_w),
                format_params(p.total),
                if p.active == p.total {
                    "-".into()
                } else {
                    format_params(p.active)
                },
                m.arch.layers,
                m.arch.kv_heads,
                group_thousands(m.kv_bytes_per_token(2.0).round() as i64),
                group_thousands(m.max_context as i64)
            );
        }
    }
    s
}
