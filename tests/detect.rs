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

    /// A tool whose script is `body` (after `#!/bin/sh`).
    fn script(self, name: &str, body: &str) -> Self {
        let path = self.dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    /// `vramfit ARGS`: exit code, stdout, stderr.
    fn fails(&self, args: &[&str]) -> (Option<i32>, String, String) {
        let out = self.vramfit().args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
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
    // The catalog's capacity rules: CUDA can allocate the catalog's 25,254,407,700 B of
    // this card; vLLM-style serving takes 90 % of that total whatever else is in use (507
    // MiB leave enough free for it to start).
    assert_eq!(o["capacity_bytes"], 25_254_407_700u64);
    assert_eq!(o["usable_bytes"], 22_728_966_930u64);
}

/// GeForce cards under the names and totals nvidia-smi prints for them in public run logs
/// (`--query-gpu=name,memory.total`): each is its catalog card, the two 3080s told apart by
/// their memory; the cards the catalog lacks are none of its cards.
#[test]
fn geforce_cards_as_nvidia_smi_names_them() {
    let cards: [(&str, u64, Option<&str>); 24] = [
        ("NVIDIA GeForce RTX 3080", 10240, Some("rtx-3080-10gb")),
        ("NVIDIA GeForce RTX 3080", 12288, Some("rtx-3080-12gb")),
        ("NVIDIA GeForce RTX 3080 Ti", 12288, Some("rtx-3080-ti")),
        ("NVIDIA GeForce RTX 3090 Ti", 24564, Some("rtx-3090-ti")),
        ("NVIDIA GeForce RTX 4060 Ti", 8188, Some("rtx-4060-ti-8gb")),
        ("NVIDIA GeForce RTX 4070", 12282, Some("rtx-4070")),
        ("NVIDIA GeForce RTX 4070 SUPER", 12282, Some("rtx-4070-super")),
        ("NVIDIA GeForce RTX 4070 Ti", 12282, Some("rtx-4070-ti")),
        (
            "NVIDIA GeForce RTX 4070 Ti SUPER",
            16376,
            Some("rtx-4070-ti-super"),
        ),
        ("NVIDIA GeForce RTX 4080", 16376, Some("rtx-4080")),
        ("NVIDIA GeForce RTX 4080 SUPER", 16376, Some("rtx-4080-super")),
        ("NVIDIA GeForce RTX 4090 D", 24564, Some("rtx-4090d")),
        ("NVIDIA GeForce RTX 5060 Ti", 16311, Some("rtx-5060-ti-16gb")),
        ("NVIDIA GeForce RTX 5070", 12227, Some("rtx-5070")),
        ("NVIDIA GeForce RTX 5070 Ti", 16303, Some("rtx-5070-ti")),
        ("NVIDIA GeForce RTX 5080", 16303, Some("rtx-5080")),
        ("NVIDIA GeForce RTX 2080 Ti", 11264, Some("rtx-2080-ti")),
        ("NVIDIA GeForce RTX 2080 SUPER", 8192, Some("rtx-2080-super")),
        ("NVIDIA GeForce RTX 3060 Ti", 8192, Some("rtx-3060-ti")),
        ("NVIDIA GeForce RTX 3070", 8192, Some("rtx-3070")),
        ("NVIDIA GeForce RTX 4060", 8188, Some("rtx-4060")),
        // Not in the catalog.
        ("NVIDIA GeForce RTX 3070 Ti", 8192, None),
        ("NVIDIA GeForce RTX 2080", 8192, None),
        ("NVIDIA GeForce RTX 3060", 8192, None),
    ];
    let lines = cards
        .iter()
        .enumerate()
        .map(|(i, (name, total, _))| {
            format!("{i}, {name}, {total}, 0, 580.95.05, 00000000:{:02X}:00.0", i + 1)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let t = FakeTools::new("geforce").tool("nvidia-smi", &lines, 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), cards.len());
    for (g, (name, total, id)) in gpus.iter().zip(cards) {
        assert_eq!(g["name"], name);
        assert_eq!(g["memory_total_bytes"], total * MIB);
        match id {
            Some(id) => assert_eq!(g["gpu"], id, "{name}, {total} MiB"),
            None => assert!(g["gpu"].is_null(), "{name}, {total} MiB: {}", g["gpu"]),
        }
    }
}

#[test]
fn older_datacenter_and_workstation_cards_as_nvidia_smi_names_them() {
    let cards: [(&str, u64, Option<&str>); 17] = [
        ("Tesla V100-PCIE-16GB", 16160, Some("v100-pcie-16gb")),
        ("Tesla V100-PCIE-16GB", 16384, Some("v100-pcie-16gb")),
        ("Tesla V100-SXM2-32GB", 32768, Some("v100-sxm2-32gb")),
        ("NVIDIA A800 80GB PCIe", 81920, Some("a800-80gb-pcie")),
        ("NVIDIA L20", 46068, Some("l20")),
        ("NVIDIA L40", 46068, Some("l40")),
        ("NVIDIA L40S", 46068, Some("l40s")),
        ("Tesla P40", 24576, Some("tesla-p40")),
        ("Tesla P100-PCIE-16GB", 16276, Some("tesla-p100-16gb")),
        ("NVIDIA RTX A4000", 16376, Some("rtx-a4000")),
        ("NVIDIA RTX A4500", 20468, Some("rtx-a4500")),
        ("NVIDIA RTX A5500", 24564, Some("rtx-a5500")),
        ("NVIDIA RTX 4000 Ada Generation", 20468, Some("rtx-4000-ada")),
        ("NVIDIA RTX 5000 Ada Generation", 32760, Some("rtx-5000-ada")),
        ("NVIDIA RTX 2000 Ada Generation", 16380, Some("rtx-2000-ada")),
        ("NVIDIA RTX A5000", 24564, Some("rtx-a5000")),
        // Only the 80 GB PCIe A800 is a card here.
        ("NVIDIA A800-SXM4-80GB", 81920, None),
    ];
    let lines = cards
        .iter()
        .enumerate()
        .map(|(i, (name, total, _))| {
            format!("{i}, {name}, {total}, 0, 580.95.05, 00000000:{:02X}:00.0", i + 1)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let t = FakeTools::new("older").tool("nvidia-smi", &lines, 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), cards.len());
    for (g, (name, total, id)) in gpus.iter().zip(cards) {
        assert_eq!(g["name"], name);
        match id {
            Some(id) => assert_eq!(g["gpu"], id, "{name}, {total} MiB"),
            None => assert!(g["gpu"].is_null(), "{name}, {total} MiB: {}", g["gpu"]),
        }
    }
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
    let plan = |framework: &str| {
        let out = t
            .vramfit()
            .args(["plan", "--model", "llama-3.1-70b", "--here", "--json"])
            .args(["--framework", framework])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["options"][0].clone()
    };
    // Two equal cards hold what the busier one has free: the catalog's CUDA-visible
    // 84,975,927,951 B each, less 40,000 MiB on the busier card.
    let o = plan("llama.cpp");
    let per_card = 84_975_927_951u64 - 40000 * MIB;
    assert_eq!(o["capacity_bytes"], 2 * 84_975_927_951u64);
    assert_eq!(o["usable_bytes"], 2 * per_card);
    assert_eq!(o["verdict"], "no", "140 GB of BF16 weights on 2 × 43 GB free");
}

fn here_option(t: &FakeTools, extra: &[&str]) -> Value {
    let out = t
        .vramfit()
        // No host RAM: the comparisons here are with the catalog card's VRAM-only plan, not
        // with what this test machine's RAM would let spill.
        .args([
            "plan",
            "--model",
            "llama-3.1-8b",
            "--here",
            "--json",
            "--ram",
            "0",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["options"][0].clone()
}

/// An H100 with 24,000 of 81,559 MiB in use by another process. vLLM takes
/// gpu_memory_utilization × the card's TOTAL and refuses to start when less than that is
/// free (vllm/v1/worker/gpu_worker.py, `init_device`): "no", with the reason. SGLang's
/// share shrinks by what others hold; llama.cpp and training take what is free.
#[test]
fn a_busy_card_under_each_runtime() {
    let t = FakeTools::new("busy").tool(
        "nvidia-smi",
        &smi_lines(1, "NVIDIA H100 80GB HBM3", 81559, &[24000]),
        0,
    );
    // CUDA-visible: 81,559 MiB less the catalog's 477 MiB reserve.
    let visible = 85_020_639_232u64;
    let free = visible - 24000 * MIB;
    assert_eq!(free, 59_854_815_232);
    let reason = "other processes leave 59.85 GB free per card; the serving engine wants 76.52 GB free to start (gpu_memory_utilization × the card's total)";
    for framework in ["generic", "vllm@0.19"] {
        let o = here_option(&t, &["--framework", framework]);
        assert_eq!(o["verdict"], "no", "{framework}");
        assert_eq!(o["reason"], reason, "{framework}");
        assert_eq!(o["capacity_bytes"], visible);
        assert_eq!(o["usable_bytes"], 76_518_575_309u64, "0.9 × the total");
    }
    // vLLM 0.34's extensible cache skips that check and sizes itself from what is free.
    let o = here_option(&t, &["--framework", "vllm"]);
    assert_eq!(o["usable_bytes"], free, "1.0 × the total − 24,000 MiB");
    assert_ne!(o["reason"], reason);
    // SGLang 0.5.23 reads its fraction off the card (81,559 MiB, one rank): reserve 512 +
    // 1.5 × 8,192 + 128 + 2 × 256 + 8 × 58 = 13,904 MiB → 0.830; others' memory comes out of it.
    let o = here_option(&t, &["--framework", "sglang"]);
    assert_eq!(o["verdict"], "fits");
    let usable = o["usable_bytes"].as_f64().unwrap();
    let expected = 0.83 * visible as f64 - (24000 * MIB) as f64;
    assert!(
        (usable - expected).abs() < 2.0,
        "{usable} vs {expected}: 0.830 × the total − 24,000 MiB"
    );
    for extra in [&["--framework", "llama.cpp"][..], &["--method", "lora"]] {
        let o = here_option(&t, extra);
        assert_eq!(o["verdict"], "fits", "{extra:?}");
        assert_eq!(o["usable_bytes"], free, "{extra:?}");
    }
    // The text says why, not "fit lists what would make it fit".
    let out = t
        .vramfit()
        .args(["plan", "--model", "llama-3.1-8b", "--here"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "NVIDIA H100 SXM 80GB · here cannot run this plan: {reason}."
        )),
        "{text}"
    );
}

/// An idle catalog card found on this machine is judged exactly as the same card from the
/// catalog: same verdict, same free memory (the driver's reserve counted both ways).
#[test]
fn an_idle_detected_card_is_the_catalog_card() {
    let t = FakeTools::new("idle4090").tool(
        "nvidia-smi",
        &smi_lines(1, "NVIDIA GeForce RTX 4090", 24564, &[0]),
        0,
    );
    let here = here_option(&t, &["--context", "38000"]);
    let out = t
        .vramfit()
        .args([
            "plan",
            "--model",
            "llama-3.1-8b",
            "--gpu",
            "rtx-4090",
            "--context",
            "38000",
            "--json",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let catalog = v["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["count"] == 1)
        .unwrap()
        .clone();
    for key in [
        "verdict",
        "capacity_bytes",
        "usable_bytes",
        "free_bytes_per_card",
        "per_card_bytes",
    ] {
        assert_eq!(here[key], catalog[key], "{key}");
    }
    assert_eq!(here["verdict"], "no");
    assert_eq!(here["free_bytes_per_card"], -118_831_649);
    // `fit` on the catalog card says the same: 0.12 GB short.
    let out = t
        .vramfit()
        .args([
            "fit",
            "--model",
            "llama-3.1-8b",
            "--gpu",
            "rtx-4090",
            "--context",
            "38000",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("now: no — 22.85 GB needed per card of 22.73 GB usable, 0.12 GB short"),
        "{text}"
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

/// Radeon and Instinct cards under the names rocm-smi prints ("Card series"), with the totals
/// public outputs show where found ("Arcturus GL-XL [Instinct MI100]" 34342961152 B; an
/// "RX 7800 XT" fixture at 17163091968 B) and older rocm-smi's shared PCI name for the two
/// 7900s, told apart by memory.
#[test]
fn radeon_cards_as_rocm_smi_names_them() {
    let cards: [(&str, u64, &str); 12] = [
        ("Arcturus GL-XL [Instinct MI100]", 34_342_961_152, "mi100"),
        ("AMD Radeon RX 7900 XT", 21_458_059_264, "rx-7900-xt"),
        (
            "Navi 31 [Radeon RX 7900 XT/7900 XTX]",
            21_458_059_264,
            "rx-7900-xt",
        ),
        (
            "Navi 31 [Radeon RX 7900 XT/7900 XTX]",
            25_753_026_560,
            "rx-7900-xtx",
        ),
        ("AMD Radeon RX 7900 GRE", 17_163_091_968, "rx-7900-gre"),
        ("RX 7800 XT", 17_163_091_968, "rx-7800-xt"),
        ("Radeon RX 7600 XT", 17_163_091_968, "rx-7600-xt"),
        ("AMD Radeon RX 9070 XT", 17_163_091_968, "rx-9070-xt"),
        ("AMD Radeon RX 9070", 17_163_091_968, "rx-9070"),
        ("AMD Radeon RX 6900 XT", 17_163_091_968, "rx-6900-xt"),
        ("AMD Radeon RX 6800", 17_163_091_968, "rx-6800"),
        ("AMD Radeon PRO W7900", 51_522_830_336, "radeon-pro-w7900"),
    ];
    let json = cards
        .iter()
        .enumerate()
        .map(|(i, (name, total, _))| {
            format!(
                r#""card{i}": {{"Card series": "{name}", "VRAM Total Memory (B)": "{total}", "VRAM Total Used Memory (B)": "0"}}"#
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let t = FakeTools::new("radeon").tool("rocm-smi", &format!("{{{json}}}"), 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), cards.len());
    for g in &gpus {
        // The JSON's cards come back in key order (card0, card1, card10, …).
        let (name, total, id) = cards[g["index"].as_u64().unwrap() as usize];
        assert_eq!(g["name"], name);
        assert_eq!(g["memory_total_bytes"], total);
        assert_eq!(g["gpu"], id, "{name}");
    }
    // The RX 6800 XT is not the RX 6800.
    let t = FakeTools::new("6800xt").tool(
        "rocm-smi",
        r#"{"card0": {"Card series": "AMD Radeon RX 6800 XT", "VRAM Total Memory (B)": "17163091968", "VRAM Total Used Memory (B)": "0"}}"#,
        0,
    );
    assert!(t.detect().0[0]["gpu"].is_null());
}

#[test]
fn an_m2_ultra_from_sysctl() {
    let t = FakeTools::new("m2").tool("sysctl", "206158430208\nApple M2 Ultra", 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), 1);
    // Metal's default working set on macOS 26: 84 % of 192 GiB.
    let share = vramfit::engine::hardware::apple::metal_default_working_set_bytes(206_158_430_208.0);
    assert_eq!(gpus[0]["memory_total_bytes"], share as u64);
    assert_eq!(gpus[0]["gpu"], "m2-ultra-192gb");
    assert_eq!(gpus[0]["source"], "sysctl");
}

/// Apple chips as `sysctl -n hw.memsize machdep.cpu.brand_string` prints them: each size the
/// catalog has is its card; a size far from any the chip was sold with is none.
#[test]
fn apple_chips_from_sysctl() {
    const GIB: u64 = 1 << 30;
    let machines: [(u64, &str, Option<&str>); 12] = [
        (24, "Apple M4 Pro", Some("m4-pro-24gb")),
        (48, "Apple M4 Pro", Some("m4-pro-48gb")),
        (64, "Apple M4 Pro", Some("m4-pro-64gb")),
        (8, "Apple M4 Pro", None),
        (36, "Apple M3 Pro", Some("m3-pro-36gb")),
        (18, "Apple M3 Pro", Some("m3-pro-18gb")),
        (96, "Apple M2 Max", Some("m2-max-96gb")),
        (64, "Apple M1 Max", Some("m1-max-64gb")),
        (32, "Apple M1 Max", Some("m1-max-32gb")),
        (256, "Apple M1 Max", None),
        (256, "Apple M3 Ultra", Some("m3-ultra-256gb")),
        (512, "Apple M3 Ultra", Some("m3-ultra-512gb")),
    ];
    for (gib, brand, id) in machines {
        let t = FakeTools::new("apple").tool("sysctl", &format!("{}\n{brand}", gib * GIB), 0);
        let (gpus, _) = t.detect();
        assert_eq!(gpus.len(), 1, "{brand} {gib} GB");
        match id {
            Some(id) => assert_eq!(gpus[0]["gpu"], id, "{brand} {gib} GB"),
            None => assert!(gpus[0]["gpu"].is_null(), "{brand} {gib} GB"),
        }
    }
}

/// Every Apple entry from the brand string `sysctl machdep.cpu.brand_string` prints on that chip
/// (each quoted from a public log or report, `ci:` ids as in the references) and the
/// `hw.memsize` of its size; the entry is the one whose Metal share is nearest.
#[test]
fn apple_silicon_m1_to_m5_as_sysctl_names_them() {
    const GIB: u64 = 1 << 30;
    // "Apple M1": `sysctl -a | grep M1` (ci:16286391917); "Apple M1 Pro": sysctl output
    // (ci:64762307); "Apple M1 Max": `sysctl -a | grep machdep.cpu.brand_string` (ci:1777091221);
    // "Apple M1 Ultra": a benchmark's CPU line, "CPU: Apple M1 Ultra × 20" (ci:55801268444).
    // "Apple M2": `sysctl -a | grep -i brand` (ci:26588830132); "Apple M2 Pro": `sysctl
    // machdep.cpu.brand_string` (ci:9940487108); "Apple M2 Max": `sysctl -a` (ci:52449298572);
    // "Apple M2 Ultra": llama.cpp's Metal device name, the same string (ci:57949983032).
    // "Apple M3" with hw.memsize 17179869184 (ci:68390272588); "Apple M3 Pro" with 19327352832
    // (ci:55589323998); "Apple M3 Max" with 38654705664 (ci:68318205764); "Apple M3 Ultra" with
    // 103079215104 (ci:61900700714). "Apple M4" with 25769803776 (ci:61111189857); "Apple M4
    // Pro" with 68719476736 on macOS 26.5.2 (ci:60918010939); "Apple M4 Max" (ci:58282303281).
    // "Apple M5": llama.cpp's Metal device name on darwin25 (ci:59932672849); "Apple M5 Pro"
    // with 68719476736 (ci:70889856781); "Apple M5 Max" with 137438953472, macOS 26.6.2
    // (ci:69188008840).
    let chips: [(&str, &[u64]); 18] = [
        ("Apple M1", &[8, 16]),
        ("Apple M1 Pro", &[16, 32]),
        ("Apple M1 Max", &[32, 64]),
        ("Apple M1 Ultra", &[64, 128]),
        ("Apple M2", &[8, 16, 24]),
        ("Apple M2 Pro", &[16, 32]),
        ("Apple M2 Max", &[32, 64, 96]),
        ("Apple M2 Ultra", &[64, 128, 192]),
        ("Apple M3", &[8, 16, 24]),
        ("Apple M3 Pro", &[18, 36]),
        ("Apple M3 Max", &[36, 48, 64, 96, 128]),
        ("Apple M3 Ultra", &[96, 256, 512]),
        ("Apple M4", &[16, 24, 32]),
        ("Apple M4 Pro", &[24, 48, 64]),
        ("Apple M4 Max", &[36, 48, 64, 128]),
        ("Apple M5", &[16, 24, 32]),
        ("Apple M5 Pro", &[24, 48, 64]),
        ("Apple M5 Max", &[36, 48, 64, 128]),
    ];
    for (brand, sizes) in chips {
        for gib in sizes {
            let id = format!(
                "{}-{gib}gb",
                brand
                    .trim_start_matches("Apple ")
                    .to_lowercase()
                    .replace(' ', "-")
            );
            let t = FakeTools::new("m").tool("sysctl", &format!("{}\n{brand}", gib * GIB), 0);
            let (gpus, _) = t.detect();
            assert_eq!(gpus.len(), 1, "{brand} {gib} GB");
            assert_eq!(gpus[0]["gpu"], id.as_str(), "{brand} {gib} GB");
        }
    }
    // The trailing blank one report shows ("Apple M1 ", ci:28488074915) is no other chip; the
    // M5 Ultra has no entry (no first-hand report of one found).
    for (gib, brand, id) in [(8, "Apple M1 ", Some("m1-8gb")), (256, "Apple M5 Ultra", None)] {
        let t = FakeTools::new("m").tool("sysctl", &format!("{}\n{brand}", gib * GIB), 0);
        let (gpus, _) = t.detect();
        match id {
            Some(id) => assert_eq!(gpus[0]["gpu"], id, "{brand}"),
            None => assert!(gpus[0]["gpu"].is_null(), "{brand}: {}", gpus[0]["gpu"]),
        }
    }
}

#[test]
fn a_hanging_tool_is_cut_at_the_timeout() {
    let t = FakeTools::new("hang").hanging("nvidia-smi");
    let start = Instant::now();
    let (code, out, err) = t.fails(&["detect"]);
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert_eq!(err, "error: nvidia-smi did not answer within 1 s\n");
}

#[test]
fn garbage_is_ignored_with_a_note_and_a_failing_tool_is_an_error() {
    let t = FakeTools::new("garbage").tool(
        "nvidia-smi",
        "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.54",
        0,
    );
    let (gpus, err) = t.detect();
    assert!(gpus.is_empty());
    assert!(err.contains("ignored a line that is not a card"), "{err}");
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

/// nvidia-smi that cannot reach the driver exits non-zero with NVML's words: `detect` and
/// `--here` say the tool failed and what it said (its control characters escaped), exit 2.
#[test]
fn a_failing_tool_is_named_with_its_message() {
    let t = FakeTools::new("nvml").tool(
        "nvidia-smi",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\x1b]0;owned\x07",
        9,
    );
    let said = "nvidia-smi failed (exit status: 9): NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\\u{1b}]0;owned\\u{7}";
    for args in [
        &["detect"][..],
        &["detect", "--json"],
        &["plan", "--model", "llama-3.1-8b", "--here"],
    ] {
        let (code, out, err) = t.fails(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(out.is_empty(), "{out}");
        assert_eq!(err, format!("error: {said}\n"), "{args:?}");
    }
    // A driver without a card: "No devices were found", exit 6, is no GPU, not a failure.
    let t = FakeTools::new("nodev").tool("nvidia-smi", "No devices were found", 6);
    let (gpus, err) = t.detect();
    assert!(gpus.is_empty() && err.is_empty(), "{err}");
    // Empty-handed: the status alone.
    let t = FakeTools::new("exit9").tool("nvidia-smi", "", 9);
    let (code, _, err) = t.fails(&["detect"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "error: nvidia-smi failed (exit status: 9) without a message\n"
    );
}

/// Drivers that print "[N/A]" for memory.used (MIG, some GeForce drivers): the card is
/// planned with nothing in use, and a note says so.
#[test]
fn memory_used_not_available_counts_as_none_with_a_note() {
    let t = FakeTools::new("na").tool(
        "nvidia-smi",
        "0, NVIDIA GeForce RTX 4090, 24564, [N/A], 550.54.15, 00000000:01:00.0",
        0,
    );
    let (gpus, err) = t.detect();
    assert_eq!(gpus.len(), 1);
    assert_eq!(gpus[0]["memory_total_bytes"], 24564 * MIB);
    assert_eq!(gpus[0]["memory_used_bytes"], 0);
    assert_eq!(
        err,
        "note: nvidia-smi reports no memory in use for card 0 (NVIDIA GeForce RTX 4090) ([N/A]); planned as if none were\n"
    );
}

/// A card that reports no memory total: a unified-memory part the catalog knows (the GB10,
/// "[N/A]" in nvidia-smi, unsloth#10703) is planned on the pool CUDA gives it; another is
/// named in a note, not planned on.
#[test]
fn memory_total_not_available_is_the_unified_pool_or_a_note() {
    let t = FakeTools::new("na-total").tool(
        "nvidia-smi",
        "0, NVIDIA GB10, [N/A], [N/A], 580.95.05, 0000000F:01:00.0",
        0,
    );
    let (gpus, err) = t.detect();
    let catalog = vramfit::catalog::Catalog::embedded().unwrap();
    let gb10 = &catalog.gpus[catalog.gpu_index("gb10-128gb").unwrap()];
    assert_eq!(gpus.len(), 1);
    assert_eq!(gpus[0]["gpu"], "gb10-128gb");
    assert_eq!(
        gpus[0]["memory_total_bytes"],
        gb10.memory_visible_bytes.unwrap() as u64
    );
    assert!(
        err.contains("nvidia-smi reports no memory total for card 0 (NVIDIA GB10), which shares the host's memory: planned on the 130.7 GB the catalog's"),
        "{err}"
    );
    // The plan on it is the catalog card's, at that pool.
    let o = here_option(&t, &[]);
    assert_eq!(o["gpu"], "gb10-128gb");
    assert_eq!(o["verdict"], "fits");
    // A part the catalog does not know: a note, in either language.
    let t = FakeTools::new("na-unknown").tool(
        "nvidia-smi",
        "0, NVIDIA Thor, [N/A], [N/A], 580.95.05, 0000000F:01:00.0",
        0,
    );
    let (gpus, err) = t.detect();
    assert!(gpus.is_empty());
    assert_eq!(
        err,
        "note: nvidia-smi reports no memory total for card 0 (NVIDIA Thor); it is not planned on\n"
    );
    let out = t
        .vramfit()
        .env("LANG", "zh_CN.UTF-8")
        .arg("detect")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "注：nvidia-smi 没有报告卡 0（NVIDIA Thor）的显存总量；不纳入规划\n"
    );
}

/// Intel cards through `xpu-smi discovery -j`, whose layout (device_list, a memory size as a
/// string or a number, virtual functions) is the one gpustack-style parsers read (indexed
/// code ci:69775449279, ci:68336856570). Totals: the A770's 17,102,532,608 B (ci:69775449279);
/// the B580's 12,168,933,376 B Level Zero total (a torch XPU device report, ci:9649379438);
/// the A750's 8,128 MiB and the Pro B60's 24,480 MiB (llama.cpp Vulkan device lines,
/// ci:59082457152 and ci:70455230795). Names as sycl-ls and xpu-smi print them
/// (ci:43881530273, ci:55812839948, ci:67339473370).
#[test]
fn intel_arc_cards_from_xpu_smi() {
    let json = r#"{"device_list": [
        {"device_id": 0, "device_type": "GPU", "device_function_type": "physical", "device_name": "Intel(R) Arc(TM) A770 Graphics", "memory_physical_size_byte": "17102532608"},
        {"device_id": 1, "device_type": "GPU", "device_name": "Intel(R) Arc(TM) B580 Graphics", "memory_physical_size_byte": 12168933376},
        {"device_id": 2, "device_type": "GPU", "device_name": "Intel(R) Arc(TM) A750 Graphics", "memory_physical_size_byte": "8522825728"},
        {"device_id": 3, "device_type": "GPU", "device_name": "Intel(R) Arc(TM) Pro B60 Graphics", "memory_physical_size_byte": "25669140480"},
        {"device_id": 4, "device_type": "GPU", "device_function_type": "virtual", "device_name": "Intel(R) Arc VF"}
    ]}"#;
    let t = FakeTools::new("xpu").tool("xpu-smi", json, 0);
    let (gpus, err) = t.detect();
    let ids: Vec<&str> = gpus.iter().map(|g| g["gpu"].as_str().unwrap()).collect();
    assert_eq!(ids, ["arc-a770-16gb", "arc-b580", "arc-a750", "arc-pro-b60"]);
    assert_eq!(gpus[1]["memory_total_bytes"], 12_168_933_376u64);
    assert!(gpus.iter().all(|g| g["source"] == "xpu-smi"));
    assert!(
        err.contains("xpu-smi reports no memory in use for device 0"),
        "{err}"
    );
    // One kind alone plans as that catalog card.
    let t = FakeTools::new("xpu1").tool(
        "xpu-smi",
        r#"{"device_list": [{"device_id": 0, "device_name": "Intel(R) Arc(TM) B580 Graphics", "memory_physical_size_byte": 12168933376}]}"#,
        0,
    );
    let o = here_option(&t, &[]);
    assert_eq!(o["gpu"], "arc-b580");
    assert_eq!(o["capacity_bytes"], 12_168_933_376u64);
    // Garbage is a note, not a card.
    let t = FakeTools::new("xpu-bad").tool("xpu-smi", "Error: Level Zero not initialized", 0);
    let (gpus, err) = t.detect();
    assert!(gpus.is_empty());
    assert!(
        err.contains("xpu-smi: output is not the JSON it should be"),
        "{err}"
    );
}

/// An AMD APU: rocm-smi's VRAM is the firmware's 512 MiB carve-out; with `--showmeminfo
/// gtt` it also prints the GTT the kernel lends ("GTT Total Memory (B)", the key rocm-smi
/// monitors read, indexed code ci:30768077588). The card is planned on both (62.47 GiB of
/// GTT is what HIP reported on a 128 GB Strix Halo, ROCm/legacy-rocm-build#6004).
#[test]
fn an_apu_is_planned_on_its_carve_out_and_gtt() {
    let gtt = (62.47 * 1_073_741_824.0_f64) as u64;
    let json = format!(
        r#"{{"card0": {{"Card Series": "AMD Radeon 8060S Graphics", "VRAM Total Memory (B)": "536870912", "VRAM Total Used Memory (B)": "104857600", "GTT Total Memory (B)": "{gtt}", "GTT Total Used Memory (B)": "0"}}}}"#
    );
    let t = FakeTools::new("apu-gtt").tool("rocm-smi", &json, 0);
    let (gpus, err) = t.detect();
    assert_eq!(gpus[0]["gpu"], "strix-halo-128gb");
    assert_eq!(gpus[0]["gtt_total_bytes"], gtt);
    assert_eq!(gpus[0]["memory_total_bytes"], 536_870_912 + gtt);
    assert!(
        err.contains("Radeon 8060S 128GB is an APU: 0.5 GB carve-out and 67.1 GB lent as GTT, so a runtime can use 67.6 GB"),
        "{err}"
    );
    let o = here_option(&t, &[]);
    assert_eq!(o["gpu"], "strix-halo-128gb");
    assert_eq!(o["capacity_bytes"], 536_870_912 + gtt);
    // The 64 GB machine prints the same name; its pool tells it apart: the 512 MiB carve-out
    // and half of the rest as GTT.
    let gtt64 = (63.5 * 1_073_741_824.0 / 2.0) as u64;
    let json64 = format!(
        r#"{{"card0": {{"Card Series": "AMD Radeon 8060S Graphics", "VRAM Total Memory (B)": "536870912", "VRAM Total Used Memory (B)": "0", "GTT Total Memory (B)": "{gtt64}"}}}}"#
    );
    let t = FakeTools::new("apu-64").tool("rocm-smi", &json64, 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus[0]["gpu"], "strix-halo-64gb");
    // A discrete card's GTT is host memory it does not plan on.
    let json = format!(
        r#"{{"card0": {{"Card Series": "Radeon RX 7900 XTX", "VRAM Total Memory (B)": "25753026560", "VRAM Total Used Memory (B)": "0", "GTT Total Memory (B)": "{gtt}"}}}}"#
    );
    let t = FakeTools::new("dgpu-gtt").tool("rocm-smi", &json, 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus[0]["memory_total_bytes"], 25_753_026_560u64);
}

/// A Mac whose GPU wired limit was raised (`sudo sysctl iogpu.wired_limit_mb=…`, macOS 14
/// and later; Metal then reports the override, AlexsJones/llmfit#754): the GPU is planned
/// on the raised limit; 0 (the default) or an older macOS's error leaves Metal's share.
#[test]
fn a_raised_wired_limit_on_a_mac_is_planned_on() {
    let memsize = 48u64 * 1_073_741_824;
    let sysctl = |limit: &str| {
        format!("case \"$*\" in *iogpu*) {limit} ;; *) printf '{memsize}\\nApple M4 Pro\\n' ;; esac")
    };
    let t = FakeTools::new("wired").script("sysctl", &sysctl("echo 40960"));
    let (gpus, err) = t.detect();
    assert_eq!(gpus[0]["memory_total_bytes"], 40_960 * MIB);
    assert!(
        err.contains("iogpu.wired_limit_mb = 40960: the GPU may use 42.9 GB"),
        "{err}"
    );
    let catalog = vramfit::catalog::Catalog::embedded().unwrap();
    let m4 = &catalog.gpus[catalog.gpu_index("m4-pro-48gb").unwrap()];
    for (limit, name) in [
        ("echo 0", "zero"),
        ("echo 'sysctl: unknown oid' >&2; exit 1", "old"),
    ] {
        let t = FakeTools::new(name).script("sysctl", &sysctl(limit));
        let (gpus, err) = t.detect();
        let total = gpus[0]["memory_total_bytes"].as_f64().unwrap();
        assert!(
            (total - m4.memory_visible_bytes.unwrap()).abs() <= 1.0,
            "{name}: {total}"
        );
        assert!(!err.contains("wired_limit"), "{err}");
    }
    // More than the machine has is not a limit.
    let t = FakeTools::new("wired-big").script("sysctl", &sysctl("echo 99999999"));
    let (_, err) = t.detect();
    assert!(err.contains("is not a share of this Mac's 51.5 GB"), "{err}");
}

/// A tool that exits but leaves a child holding its output (`sleep 30 &`): the read is
/// bounded by the same timeout as the tool, and what it printed before exiting counts.
#[test]
fn a_child_left_holding_the_output_does_not_hold_up_detection() {
    let t = FakeTools::new("grandchild").script(
        "nvidia-smi",
        "echo \"0, NVIDIA GeForce RTX 4090, 24564, 0, 550.1, 0\"\n/bin/sleep 30 &\nexit 0",
    );
    let start = Instant::now();
    let (gpus, err) = t.detect();
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert_eq!(gpus.len(), 1);
    assert_eq!(gpus[0]["gpu"], "rtx-4090");
    assert!(
        err.contains("note: nvidia-smi exited but left a process holding its output"),
        "{err}"
    );
    let start = Instant::now();
    let (code, _, err) = t.fails(&["plan", "--model", "llama-3.1-8b", "--here", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
}

/// Memory no card has: refused with what the tool said, exit 2, nothing planned.
#[test]
fn a_card_reported_with_impossible_memory_is_refused() {
    let t = FakeTools::new("huge").tool("nvidia-smi", "0, NVIDIA GeForce RTX 4090, 1e300, 0, 550.1, 0", 0);
    let said = "error: nvidia-smi reports card 0 (NVIDIA GeForce RTX 4090) with 1e300 MiB of memory; a card has between 0.1 and 100000 GB\n";
    for args in [&["detect"][..], &["plan", "--model", "llama-3.1-405b", "--here"]] {
        let (code, out, err) = t.fails(args);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (Some(2), "", said),
            "{args:?}"
        );
    }
    let out = t
        .vramfit()
        .env("LANG", "zh_CN.UTF-8")
        .args(["detect"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "错误：nvidia-smi 报告 card 0 (NVIDIA GeForce RTX 4090) 有 1e300 MiB 显存；一张卡的显存在 0.1 到 100000 GB 之间\n"
    );
    let t = FakeTools::new("used-huge").tool(
        "nvidia-smi",
        "0, NVIDIA GeForce RTX 4090, 24564, 99999, 550.1, 0",
        0,
    );
    let (code, _, err) = t.fails(&["detect"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "error: nvidia-smi reports card 0 (NVIDIA GeForce RTX 4090) with 99999 MiB in use of 24564 MiB\n"
    );
    let rocm = r#"{"card0": {"Card series": "AMD Instinct MI300X", "VRAM Total Memory (B)": "18446744073709551615", "VRAM Total Used Memory (B)": "0"}}"#;
    let t = FakeTools::new("rocm-huge").tool("rocm-smi", rocm, 0);
    let (code, out, err) = t.fails(&["plan", "--model", "llama-3.1-405b", "--here"]);
    assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
    assert_eq!(
        err,
        "error: rocm-smi reports card0 (AMD Instinct MI300X) with 18446744073709551615 B of memory; a card has between 0.1 and 100000 GB\n"
    );
}

/// `--here` plans 1 to 4,096 cards, as `--cards` does.
#[test]
fn more_cards_than_a_plan_takes_is_an_error() {
    let t = FakeTools::new("5000").tool(
        "nvidia-smi",
        &smi_lines(5000, "NVIDIA H100 80GB HBM3", 81559, &[]),
        0,
    );
    let (code, out, err) = t.fails(&["plan", "--model", "llama-3.1-8b", "--here"]);
    assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
    assert_eq!(
        err,
        "error: this machine reports 5000 cards; a plan takes 1 to 4096 cards\n"
    );
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
    // The reserve of the catalog's CUDA card nearest in size (RTX A6000, 49,140 MiB:
    // 600 MiB) off the reported 49,152 MiB.
    assert_eq!(o["capacity_bytes"], (49152 - 600) * MIB);
    assert!(o["decode_tokens_per_s"].is_null());
}

/// nvidia-smi's names for laptop GPUs, with the totals public logs show (each line's source
/// below): every laptop name is its laptop entry, never the desktop card of the same number,
/// and a laptop part the catalog lacks is no card. The desktop names stay desktop cards.
#[test]
fn laptop_cards_as_nvidia_smi_names_them() {
    let cards: [(&str, u64, Option<&str>); 17] = [
        // ci:68973566148 (driver 527.99); ci:67215231736.
        (
            "NVIDIA GeForce RTX 3060 Laptop GPU",
            6144,
            Some("rtx-3060-laptop"),
        ),
        // ci:71052737896 (572.70); ci:59866951219 (581.42).
        (
            "NVIDIA GeForce RTX 3070 Laptop GPU",
            8192,
            Some("rtx-3070-laptop"),
        ),
        // --query-gpu, ci:56569448660 (610.62).
        (
            "NVIDIA GeForce RTX 3080 Laptop GPU",
            8192,
            Some("rtx-3080-laptop-8gb"),
        ),
        // CSV, ci:70133163579 (581.57); ci:68990385295 (610.57.04).
        (
            "NVIDIA GeForce RTX 3080 Laptop GPU",
            16384,
            Some("rtx-3080-laptop-16gb"),
        ),
        // --query-gpu on Linux, ci:70904197458 (595.91.07).
        (
            "NVIDIA GeForce RTX 4060 Laptop GPU",
            8188,
            Some("rtx-4060-laptop"),
        ),
        // WSL, ci:59589865832 (610.47).
        (
            "NVIDIA GeForce RTX 4070 Laptop GPU",
            8188,
            Some("rtx-4070-laptop"),
        ),
        // CSV, ci:69828737865 (581.57).
        (
            "NVIDIA GeForce RTX 4080 Laptop GPU",
            12282,
            Some("rtx-4080-laptop"),
        ),
        // A saved nvidia-smi output, ci:61858161501; ci:875855012.
        (
            "NVIDIA GeForce RTX 4090 Laptop GPU",
            16376,
            Some("rtx-4090-laptop"),
        ),
        // In a container, ci:65763251979 (595.79).
        (
            "NVIDIA GeForce RTX 5070 Ti Laptop GPU",
            12227,
            Some("rtx-5070-ti-laptop"),
        ),
        // WSL, ci:65869858289 (592.01); ci:70392679527 (610.88).
        (
            "NVIDIA GeForce RTX 5080 Laptop GPU",
            16303,
            Some("rtx-5080-laptop"),
        ),
        // ci:70228636262 (595.91.07); ci:70087897011 (610.74).
        (
            "NVIDIA GeForce RTX 5090 Laptop GPU",
            24463,
            Some("rtx-5090-laptop"),
        ),
        // Laptop parts not in the catalog are no card: the 4050 (ci:69525328608, driver
        // 616.64), and the 3080 Ti, which is not the plain 3080 Laptop (ci:70405320546, 596.47).
        ("NVIDIA GeForce RTX 4050 Laptop GPU", 6141, None),
        ("NVIDIA GeForce RTX 3080 Ti Laptop GPU", 16384, None),
        // Named with "16 GB VRAM" in ci:67644978144, not the 24 GB desktop card; its total
        // was not found, 16303 MiB (the 16 GB GDDR7 of the RTX 5080 Laptop) stands in.
        ("NVIDIA RTX PRO 4000 Blackwell Laptop GPU", 16303, None),
        // The desktop names are still the desktop cards.
        ("NVIDIA GeForce RTX 4070", 12282, Some("rtx-4070")),
        ("NVIDIA GeForce RTX 4090", 24564, Some("rtx-4090")),
        ("NVIDIA GeForce RTX 5090", 32607, Some("rtx-5090")),
    ];
    let lines = cards
        .iter()
        .enumerate()
        .map(|(i, (name, total, _))| {
            format!("{i}, {name}, {total}, 0, 595.91.07, 00000000:{:02X}:00.0", i + 1)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let t = FakeTools::new("laptops").tool("nvidia-smi", &lines, 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), cards.len());
    for (g, (name, total, id)) in gpus.iter().zip(cards) {
        assert_eq!(g["name"], name);
        assert_eq!(g["memory_total_bytes"], total * MIB);
        match id {
            Some(id) => assert_eq!(g["gpu"], id, "{name}, {total} MiB"),
            None => assert!(g["gpu"].is_null(), "{name}, {total} MiB: {}", g["gpu"]),
        }
    }
}

/// The workstation, datacenter and modified cards of the same batch under nvidia-smi's names,
/// with the totals public logs show, and the MI250 under rocm-smi's.
#[test]
fn newer_workstation_datacenter_and_modified_cards_as_the_tools_name_them() {
    let cards: [(&str, u64, Option<&str>); 10] = [
        // ci:71605049994 (595.79); ci:54522518529 (580.119.02).
        ("NVIDIA RTX 4500 Ada Generation", 24570, Some("rtx-4500-ada")),
        // ci:70333623464 (615.71.09); ci:54706530117 (580.159.04).
        ("NVIDIA RTX PRO 4000 Blackwell", 24467, Some("rtx-pro-4000")),
        // vllm-project/vllm#51590 (ECC on).
        ("NVIDIA RTX PRO 4500 Blackwell", 32623, Some("rtx-pro-4500")),
        // ci:59239300995 (580.173.02).
        ("NVIDIA RTX PRO 5000 Blackwell", 48935, Some("rtx-pro-5000")),
        // The 72 GB model is another card, whether the name says so (the driver's product
        // list, ci:67161954526) or not (73415 MiB in a test fixture, ci:70338123513).
        ("NVIDIA RTX PRO 5000 72GB Blackwell", 73415, None),
        ("NVIDIA RTX PRO 5000 Blackwell", 73415, None),
        // ci:61912955851 (570.211.01).
        ("NVIDIA A2", 15356, Some("a2")),
        // One of the board's four, ci:69233701564 (595.71.05).
        ("NVIDIA A16", 15356, Some("a16")),
        // The modified 48 GB board keeps the plain name, ci:62363346314 (580.105.08).
        ("NVIDIA GeForce RTX 4090", 49140, Some("rtx-4090-48gb")),
        ("NVIDIA GeForce RTX 4090", 24564, Some("rtx-4090")),
    ];
    let lines = cards
        .iter()
        .enumerate()
        .map(|(i, (name, total, _))| {
            format!("{i}, {name}, {total}, 0, 580.95.05, 00000000:{:02X}:00.0", i + 1)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let t = FakeTools::new("newer").tool("nvidia-smi", &lines, 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), cards.len());
    for (g, (name, total, id)) in gpus.iter().zip(cards) {
        assert_eq!(g["name"], name);
        match id {
            Some(id) => assert_eq!(g["gpu"], id, "{name}, {total} MiB"),
            None => assert!(g["gpu"].is_null(), "{name}, {total} MiB: {}", g["gpu"]),
        }
    }
    // rocm-smi's "Card series" for an MI250 (ci:26109517603, ci:15003050580), one GCD each
    // with 68.70 GB (ci:23895369752).
    let gcd = |i: usize| {
        format!(
            r#""card{i}": {{"Card series": "AMD INSTINCT MI250 (MCM) OAM AC MBA", "Card model": "0x0b0c", "VRAM Total Memory (B)": "68702699520", "VRAM Total Used Memory (B)": "0"}}"#
        )
    };
    let json = format!("{{{}}}", (0..2).map(gcd).collect::<Vec<_>>().join(", "));
    let t = FakeTools::new("mi250").tool("rocm-smi", &json, 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), 2);
    assert!(gpus.iter().all(|g| g["gpu"] == "mi250"), "{gpus:?}");
}

/// Integrated GPUs under the names their tools print. AMD APUs through rocm-smi, whose total
/// is the BIOS carve-out (512 MiB, as amd-smi shows on a Radeon 8060S, indexed code
/// ci:67608280652), not the RAM: they match by name alone. The marketing names are libdrm's
/// amdgpu.ids, which rocm-smi prints (indexed code ci:54609201246: "AMD Radeon 780M Graphics",
/// "AMD Radeon 880M Graphics", "AMD Radeon 890M Graphics", "AMD Radeon 8060S Graphics"), and
/// rocm-smi's "Card Series: AMD Radeon 8060S" (ci:65793969951); the 760M and 8050S are not
/// cards here.
#[test]
fn integrated_gpus_as_their_tools_name_them() {
    let carve_out = 536_870_912u64;
    let cards: [(&str, Option<&str>); 7] = [
        ("AMD Radeon 780M Graphics", Some("radeon-780m-32gb")),
        ("AMD Radeon 880M Graphics", Some("radeon-880m-32gb")),
        ("AMD Radeon 890M Graphics", Some("radeon-890m-32gb")),
        ("AMD Radeon 8060S Graphics", Some("strix-halo-128gb")),
        ("AMD Radeon 8060S", Some("strix-halo-128gb")),
        ("AMD Radeon 760M Graphics", None),
        ("AMD Radeon 8050S Graphics", None),
    ];
    let json = cards
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            format!(
                r#""card{i}": {{"Card Series": "{name}", "VRAM Total Memory (B)": "{carve_out}", "VRAM Total Used Memory (B)": "0"}}"#
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let t = FakeTools::new("apu").tool("rocm-smi", &format!("{{{json}}}"), 0);
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), cards.len());
    for g in &gpus {
        let (name, id) = cards[g["index"].as_u64().unwrap() as usize];
        assert_eq!(g["name"], name);
        assert_eq!(g["memory_total_bytes"], carve_out);
        match id {
            Some(id) => assert_eq!(g["gpu"], id, "{name}"),
            None => assert!(g["gpu"].is_null(), "{name}: {}", g["gpu"]),
        }
    }
    // Names no tool here asks for yet (xpu-smi, sycl-ls) or printed with no memory total
    // (nvidia-smi on a GB10 or a Jetson): matched directly, with the totals their runtimes give.
    let catalog = vramfit::catalog::Catalog::embedded().unwrap();
    let gb = |v: f64| (v * 1e9) as u64;
    let named: [(&str, u64, Option<&str>); 9] = [
        // Windows: a 32 GB Core Ultra 7 (indexed code ci:60929451530); a 16 GB 256V
        // (ci:71516014505); a 16 GB Core Ultra 5 226V (ci:52462397730).
        ("Intel(R) Arc(TM) 140V GPU (16GB)", 0, Some("arc-140v-32gb")),
        ("Intel(R) Arc(TM) 140V GPU (8GB)", 0, None),
        ("Intel(R) Arc(TM) 130V GPU (8GB)", 0, Some("arc-130v-16gb")),
        // Level Zero's 30711971840 B on a 32 GB i7-1360P (intel/ipex-llm#10819).
        (
            "Intel(R) Iris(R) Xe Graphics",
            30_711_971_840,
            Some("iris-xe-32gb"),
        ),
        ("Intel(R) Iris(R) Xe MAX Graphics", 30_711_971_840, None),
        // nvidia-smi on a DGX Spark (unslothai/unsloth#10703), with CUDA's 121.69 GiB.
        ("NVIDIA GB10", gb(130.66), Some("gb10-128gb")),
        // nvidia-smi on Jetson (indexed code ci:67278694676): the AGX Orin 64GB's 61.37 GiB
        // (MemTotal, as CUDA reports it) tells it from the Orin Nano 8GB, of the same name.
        ("Orin (nvgpu)", 65_893_392_384, Some("jetson-agx-orin-64gb")),
        ("Orin (nvgpu)", gb(7.6), None),
        (
            "AMD Ryzen 9 7940HS w/ Radeon 780M Graphics",
            0,
            Some("radeon-780m-32gb"),
        ),
    ];
    for (name, total, id) in named {
        assert_eq!(
            vramfit::detect::match_card(name, total, &catalog).as_deref(),
            id,
            "{name}"
        );
    }
}

/// An H100 in MIG mode: nvidia-smi's card line is the whole card (`mig.mode.current`
/// Enabled), and `nvidia-smi -L` lists the instances this process sees, as in a cluster's
/// listing (indexed code ci:44166898129: "GPU 0: NVIDIA H100 80GB HBM3 (UUID: …)" then
/// "  MIG 3g.40gb     Device  0: (UUID: …)"). Each instance is planned as the catalog's
/// slice, not as the whole card.
#[test]
fn mig_instances_replace_their_card() {
    let tools = |name: &str, listing: &str| {
        FakeTools::new(name).script(
            "nvidia-smi",
            &format!(
                "case \"$*\" in *-L*) /bin/cat <<'EOF'\n{listing}\nEOF\n;; *) echo '0, NVIDIA H100 80GB HBM3, 81559, 45000, 570.86.15, 00000000:19:00.0, Enabled' ;; esac"
            ),
        )
    };
    let t = tools(
        "mig",
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-3b4e0c9a-0000-0000-0000-000000000004)\n  MIG 3g.40gb     Device  0: (UUID: MIG-8d6a4f2e-0000-0000-0000-000000000007)",
    );
    let (gpus, _) = t.detect();
    assert_eq!(gpus.len(), 1);
    assert_eq!(gpus[0]["gpu"], "h100-sxm-mig-3g.40gb");
    assert_eq!(gpus[0]["name"], "NVIDIA H100 80GB HBM3 MIG 3g.40gb");
    assert_eq!(gpus[0]["memory_total_bytes"], (39.5 * 1_073_741_824.0) as u64);
    // The card's 45,000 MiB in use are the other instances': not this slice's.
    assert_eq!(gpus[0]["memory_used_bytes"], 0);
    let o = here_option(&t, &[]);
    assert_eq!(o["gpu"], "h100-sxm-mig-3g.40gb");
    assert_eq!(o["count"], 1);
    assert_eq!(o["verdict"], "fits");
    // A profile the catalog lacks is planned on the size its name gives, and said.
    let t = tools(
        "mig-unknown",
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-x)\n  MIG 2g.24gb     Device  0: (UUID: MIG-y)",
    );
    let (gpus, err) = t.detect();
    assert!(gpus[0]["gpu"].is_null());
    assert_eq!(gpus[0]["memory_total_bytes"], 24_000_000_000u64);
    assert!(
        err.contains("MIG 2g.24gb of card 0 (NVIDIA H100 80GB HBM3) is not in the catalog"),
        "{err}"
    );
    // MIG mode with no instance visible: nothing to plan on, said.
    let t = tools("mig-none", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-x)");
    let (gpus, err) = t.detect();
    assert!(gpus.is_empty());
    assert!(
        err.contains("is in MIG mode with no instance this process can use"),
        "{err}"
    );
}

/// A vGPU guest: nvidia-smi names the profile, "GRID A100-4C", with its 4,096 MiB framebuffer
/// (a guest's nvidia-smi table, indexed code ci:18176340205); the seeds rent this 1/20 A100
/// slice. Another profile is no catalog card (planned on its memory alone), never a whole A100.
#[test]
fn a_vgpu_guest_is_its_slice_not_the_card() {
    let t = FakeTools::new("vgpu").tool(
        "nvidia-smi",
        "0, GRID A100-4C, 4096, 0, 525.85.05, 00000000:02:01.0\n1, GRID A100-8C, 8192, 0, 525.85.05, 00000000:02:02.0",
        0,
    );
    let (gpus, _) = t.detect();
    assert_eq!(gpus[0]["gpu"], "a100-vgpu-1-20");
    assert!(gpus[1]["gpu"].is_null(), "{}", gpus[1]);
}

/// The Radeon PRO W7800 under the name ROCm's support list gives (indexed code ci:4544302599),
/// at its 32 GB; the 48 GB board of 2024 ("AMD Radeon Pro W7800 48GB", ci:56827526949), with
/// faster memory, is not that entry.
#[test]
fn the_w7800_is_told_from_its_48_gb_sibling() {
    let catalog = vramfit::catalog::Catalog::embedded().unwrap();
    let gb = |g: f64| (g * 1e9) as u64;
    assert_eq!(
        vramfit::detect::match_card("AMD Radeon PRO W7800", gb(34.3), &catalog).as_deref(),
        Some("radeon-pro-w7800")
    );
    assert_eq!(
        vramfit::detect::match_card("AMD Radeon Pro W7800 48GB", gb(51.5), &catalog),
        None
    );
}
