//! The catalog: models, cards and offers from TOML (embedded, the user's config dir and
//! `--catalog PATH`), and models imported from a Hugging Face `config.json`.

pub mod checkpoint;
pub mod families;
pub mod gguf;
mod gguf_scan;
pub mod hf;
pub mod hfcache;
pub mod hub;
pub mod import;
pub mod launch;
pub mod mmproj;
pub mod safetensors;

/// The models this machine holds, offline: what the Hugging Face cache keeps (with a
/// config.json) and the GGUF files in `models_dirs` (headers only). An unreadable entry is
/// skipped, not fatal: a listing must not stop the planner.
pub fn local_models(models_dirs: &[std::path::PathBuf]) -> Vec<crate::engine::Model> {
    let mut found: Vec<crate::engine::Model> = Vec::new();
    if let Some(cache) = hfcache::cache_dir() {
        found.extend(
            hfcache::cached_models(&cache, 50)
                .iter()
                .filter_map(|r| hfcache::load_cached(&cache, r)?.ok()),
        );
    }
    for dir in models_dirs {
        for path in gguf_scan::gguf_files(dir, 50) {
            if let Ok(mut m) = gguf::gguf_model(&path) {
                m.family = "On this machine".into();
                // The file's name tells two quantizations of one model apart.
                m.name = m.id.clone();
                found.push(m);
            }
        }
    }
    found
}

mod entries;
mod pieces;
pub mod user_offers;
mod validate;

use entries::CatalogFile;
use validate::{locate_after, locate_field, validate_gpu, validate_offer, validate_updated};

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::engine::hardware::gpu::Gpu;
use crate::engine::model::Model;

pub const EMBEDDED_MODELS: &str = include_str!("../../catalog/models.toml");
pub const EMBEDDED_GPUS: &str = include_str!("../../catalog/gpus.toml");
pub const EMBEDDED_OFFERS: &str = include_str!("../../catalog/offers.toml");

/// The same three files as build.rs converted them to JSON (empty when one did not convert:
/// then the TOML is read, and its error reported with its line).
const EMBEDDED_JSON: [(&str, &str, &str); 3] = [
    (
        "catalog/models.toml",
        EMBEDDED_MODELS,
        include_str!(concat!(env!("OUT_DIR"), "/models.json")),
    ),
    (
        "catalog/gpus.toml",
        EMBEDDED_GPUS,
        include_str!(concat!(env!("OUT_DIR"), "/gpus.json")),
    ),
    (
        "catalog/offers.toml",
        EMBEDDED_OFFERS,
        include_str!(concat!(env!("OUT_DIR"), "/offers.json")),
    ),
];

/// A problem in an input file, located as precisely as the parser allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A file name may hold a line break or an escape: shown escaped, it cannot forge a
        // line of output or act on the terminal.
        let file = crate::text::clean(&self.file);
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{file}:{l}:{c}: {}", self.message),
            (Some(l), None) => write!(f, "{file}:{l}: {}", self.message),
            _ => write!(f, "{file}: {}", self.message),
        }
    }
}

impl std::error::Error for FileError {}

impl FileError {
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// Locate a byte offset of `source` as a 1-based line and column.
    pub fn at_offset(
        file: impl Into<String>,
        source: &str,
        offset: usize,
        message: impl Into<String>,
    ) -> Self {
        let (line, column) = line_column(source, offset);
        Self {
            file: file.into(),
            line: Some(line),
            column: Some(column),
            message: message.into(),
        }
    }

