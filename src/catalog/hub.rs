//! `--hub`: a model's config.json and its safetensors headers from the Hugging Face Hub, by
//! HTTP range requests (a few KB per file, never the weights), kept in the user's cache
//! folder. Only when the user asks: nothing here runs without `--hub` (or `hub = true` in
//! the config file). `HF_ENDPOINT` names another endpoint (a mirror), `HF_TOKEN` is sent for
//! gated models.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::checkpoint::MAX_SAFETENSORS_HEADER_BYTES;
use super::safetensors::{HEADER_STUB, header_stub};
use super::safetensors::{INDEX, MAX_INDEX_BYTES, shard_names};

/// The most shards a fetch reads (two range requests each). The largest checkpoints on the
/// Hub have a few hundred (Llama 3.1 405B: 191); a longer index is refused before any shard
/// is asked for.
pub const MAX_SHARDS: usize = 1000;
/// The longest a whole fetch may take, in seconds, unless `VRAMFIT_HUB_TIMEOUT` says
/// otherwise: every request gets at most what is left of it, so a slow server cannot hold
/// the command for shards × 60 s.
pub const DEFAULT_DEADLINE_S: u64 = 300;
/// Redirects followed per request (the Hub answers a file with one, to its CDN).
pub const MAX_REDIRECTS: usize = 5;

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

