//! The vendors' tools' output read into cards: `nvidia-smi`'s CSV, `rocm-smi`'s JSON and
//! Apple's `sysctl` keys, each checked against the range a real card has. Parsers take text
//! only (no process runs here), so tests and fuzzing feed them anything.

use super::{DetectedGpu, Detection};

const MIB: f64 = 1_048_576.0;

/// A card's memory as a tool reports it, checked against the catalog's range for a card
/// (`memory_visible_bytes`: 0.1 GB to 100 TB); `total_text` and `unit` echo what it said.
fn card_memory(source: &str, card: &str, total: f64, total_text: &str, unit: &str) -> Result<u64, String> {
    let (lo, hi) = (
        crate::engine::workload::ranges::MIN_CARD_BYTES,
        crate::engine::workload::ranges::MAX_CARD_BYTES,
    );
    if total.is_finite() && (lo..=hi).contains(&total) {
        // In range, so the conversion is exact enough and cannot saturate.
        Ok(total as u64)
    } else {
        Err(format!(
            "{source} reports {card} with {} {unit}; a card has between {} and {} GB",
            crate::text::clean_prefix(total_text, 40),
            crate::engine::basics::units::plain_number(lo / 1e9),
            crate::engine::basics::units::plain_number(hi / 1e9),
        ))
    }
}

/// A value some drivers print where they do not know it ("[N/A]", "[Not Supported]").
fn not_available(field: &str) -> bool {
    let f = field.trim_matches(|c| c == '[' || c == ']').to_ascii_lowercase();
    f == "n/a" || f == "not supported" || f == "unknown error"
}

/// `nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version,pci.bus_id,
/// mig.mode.current --format=csv,noheader,nounits`: one line per card, MiB (older output
/// without the MIG column reads the same).
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
            // "[N/A]"): kept at 0 B, for `detect` to plan on the catalog's unified pool when
            // the name is such a part, or to name in a note and leave out.
            if let (Some(index), Some(name), Some(total)) =
                (f.first().and_then(|i| i.parse::<u32>().ok()), f.get(1), f.get(2))
                && not_available(total)
            {
                d.gpus.push(DetectedGpu {
                    index,
                    name: crate::text::clean_prefix(name, 80),
                    memory_total_bytes: 0,
                    memory_used_bytes: 0,
                    gtt_total_bytes: 0,
                    driver: f.get(4).map(|v| crate::text::clean_prefix(v, 40)),
                    gpu: None,
                    source: "nvidia-smi",
                });
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
        if f.get(6).is_some_and(|m| m.eq_ignore_ascii_case("enabled")) {
            d.mig_enabled.push(index);
        }
        d.gpus.push(DetectedGpu {
            index,
            name,
            memory_total_bytes: total,
            memory_used_bytes: used,
            gtt_total_bytes: 0,
            driver: f.get(4).map(|v| crate::text::clean_prefix(v, 40)),
            gpu: None,
            source: "nvidia-smi",
        });
    }
}

/// `rocm-smi --showproductname --showmeminfo vram gtt --json`: an object per card.
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
        // What the kernel lends as GTT (`--showmeminfo gtt`): an APU's real pool.
        let gtt = field(&["GTT Total Memory (B)"])
            .and_then(|t| t.parse::<u64>().ok())
            .filter(|&g| (g as f64) <= crate::engine::workload::ranges::MAX_CARD_BYTES)
            .unwrap_or(0);
        d.gpus.push(DetectedGpu {
            index: key
                .trim_start_matches("card")
                .parse()
                .unwrap_or(d.gpus.len() as u32),
            name,
            memory_total_bytes: total,
            memory_used_bytes: used,
            gtt_total_bytes: gtt,
            driver: None,
            gpu: None,
            source: "rocm-smi",
        });
    }
}

/// `sysctl -n hw.memsize machdep.cpu.brand_string`: an Apple machine's unified memory and
/// chip. The GPU may use what Metal recommends by default (`engine::hardware::apple`'s rule).
pub fn parse_sysctl(text: &str, d: &mut Detection) {
    let mut lines = text.lines().map(str::trim);
    let (Some(memsize_text), Some(brand)) = (lines.next(), lines.next()) else {
        return;
    };
    let (Some(memsize), true) = (memsize_text.parse::<u64>().ok(), brand.starts_with("Apple")) else {
        return;
    };
    let share = crate::engine::hardware::apple::metal_default_working_set_bytes(memsize as f64);
    let name = crate::text::clean_prefix(brand, 60);
    let card = format!("the {name}");
    let unit = "B of unified memory (Metal's share)";
    match card_memory("sysctl", &card, share, memsize_text, unit) {
        Ok(total) => d.gpus.push(DetectedGpu {
            index: 0,
            name,
            memory_total_bytes: total,
            memory_used_bytes: 0,
            gtt_total_bytes: 0,
            driver: None,
            gpu: None,
            source: "sysctl",
        }),
        Err(e) => d.refused.push(e),
    }
}