    /// A TOML syntax or schema error with its position.
    pub fn from_toml(file: impl Into<String>, source: &str, err: &toml::de::Error) -> Self {
        let message = err.message().trim().to_string();
        match err.span() {
            Some(span) => Self::at_offset(file, source, span.start, message),
            None => Self::new(file, message),
        }
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..source.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Every model and card the planner knows.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub models: Vec<Model>,
    pub gpus: Vec<Gpu>,
    /// The latest `updated` date of the files merged in (none if no file gives one).
    pub updated: Option<toml::value::Date>,
}

/// The embedded catalog's date: the latest `updated` of its three files, read from their
/// headers without parsing them, since every start shows it in `--version` and parsing the
/// whole catalog costs more than the rest of printing a version. The loader reads the same
/// key through serde; a test holds the two to one answer.
pub fn embedded_updated() -> Option<toml::value::Date> {
    [EMBEDDED_MODELS, EMBEDDED_GPUS, EMBEDDED_OFFERS]
        .into_iter()
        .filter_map(header_date)
        .max()
}

/// `updated = YYYY-MM-DD` among a file's top-level keys (the lines before its first table).
fn header_date(source: &str) -> Option<toml::value::Date> {
    let value = source
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with('['))
        .find_map(|l| l.strip_prefix("updated")?.trim_start().strip_prefix('='))?;
    let value = value.split('#').next()?.trim();
    validate_updated(&value.parse().ok()?).ok()
}

impl Catalog {
    /// The catalog compiled into the binary.
    pub fn embedded() -> Result<Self, FileError> {
        let mut c = Catalog::default();
        for (file, source, json) in EMBEDDED_JSON {
            match serde_json::from_str::<CatalogFile>(json) {
                Ok(parsed) => c.merge_parsed(file, source, parsed)?,
                Err(_) => c.merge_str(file, source)?,
            }
        }
        Ok(c)
    }

    /// The embedded catalog read from its TOML, as a user's file is read (the tests check
    /// that it equals [`Catalog::embedded`]).
    pub fn embedded_from_toml() -> Result<Self, FileError> {
        let mut c = Catalog::default();
        for (file, source, _) in EMBEDDED_JSON {
            c.merge_str(file, source)?;
        }
        Ok(c)
    }

    /// Add the entries of one TOML document. A model or card whose id already exists
    /// replaces the old one; offers are added to their card.
    pub fn merge_str(&mut self, file: &str, source: &str) -> Result<(), FileError> {
        let parsed = match pieces::parse_large(source) {
            Some(parsed) => parsed,
            None => toml::from_str(source).map_err(|e| FileError::from_toml(file, source, &e))?,
        };
        self.merge_parsed(file, source, parsed)
    }

