//! Cards in MIG mode: CUDA runs on their instances, each a slice with its own memory, so
//! the instances `nvidia-smi -L` lists replace their card, matched to the catalog's MIG
//! profiles (`h100-sxm-mig-3g.40gb`).

use super::{DetectedGpu, Detection};
use crate::catalog::Catalog;

/// `nvidia-smi -L`: each MIG instance as (its card's index, its profile), from lines like
///
/// ```text
/// GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)
///   MIG 3g.40gb     Device  0: (UUID: MIG-…)
/// ```
pub fn parse_mig_list(text: &str) -> Vec<(u32, String)> {
    let mut card = None;
    let mut found = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("GPU ") {
            card = rest.split(':').next().and_then(|i| i.trim().parse::<u32>().ok());
        } else if let (Some(rest), Some(card)) = (t.strip_prefix("MIG "), card) {
            let profile = rest.split_whitespace().next().unwrap_or("");
            // "3g.40gb", "1g.10gb+me": the media-extension variant has the same memory.
            let profile = profile.split('+').next().unwrap_or("");
            if profile.contains('g') && profile.contains('.') && profile.len() <= 12 {
                found.push((card, profile.to_ascii_lowercase()));
            }
        }
    }
    found
}

/// Replace each MIG-mode card by the instances listed for it: the catalog's slice of its
/// card where there is one (memory as `nvidia-smi mig -lgip` gives it), else a slice planned
/// on the size its profile names. A MIG card with no instance holds nothing to plan on.
pub(super) fn instances(d: &mut Detection, listed: &[(u32, String)], catalog: &Catalog) {
    let mut notes = Vec::new();
    let mut out = Vec::new();
    for g in std::mem::take(&mut d.gpus) {
        if g.source != "nvidia-smi" || !d.mig_enabled.contains(&g.index) {
            out.push(g);
            continue;
        }
        let mine: Vec<&String> = listed
            .iter()
            .filter(|(i, _)| *i == g.index)
            .map(|(_, p)| p)
            .collect();
        if mine.is_empty() {
            notes.push(format!(
                "card {} ({}) is in MIG mode with no instance this process can use; it is not planned on",
                g.index, g.name
            ));
            continue;
        }
        for profile in mine {
            let slice_id = g.gpu.as_deref().map(|id| format!("{id}-mig-{profile}"));
            let slice = slice_id
                .as_deref()
                .and_then(|id| catalog.gpu_index(id))
                .map(|i| &catalog.gpus[i]);
            let (total, gpu) = match slice {
                Some(s) => (
                    s.memory_visible_bytes.unwrap_or(s.memory_bytes()),
                    Some(s.id.clone()),
                ),
                None => {
                    let gb = profile
                        .split('.')
                        .nth(1)
                        .and_then(|m| m.strip_suffix("gb"))
                        .and_then(|m| m.parse::<f64>().ok())
                        .unwrap_or(0.0);
                    notes.push(format!(
                        "MIG {profile} of card {} ({}) is not in the catalog: planned on the {gb} GB its name gives",
                        g.index, g.name
                    ));
                    (gb * 1e9, None)
                }
            };
            if total <= 0.0 {
                continue;
            }
            out.push(DetectedGpu {
                index: g.index,
                name: format!("{} MIG {profile}", g.name),
                memory_total_bytes: total as u64,
                // nvidia-smi's in-use figure is the whole card's, not the instance's.
                memory_used_bytes: 0,
                gtt_total_bytes: 0,
                driver: g.driver.clone(),
                gpu,
                source: "nvidia-smi",
            });
        }
    }
    d.gpus = out;
    d.notes.extend(notes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_under_their_card() {
        let text = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-3b4e)\n  MIG 3g.40gb     Device  0: (UUID: MIG-8d6a)\n  MIG 1g.10gb+me  Device  1: (UUID: MIG-9)\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-x)\nGPU 2: Tesla T4 (UUID: GPU-y)\n";
        assert_eq!(
            parse_mig_list(text),
            [(0, "3g.40gb".to_string()), (0, "1g.10gb".to_string())]
        );
        assert!(parse_mig_list("0, NVIDIA H100, 81559, 0\n").is_empty());
    }
}
