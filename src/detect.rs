//! This machine's GPUs, from the vendors' own tools: `nvidia-smi`, `rocm-smi`, and on Apple
//! `sysctl` (unified memory, of which Metal lets a process use about three quarters). Each
//! tool gets a short timeout; a tool that is missing, hangs, fails or prints nonsense is
//! skipped (with a note for the last three). Nothing else runs: no network, no sockets.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::catalog::Catalog;

/// How long one tool may take.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(1);

const MIB: f64 = 1_048_576.0;

/// One card found on this machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DetectedGpu {
    pub index: u32,
    pub name: String,
    pub memory_total_bytes: u64,
    /// What other processes hold now (0 where the tool does not say).
    pub memory_used_bytes: u64,
    pub driver: Option<String>,
    /// The catalog card it is, when the name matches one.
    pub gpu: Option<String>,
    pub source: &'static str,
}

/// What detection found, and what it skipped and why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detection {
    pub gpus: Vec<DetectedGpu>,
    pub notes: Vec<String>,
}

/// Run `program args` with a timeout; its stdout, or why not (`None` when the tool is not
/// installed: that is no news worth a note).
fn run_tool(program: &str, args: &[&str], timeout: Duration) -> Option<Result<String, String>> {
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return Some(Err(format!("{program}: {e}"))),
    };
    // Read on a thread, so a tool that writes a lot cannot block on a full pipe.
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.by_ref().take(1 << 20).read_to_end(&mut out);
        out
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Some(Err(format!(
                    "{program} did not answer within {} s",
                    timeout.as_secs_f64()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Some(Err(format!("{program}: {e}"))),
        }
    };
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        return Some(Err(format!("{program} exited with {status}")));
    }
    Some(Ok(String::from_utf8_lossy(&out).into_owned()))
}

/// `nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version,pci.bus_id
/// --format=csv,noheader,nounits`: one line per card, MiB.
pub fn parse_nvidia_smi(text: &str, notes: &mut Vec<String>) -> Vec<DetectedGpu> {
    let mut gpus = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed = (|| {
            let index = f.first()?.parse::<u32>().ok()?;
            let name = crate::text::clean_prefix(f.get(1)?, 80);
            let total = f
                .get(2)?
                .parse::<f64>()
                .ok()
                .filter(|v| *v > 0.0 && v.is_finite())?;
            let used = f
                .get(3)?
                .parse::<f64>()
                .ok()
                .filter(|v| *v >= 0.0 && v.is_finite())?;
            Some(DetectedGpu {
                index,
                name,
                memory_total_bytes: (total * MIB) as u64,
                memory_used_bytes: (used.min(total) * MIB) as u64,
                driver: f.get(4).map(|d| crate::text::clean_prefix(d, 40)),
                gpu: None,
                source: "nvidia-smi",
            })
        })();
        match parsed {
            Some(g) => gpus.push(g),
            None => notes.push(format!(
                "nvidia-smi: ignored a line that is not a card: {:?}",
                crate::text::clean_prefix(line, 60)
            )),
        }
    }
    gpus
}

/// `rocm-smi --showproductname --showmeminfo vram --json`: an object per card.
pub fn parse_rocm_smi(text: &str, notes: &mut Vec<String>) -> Vec<DetectedGpu> {
    let Ok(serde_json::Value::Object(cards)) = serde_json::from_str::<serde_json::Value>(text) else {
        notes.push("rocm-smi: output is not the JSON it should be; ignored".into());
        return Vec::new();
    };
    let mut gpus = Vec::new();
    for (key, card) in cards.iter().filter(|(k, _)| k.starts_with("card")) {
        let field = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| card.get(*n).and_then(|v| v.as_str()))
                .map(str::to_string)
        };
        let number = |names: &[&str]| field(names).and_then(|v| v.trim().parse::<u64>().ok());
        let name = field(&[
            "Card Series",
            "Card series",
            "Marketing Name",
            "Card SKU",
            "Card model",
        ]);
        let total = number(&["VRAM Total Memory (B)"]).filter(|t| *t > 0);
        match (name, total) {
            (Some(name), Some(total)) => gpus.push(DetectedGpu {
                index: key
                    .trim_start_matches("card")
                    .parse()
                    .unwrap_or(gpus.len() as u32),
                name: crate::text::clean_prefix(&name, 80),
                memory_total_bytes: total,
                memory_used_bytes: number(&["VRAM Total Used Memory (B)"]).unwrap_or(0).min(total),
                driver: None,
                gpu: None,
                source: "rocm-smi",
            }),
            _ => notes.push(format!("rocm-smi: {key} has no name or VRAM total; ignored")),
        }
    }
    gpus
}