    /// Merge a parsed file; `source` is its TOML, where errors are located.
    fn merge_parsed(&mut self, file: &str, source: &str, mut parsed: CatalogFile) -> Result<(), FileError> {
        parsed.clean_text();
        if let Some(updated) = &parsed.updated {
            let date =
                validate_updated(updated).map_err(|(field, m)| locate_after(file, source, 0, field, m))?;
            self.updated = self.updated.max(Some(date));
        }
        let model_ids = parsed.model.iter().map(|m| m.id.as_str());
        let gpu_ids = parsed.gpu.iter().map(|g| g.id.as_str());
        for (what, dupes) in [
            ("model", duplicate_ids(model_ids)),
            ("gpu", duplicate_ids(gpu_ids)),
        ] {
            if let Some(id) = dupes.first() {
                let first = source.find(&format!("\"{id}\"")).map_or(0, |i| i + 1);
                let second = source[first..]
                    .find(&format!("\"{id}\""))
                    .map_or(0, |i| first + i);
                return Err(FileError::at_offset(
                    file,
                    source,
                    second,
                    format!(
                        "{what} id '{}' appears twice in this file",
                        crate::text::clean_prefix(id, 60)
                    ),
                ));
            }
        }
        // Indexes by id, so that merging a large file stays linear (a scan per entry made a
        // 10,000-card catalog take seconds).
        let mut model_at: HashMap<String, usize> = self
            .models
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id.clone(), i))
            .collect();
        for entry in parsed.model {
            let id = entry.id.clone();
            // `like` names an earlier model (of this file or an earlier one): its shape.
            let base = match &entry.like {
                None => None,
                Some(like) => {
                    let at = model_at
                        .get(like)
                        .copied()
                        .or_else(|| self.models.iter().position(|m| m.id.eq_ignore_ascii_case(like)));
                    match at {
                        Some(i) => Some(&self.models[i]),
                        None => {
                            let like = crate::text::clean_prefix(like, 60);
                            let hint = match self.suggest_models(&like).first() {
                                Some(s) => format!(" (did you mean '{s}'?)"),
                                None => String::new(),
                            };
                            let message = format!(
                                "model '{}': 'like' names no earlier model: '{like}'{hint}",
                                crate::text::clean_prefix(&id, 60)
                            );
                            return Err(locate_field(file, source, &id, "like", message));
                        }
                    }
                }
            };
            let model = entry
                .into_model(base)
                .map_err(|(field, m)| locate_field(file, source, &id, field, m))?;
            match model_at.get(&model.id) {
                Some(&i) => self.models[i] = model,
                None => {
                    model_at.insert(model.id.clone(), self.models.len());
                    self.models.push(model);
                }
            }
        }
        // Offers name their card case-insensitively.
        let mut gpu_at: HashMap<String, usize> = self
            .gpus
            .iter()
            .enumerate()
            .map(|(i, g)| (g.id.to_ascii_lowercase(), i))
            .collect();
        for gpu in parsed.gpu {
            validate_gpu(&gpu).map_err(|(field, m)| locate_field(file, source, &gpu.id, field, m))?;
            let exact = gpu_at
                .get(&gpu.id.to_ascii_lowercase())
                .copied()
                .filter(|&i| self.gpus[i].id == gpu.id);
            match exact {
                Some(i) => {
                    let offers = std::mem::take(&mut self.gpus[i].offers);
                    self.gpus[i] = Gpu { offers, ..gpu };
                }
                None => {
                    gpu_at
                        .entry(gpu.id.to_ascii_lowercase())
                        .or_insert(self.gpus.len());
                    self.gpus.push(gpu);
                }
            }
        }
        // Each MIG profile becomes a card of its own, after the cards it slices.
        for (nth, profile) in parsed.mig_profile.into_iter().enumerate() {
            let here = |field: &str, message: String| {
                let at = source
                    .match_indices("[[mig_profile]]")
                    .nth(nth)
                    .map_or(source.len(), |(i, _)| i);
                locate_after(file, source, at, field, message)
            };
            let Some(&parent) = gpu_at.get(&profile.card.to_ascii_lowercase()) else {
                return Err(here(
                    "card",
                    format!(
                        "MIG profile of unknown gpu '{}'",
                        crate::text::clean_prefix(&profile.card, 60)
                    ),
                ));
            };
            let card = &self.gpus[parent];
            profile.check(card).map_err(|(field, m)| here(field, m))?;
            let slice = profile.slice_of(card);
            validate_gpu(&slice).map_err(|(field, m)| here(field, m))?;
            match gpu_at.get(&slice.id.to_ascii_lowercase()).copied() {
                Some(i) => {
                    let offers = std::mem::take(&mut self.gpus[i].offers);
                    self.gpus[i] = Gpu { offers, ..slice };
                }
                None => {
                    gpu_at.insert(slice.id.to_ascii_lowercase(), self.gpus.len());
                    self.gpus.push(slice);
                }
            }
        }
        for (nth, offer) in parsed.offer.into_iter().enumerate() {
            // Each offer's own text, the n-th `[[offer]]` table of the file, found only for
            // a message.
            let here = |field: &str, message: String| {
                let at = source
                    .match_indices("[[offer]]")
                    .nth(nth)
                    .map_or(source.len(), |(i, _)| i);
                locate_after(file, source, at, field, message)
            };
            validate_offer(&offer).map_err(|(field, m)| here(field, m))?;
            let Some(gpu) = gpu_at
                .get(&offer.gpu.to_ascii_lowercase())
                .map(|&i| &mut self.gpus[i])
            else {
                return Err(here(
                    "gpu",
                    format!(
                        "offer for unknown gpu '{}'",
                        crate::text::clean_prefix(&offer.gpu, 60)
                    ),
                ));
            };
            gpu.offers.push(offer);
        }
        Ok(())
    }

    /// Add a catalog file from disk, or every `*.toml` in a folder (sorted by name).
    pub fn merge_path(&mut self, path: &Path) -> Result<(), FileError> {
        let shown = path.display().to_string();
        if path.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| FileError::new(&shown, e.to_string()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            files.sort();
            return files.iter().try_for_each(|f| self.merge_path(f));
        }
        let source = crate::files::read_text(path, crate::files::MAX_CATALOG_BYTES)
            .map_err(|e| FileError::new(&shown, e))?;
        self.merge_str(&shown, &source)
    }

    pub fn model(&self, id: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.id.eq_ignore_ascii_case(id))
    }

    pub fn gpu_index(&self, id: &str) -> Option<usize> {
        self.gpus.iter().position(|g| g.id.eq_ignore_ascii_case(id))
    }

    /// Model ids closest to a mistyped one, best first.
    pub fn suggest_models(&self, wanted: &str) -> Vec<&str> {
        suggest(wanted, self.models.iter().map(|m| m.id.as_str()))
    }

    pub fn suggest_gpus(&self, wanted: &str) -> Vec<&str> {
        suggest(wanted, self.gpus.iter().map(|g| g.id.as_str()))
    }
}

