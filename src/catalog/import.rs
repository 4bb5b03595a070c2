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
    // A published name (`meta-llama/Llama-3.1-8B-Instruct`, `Meta-Llama-3.1-8B-Instruct-Q4_K_M`,
    // Ollama's `llama3.1:8b`): the catalog model it names.
    if let Some(m) = published_match(catalog, wanted) {
        return Ok(m.clone());
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

/// The words of a published name that say nothing of the shape: the release's tuning, the
/// file's format or quantization, the publisher's prefix.
fn is_decoration(word: &str) -> bool {
    matches!(
        word,
        "instruct"
            | "it"
            | "qat"
            | "chat"
            | "hf"
            | "gguf"
            | "awq"
            | "gptq"
            | "fp8"
            | "fp16"
            | "bf16"
            | "f16"
            | "f32"
            | "int4"
            | "int8"
            | "bnb"
            | "4bit"
            | "8bit"
            | "mlx"
            | "meta"
            | "latest"
            | "mxfp4"
            | "dynamic"
    ) || is_quant(word)
}

/// A GGUF type's name: `q4_k_m`, `q8_0`, `iq3_xxs`.
fn is_quant(word: &str) -> bool {
    let rest = word.strip_prefix("iq").or_else(|| word.strip_prefix('q'));
    rest.is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit())) && word.contains('_')
}

/// A name reduced to what identifies the shape: lower case, decorations dropped, letters and
/// digits only (`Meta-Llama-3.1-8B-Instruct-Q4_K_M` and `llama-3.1-8b` are both `llama318b`).
fn shape_key(name: &str) -> String {
    shape_key_of(name, false)
}

/// [`shape_key`] without a release's version (`-v0.1`, `-v0.3`): a second look, for a file
/// named with a version the catalog's id leaves out (`mixtral-8x7b-instruct-v0.1.Q5_K_M`).
fn unversioned_key(name: &str) -> String {
    shape_key_of(name, true)
}

fn shape_key_of(name: &str, drop_version: bool) -> String {
    let lower = name.to_ascii_lowercase();
    let last = lower.rsplit('/').next().unwrap_or(&lower);
    let last = [".gguf", ".bin"]
        .iter()
        .find_map(|x| last.strip_suffix(x))
        .unwrap_or(last);
    // A file's publisher prefix (`Qwen_QwQ-32B-Q6_K`): the part after it names the model.
    let last = match last.split_once('-') {
        Some((first, _)) if first.contains('_') && !is_quant(first) => {
            &last[first.rfind('_').map_or(0, |i| i + 1)..]
        }
        _ => last,
    };
    let mut in_version = false;
    last.split(['-', '.', ':', ' '])
        .filter(|w| {
            // `v0` and the numbers after it (`v0.1` splits into `v0`, `1`).
            let digits = !w.is_empty() && w.chars().all(|c| c.is_ascii_digit());
            let version = w.len() > 1 && w.starts_with('v') && w[1..].chars().all(|c| c.is_ascii_digit());
            in_version = drop_version && (version || in_version && digits);
            !w.is_empty() && !is_decoration(w) && !in_version
        })
        .flat_map(|w| w.chars().filter(char::is_ascii_alphanumeric))
        .collect()
}

/// The catalog model a published name (a Hugging Face repo, a GGUF file's name, an Ollama
/// tag) names: its repo exactly, else the one model whose id, name or repo reduces to the
/// same shape key. `None` when none or several do.
pub fn published_match<'a>(catalog: &'a Catalog, wanted: &str) -> Option<&'a Model> {
    if let Some(m) = catalog.models.iter().find(|m| {
        m.hf_repo
            .as_deref()
            .is_some_and(|r| r.eq_ignore_ascii_case(wanted))
    }) {
        return Some(m);
    }
    the_one(catalog, &shape_key(wanted), shape_key)
        .or_else(|| the_one(catalog, &unversioned_key(wanted), unversioned_key))
}

/// The catalog model whose id, name or repo reduces to `key` under `reduce`: the only one, or
/// among several (a base and its instruct release) the one whose own id does.
fn the_one<'a>(catalog: &'a Catalog, key: &str, reduce: fn(&str) -> String) -> Option<&'a Model> {
    if key.len() < 3 {
        return None;
    }
    let mut found = catalog.models.iter().filter(|m| {
        reduce(&m.id) == key
            || reduce(&m.name) == key
            || m.hf_repo.as_deref().is_some_and(|r| reduce(r) == key)
    });
    let first = found.next()?;
    // Several models of one shape key (a base and its instruct release): the one whose own
    // id reduces to it, the catalog's first.
    match found.next() {
        None => Some(first),
        Some(_) => catalog.models.iter().find(|m| reduce(&m.id) == key),
    }
}
