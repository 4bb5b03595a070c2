//! `--hub`: a model's config.json and its safetensors headers from the Hugging Face Hub, by
//! HTTP range requests (a few KB per file, never the weights), kept in the user's cache
//! folder. Only when the user asks: nothing here runs without `--hub` (or `hub = true` in
//! the config file). `HF_ENDPOINT` names another endpoint (a mirror), `HF_TOKEN` is sent for
//! gated models.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::checkpoint::{HEADER_STUB, MAX_SAFETENSORS_HEADER_BYTES, header_stub};

/// The endpoint: `$HF_ENDPOINT`, else huggingface.co.
pub fn endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "https://huggingface.co".into())
        .trim_end_matches('/')
        .to_string()
}

/// Where fetched headers are kept: `$VRAMFIT_CACHE`, else the platform's cache folder
/// (`~/.cache/vramfit` on Linux), under `hub/models--org--name/`.
pub fn cache_root() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("VRAMFIT_CACHE").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "vramfit").map(|d| d.cache_dir().to_path_buf())
}

/// `org/name` with both parts plain (no path tricks).
pub fn valid_repo(repo: &str) -> bool {
    let Some((org, name)) = repo.split_once('/') else {
        return false;
    };
    [org, name].iter().all(|p| {
        !p.is_empty()
            && *p != "."
            && *p != ".."
            && p.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    })
}

/// Fetch `repo`'s config.json and safetensors headers into the cache; the folder to load.
pub fn fetch(repo: &str) -> Result<PathBuf, String> {
    if !valid_repo(repo) {
        return Err(format!("'{repo}' is not an org/name on the Hugging Face Hub"));
    }
    let root = cache_root().ok_or("no cache folder on this system (set VRAMFIT_CACHE)")?;
    let dir = root
        .join("hub")
        .join(format!("models--{}", repo.replace('/', "--")));
    let hub = Hub::new(repo);
    let config = hub.get_text("config.json")?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    write(&dir.join("config.json"), config.as_bytes())?;
    // The shards the index names, else the single file; a repo without safetensors is
    // planned from its config alone.
    let shards: Vec<String> = match hub.get_text_if_there("model.safetensors.index.json")? {
        Some(index) => {
            let json: serde_json::Value = serde_json::from_str(&index)
                .map_err(|e| format!("{repo}: model.safetensors.index.json is not JSON: {e}"))?;
            let mut names: Vec<String> = json
                .get("weight_map")
                .and_then(|m| m.as_object())
                .map(|m| {
                    m.values()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            names.dedup();
            names
        }
        None => vec!["model.safetensors".to_string()],
    };
    for shard in shards {
        if !shard.ends_with(".safetensors") || shard.contains(['/', '\\']) || shard.starts_with('.') {
            return Err(format!("{repo}: unexpected shard name {shard:?} in the index"));
        }
        let Some((file_len, prefix)) = hub.header(&shard)? else {
            continue;
        };
        let stub = dir.join(format!(
            "{}.{HEADER_STUB}",
            shard.trim_end_matches(".safetensors")
        ));
        write(&stub, &header_stub(file_len, &prefix))?;
    }
    Ok(dir)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::files::write_atomic(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

struct Hub {
    base: String,
    token: Option<String>,
    agent: ureq::Agent,
}

impl Hub {
    fn new(repo: &str) -> Hub {
        Hub {
            base: format!("{}/{repo}/resolve/main", endpoint()),
            token: std::env::var("HF_TOKEN").ok().filter(|t| !t.is_empty()),
            agent: ureq::AgentBuilder::new()
                .timeout_connect(Duration::from_secs(10))
                .timeout(Duration::from_secs(60))
                .build(),
        }
    }

    fn request(&self, file: &str, range: Option<(u64, u64)>) -> Result<Option<ureq::Response>, String> {
        let url = format!("{}/{file}", self.base);
        let mut req = self.agent.get(&url);
        if let Some(t) = &self.token {
            req = req.set("Authorization", &format!("Bearer {t}"));
        }
        if let Some((from, to)) = range {
            req = req.set("Range", &format!("bytes={from}-{to}"));
        }
        match req.call() {
            Ok(r) => Ok(Some(r)),
            Err(ureq::Error::Status(404, _)) => Ok(None),
            Err(ureq::Error::Status(401 | 403, _)) => Err(format!(
                "{url}: access refused (a gated model needs HF_TOKEN with access to it)"
            )),
            Err(ureq::Error::Status(code, _)) => Err(format!("{url}: HTTP {code}")),
            Err(ureq::Error::Transport(t)) => Err(format!(
                "cannot reach {}: {t} (no network? --hub needs it; without --hub the local cache is used)",
                endpoint()
            )),
        }
    }

    fn read(resp: ureq::Response, max: u64) -> Result<Vec<u8>, String> {
        let mut bytes = Vec::new();
        resp.into_reader()
            .take(max + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        if bytes.len() as u64 > max {
            return Err(format!("answer larger than {} MB", max >> 20));
        }
        Ok(bytes)
    }

    fn get_text_if_there(&self, file: &str) -> Result<Option<String>, String> {
        let Some(resp) = self.request(file, None)? else {
            return Ok(None);
        };
        let bytes = Self::read(resp, crate::files::MAX_CONFIG_BYTES)?;
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("{file}: not UTF-8 text"))
    }

    fn get_text(&self, file: &str) -> Result<String, String> {
        self.get_text_if_there(file)?
            .ok_or_else(|| format!("{}/{file}: not found (is the name right?)", self.base))
    }

    /// A shard's length and its first bytes through the end of the header: two range
    /// requests (the 8-byte length, then the header).
    fn header(&self, file: &str) -> Result<Option<(u64, Vec<u8>)>, String> {
        let Some(resp) = self.request(file, Some((0, 7)))? else {
            return Ok(None);
        };
        let file_len = total_length(&resp)
            .ok_or_else(|| format!("{file}: the server did not answer the range request"))?;
        let len = Self::read(resp, 8)?;
        let n = u64::from_le_bytes(
            <[u8; 8]>::try_from(len.as_slice()).map_err(|_| format!("{file}: shorter than 8 bytes"))?,
        );
        if n > MAX_SAFETENSORS_HEADER_BYTES {
            return Err(format!(
                "{file}: header length {n} is over the {} MB limit",
                MAX_SAFETENSORS_HEADER_BYTES >> 20
            ));
        }
        let resp = self
            .request(file, Some((8, 8 + n - 1)))?
            .ok_or_else(|| format!("{file}: gone between two requests"))?;
        let header = Self::read(resp, n)?;
        if header.len() as u64 != n {
            return Err(format!(
                "{file}: header cut short ({} of {n} bytes)",
                header.len()
            ));
        }
        let mut prefix = len;
        prefix.extend_from_slice(&header);
        Ok(Some((file_len, prefix)))
    }
}

/// The whole file's length from a 206 answer's `Content-Range: bytes 0-7/LENGTH`.
fn total_length(resp: &ureq::Response) -> Option<u64> {
    if resp.status() != 206 {
        return None;
    }
    resp.header("Content-Range")?
        .rsplit_once('/')?
        .1
        .trim()
        .parse()
        .ok()
}