/// Up to three candidates: those containing the wanted text, then the nearest by edit
/// distance. Only for inputs of a name's length: the edit distance is quadratic, and a
/// pasted megabyte is no typo.
pub fn suggest<'a>(wanted: &str, candidates: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    if wanted.len() > 64 {
        return Vec::new();
    }
    let w = wanted.to_ascii_lowercase();
    let most = w.len().max(3) / 2 + 1;
    let mut scored: Vec<(usize, bool, &str)> = candidates
        .map(|c| {
            let lc = c.to_ascii_lowercase();
            let typo = strsim::levenshtein(&w, &lc);
            // One holding the other is always a suggestion, but a name one typo away comes
            // first ("lama-3.1-8b": llama-3.1-8b before hermes-3-llama-3.1-8b).
            let holds = lc.contains(&w) || w.contains(&lc);
            let score = if holds { typo.min(most) } else { typo };
            // At the same distance, a name holding the text comes first ("4090": rtx-4090).
            (score, !holds, c)
        })
        .filter(|(score, _, _)| *score <= most)
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, _, c)| c).collect()
}

/// Count how often each id occurs, to report duplicates in a single file.
pub fn duplicate_ids<'a>(ids: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for id in ids {
        *seen.entry(id).or_default() += 1;
    }
    let mut d: Vec<&str> = seen
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(id, _)| id)
        .collect();
    d.sort();
    d
}

/// The user's configuration folder: `$VRAMFIT_CONFIG`, else the platform's config dir
/// (`~/.config/vramfit` on Linux).
pub fn user_config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("VRAMFIT_CONFIG").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "vramfit").map(|d| d.config_dir().to_path_buf())
}

/// `<config>/catalog/`: the user's own models, cards and offers.
pub fn user_catalog_dir() -> Option<PathBuf> {
    user_config_dir().map(|d| d.join("catalog"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pre_parsed_catalog_is_the_toml_catalog() {
        for (file, _, json) in EMBEDDED_JSON {
            assert!(
                serde_json::from_str::<CatalogFile>(json).is_ok(),
                "{file} converts at build time and reads back"
            );
        }
        let fast = Catalog::embedded().unwrap();
        let toml = Catalog::embedded_from_toml().unwrap();
        assert_eq!(format!("{fast:?}"), format!("{toml:?}"));
        assert!(fast.updated.is_some(), "the date survives the conversion");
        assert!(fast.gpus.iter().any(|g| !g.offers.is_empty()));
    }
}
