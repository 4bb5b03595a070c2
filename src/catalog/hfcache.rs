//! The local Hugging Face cache (`models--org--name/refs/main` naming a folder under
//! `snapshots/`), read offline: which models it holds, and one as a model. Every file is read
//! through the capped regular-file reader, and nothing outside the cache is followed.

use std::path::Path;

use super::FileError;
use super::hf::load;
use crate::engine::model::Model;

/// The local Hugging Face cache: `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
/// `~/.cache/huggingface/hub`.
pub fn cache_dir() -> Option<std::path::PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    };
    var("HF_HUB_CACHE")
        .or_else(|| var("HF_HOME").map(|h| h.join("hub")))
        .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().join(".cache/huggingface/hub")))
}

/// `refs/main` holds a 40-character commit hash; anything much longer is not a ref.
const MAX_REF_BYTES: u64 = 1024;

/// The snapshot folder of `org/name` in the cache: the one `refs/main` names, else the
/// most recent; `None` when the cache does not hold it with a config.json.
pub fn cached_snapshot(cache: &Path, repo: &str) -> Option<std::path::PathBuf> {
    find_snapshot(cache, repo).ok().flatten()
}

/// As [`cached_snapshot`], with why a `refs/main` cannot be used: it is read through the
/// capped regular-file reader (a FIFO or a device is refused before it is opened), and the
/// revision it names must be one folder name inside `snapshots/`, never a path out of the
/// cache.
fn find_snapshot(cache: &Path, repo: &str) -> Result<Option<std::path::PathBuf>, FileError> {
    let Some((org, name)) = repo.split_once('/') else {
        return Ok(None);
    };
    if [org, name]
        .iter()
        .any(|p| p.is_empty() || p.contains(['/', '\\']) || *p == "..")
    {
        return Ok(None);
    }
    let root = cache.join(format!("models--{org}--{name}"));
    let snapshots = root.join("snapshots");
    // A snapshot is a real folder there (its files may be links into blobs/).
    let usable =
        |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) && p.join("config.json").is_file();
    let refs = root.join("refs").join("main");
    if std::fs::symlink_metadata(&refs).is_ok() {
        let shown = refs.display().to_string();
        let text = crate::files::read_text(&refs, MAX_REF_BYTES).map_err(|e| FileError::new(&shown, e))?;
        let revision = text.trim();
        let plain = !revision.is_empty()
            && revision != "."
            && revision != ".."
            && revision
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !plain {
            return Err(FileError::new(
                &shown,
                format!(
                    "names {}, not a revision: a revision is one folder name inside snapshots/",
                    crate::text::clean_prefix(revision, 60)
                ),
            ));
        }
        let by_ref = snapshots.join(revision);
        if usable(&by_ref) {
            return Ok(Some(by_ref));
        }
    }
    let Ok(entries) = std::fs::read_dir(&snapshots) else {
        return Ok(None);
    };
    Ok(entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| usable(p))
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok()))
}

/// Every model the cache holds with a config.json, as `org/name` (at most `limit`).
pub fn cached_models(cache: &Path, limit: usize) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return Vec::new();
    };
    let mut repos: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter_map(|n| n.strip_prefix("models--").map(|r| r.replacen("--", "/", 1)))
        .filter(|r| cached_snapshot(cache, r).is_some())
        .collect();
    repos.sort();
    repos.truncate(limit);
    repos
}

/// `org/name` from the cache, offline: its config.json and checkpoint headers.
pub fn load_cached(cache: &Path, repo: &str) -> Option<Result<Model, FileError>> {
    let snapshot = match find_snapshot(cache, repo) {
        Ok(Some(s)) => s,
        Ok(None) => return None,
        Err(e) => return Some(Err(e)),
    };
    Some(load(&snapshot).map(|mut m| {
        m.id = crate::text::clean_prefix(repo, 80);
        if m.name == snapshot.file_name().and_then(|n| n.to_str()).unwrap_or("") || m.name.starts_with('/') {
            m.name = m.id.clone();
        }
        m.family = "On this machine".into();
        m
    }))
}
