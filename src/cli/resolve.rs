//! The catalog a command runs on (the embedded one, the user's config dir, each
//! `--catalog`) and the names the user typed resolved against it: a model (catalog id,
//! config.json, GGUF file, Hugging Face cache or Hub), a card, a provider.

use std::path::{Path, PathBuf};

use super::CliError;
use crate::catalog::{Catalog, hf, hfcache};
use crate::engine::Model;

/// The catalog with the user's additions: config dir, then each `--catalog`.
pub fn load_catalog(extra: &[PathBuf]) -> Result<Catalog, CliError> {
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
    Ok(catalog)
}

/// A catalog id, or a path to a config.json; an unknown id gets the nearest names.
pub fn resolve_model(catalog: &Catalog, wanted: &str, hub: bool) -> Result<Model, CliError> {
    if let Some(m) = catalog.model(wanted) {
        return Ok(m.clone());
    }
    let path = Path::new(wanted);
    if path.extension().is_some_and(|x| x.eq_ignore_ascii_case("gguf")) && path.exists() {
        return Ok(crate::catalog::gguf::gguf_model(path)?);
    }
    if path.exists() {
        return Ok(hf::load(path)?);
    }
    // `org/name`: the local Hugging Face cache, offline.
    if let Some(cache) = hfcache::cache_dir()
        && let Some(found) = hfcache::load_cached(&cache, wanted)
    {
        return Ok(found?);
    }
    // Only when asked: the Hub, by range requests.
    if hub && crate::catalog::hub::valid_repo(wanted) {
        let dir = crate::catalog::hub::fetch(wanted).map_err(CliError)?;
        let mut m = hf::load(&dir)?;
        m.id = crate::text::clean_prefix(wanted, 80);
        m.name = m.id.clone();
        m.family = "from the Hugging Face Hub".into();
        return Ok(m);
    }
    let near = catalog.suggest_models(wanted);
    let hint = if near.is_empty() {
        String::new()
    } else {
        format!(" Did you mean: {}?", near.join(", "))
    };
    Err(CliError(format!(
        "unknown model '{}'.{hint} `vramfit models` lists the catalog; a path to a config.json or a .gguf file, or an org/name in the local Hugging Face cache (or on the Hub with --hub), also works.",
        crate::text::clean_prefix(wanted, 60)
    )))
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
        .any(|o| crate::engine::gpu::provider_matches(&o.provider, wanted))
    {
        return Ok(());
    }
    let mut known: Vec<&str> = offers
        .map(|o| crate::engine::gpu::provider_short_name(&o.provider))
        .collect();
    known.sort_unstable_by_key(|k| k.to_lowercase());
    known.dedup();
    Err(CliError(format!(
        "unknown provider '{}'. Providers with offers: {}.",
        crate::text::clean_prefix(wanted, 60),
        known.join(", ")
    )))
}