/// `sysctl -n hw.memsize machdep.cpu.brand_string`: an Apple machine's unified memory and
/// chip. The GPU may use what Metal recommends: 2/3 of the memory up to 32 GB, 3/4 above.
pub fn parse_sysctl(text: &str) -> Option<DetectedGpu> {
    let mut lines = text.lines().map(str::trim);
    let memsize: u64 = lines.next()?.parse().ok().filter(|m| *m > 0)?;
    let brand = lines.next().filter(|b| b.starts_with("Apple"))?;
    let share = if memsize as f64 <= 32.0 * 1_073_741_824.0 {
        2.0 / 3.0
    } else {
        0.75
    };
    Some(DetectedGpu {
        index: 0,
        name: crate::text::clean_prefix(brand, 60),
        memory_total_bytes: (memsize as f64 * share) as u64,
        memory_used_bytes: 0,
        driver: None,
        gpu: None,
        source: "sysctl",
    })
}

/// The catalog card a reported name is, by the words that tell the cards apart (most
/// specific first: "H100 NVL" before "H100", "A10G" before "A10").
pub fn match_card(name: &str, total_bytes: u64, catalog: &Catalog) -> Option<String> {
    let n = format!(" {} ", name.to_lowercase().replace(['-', '_', '/'], " "));
    let has = |w: &str| n.contains(&format!(" {w} ")) || n.contains(w) && w.contains(' ');
    let gb = total_bytes as f64 / 1e9;
    let id = if has("h100") {
        if has("nvl") {
            "h100-nvl"
        } else if has("pcie") {
            "h100-pcie"
        } else {
            "h100-sxm"
        }
    } else if has("h200") {
        if has("nvl") { "h200-nvl" } else { "h200-sxm" }
    } else if has("h800") {
        "h800-sxm"
    } else if has("h20") {
        "h20"
    } else if has("gb200") {
        "gb200"
    } else if has("b200") {
        "b200"
    } else if has("a100") {
        match (gb > 60.0, has("pcie")) {
            (true, true) => "a100-80gb-pcie",
            (true, false) => "a100-sxm",
            (false, _) => "a100-40gb-pcie",
        }
    } else if has("a10g") {
        "a10g"
    } else if has("a10") {
        "a10"
    } else if has("a40") {
        "a40"
    } else if has("l40s") {
        "l40s"
    } else if has("l4") {
        "l4"
    } else if has("t4") {
        "t4"
    } else if has("rtx pro 6000") {
        "rtx-pro-6000"
    } else if has("rtx 6000 ada") {
        "rtx-6000-ada"
    } else if has("a6000") {
        "rtx-a6000"
    } else if has("a5000") {
        "rtx-a5000"
    } else if has("5090") {
        "rtx-5090"
    } else if has("4090") {
        "rtx-4090"
    } else if has("4060 ti") && gb > 12.0 {
        "rtx-4060-ti-16gb"
    } else if has("3090") && !has("ti") {
        "rtx-3090"
    } else if has("3060") && gb > 10.0 {
        "rtx-3060-12gb"
    } else if has("mi355x") {
        "mi355x"
    } else if has("mi325x") {
        "mi325x"
    } else if has("mi300x") {
        "mi300x"
    } else if has("mi250x") {
        "mi250x"
    } else if has("mi210") {
        "mi210"
    } else if has("7900 xtx") {
        "rx-7900-xtx"
    } else if has("m2 ultra") && gb > 100.0 {
        "m2-ultra-192gb"
    } else if has("m3 max") && gb > 80.0 {
        "m3-max-128gb"
    } else if has("m4 max") && gb > 80.0 {
        "m4-max-128gb"
    } else {
        return None;
    };
    catalog.gpu_index(id).map(|_| id.to_string())
}

/// Ask every vendor tool on this machine, each within `timeout`.
pub fn detect(catalog: &Catalog, timeout: Duration) -> Detection {
    let mut d = Detection::default();
    let nvidia = [
        "--query-gpu=index,name,memory.total,memory.used,driver_version,pci.bus_id",
        "--format=csv,noheader,nounits",
    ];
    match run_tool("nvidia-smi", &nvidia, timeout) {
        Some(Ok(text)) => d.gpus.extend(parse_nvidia_smi(&text, &mut d.notes)),
        Some(Err(e)) => d.notes.push(e),
        None => {}
    }
    match run_tool(
        "rocm-smi",
        &["--showproductname", "--showmeminfo", "vram", "--json"],
        timeout,
    ) {
        Some(Ok(text)) => d.gpus.extend(parse_rocm_smi(&text, &mut d.notes)),
        Some(Err(e)) => d.notes.push(e),
        None => {}
    }
    // Only Apple machines answer these keys; elsewhere sysctl fails, which is no news.
    if d.gpus.is_empty()
        && let Some(Ok(text)) = run_tool(
            "sysctl",
            &["-n", "hw.memsize", "machdep.cpu.brand_string"],
            timeout,
        )
    {
        d.gpus.extend(parse_sysctl(&text));
    }
    for g in &mut d.gpus {
        g.gpu = match_card(&g.name, g.memory_total_bytes, catalog);
    }
    d
}

/// This machine's cards as one card kind to plan on: the catalog card they are (bandwidth,
/// compute, link) with the memory the tools report minus what is in use, or, for names the
/// catalog lacks, the memory alone (no bandwidth: no decode ceiling). Mixed cards are planned
/// as a layer split over their real sizes (capacity adds up: the mean per card).
pub struct Local {
    pub gpu: crate::engine::Gpu,
    pub count: u32,
    /// Different cards: only a layer split uses them all.
    pub mixed: bool,
    pub used_bytes: u64,
}

