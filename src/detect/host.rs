//! This machine's host memory: the RAM a plan may spill into (Linux `MemAvailable`, a Mac's
//! `hw.memsize`) and, where the CPU fixes it, the memory platform and so the bandwidth. Only
//! server and workstation CPUs whose channel count and speed the CPU itself sets are named:
//! a desktop CPU takes DDR4 or DDR5 at speeds the board and the kit decide, and a virtual
//! machine gets a share of the socket's bandwidth that nothing here can see.

use std::time::Duration;

use super::this_machine::host_available_bytes;
use super::tool::{ToolRun, run_tool};
use crate::engine::hardware::host::{Host, Platform, platform};

/// What `/proc/cpuinfo` says of the CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cpu {
    /// The first `model name` line's value, as the kernel prints it.
    pub model_name: String,
    /// The `hypervisor` flag: a virtual machine, whose share of the memory bandwidth is unknown.
    pub virtual_machine: bool,
}

/// The CPU of a `/proc/cpuinfo` text: its first `model name` and whether its first `flags`
/// line has `hypervisor`; `None` without a model name (ARM kernels print none).
pub fn parse_cpuinfo(text: &str) -> Option<Cpu> {
    let value = |key: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim())
        })
    };
    let model_name = value("model name").filter(|m| !m.is_empty())?;
    let virtual_machine = value("flags").is_some_and(|f| f.split_whitespace().any(|w| w == "hypervisor"));
    Some(Cpu {
        model_name: crate::text::clean_prefix(model_name, 100),
        virtual_machine,
    })
}

/// The memory platform a CPU model name fixes, when it fixes one: EPYC 7003, 9004 and 9005,
/// Threadripper 7000 (not PRO: a PRO 7000 WX runs four channels on TRX50, eight on WRX90),
/// Xeon W-2400 and W-3400 (not the w3 parts, rated below DDR5-4800), Xeon Platinum 8400
/// (Sapphire Rapids) and Xeon 6900P. Everything else, desktop and laptop CPUs included, is
/// `None`: the board and the memory kit decide those.
pub fn platform_for_cpu(model_name: &str) -> Option<&'static Platform> {
    let name = model_name
        .to_ascii_uppercase()
        .replace("(R)", " ")
        .replace("(TM)", " ");
    let words: Vec<&str> = name.split_whitespace().collect();
    let after = |w: &str| {
        let i = words.iter().position(|x| *x == w)?;
        words.get(i + 1).copied()
    };
    let id = if let Some(model) = after("EPYC") {
        epyc(model)
    } else if let Some(model) = after("THREADRIPPER") {
        threadripper(model)
    } else if let Some(next) = after("XEON") {
        match next {
            "PLATINUM" => after("PLATINUM").and_then(xeon_platinum),
            model => xeon(model),
        }
    } else {
        None
    }?;
    platform(id)
}

/// An EPYC model number: series digit, two tier characters (digits, or F for the 7003
/// frequency parts like 74F3), the generation digit, an optional P, F or X. Cloud-only parts
/// with letters inside (9V74, 9R14) are not on AMD's lists, so they are not guessed at.
fn epyc(model: &str) -> Option<&'static str> {
    let c: Vec<char> = model.chars().collect();
    let standard = matches!(c.len(), 4 | 5)
        && c[1].is_ascii_digit()
        && (c[2].is_ascii_digit() || c[2] == 'F')
        && c[3].is_ascii_digit()
        && c.get(4).is_none_or(|s| matches!(s, 'P' | 'F' | 'X'));
    if !standard {
        return None;
    }
    match (c[0], c[3]) {
        ('7', '3') => Some("epyc-7003"),
        ('9', '4') => Some("epyc-9004"),
        ('9', '5') => Some("epyc-9005"),
        _ => None,
    }
}

/// Threadripper 7960X, 7970X, 7980X: TRX50 only, four channels. The PRO 7000 WX parts fit
/// TRX50 (four channels) and WRX90 (eight), so the CPU does not say which.
fn threadripper(model: &str) -> Option<&'static str> {
    let c: Vec<char> = model.chars().collect();
    (c.len() == 5 && c[0] == '7' && c[1] == '9' && c[2].is_ascii_digit() && c[3] == '0' && c[4] == 'X')
        .then_some("threadripper-7000")
}

