//! The binary as the integration tests run it: the user's own catalog and settings kept out
//! (`VRAMFIT_CONFIG` points at the test's temp dir) and the language fixed, whatever the
//! machine's locale.

// Each test crate uses the part it needs.
#![allow(dead_code)]

use assert_cmd::Command;

/// `vramfit` in English.
pub fn vramfit() -> Command {
    vramfit_in("C.UTF-8")
}

/// `vramfit` under this `LANG` (`LC_ALL` and `LC_MESSAGES` cleared so that LANG decides).
pub fn vramfit_in(lang: &str) -> Command {
    let mut c = Command::cargo_bin("vramfit").unwrap();
    c.env("VRAMFIT_CONFIG", env!("CARGO_TARGET_TMPDIR"))
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", lang);
    c
}

/// One segment (`weights`, `kv_cache`, …) of a `plan --json` answer.
pub fn segment<'a>(plan: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    plan["segments"]
        .as_array()
        .expect("a plan has segments")
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no segment {name}"))
}

/// The option of `count` cards of `gpu` in a `plan --json` answer.
pub fn option<'a>(plan: &'a serde_json::Value, gpu: &str, count: u64) -> &'a serde_json::Value {
    plan["options"]
        .as_array()
        .expect("a plan has options")
        .iter()
        .find(|o| o["gpu"] == gpu && o["count"] == count)
        .unwrap_or_else(|| panic!("no option {count}× {gpu}"))
}

/// What `vramfit ARGS` printed as JSON, once it succeeded.
pub fn json_of(args: &[&str]) -> serde_json::Value {
    let out = vramfit().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A local Hugging Face cache at `cache` holding `org/name` with `config` as its config.json
/// (the layout the hub client writes: `models--org--name/snapshots/<rev>`, `refs/main`).
pub fn cache_model(cache: &std::path::Path, repo: &str, config: &std::path::Path) {
    let dir = cache.join(format!("models--{}", repo.replace('/', "--")));
    let snap = dir.join("snapshots").join("abc123");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(dir.join("refs")).unwrap();
    std::fs::write(dir.join("refs").join("main"), "abc123").unwrap();
    std::fs::copy(config, snap.join("config.json")).unwrap();
}
