//! This machine's GPUs, from the vendors' own tools: `nvidia-smi`, `rocm-smi`, and on Apple
//! `sysctl` (unified memory, of which Metal lets a process use about three quarters). Each
//! tool gets a short timeout; a tool that is missing, hangs, fails or prints nonsense is
//! skipped (with a note for the last three). Nothing else runs: no network, no sockets.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
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
    /// Cards reported with numbers no real card has (1e300 MiB, a total of 2^64 − 1 B):
    /// the tool is wrong, so nothing it said is planned on.
    pub refused: Vec<String>,
    /// Tools that are installed but failed (NVML cannot reach the driver, a hang), while no
    /// tool found a card: "no GPU" would hide why.
    pub failures: Vec<String>,
}

impl Detection {
    /// Why this machine's cards cannot be planned on, when they cannot.
    pub fn error(&self) -> Option<String> {
        if !self.refused.is_empty() {
            Some(self.refused.join("; "))
        } else if self.gpus.is_empty() && !self.failures.is_empty() {
            Some(self.failures.join("; "))
        } else {
            None
        }
    }
}

/// A card's memory as a tool reports it, checked against the catalog's range for a card
/// (`memory_visible_bytes`: 0.1 GB to 100 TB); `total_text` and `unit` echo what it said.
fn card_memory(source: &str, card: &str, total: f64, total_text: &str, unit: &str) -> Result<u64, String> {
    let (lo, hi) = (
        crate::engine::ranges::MIN_CARD_BYTES,
        crate::engine::ranges::MAX_CARD_BYTES,
    );
    if total.is_finite() && (lo..=hi).contains(&total) {
        // In range, so the conversion is exact enough and cannot saturate.
        Ok(total as u64)
    } else {
        Err(format!(
            "{source} reports {card} with {} {unit}; a card has between {} and {} GB",
            crate::text::clean_prefix(total_text, 40),
            crate::engine::units::plain_number(lo / 1e9),
            crate::engine::units::plain_number(hi / 1e9),
        ))
    }
}

/// A value some drivers print where they do not know it ("[N/A]", "[Not Supported]").
fn not_available(field: &str) -> bool {
    let f = field.trim_matches(|c| c == '[' || c == ']').to_ascii_lowercase();
    f == "n/a" || f == "not supported" || f == "unknown error"
}

/// What one vendor tool gave.
enum ToolRun {
    /// Not installed: no news worth a note.
    Missing,
    /// It ran and failed: hung, exited with an error, could not start. Why, in words.
    Failed(String),
    /// It exited successfully; its standard output, and a note when something was odd.
    Answered { stdout: String, note: Option<String> },
}

/// The most a tool may print before the rest is ignored.
const OUTPUT_CAP: usize = 1 << 20;

/// Read `pipe` on a thread, chunk by chunk: the caller takes what arrives until its own
/// deadline, so a pipe held open by someone else (a process the tool left behind) never
/// blocks it. The thread ends when the pipe closes or the caller stops listening.
fn stream<R: Read + Send + 'static>(mut pipe: R) -> Receiver<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        let mut total = 0;
        while total < OUTPUT_CAP {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    total += n;
                    if tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    });
    rx
}

/// Everything `rx` delivers until its writer closes (true) or `deadline` passes (false).
fn drain(rx: &Receiver<Vec<u8>>, out: &mut Vec<u8>, deadline: Instant) -> bool {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(chunk) => {
                let room = OUTPUT_CAP.saturating_sub(out.len());
                out.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Err(RecvTimeoutError::Disconnected) => return true,
            Err(RecvTimeoutError::Timeout) => return false,
        }
    }
}

/// Run `program args`; `timeout` bounds the whole run, the reading of its output included.
fn run_tool(program: &str, args: &[&str], timeout: Duration) -> ToolRun {
    let start = Instant::now();
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return ToolRun::Missing,
        Err(e) => return ToolRun::Failed(format!("{program}: {e}")),
    };
    // Read on threads, so a tool that writes a lot cannot block on a full pipe.
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return ToolRun::Failed(format!("{program}: no output pipe"));
    };
    let (out_rx, err_rx) = (stream(stdout), stream(stderr));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let deadline = start + timeout;
    let status = loop {
        // Take output as it comes: a tool that fills its pipe must not stall.
        drain(&out_rx, &mut out, Instant::now());
        drain(&err_rx, &mut err, Instant::now());
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return ToolRun::Failed(format!(
                    "{program} did not answer within {} s",
                    timeout.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return ToolRun::Failed(format!("{program}: {e}")),
        }
    };
    // The tool has exited; what it wrote is in the pipes. A process it left behind may
    // hold them open (`sleep 30 &`): read until they close or the time is up, with a
    // moment's grace for a tool that exited just before the deadline.
    let until = deadline.max(Instant::now() + Duration::from_millis(200));
    let closed = drain(&out_rx, &mut out, until) & drain(&err_rx, &mut err, until);
    let text = String::from_utf8_lossy(&out).into_owned();
    if !status.success() {
        let said = format!("{} {}", text.trim(), String::from_utf8_lossy(&err).trim());
        let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
        return ToolRun::Failed(if said.is_empty() {
            format!("{program} failed ({status}) without a message")
        } else {
            format!(
                "{program} failed ({status}): {}",
                crate::text::clean_prefix(&said, 200)
            )
        });
    }
    let note = (!closed).then(|| {
        format!("{program} exited but left a process holding its output; read what it wrote before it exited")
    });
    ToolRun::Answered { stdout: text, note }
}

