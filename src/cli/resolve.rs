//! The catalog a command runs on (the embedded one, the user's config dir, each
//! `--catalog`, each `--offers` file) and the names the user typed resolved against it: a model (catalog id,
//! config.json, GGUF file, Hugging Face cache or Hub), a card, a provider.

use std::path::PathBuf;

use super::CliError;
use crate::catalog::Catalog;
use crate::engine::Model;

/// The embedded catalog, the user's catalog folder, `--catalog` paths, then `--offers`
/// files (their rows replace or join the offers of all of those).
pub fn load_catalog(extra: &[PathBuf], offers: &[PathBuf]) -> Result<Catalog, CliError> {
    let mut catalog = Catalog::embedded()?;
    if let Some(dir) = crate::catalog::user_catalog_dir().filter(|d| d.is_dir()) {
        catalog.merge_path(&dir)?;
    }
    for path in extra {
        if !path.exists() {
            return Err(CliError(format!(
                "{}: no such catalog file or folder",
                path.display()
            )));
        }
        catalog.merge_path(path)?;
    }
    for path in offers {
        catalog.merge_offers_path(path)?;
    }
    Ok(catalog)
}

/// A catalog id, or a path to a config.json, a GGUF file, an `org/name` in the local
/// Hugging Face cache (or on the Hub with `hub`); an unknown id gets the nearest names.
pub fn resolve_model(catalog: &Catalog, wanted: &str, hub: bool) -> Result<Model, CliError> {
    crate::catalog::import::find_model(catalog, wanted, hub).map_err(CliError)
}

pub(super) fn resolve_gpu(catalog: &Catalog, wanted: &str) -> Result<usize, CliError> {
    catalog.gpu_index(wanted).ok_or_else(|| {
        let near = catalog.suggest_gpus(wanted);
        let hint = if near.is_empty() {
            String::new()
        } else {
            format!(" Did you mean: {}?", near.join(", "))
        };
        CliError(format!(
            "unknown gpu '{}'.{hint} `vramfit gpus` lists the catalog.",
            crate::text::clean_prefix(wanted, 60)
        ))
    })
}

/// A provider the catalog has offers from (full or short name, any case); else the list.
pub fn check_provider(catalog: &Catalog, wanted: &str) -> Result<(), CliError> {
    let offers = catalog.gpus.iter().flat_map(|g| &g.offers);
    if offers
        .clone()
        .any(|o| crate::engine::hardware::offers::provider_matches(&o.provider, wanted))
    {
        return Ok(());
    }
    let mut known: Vec<&str> = offers
        .map(|o| crate::engine::hardware::offers::provider_short_name(&o.provider))
        .collect();
    known.sort_unstable_by_key(|k| k.to_lowercase());
    known.dedup();
    Err(CliError(format!(
        "unknown provider '{}'. Providers with offers: {}.",
        crate::text::clean_prefix(wanted, 60),
        known.join(", ")
    )))
}

/// `--gpu`: one card id, or a rig of cards (`rtx-4090,rtx-3090`, `"2x rtx-3090 + rtx-4090"`),
/// as catalog indices with counts, the same kind given twice counted together.
pub(super) fn resolve_rig(catalog: &Catalog, wanted: &str) -> Result<Vec<(usize, u32)>, CliError> {
    let mut rig: Vec<(usize, u32)> = Vec::new();
    for part in wanted.split([',', '+']).map(str::trim) {
        if part.is_empty() {
            return Err(CliError(format!(
                "--gpu '{}': an empty card in the list; write ids separated by ',' or '+', e.g. \"2x rtx-3090 + rtx-4090\"",
                crate::text::clean_prefix(wanted, 60)
            )));
        }
        let (count, id) = split_count(part)
            .map_err(|e| CliError(format!("--gpu '{}': {e}", crate::text::clean_prefix(wanted, 60))))?;
        let index = resolve_gpu(catalog, id)?;
        match rig.iter_mut().find(|(i, _)| *i == index) {
            Some((_, n)) => *n = n.saturating_add(count),
            None => rig.push((index, count)),
        }
    }
    let total: u64 = rig.iter().map(|r| u64::from(r.1)).sum();
    crate::engine::workload::ranges::CARDS
        .check(total as f64)
        .map_err(|e| CliError(e.message))?;
    Ok(rig)
}

/// "2x rtx-3090", "2× rtx-3090", "2*rtx-3090" or "rtx-3090" → (count, id).
fn split_count(part: &str) -> Result<(u32, &str), String> {
    let digits = part.find(|c: char| !c.is_ascii_digit()).unwrap_or(part.len());
    if digits == 0 {
        return Ok((1, part));
    }
    let rest = part[digits..].trim_start();
    let Some(id) = ["x ", "× ", "*", "x", "×"]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))
        .map(str::trim)
        .filter(|id| !id.is_empty())
    else {
        return Ok((1, part));
    };
    let count: u32 = part[..digits].parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
        format!(
            "'{}' is not a card count (1 to {})",
            &part[..digits],
            crate::engine::workload::ranges::MAX_CARDS
        )
    })?;
    Ok((count, id))
}
