//! This machine's GPUs, from the vendors' own tools: `nvidia-smi`, `rocm-smi` (with an APU's
//! GTT), Intel's `xpu-smi`, and on Apple `sysctl` (unified memory, of which Metal lets a
//! process use three quarters or more, or the raised `iogpu.wired_limit_mb`). Each
//! tool gets a short timeout; a tool that is missing, hangs, fails or prints nonsense is
//! skipped (with a note for the last three). Nothing else runs: no network, no sockets.
//!
//! The tools run in `tool`, their output is read in `parse`, names are matched to the
//! catalog in `matching`, and the cards become one card to plan on in `this_machine`. The
//! host's RAM and its memory platform (from the CPU's name) are read in `host`.

mod host;
mod matching;
mod mig;
mod parse;
mod this_machine;
mod tool;

use std::time::Duration;

use serde::Serialize;

use self::tool::{ToolRun, run_tool};
use crate::catalog::Catalog;

pub use self::host::{
    Cpu, RamFrom, host_note, parse_cpuinfo, parse_memsize, platform_for_cpu, this_host, this_platform,
};
pub use self::matching::match_card;
pub use self::mig::parse_mig_list;
pub use self::parse::{parse_nvidia_smi, parse_rocm_smi, parse_sysctl, parse_wired_limit, parse_xpu_smi};
pub use self::this_machine::{Local, host_available_bytes, local, local_kinds, parse_meminfo};

/// How long one tool may take.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(1);

/// One card found on this machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DetectedGpu {
    pub index: u32,
    pub name: String,
    pub memory_total_bytes: u64,
    /// What other processes hold now (0 where the tool does not say).
    pub memory_used_bytes: u64,
    /// The system memory the driver lends the GPU (rocm-smi's GTT), 0 where not reported.
    /// Counted only for an APU, whose "VRAM" is the firmware's small carve-out.
    #[serde(skip_serializing_if = "is_zero")]
    pub gtt_total_bytes: u64,
    pub driver: Option<String>,
    /// The catalog card it is, when the name matches one.
    pub gpu: Option<String>,
    pub source: &'static str,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
    /// nvidia-smi's cards in MIG mode (`mig.mode.current` "Enabled"), by index: CUDA runs on
    /// their instances, not on the whole card.
    pub mig_enabled: Vec<u32>,
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

/// Reads one tool's output into a detection.
type Parser = fn(&str, &mut Detection);

/// Ask every vendor tool on this machine, each within `timeout`.
pub fn detect(catalog: &Catalog, timeout: Duration) -> Detection {
    let mut d = Detection::default();
    let nvidia = [
        "--query-gpu=index,name,memory.total,memory.used,driver_version,pci.bus_id,mig.mode.current",
        "--format=csv,noheader,nounits",
    ];
    let rocm = ["--showproductname", "--showmeminfo", "vram", "gtt", "--json"];
    let xpu = ["discovery", "-j"];
    let tools: [(&str, &[&str], Parser); 3] = [
        ("nvidia-smi", &nvidia, parse_nvidia_smi),
        ("rocm-smi", &rocm, parse_rocm_smi),
        ("xpu-smi", &xpu, parse_xpu_smi),
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
        // A raised GPU wired limit (macOS 14+) replaces Metal's default share.
        let memsize = stdout.lines().next().and_then(|l| l.trim().parse::<u64>().ok());
        if let (Some(memsize), true) = (memsize, d.gpus.iter().any(|g| g.source == "sysctl"))
            && let ToolRun::Answered { stdout, .. } =
                run_tool("sysctl", &["-n", "iogpu.wired_limit_mb"], timeout)
        {
            parse_wired_limit(&stdout, memsize, &mut d);
        }
    }
    // A tool that failed beside one that found cards is worth a note, not an error.
    if !d.gpus.is_empty() {
        let failures = std::mem::take(&mut d.failures);
        d.notes.extend(failures);
    }
    for g in &mut d.gpus {
        g.gpu = match_card(&g.name, g.memory_total_bytes, catalog);
    }
    // A card in MIG mode is its instances: `nvidia-smi -L` lists those this process sees.
    if !d.mig_enabled.is_empty() {
        let listed = match run_tool("nvidia-smi", &["-L"], timeout) {
            ToolRun::Answered { stdout, .. } => parse_mig_list(&stdout),
            _ => Vec::new(),
        };
        mig::instances(&mut d, &listed, catalog);
    }
    unified_pools(&mut d, catalog);
    d
}

/// Cards whose tool does not report the memory a process can use, because they share the
/// host's: a GB10 (nvidia-smi prints "[N/A]") is planned on the catalog's unified pool, an
/// AMD APU on its carve-out plus the GTT the kernel lends (`engine::hardware::gpu::apu_pool_bytes`).
/// A card with no total that is not such a part is named in a note and left out.
fn unified_pools(d: &mut Detection, catalog: &Catalog) {
    let entry = |g: &DetectedGpu| {
        g.gpu
            .as_deref()
            .and_then(|id| catalog.gpu_index(id))
            .map(|i| &catalog.gpus[i])
    };
    let mut notes = Vec::new();
    d.gpus.retain_mut(|g| {
        let card = entry(g);
        if g.memory_total_bytes == 0 {
            let Some((c, pool)) = card
                .filter(|c| c.unified_memory())
                .and_then(|c| Some((c, c.memory_visible_bytes?)))
            else {
                notes.push(format!(
                    "{} reports no memory total for card {} ({}); it is not planned on",
                    g.source, g.index, g.name
                ));
                return false;
            };
            notes.push(format!(
                "{} reports no memory total for card {} ({}), which shares the host's memory: planned on the {:.1} GB the catalog's {} can use",
                g.source,
                g.index,
                g.name,
                pool / 1e9,
                c.name
            ));
            g.memory_total_bytes = pool as u64;
        } else if let Some(c) = card.filter(|c| c.carve_out_gb.is_some())
            && g.gtt_total_bytes > 0
        {
            let pool = crate::engine::hardware::gpu::apu_pool_bytes(g.memory_total_bytes as f64, g.gtt_total_bytes as f64);
            notes.push(format!(
                "{} is an APU: {:.1} GB carve-out and {:.1} GB lent as GTT, so a runtime can use {:.1} GB",
                c.name,
                g.memory_total_bytes as f64 / 1e9,
                g.gtt_total_bytes as f64 / 1e9,
                pool / 1e9
            ));
            g.memory_total_bytes = pool as u64;
            // The pool is the machine's size, which the name alone may not tell.
            if let Some(id) = match_card(&g.name, g.memory_total_bytes, catalog) {
                g.gpu = Some(id);
            }
        }
        true
    });
    d.notes.extend(notes);
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
            ("NVIDIA GeForce RTX 3090 Ti", gib(24.0), Some("rtx-3090-ti")),
            ("NVIDIA A10G", gib(22.5), Some("a10g")),
            ("NVIDIA L40S", gib(45.0), Some("l40s")),
            ("NVIDIA L4", gib(22.5), Some("l4")),
            ("AMD Instinct MI300X", gib(192.0), Some("mi300x")),
            ("Apple M2 Ultra", gib(144.0), Some("m2-ultra-192gb")),
            // 48 GiB is the 64 GB M2 Ultra's share on older macOS (3/4).
            ("Apple M2 Ultra", gib(48.0), Some("m2-ultra-64gb")),
            ("Apple M2 Ultra", gib(20.0), None),
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
