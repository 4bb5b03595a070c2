//! The cards found turned into one card kind to plan on: the catalog's card (or a stand-in
//! for a name it lacks) with this machine's memory, less the driver's reserve and what other
//! processes hold. Apart from detection itself, which only reports what the tools said.

use super::{DetectedGpu, Detection};
use crate::catalog::Catalog;

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
        .filter(|n| *n <= crate::engine::workload::ranges::MAX_CARDS)
    else {
        return Err(format!(
            "this machine reports {} cards; a plan takes 1 to {} cards",
            d.gpus.len(),
            crate::engine::workload::ranges::MAX_CARDS
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
            carve_out_gb: None,
            ecc: None,
            // A Mac's memory is the host's: one pool, which the placement must not count twice.
            memory_type: if first.source == "sysctl" {
                "unified".into()
            } else {
                "?".into()
            },
            // Not in the catalog: no bandwidth, so no decode ceiling (said where shown).
            bandwidth_gbs: 0.0,
            bf16_tflops: None,
            fp8_tflops: None,
            fp8: false,
            link: crate::engine::hardware::gpu::LinkKind::Pcie,
            link_gbs: None,
            pcie_gen: Some(4),
            stack: if first.source == "rocm-smi" {
                crate::engine::hardware::gpu::Stack::Rocm
            } else if first.source == "sysctl" {
                crate::engine::hardware::gpu::Stack::Metal
            } else {
                crate::engine::hardware::gpu::Stack::Cuda
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
    // (`engine::verdict::judge::usable_per_card`).
    gpu.memory_visible_bytes = Some(per_card);
    gpu.in_use_bytes = in_use;
    // The reported total, as the driver gives it (SGLang reads its defaults off it); for
    // mixed cards no one figure is right.
    gpu.memory_smi_mib = (!mixed).then_some(first.memory_total_bytes / 1_048_576);
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

/// This machine's cards grouped by kind, each kind planned on its own numbers (a rig):
/// equal cards make one kind; a 4090 beside a 3090 makes two.
pub fn local_kinds(d: &Detection, catalog: &Catalog) -> Result<Vec<Local>, String> {
    if let Some(e) = d.error() {
        return Err(e);
    }
    let mut names: Vec<&str> = Vec::new();
    for g in &d.gpus {
        if !names.contains(&g.name.as_str()) {
            names.push(&g.name);
        }
    }
    let mut kinds = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let group = Detection {
            gpus: d.gpus.iter().filter(|g| g.name == *name).cloned().collect(),
            ..Detection::default()
        };
        if let Some(mut l) = local(&group, catalog)? {
            if l.gpu.id == "local" && names.len() > 1 {
                // Two unknown kinds must stay apart in a rig.
                l.gpu.id = format!("local-{}", i + 1);
            }
            kinds.push(l);
        }
    }
    Ok(kinds)
}

/// This machine's RAM a plan may spill into: `MemAvailable` of /proc/meminfo (what can be
/// allocated without swapping), in bytes; `None` where it cannot be read.
pub fn host_available_bytes() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

/// `MemAvailable:  12345678 kB` → bytes (the kernel's kB are KiB).
pub fn parse_meminfo(text: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    (kib.is_finite() && kib > 0.0 && kib < 1e13).then_some(kib * 1024.0)
}
