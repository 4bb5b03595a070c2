//! A model the user names that the catalog may not hold: a catalog id, a config.json (or its
//! folder), a GGUF file, an `org/name` in the local Hugging Face cache, or on the Hub when
//! asked. One resolution for the command line and the planner's import.

use std::path::Path;

use super::{Catalog, hf, hfcache};
use crate::engine::Model;

/// The model `wanted` names, or why there is none (with the nearest catalog ids).
pub fn find_model(catalog: &Catalog, wanted: &str, hub: bool) -> Result<Model, String> {
    if let Some(m) = catalog.model(wanted) {
        return Ok(m.clone());
    }
    let path = Path::new(wanted);
    if path.extension().is_some_and(|x| x.eq_ignore_ascii_case("gguf")) && path.exists() {
        return super::gguf::gguf_model(path).map_err(|e| e.to_string());
    }
    if path.exists() {
        return hf::load(path).map_err(|e| e.to_string());
    }
    // `org/name`: the local Hugging Face cache, offline.
    if let Some(cache) = hfcache::cache_dir()
        && let Some(found) = hfcache::load_cached(&cache, wanted)
    {
        return found.map_err(|e| e.to_string());
    }
    // Only when asked: the Hub, by range requests.
    if hub && super::hub::valid_repo(wanted) {
        let dir = super::hub::fetch(wanted)?;
        let mut m = hf::load(&dir).map_err(|e| e.to_string())?;
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
    Err(format!(
        "unknown model '{}'.{hint} `vramfit models` lists the catalog; a path to a config.json or a .gguf file, or an org/name in the local Hugging Face cache (or on the Hub with --hub), also works.",
        crate::text::clean_prefix(wanted, 60)
    ))
}

/// Whether a text typed in the planner's filter names something to import rather than a
/// catalog model to find: a path that exists, a `.gguf` file name, or an `org/name`.
pub fn looks_importable(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty()
        && (Path::new(t).exists() || t.to_ascii_lowercase().ends_with(".gguf") || super::hub::valid_repo(t))
}