/// Fetch `repo`'s config.json, its index and safetensors headers into the cache; the
/// folder to load. Everything is fetched before anything is written, then the folder
/// replaces the cached one whole: a failed fetch leaves the old folder, and the stubs of an
/// earlier fetch are never read beside the new ones.
pub fn fetch(repo: &str) -> Result<PathBuf, String> {
    if !valid_repo(repo) {
        return Err(format!("'{repo}' is not an org/name on the Hugging Face Hub"));
    }
    let root = cache_root().ok_or("no cache folder on this system (set VRAMFIT_CACHE)")?;
    let hub_dir = root.join("hub");
    let dir = hub_dir.join(format!("models--{}", repo.replace('/', "--")));
    let hub = Hub::new(repo);
    let config = hub.get_text("config.json", crate::files::MAX_CONFIG_BYTES)?;
    // The shards the index names, else the single file; a repo without safetensors is
    // planned from its config alone.
    let index = hub.get_text_if_there(INDEX, MAX_INDEX_BYTES)?;
    let shards: Vec<String> = match &index {
        Some(index) => {
            let json: serde_json::Value =
                serde_json::from_str(index).map_err(|e| format!("{repo}: {INDEX} is not JSON: {e}"))?;
            shard_names(&json).map_err(|e| format!("{repo}: {INDEX}: {e}"))?
        }
        None => vec!["model.safetensors".to_string()],
    };
    if shards.len() > MAX_SHARDS {
        return Err(format!(
            "{repo}: {INDEX} names {} shards; --hub reads at most {MAX_SHARDS}",
            shards.len()
        ));
    }
    let mut stubs = Vec::with_capacity(shards.len());
    for shard in &shards {
        match hub.header(shard)? {
            Some((file_len, prefix)) => stubs.push((shard, header_stub(file_len, &prefix))),
            // No index and no model.safetensors: the config alone.
            None if index.is_none() => {}
            None => {
                return Err(format!(
                    "{}/{}: not found (404), but {INDEX} names it: the checkpoint on the Hub is incomplete",
                    hub.base,
                    crate::text::clean_prefix(shard, 80)
                ));
            }
        }
    }
    std::fs::create_dir_all(&hub_dir).map_err(|e| format!("{}: {e}", hub_dir.display()))?;
    let staging = crate::files::create_temp_dir(&dir).map_err(|e| format!("{}: {e}", hub_dir.display()))?;
    let written = (|| {
        write(&staging.join("config.json"), config.as_bytes())?;
        if let Some(index) = &index {
            write(&staging.join(INDEX), index.as_bytes())?;
        }
        for (shard, stub) in &stubs {
            let name = format!("{}.{HEADER_STUB}", shard.trim_end_matches(".safetensors"));
            write(&staging.join(name), stub)?;
        }
        crate::files::replace_dir(&staging, &dir).map_err(|e| format!("{}: {e}", dir.display()))
    })();
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    written.map(|()| dir)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::files::write_atomic(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

struct Hub {
    base: String,
    token: Option<String>,
    agent: ureq::Agent,
    /// When the whole fetch must be over.
    deadline: Instant,
    deadline_s: u64,
}

impl Hub {
    fn new(repo: &str) -> Hub {
        let deadline_s = std::env::var("VRAMFIT_HUB_TIMEOUT")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|s| (1..=3600).contains(s))
            .unwrap_or(DEFAULT_DEADLINE_S);
        Hub {
            base: format!("{}/{repo}/resolve/main", endpoint()),
            token: std::env::var("HF_TOKEN").ok().filter(|t| !t.is_empty()),
            // Redirects are followed here, not by the client: ureq 2 panics on a Location
            // of another scheme (file:, data:, mailto:, unix:).
            agent: ureq::AgentBuilder::new()
                .timeout_connect(Duration::from_secs(10))
                .timeout(Duration::from_secs(60))
                .redirects(0)
                .build(),
            deadline: Instant::now() + Duration::from_secs(deadline_s),
            deadline_s,
        }
    }

    /// The time a request may still take: at most 60 s, at most what is left of the fetch.
    fn time_left(&self) -> Result<Duration, String> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "{}: the fetch took longer than {} s (VRAMFIT_HUB_TIMEOUT sets the limit)",
                self.base, self.deadline_s
            ));
        }
        Ok(left.min(Duration::from_secs(60)))
    }

    fn request(&self, file: &str, range: Option<(u64, u64)>) -> Result<Option<ureq::Response>, String> {
        let first = format!("{}/{file}", self.base);
        let mut url = first.clone();
        for _ in 0..=MAX_REDIRECTS {
            let mut req = self.agent.get(&url).timeout(self.time_left()?);
            // The token goes to the endpoint's host only, never to where a redirect points.
            if let Some(t) = &self.token
                && same_host(&url, &first)
            {
                req = req.set("Authorization", &format!("Bearer {t}"));
            }
            if let Some((from, to)) = range {
                req = req.set("Range", &format!("bytes={from}-{to}"));
            }
            let next = redirect_target(&req);
            let resp = match req.call() {
                Ok(r) => r,
                Err(ureq::Error::Status(404, _)) => return Ok(None),
                Err(ureq::Error::Status(401 | 403, _)) => {
                    return Err(format!(
                        "{url}: access refused (a gated model needs HF_TOKEN with access to it)"
                    ));
                }
                Err(ureq::Error::Status(code, _)) => return Err(format!("{url}: HTTP {code}")),
                Err(ureq::Error::Transport(t)) => {
                    // A request cut short by the fetch's deadline says so.
                    self.time_left()?;
                    return Err(format!(
                        "cannot reach {}: {t} (no network? --hub needs it; without --hub the local cache is used)",
                        endpoint()
                    ));
                }
            };
            if !(300..400).contains(&resp.status()) {
                return Ok(Some(resp));
            }
            let location = resp.header("Location").unwrap_or("").to_string();
            url = next(&location).map_err(|why| {
                format!(
                    "{url}: HTTP {} redirects to {}: {why}",
                    resp.status(),
                    crate::text::clean_prefix(&location, 80)
                )
            })?;
        }
        Err(format!("{first}: more than {MAX_REDIRECTS} redirects"))
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

    fn get_text_if_there(&self, file: &str, max: u64) -> Result<Option<String>, String> {
        let Some(resp) = self.request(file, None)? else {
            return Ok(None);
        };
        let bytes = Self::read(resp, max)?;
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("{file}: not UTF-8 text"))
    }

    fn get_text(&self, file: &str, max: u64) -> Result<String, String> {
        self.get_text_if_there(file, max)?
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
        if n == 0 || n > MAX_SAFETENSORS_HEADER_BYTES {
            return Err(format!(
                "{file}: byte 0: header length {n} is not between 1 and the {} MB limit",
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

/// Where a redirect from `req` to a `Location` goes, if it may be followed: an http(s) URL
/// with a host, resolved against the request's URL (the Hub answers with relative paths).
fn redirect_target(req: &ureq::Request) -> impl Fn(&str) -> Result<String, String> + use<> {
    let base = req.request_url().ok().map(|u| u.as_url().clone());
    move |location: &str| {
        let base = base.as_ref().ok_or("the request's URL does not parse")?;
        if location.is_empty() {
            return Err("no Location".into());
        }
        let to = base.join(location).map_err(|e| e.to_string())?;
        if !matches!(to.scheme(), "http" | "https") || to.host_str().is_none_or(str::is_empty) {
            return Err("only http(s) redirects to a host are followed".into());
        }
        Ok(to.to_string())
    }
}

/// Whether two URLs name the same scheme, host and port.
fn same_host(a: &str, b: &str) -> bool {
    let origin = |u: &str| {
        let (scheme, rest) = u.split_once("://").unwrap_or(("", u));
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        (scheme.to_ascii_lowercase(), host.to_ascii_lowercase())
    };
    origin(a) == origin(b)
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