/// Xeon Platinum 84xx: Sapphire Rapids, eight channels of DDR5-4800. (The 85xx Emerald
/// Rapids parts are rated at DDR5-5600 or lower by part, so none is named.)
fn xeon_platinum(model: &str) -> Option<&'static str> {
    let digits = model.chars().take_while(char::is_ascii_digit).count();
    (digits == 4 && model.starts_with("84")).then_some("xeon-sapphire-rapids")
}

/// Xeon w5/w7/w9-24xx (W-2400, four channels), w5/w7/w9-34xx (W-3400, eight), 69xxP (Xeon 6900P).
fn xeon(model: &str) -> Option<&'static str> {
    let number = |s: &str| s.len() >= 4 && s[..4].bytes().all(|b| b.is_ascii_digit());
    if let Some((tier, n)) = model.split_once('-')
        && matches!(tier, "W5" | "W7" | "W9")
        && number(n)
    {
        return match &n[..2] {
            "24" => Some("xeon-w-2400"),
            "34" => Some("xeon-w-3400"),
            _ => None,
        };
    }
    (model.len() == 5 && number(model) && model.starts_with("69") && model.ends_with('P'))
        .then_some("xeon-6-granite-rapids")
}

/// This machine's memory platform, from `/proc/cpuinfo`; `None` off Linux, in a virtual
/// machine, or for a CPU that does not fix one.
pub fn this_platform() -> Option<&'static Platform> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let cpu = parse_cpuinfo(&text)?;
    if cpu.virtual_machine {
        return None;
    }
    platform_for_cpu(&cpu.model_name)
}

/// `sysctl -n hw.memsize` → bytes.
pub fn parse_memsize(text: &str) -> Option<f64> {
    let bytes: u64 = text.trim().parse().ok()?;
    let bytes = bytes as f64;
    (bytes > 0.0 && bytes < 1e16).then_some(bytes)
}

/// How the host's RAM figure was had, for the note that tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RamFrom {
    /// Linux `MemAvailable`: what can be allocated without swapping.
    Available,
    /// A Mac's `hw.memsize`: all of its unified memory.
    Total,
    /// `--ram`.
    Given,
}

/// This machine's host: its RAM (Linux `MemAvailable`, else a Mac's `hw.memsize` through
/// `sysctl` within `timeout`) and, where the CPU fixes one, its platform's bandwidth. `None`
/// where no RAM figure can be read.
pub fn this_host(timeout: Duration) -> Option<(Host, RamFrom)> {
    let (ram, from) = match host_available_bytes() {
        Some(b) => (b, RamFrom::Available),
        None => match run_tool("sysctl", &["-n", "hw.memsize"], timeout) {
            ToolRun::Answered { stdout, .. } => (parse_memsize(&stdout)?, RamFrom::Total),
            _ => return None,
        },
    };
    let host = Host {
        ram_bytes: ram,
        ..Host::new(0.0, None)
    };
    Some((
        match this_platform() {
            Some(p) => host.on_platform(p),
            None => host,
        },
        from,
    ))
}

/// The note that says what a plan takes of this machine's host: "this machine's host:
/// 62.1 GB available, AMD EPYC 9004 (12-channel DDR5-4800) 460.8 GB/s".
pub fn host_note(host: &Host, from: RamFrom) -> String {
    let ram = host.ram_bytes / 1e9;
    let ram = match from {
        RamFrom::Available => format!("{ram:.1} GB available"),
        RamFrom::Total => format!("{ram:.1} GB in all"),
        RamFrom::Given => format!("{ram:.1} GB (--ram)"),
    };
    let speed = match (host.platform.and_then(platform), host.bandwidth_gbs) {
        (Some(p), Some(b)) => format!("{} {b:.1} GB/s", p.name),
        (None, Some(b)) => format!("{b:.1} GB/s (--ram-bandwidth)"),
        (_, None) => "bandwidth unknown: --ram-bandwidth GB/s".to_string(),
    };
    format!("this machine's host: {ram}, {speed}")
}