/// `nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version,pci.bus_id
/// --format=csv,noheader,nounits`: one line per card, MiB.
pub fn parse_nvidia_smi(text: &str, d: &mut Detection) {
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let number = |i: usize| {
            f.get(i)
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| !v.is_nan() && *v >= 0.0)
        };
        let (Some(index), Some(name), Some(total)) =
            (f.first().and_then(|i| i.parse::<u32>().ok()), f.get(1), number(2))
        else {
            // A card without a memory total (unified-memory parts such as the GB10 print
            // "[N/A]"): nothing to plan on, and the note says which card.
            if let (Some(index), Some(name), Some(total)) = (f.first(), f.get(1), f.get(2))
                && not_available(total)
            {
                d.notes.push(format!(
                    "nvidia-smi reports no memory total for card {} ({}); it is not planned on",
                    crate::text::clean_prefix(index, 10),
                    crate::text::clean_prefix(name, 80)
                ));
                continue;
            }
            if line.trim() != "No devices were found" {
                d.notes.push(format!(
                    "nvidia-smi: ignored a line that is not a card: {:?}",
                    crate::text::clean_prefix(line, 60)
                ));
            }
            continue;
        };
        let name = crate::text::clean_prefix(name, 80);
        let card = format!("card {index} ({name})");
        let total = match card_memory("nvidia-smi", &card, total * MIB, f[2], "MiB of memory") {
            Ok(t) => t,
            Err(e) => {
                d.refused.push(e);
                continue;
            }
        };
        let used_field = f.get(3).copied().unwrap_or("");
        let used = match number(3) {
            Some(u) if u * MIB <= total as f64 => (u * MIB) as u64,
            Some(_) => {
                d.refused.push(format!(
                    "nvidia-smi reports {card} with {} MiB in use of {} MiB",
                    crate::text::clean_prefix(used_field, 40),
                    f[2]
                ));
                continue;
            }
            // Some drivers (and MIG set-ups) do not say what is in use: plan as if
            // nothing else held memory, and say so.
            None if not_available(used_field) => {
                d.notes.push(format!(
                    "nvidia-smi reports no memory in use for {card} ({}); planned as if none were",
                    crate::text::clean_prefix(used_field, 20)
                ));
                0
            }
            None => {
                d.notes.push(format!(
                    "nvidia-smi: ignored a line that is not a card: {:?}",
                    crate::text::clean_prefix(line, 60)
                ));
                continue;
            }
        };
        d.gpus.push(DetectedGpu {
            index,
            name,
            memory_total_bytes: total,
            memory_used_bytes: used,
            driver: f.get(4).map(|v| crate::text::clean_prefix(v, 40)),
            gpu: None,
            source: "nvidia-smi",
        });
    }
}

/// `rocm-smi --showproductname --showmeminfo vram --json`: an object per card.
pub fn parse_rocm_smi(text: &str, d: &mut Detection) {
    let Ok(serde_json::Value::Object(cards)) = serde_json::from_str::<serde_json::Value>(text) else {
        d.notes
            .push("rocm-smi: output is not the JSON it should be; ignored".into());
        return;
    };
    for (key, card) in cards.iter().filter(|(k, _)| k.starts_with("card")) {
        let key = crate::text::clean_prefix(key, 20);
        let field = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| card.get(*n).and_then(|v| v.as_str()))
                .map(|v| v.trim().to_string())
        };
        let name = field(&[
            "Card Series",
            "Card series",
            "Marketing Name",
            "Card SKU",
            "Card model",
        ]);
        let total_text = field(&["VRAM Total Memory (B)"]);
        let total = total_text.as_deref().and_then(|t| t.parse::<u64>().ok());
        let (Some(name), Some(total), Some(total_text)) = (name, total, total_text) else {
            d.notes
                .push(format!("rocm-smi: {key} has no name or VRAM total; ignored"));
            continue;
        };
        let name = crate::text::clean_prefix(&name, 80);
        let card = format!("{key} ({name})");
        let total = match card_memory("rocm-smi", &card, total as f64, &total_text, "B of memory") {
            Ok(t) => t,
            Err(e) => {
                d.refused.push(e);
                continue;
            }
        };
        let used_text = field(&["VRAM Total Used Memory (B)"]);
        let used = match used_text.as_deref().map(|u| u.parse::<u64>()) {
            Some(Ok(u)) if u <= total => u,
            Some(Ok(_)) => {
                d.refused.push(format!(
                    "rocm-smi reports {card} with {} B in use of {total} B",
                    crate::text::clean_prefix(used_text.as_deref().unwrap_or(""), 40)
                ));
                continue;
            }
            _ => {
                d.notes.push(format!(
                    "rocm-smi reports no memory in use for {card}; planned as if none were"
                ));
                0
            }
        };
        d.gpus.push(DetectedGpu {
            index: key
                .trim_start_matches("card")
                .parse()
                .unwrap_or(d.gpus.len() as u32),
            name,
            memory_total_bytes: total,
            memory_used_bytes: used,
            driver: None,
            gpu: None,
            source: "rocm-smi",
        });
    }
}

