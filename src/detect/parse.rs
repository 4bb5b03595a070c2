//! The vendors' tools' output read into cards: `nvidia-smi`'s CSV, `rocm-smi`'s JSON and
//! Apple's `sysctl` keys, each checked against the range a real card has. Parsers take text
//! only (no process runs here), so tests and fuzzing feed them anything.

use super::{DetectedGpu, Detection};

const MIB: f64 = 1_048_576.0;

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
/// chip. The GPU may use what Metal recommends by default (`engine::apple`'s rule).
pub fn parse_sysctl(text: &str, d: &mut Detection) {
    let mut lines = text.lines().map(str::trim);
    let (Some(memsize_text), Some(brand)) = (lines.next(), lines.next()) else {
        return;
    };
    let (Some(memsize), true) = (memsize_text.parse::<u64>().ok(), brand.starts_with("Apple")) else {
        return;
    };
    let share = crate::engine::apple::metal_default_working_set_bytes(memsize as f64);
    let name = crate::text::clean_prefix(brand, 60);
    let card = format!("the {name}");
    let unit = "B of unified memory (Metal's share)";
    match card_memory("sysctl", &card, share, memsize_text, unit) {
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
