//! Which release of a runtime a plan is drawn for (`--framework vllm@0.11`, `llama.cpp@b7000`):
//! the version, the newest and oldest this program knows, the releases where a rule changes
//! (the planner's Release row) and the `name@version` text. The rules themselves are the
//! runtimes room's (`runtimes::release`). Without a version a plan is for the newest release
//! known (`current`).

use serde::Serialize;

use crate::engine::basics::choice::Choice;
use crate::engine::workload::runtime::Framework;

/// A runtime's version: a numbered release (vLLM, SGLang, Ollama) or a llama.cpp build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    Release(u32, u32, u32),
    Build(u32),
}

impl Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::Release(a, b, 0) => write!(f, "{a}.{b}"),
            Self::Release(a, b, c) => write!(f, "{a}.{b}.{c}"),
            Self::Build(n) => write!(f, "b{n}"),
        }
    }
}

pub const fn v(major: u32, minor: u32, patch: u32) -> Version {
    Version::Release(major, minor, patch)
}

/// The newest release read for each runtime (vLLM 0.34.0 of 2026-11-16, SGLang 0.5.23 of
/// 2026-10-30, Ollama 0.33, llama.cpp as of October 2026); `None` for a runtime with no
/// version-dependent rule.
pub fn current(framework: Framework) -> Option<Version> {
    match framework {
        Framework::Vllm => Some(v(0, 34, 0)),
        Framework::Sglang => Some(v(0, 5, 23)),
        Framework::Ollama => Some(v(0, 33, 0)),
        Framework::LlamaCpp => Some(Version::Build(LLAMA_CPP_CURRENT_BUILD)),
        _ => None,
    }
}

/// The releases where a runtime's memory rules change, oldest first and the newest known
/// last: what the planner's Release row steps through. Each is the first release of a rule in
/// this file (V0's whole-prefill profile before 0.8, the MXFP4 kernels of 0.10.1 and 0.11,
/// 0.12's batch caps, 0.18's groups, 0.20's graph estimate and utilization, 0.21's and 0.26's
/// logged tokens, 0.28's B200 tier, 0.33's GB10, 0.34's extensible cache; SGLang's reserve of
/// 0.5.3, 0.5.8, 0.5.10 and 0.5.23; Ollama's num_ctx of 0.6.7 and 0.15.5, one slot from
/// 0.9.7, llama-server from 0.30; llama.cpp's unified slots at b7079 and `--fit` at b7437).
pub fn rule_releases(framework: Framework) -> Vec<Version> {
    let changes = match framework {
        Framework::Vllm => vec![
            v(0, 6, 0),
            v(0, 8, 0),
            v(0, 10, 0),
            v(0, 10, 1),
            v(0, 11, 0),
            v(0, 12, 0),
            v(0, 18, 0),
            v(0, 20, 0),
            v(0, 21, 0),
            v(0, 26, 0),
            v(0, 28, 0),
            v(0, 33, 0),
        ],
        Framework::Sglang => vec![v(0, 5, 2), v(0, 5, 3), v(0, 5, 8), v(0, 5, 10)],
        Framework::Ollama => vec![v(0, 6, 6), v(0, 6, 7), v(0, 9, 7), v(0, 15, 5), v(0, 30, 0)],
        Framework::LlamaCpp => [7000, 7079, 7437].map(Version::Build).to_vec(),
        _ => Vec::new(),
    };
    // The newest known closes every list (0.34's extensible cache is vLLM's).
    changes.into_iter().chain(current(framework)).collect()
}

/// The newest llama.cpp build seen in a published log (b10453, 2026).
const LLAMA_CPP_CURRENT_BUILD: u32 = 10_453;

/// The oldest release whose rules this file describes.
fn oldest(framework: Framework) -> Option<Version> {
    match framework {
        Framework::Vllm => Some(v(0, 4, 0)),
        Framework::Sglang => Some(v(0, 3, 0)),
        Framework::Ollama => Some(v(0, 1, 0)),
        Framework::LlamaCpp => Some(Version::Build(1000)),
        _ => None,
    }
}

/// Read `text` as a version of `framework`: `0.11`, `0.11.2`, `v0.11` for numbered releases,
/// `b7079` (or `7079`) for llama.cpp. A version newer than `current` is refused: its rules are
/// not known.
pub fn parse(framework: Framework, text: &str) -> Result<Version, String> {
    let t = text.trim().trim_start_matches('v');
    let (Some(old), Some(new)) = (oldest(framework), current(framework)) else {
        return Err(format!(
            "{} has no versions to choose from; use --framework {}",
            framework.id(),
            framework.id()
        ));
    };
    let parsed = if framework == Framework::LlamaCpp {
        t.trim_start_matches('b').parse::<u32>().ok().map(Version::Build)
    } else {
        let parts: Vec<Option<u32>> = t.split('.').map(|p| p.parse::<u32>().ok()).collect();
        match parts.as_slice() {
            [Some(a), Some(b)] => Some(v(*a, *b, 0)),
            [Some(a), Some(b), Some(c)] => Some(v(*a, *b, *c)),
            _ => None,
        }
    };
    let example = if framework == Framework::LlamaCpp {
        "b7079"
    } else {
        "0.11"
    };
    let version = parsed.ok_or_else(|| {
        format!(
            "{}@{} is not a version (write it like {}@{example})",
            framework.id(),
            crate::text::clean_prefix(text, 20),
            framework.id()
        )
    })?;
    if version < old || version > new {
        return Err(format!(
            "{}@{version} is outside the releases vramfit knows, {old} to {new}",
            framework.id()
        ));
    }
    Ok(version)
}

/// Read `name` or `name@version` (`vllm`, `vllm@0.11`, `llama.cpp@b7079`): the framework and
/// the release asked for (`None`: the newest known).
pub fn parse_runtime(text: &str) -> Result<(Framework, Option<Version>), String> {
    let (name, version) = match text.split_once('@') {
        Some((n, v)) => (n, Some(v)),
        None => (text, None),
    };
    let framework = Framework::from_id(name.trim()).ok_or_else(|| {
        format!(
            "unknown framework '{}'; one of {}",
            crate::text::clean_prefix(name, 30),
            Framework::ALL
                .iter()
                .map(|f| f.id())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let version = version.map(|v| parse(framework, v)).transpose()?;
    Ok((framework, version))
}

/// `name` or `name@version`, as [`parse_runtime`] reads it.
pub fn runtime_id(framework: Framework, version: Option<Version>) -> String {
    match version {
        Some(v) => format!("{}@{v}", framework.id()),
        None => framework.id().to_string(),
    }
}