/// `sysctl -n hw.memsize machdep.cpu.brand_string`: an Apple machine's unified memory and
/// chip. The GPU may use what Metal recommends: 2/3 of the memory up to 32 GB, 3/4 above.
pub fn parse_sysctl(text: &str, d: &mut Detection) {
    let mut lines = text.lines().map(str::trim);
    let (Some(memsize_text), Some(brand)) = (lines.next(), lines.next()) else {
        return;
    };
    let (Some(memsize), true) = (memsize_text.parse::<u64>().ok(), brand.starts_with("Apple")) else {
        return;
    };
    let share = if memsize as f64 <= 32.0 * 1_073_741_824.0 {
        2.0 / 3.0
    } else {
        0.75
    };
    let name = crate::text::clean_prefix(brand, 60);
    let card = format!("the {name}");
    let unit = "B of unified memory (Metal's share)";
    match card_memory("sysctl", &card, memsize as f64 * share, memsize_text, unit) {
        Ok(total) => d.gpus.push(DetectedGpu {
            index: 0,
            name,
            memory_total_bytes: total,
            memory_used_bytes: 0,
            driver: None,
            gpu: None,
            source: "sysctl",
        }),
        Err(e) => d.refused.push(e),
    }
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

/// Reads one tool's output into a detection.
type Parser = fn(&str, &mut Detection);

/// Ask every vendor tool on this machine, each within `timeout`.
pub fn detect(catalog: &Catalog, timeout: Duration) -> Detection {
    let mut d = Detection::default();
    let nvidia = [
        "--query-gpu=index,name,memory.total,memory.used,driver_version,pci.bus_id",
        "--format=csv,noheader,nounits",
    ];
    let rocm = ["--showproductname", "--showmeminfo", "vram", "--json"];
    let tools: [(&str, &[&str], Parser); 2] = [
        ("nvidia-smi", &nvidia, parse_nvidia_smi),
        ("rocm-smi", &rocm, parse_rocm_smi),
    ];
    for (program, args, parse) in tools {
        match run_tool(program, args, timeout) {
            ToolRun::Answered { stdout, note } => {
                d.notes.extend(note);
                parse(&stdout, &mut d);
            }
            // nvidia-smi on a machine with the driver but no card says so and exits 6:
            // that is "no GPU", not a failure.
            ToolRun::Failed(why) if why.ends_with(": No devices were found") => {}
            ToolRun::Failed(why) => d.failures.push(why),
            ToolRun::Missing => {}
        }
    }
    // Only Apple machines answer these keys; elsewhere sysctl fails, which is no news.
    if d.gpus.is_empty()
        && d.refused.is_empty()
        && let ToolRun::Answered { stdout, .. } = run_tool(
            "sysctl",
            &["-n", "hw.memsize", "machdep.cpu.brand_string"],
            timeout,
        )
    {
        parse_sysctl(&stdout, &mut d);
    }
    // A tool that failed beside one that found cards is worth a note, not an error.
    if !d.gpus.is_empty() {
        let failures = std::mem::take(&mut d.failures);
        d.notes.extend(failures);
    }
    for g in &mut d.gpus {
        g.gpu = match_card(&g.name, g.memory_total_bytes, catalog);
    }
    d
}

/// What a runtime can allocate on a detected card: the reported total less the driver's
/// reserve, as the catalog counts it (`memory_smi_mib` − `memory_visible_bytes`). A catalog
/// card uses its own reserve; another card the reserve of the catalog's card of the same
/// tool nearest in size (CUDA keeps 250–1,050 MiB; ROCm none). Metal's share is already
/// applied by `parse_sysctl`.
fn visible_total(g: &DetectedGpu, catalog: &Catalog) -> f64 {
    let total = g.memory_total_bytes as f64;
    let reserve = |c: &crate::engine::Gpu| {
        let smi = c.memory_smi_bytes()?;
        Some((smi - c.memory_visible_bytes?).max(0.0))
    };
    let own = g
        .gpu
        .as_deref()
        .and_then(|id| catalog.gpu_index(id))
        .map(|i| reserve(&catalog.gpus[i]).unwrap_or(0.0));
    let nearest = || {
        catalog
            .gpus
            .iter()
            .filter(|c| c.stack.smi_tool() == g.source)
            .filter_map(|c| Some((c.memory_smi_bytes()?, reserve(c)?)))
            .min_by(|a, b| (a.0 - total).abs().total_cmp(&(b.0 - total).abs()))
            .map_or(0.0, |(_, r)| r)
    };
    (total - own.unwrap_or_else(nearest)).max(0.0)
}

/// This machine's cards as one card kind to plan on: the catalog card they are (bandwidth,
/// compute, link) with the memory the tools report under the catalog's rules, or, for names the
/// catalog lacks, the memory alone (no bandwidth: no decode ceiling). Mixed cards are planned
/// as a layer split over their real sizes (capacity adds up: the mean per card).
pub struct Local {
    pub gpu: crate::engine::Gpu,
    pub count: u32,
    /// Different cards: only a layer split uses them all.
    pub mixed: bool,
    pub used_bytes: u64,
}

/// This machine's cards to plan on: none when no card was found, an error when a tool
/// failed, reported a card no real card is, or more cards than a plan takes.
pub fn local(d: &Detection, catalog: &Catalog) -> Result<Option<Local>, String> {
    if let Some(e) = d.error() {
        return Err(e);
    }
    let Some(first) = d.gpus.first() else {
        return Ok(None);
    };
    let Some(n) = u32::try_from(d.gpus.len())
        .ok()
        .filter(|n| *n <= crate::engine::ranges::MAX_CARDS)
    else {
        return Err(format!(
            "this machine reports {} cards; a plan takes 1 to {} cards",
            d.gpus.len(),
            crate::engine::ranges::MAX_CARDS
        ));
    };
    let mixed = d.gpus.iter().any(|g| g.name != first.name);
    // Each card as the runtime sees it: what it can allocate, and what others hold.
    let visible: Vec<f64> = d.gpus.iter().map(|g| visible_total(g, catalog)).collect();
    let used: Vec<f64> = d.gpus.iter().map(|g| g.memory_used_bytes as f64).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / f64::from(n);
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    // Equal cards each hold the same share, so the fullest card sets the pace; mixed cards
    // split by layer over their real sizes (capacity adds up: the mean per card).
    let (per_card, in_use) = if mixed {
        (mean(&visible), mean(&used))
    } else {
        (min(&visible), max(&used))
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
            // No marketed label: the quick rules count the reported total.
            memory_gb: if mixed {
                d.gpus.iter().map(|g| g.memory_total_bytes as f64).sum::<f64>() / f64::from(n) / 1e9
            } else {
                first.memory_total_bytes as f64 / 1e9
            },
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
            in_use_bytes: 0.0,
        },
    };
    let used_total: u64 = d.gpus.iter().map(|g| g.memory_used_bytes).sum();
    // The catalog's capacity rules, this card's numbers: the runtime can allocate the
    // reported total less the driver's reserve; the quick rules keep the marketed label.
    // What other processes hold comes off each card under the runtime's own rule
    // (`engine::judge::usable_per_card`).
    gpu.memory_visible_bytes = Some(per_card);
    gpu.in_use_bytes = in_use;
    gpu.memory_smi_mib = None;
    gpu.memory_source = Some(format!(
        "reported by {} on this machine: {:.2} GB per card the runtime can allocate (the reported total less the driver's reserve), {:.2} GB in use by other processes",
        first.source,
        per_card / 1e9,
        in_use / 1e9
    ));
    // Your own cards: no rental offers.
    gpu.offers.clear();
    gpu.local = true;
    Ok(Some(Local {
        gpu,
        count: n,
        mixed,
        used_bytes: used_total,
    }))
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
        let mut d = Detection::default();
        parse_nvidia_smi(
            "0, NVIDIA GeForce RTX 4090, 24564, 507, 550.163.01, 00000000:01:00.0\nNo devices were found\n1, x, -5, 0, y, z\n",
            &mut d,
        );
        let g = &d.gpus;
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].memory_total_bytes, 24564 * 1_048_576);
        assert_eq!(g[0].memory_used_bytes, 507 * 1_048_576);
        assert_eq!(d.notes.len(), 1, "{:?}", d.notes);
        parse_rocm_smi("not json", &mut d);
        parse_sysctl("garbage\n", &mut d);
        assert_eq!((d.gpus.len(), d.notes.len()), (1, 2), "{:?}", d.notes);
        assert!(d.refused.is_empty() && d.error().is_none());
    }
}