/// `xpu-smi discovery -j` (Intel's data-center and Arc tool): `device_list`, each with
/// `device_name` and `memory_physical_size_byte` (a number or a string, by build). It does
/// not say what is in use.
pub fn parse_xpu_smi(text: &str, d: &mut Detection) {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        d.notes
            .push("xpu-smi: output is not the JSON it should be; ignored".into());
        return;
    };
    let Some(devices) = value.get("device_list").and_then(|l| l.as_array()) else {
        d.notes.push("xpu-smi: no device_list; ignored".into());
        return;
    };
    for (i, dev) in devices.iter().enumerate() {
        // Virtual functions (SR-IOV) and non-GPU devices are not cards to plan on.
        let kind = dev.get("device_type").and_then(|v| v.as_str()).unwrap_or("GPU");
        let function = dev
            .get("device_function_type")
            .and_then(|v| v.as_str())
            .unwrap_or("physical");
        if !kind.eq_ignore_ascii_case("gpu") || function.eq_ignore_ascii_case("virtual") {
            continue;
        }
        let index = dev
            .get("device_id")
            .and_then(|v| v.as_u64())
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(i as u32);
        let name = dev.get("device_name").and_then(|v| v.as_str());
        let total = dev.get("memory_physical_size_byte").and_then(|v| match v {
            serde_json::Value::String(t) => Some(t.trim().to_string()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
        let (Some(name), Some(total_text)) = (name, total) else {
            d.notes.push(format!(
                "xpu-smi: device {index} has no name or memory size; ignored"
            ));
            continue;
        };
        let name = crate::text::clean_prefix(name, 80);
        let card = format!("device {index} ({name})");
        let bytes = total_text.parse::<f64>().unwrap_or(f64::NAN);
        match card_memory("xpu-smi", &card, bytes, &total_text, "B of memory") {
            Ok(total) => {
                d.notes.push(format!(
                    "xpu-smi reports no memory in use for {card}; planned as if none were"
                ));
                d.gpus.push(DetectedGpu {
                    index,
                    name,
                    memory_total_bytes: total,
                    memory_used_bytes: 0,
                    gtt_total_bytes: 0,
                    driver: None,
                    gpu: None,
                    source: "xpu-smi",
                });
            }
            Err(e) => d.refused.push(e),
        }
    }
}

/// `sysctl -n iogpu.wired_limit_mb` on a Mac: 0 (or nothing) leaves Metal's default; a
/// raised value is what Metal then lets the GPU wire, MiB (macOS 14 and later). Applied to
/// the Apple chip `parse_sysctl` found, never above its memory.
pub fn parse_wired_limit(text: &str, memsize_bytes: u64, d: &mut Detection) {
    // One line, one integer: anything else (an older macOS's "unknown oid") is no override.
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let (Some(line), None) = (lines.next(), lines.next()) else {
        return;
    };
    let Ok(mib) = line.parse::<u64>() else {
        return;
    };
    let Some(chip) = d.gpus.iter_mut().find(|g| g.source == "sysctl") else {
        return;
    };
    if mib == 0 {
        return;
    }
    let wired = mib.saturating_mul(1_048_576);
    if wired > memsize_bytes || (wired as f64) < crate::engine::workload::ranges::MIN_CARD_BYTES {
        d.notes.push(format!(
            "iogpu.wired_limit_mb = {mib} is not a share of this Mac's {:.1} GB; Metal's default is planned on",
            memsize_bytes as f64 / 1e9
        ));
        return;
    }
    d.notes.push(format!(
        "iogpu.wired_limit_mb = {mib}: the GPU may use {:.1} GB (Metal's default would be {:.1} GB)",
        wired as f64 / 1e9,
        chip.memory_total_bytes as f64 / 1e9
    ));
    chip.memory_total_bytes = wired;
}