pub fn local(d: &Detection, catalog: &Catalog) -> Option<Local> {
    let first = d.gpus.first()?;
    let n = d.gpus.len() as u32;
    let mixed = d.gpus.iter().any(|g| g.name != first.name);
    let free: Vec<f64> = d
        .gpus
        .iter()
        .map(|g| g.memory_total_bytes.saturating_sub(g.memory_used_bytes) as f64)
        .collect();
    // Equal cards hold what the fullest one has free; mixed ones share their total.
    let per_card = if mixed {
        free.iter().sum::<f64>() / f64::from(n)
    } else {
        free.iter().copied().fold(f64::INFINITY, f64::min)
    };
    let matched = (!mixed)
        .then(|| first.gpu.as_deref().and_then(|id| catalog.gpu_index(id)))
        .flatten();
    let names: Vec<&str> = {
        let mut v: Vec<&str> = d.gpus.iter().map(|g| g.name.as_str()).collect();
        v.dedup();
        v
    };
    let mut gpu = match matched {
        Some(i) => catalog.gpus[i].clone(),
        None => crate::engine::Gpu {
            id: "local".into(),
            name: names.join(" + "),
            vendor: first.source.into(),
            architecture: "not in catalog".into(),
            memory_gb: first.memory_total_bytes as f64 / 1e9,
            memory_smi_mib: None,
            memory_visible_bytes: None,
            memory_source: None,
            memory_type: "?".into(),
            // Not in the catalog: no bandwidth, so no decode ceiling (said where shown).
            bandwidth_gbs: 0.0,
            bf16_tflops: None,
            fp8_tflops: None,
            fp8: false,
            link: crate::engine::gpu::LinkKind::Pcie,
            link_gbs: None,
            pcie_gen: Some(4),
            stack: if first.source == "rocm-smi" {
                crate::engine::gpu::Stack::Rocm
            } else if first.source == "sysctl" {
                crate::engine::gpu::Stack::Metal
            } else {
                crate::engine::gpu::Stack::Cuda
            },
            tdp_w: None,
            year: None,
            mig: None,
            segment: None,
            notes: None,
            offers: Vec::new(),
            local: true,
        },
    };
    let used: u64 = d.gpus.iter().map(|g| g.memory_used_bytes).sum();
    gpu.memory_visible_bytes = Some(per_card);
    gpu.memory_gb = per_card / 1e9;
    gpu.memory_smi_mib = None;
    gpu.memory_source = Some(format!(
        "reported by {} on this machine, less {:.1} GB in use by other processes",
        first.source,
        used as f64 / 1e9
    ));
    // Your own cards: no rental offers.
    gpu.offers.clear();
    gpu.local = true;
    Some(Local {
        gpu,
        count: n,
        mixed,
        used_bytes: used,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_drivers_print_them_match_the_catalog() {
        let c = Catalog::embedded().unwrap();
        let gib = |g: f64| (g * 1_073_741_824.0) as u64;
        for (name, total, id) in [
            ("NVIDIA H100 80GB HBM3", gib(79.6), Some("h100-sxm")),
            ("NVIDIA H100 PCIe", gib(79.6), Some("h100-pcie")),
            ("NVIDIA H100 NVL", gib(93.6), Some("h100-nvl")),
            ("Tesla T4", gib(15.0), Some("t4")),
            ("NVIDIA A100-SXM4-80GB", gib(80.0), Some("a100-sxm")),
            ("NVIDIA A100 80GB PCIe", gib(80.0), Some("a100-80gb-pcie")),
            ("NVIDIA GeForce RTX 4090", gib(24.0), Some("rtx-4090")),
            ("NVIDIA GeForce RTX 3090 Ti", gib(24.0), None),
            ("NVIDIA A10G", gib(22.5), Some("a10g")),
            ("NVIDIA L40S", gib(45.0), Some("l40s")),
            ("NVIDIA L4", gib(22.5), Some("l4")),
            ("AMD Instinct MI300X", gib(192.0), Some("mi300x")),
            ("Apple M2 Ultra", gib(144.0), Some("m2-ultra-192gb")),
            ("Apple M2 Ultra", gib(48.0), None),
            ("Quadro P1000", gib(4.0), None),
        ] {
            assert_eq!(match_card(name, total, &c).as_deref(), id, "{name}");
        }
    }

    #[test]
    fn garbage_lines_are_ignored_with_a_note() {
        let mut notes = Vec::new();
        let g = parse_nvidia_smi(
            "0, NVIDIA GeForce RTX 4090, 24564, 507, 550.163.01, 00000000:01:00.0\nNo devices were found\n1, x, -5, 0, y, z\n",
            &mut notes,
        );
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].memory_total_bytes, 24564 * 1_048_576);
        assert_eq!(g[0].memory_used_bytes, 507 * 1_048_576);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(parse_rocm_smi("not json", &mut notes).is_empty());
        assert!(parse_sysctl("garbage\n").is_none());
    }
}
