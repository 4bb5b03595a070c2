//! This machine's GPUs, with fake vendor tools first on PATH that print what real machines
//! print (verbatim layouts from nvidia-smi, rocm-smi and sysctl), hang, fail or print garbage.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

mod common;

/// A folder holding fake tools; PATH is set to it alone.
struct FakeTools {
    dir: PathBuf,
}

impl FakeTools {
    fn new(name: &str) -> FakeTools {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("detect-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        FakeTools { dir }
    }

    /// A tool that prints `stdout` and exits with `code`.
    fn tool(self, name: &str, stdout: &str, code: i32) -> Self {
        let path = self.dir.join(name);
        let script = format!("#!/bin/sh\n/bin/cat <<'EOF'\n{stdout}\nEOF\nexit {code}\n");
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    fn hanging(self, name: &str) -> Self {
        let path = self.dir.join(name);
        std::fs::write(&path, "#!/bin/sh\nexec /bin/sleep 30\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    fn vramfit(&self) -> Command {
        let mut c = common::vramfit();
        c.env("PATH", &self.dir)
            .env("VRAMFIT_CONFIG", self.dir.join("config"))
            .timeout(Duration::from_secs(20));
        c
    }

    fn detect(&self) -> (Vec<Value>, String) {
        let out = self.vramfit().args(["detect", "--json"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            v.as_array().unwrap().clone(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

const MIB: u64 = 1_048_576;

fn smi_lines(n: usize, name: &str, total: u64, used: &[u64]) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{i}, {name}, {total}, {}, 550.54.15, 00000000:{:02X}:00.0",
                used.get(i).copied().unwrap_or(0),
                0x18 + i
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn one_rtx_4090() {
    let t = FakeTools::new("4090").tool(
        "nvidia-smi",
        &smi_lines(1, "NVIDIA GeForce RTX 4090", 24564, &[507]),
        0,
    );
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), 1);
    let g = &gpus[0];
    assert_eq!(g["name"], "NVIDIA GeForce RTX 4090");
    assert_eq!(g["gpu"], "rtx-4090");
    assert_eq!(g["memory_total_bytes"], 24564 * MIB);
    assert_eq!(g["memory_used_bytes"], 507 * MIB);
    assert_eq!(g["driver"], "550.54.15");
    assert_eq!(g["source"], "nvidia-smi");
    // plan --here judges this card, its memory less what is in use.
    let out = t
        .vramfit()
        .args(["plan", "--model", "llama-3.1-8b", "--here", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &v["options"][0];
    assert_eq!(v["options"].as_array().unwrap().len(), 1);
    assert_eq!(o["gpu"], "rtx-4090");
    assert_eq!(o["count"], 1);
    assert_eq!(o["capacity_bytes"], (24564 - 507) * MIB);
}

#[test]
fn eight_h100s_plan_as_one_eight_card_option() {
    let t = FakeTools::new("h100").tool(
        "nvidia-smi",
        &smi_lines(8, "NVIDIA H100 80GB HBM3", 81559, &[]),
        0,
    );
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), 8);
    assert!(gpus.iter().all(|g| g["gpu"] == "h100-sxm"));
    let out = t
        .vramfit()
        .args([
            "plan",
            "--model",
            "llama-3.1-405b",
            "--weights",
            "fp8",
            "--here",
            "--json",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["options"][0]["gpu"], "h100-sxm");
    assert_eq!(v["options"][0]["count"], 8);
    assert_eq!(v["options"][0]["name"], "NVIDIA H100 SXM 80GB");
}

#[test]
fn a_busy_a100_counts_what_is_in_use() {
    let lines = smi_lines(2, "NVIDIA A100-SXM4-80GB", 81920, &[0, 40000]);
    let t = FakeTools::new("a100").tool("nvidia-smi", &lines, 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus[1]["memory_used_bytes"], 40000 * MIB);
    assert!(gpus.iter().all(|g| g["gpu"] == "a100-sxm"));
    let out = t
        .vramfit()
        .args(["plan", "--model", "llama-3.1-70b", "--here", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Two equal cards hold what the busier one has free.
    let per_card = (81920 - 40000) * MIB;
    assert_eq!(v["options"][0]["capacity_bytes"], 2 * per_card);
    assert_eq!(
        v["options"][0]["verdict"], "no",
        "140 GB of BF16 weights on 2 × 41 GB free"
    );
}

#[test]
fn four_mi300x_from_rocm_smi() {
    let card = |i: usize| {
        format!(
            r#""card{i}": {{"Card series": "AMD INSTINCT MI300X (MCM) OAM AC MBA", "Card model": "0x74a1", "Card vendor": "Advanced Micro Devices, Inc. [AMD/ATI]", "Card SKU": "M3000100", "VRAM Total Memory (B)": "206141652992", "VRAM Total Used Memory (B)": "283492352"}}"#
        )
    };
    let json = format!("{{{}}}", (0..4).map(card).collect::<Vec<_>>().join(", "));
    let t = FakeTools::new("mi300x").tool("rocm-smi", &json, 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), 4);
    assert!(
        gpus.iter()
            .all(|g| g["gpu"] == "mi300x" && g["source"] == "rocm-smi")
    );
    assert_eq!(gpus[0]["memory_total_bytes"], 206_141_652_992u64);
    assert_eq!(gpus[0]["memory_used_bytes"], 283_492_352u64);
}

#[test]
fn an_m2_ultra_from_sysctl() {
    let t = FakeTools::new("m2").tool("sysctl", "206158430208\nApple M2 Ultra", 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), 1);
    // Metal's default working set: 3/4 of 192 GiB.
    assert_eq!(gpus[0]["memory_total_bytes"], 206_158_430_208u64 / 4 * 3);
    assert_eq!(gpus[0]["gpu"], "m2-ultra-192gb");
    assert_eq!(gpus[0]["source"], "sysctl");
}

#[test]
fn a_hanging_tool_is_cut_at_the_timeout() {
    let t = FakeTools::new("hang").hanging("nvidia-smi");
    let start = Instant::now();
    let (gpus, err) = t.detect();
    assert!(gpus.is_empty());
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    assert!(err.contains("nvidia-smi did not answer within 1 s"), "{err}");
}

#[test]
fn garbage_and_failures_are_ignored_with_a_note() {
    let t = FakeTools::new("garbage").tool(
        "nvidia-smi",
        "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.54",
        0,
    );
    let (gpus, err) = t.detect();
    assert!(gpus.is_empty());
    assert!(err.contains("ignored a line that is not a card"), "{err}");
    let t = FakeTools::new("exit9").tool("nvidia-smi", "", 9);
    let (gpus, err) = t.detect();
    assert!(gpus.is_empty());
    assert!(err.contains("nvidia-smi exited with exit status: 9"), "{err}");
    // No tool at all: nothing shown, nothing slow, and plan --here says why it cannot.
    let t = FakeTools::new("none");
    let (gpus, err) = t.detect();
    assert!(gpus.is_empty() && err.is_empty());
    t.vramfit()
        .args(["plan", "--model", "llama-3.1-8b", "--here"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no GPU found on this machine"));
}

#[test]
fn an_unknown_card_plans_on_its_memory_without_a_decode_ceiling() {
    let t = FakeTools::new("unknown").tool("nvidia-smi", &smi_lines(1, "Quadro RTX 8000", 49152, &[]), 0);
    let (gpus, _) = t.detect();
    assert!(gpus[0]["gpu"].is_null());
    let out = t
        .vramfit()
        .args(["plan", "--model", "llama-3.1-8b", "--here", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &v["options"][0];
    assert_eq!(o["gpu"], "local");
    assert_eq!(o["verdict"], "fits");
    assert!(o["decode_tokens_per_s"].is_null());
}
