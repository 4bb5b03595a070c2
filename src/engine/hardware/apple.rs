//! Apple silicon: how much of its unified memory Metal lets the GPU use by default.
//!
//! One rule, used both for the catalog's Apple entries (their `memory_visible_bytes`) and for
//! a detected Mac (`sysctl hw.memsize`), so the two always agree.

const GIB: f64 = 1_073_741_824.0;

/// Metal's default `recommendedMaxWorkingSetSize` on macOS 26 (Tahoe), the macOS shipping in
/// 2026 and the one the catalog describes: the bytes one process's GPU work may keep resident
/// on a Mac with `ram_bytes` of unified memory, unless `sysctl iogpu.wired_limit_mb` raised it.
///
/// The share steps up with each doubling of memory. Measured on macOS 26 (llama.cpp's
/// `ggml_metal_device_init: recommendedMaxWorkingSetSize` lines and `--list-devices` totals,
/// found in public code and logs; the `ci:` ids reopen them):
/// - 16 GiB: 12713.12 MB = 0.74 (M1 Pro, M4 and M4 Mac mini logs, ci:475055311,
///   ci:71548622484; llmfit#754 reports 11.84 GB);
/// - 24 GiB: 19069.67 MB = 0.74 (M5 and M4 logs, MTLGPUFamilyMetal4, ci:32713047379,
///   ci:52057064505; sglang#29949 reports 17.76 GiB);
/// - 32 GiB: 26800.60 MB = 0.78 (M5 and M4 logs, ci:55402432722, ci:70122962755; 32 GiB is
///   the only size of those chips the figure fits);
/// - 36 GiB: 30150.67 MB = 0.78 (M3 Max, b8981 build, ci:69069691363);
/// - 48 GiB: 40200.90 MB = 0.78 (M4 Pro, ci:26358361646);
/// - 64 GiB: 55662.79 MB = 0.81 (M3 Max, ci:54207541393);
/// - 128 GiB: 107.52 GiB = 0.84 (M5 Max and M3 Max on macOS 26, antirez/ds4#893; 115448.73 MB
///   on an M4 Max, ci:68997509094);
/// - 256 GiB: 228065 MiB = 0.87 (M3 Ultra `--list-devices`, 2026-08, ci:59104505737).
///
/// Not measured, so taken from the steps (derived): 18, 96 and 192 GiB from their tier; 512 GiB
/// as the next step, 0.90 (one 512 GiB M3 Ultra prints 475136 MiB = 0.906, ci:66732510590,
/// possibly a raised limit). Below 16 GiB no macOS 26 figure was found: 8 GiB keeps the 2/3 of
/// older macOS, the lower and so the safer figure.
///
/// Older macOS (14, 15: `MTLGPUFamilyMetal3` logs) gave 2/3 up to 32 GiB and 3/4 above (22906.50
/// MB on a 32 GiB M1 Max, ci:45251246612; 28991.03 MB on a 36 GiB M4 Max, ci:60247611371;
/// ggml-org/llama.cpp#1870, #3213): a Mac not yet on macOS 26 gets less than this says, by at
/// most a sixth.
pub fn metal_default_working_set_bytes(ram_bytes: f64) -> f64 {
    ram_bytes * metal_default_share(ram_bytes)
}

/// The share of `ram_bytes` that [`metal_default_working_set_bytes`] gives the GPU.
pub fn metal_default_share(ram_bytes: f64) -> f64 {
    let gib = ram_bytes / GIB;
    // Tiers by power of two; a machine's memory is whole GiB, so the bounds never straddle one.
    if gib < 16.0 {
        2.0 / 3.0
    } else if gib < 32.0 {
        0.74
    } else if gib < 64.0 {
        0.78
    } else if gib < 128.0 {
        0.81
    } else if gib < 256.0 {
        0.84
    } else if gib < 512.0 {
        0.87
    } else {
        0.90
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_machines_get_what_metal_printed() {
        // (GiB, what llama.cpp printed in MB = 1e6 B), within the 16 KiB page Metal rounds to.
        for (gib, printed_mb) in [
            (16.0, 12713.12),
            (24.0, 19069.67),
            (32.0, 26800.60),
            (36.0, 30150.67),
            (48.0, 40200.90),
            (64.0, 55662.79),
            (128.0, 115448.73),
        ] {
            let got = metal_default_working_set_bytes(gib * GIB) / 1e6;
            assert!((got - printed_mb).abs() < 0.05, "{gib} GiB: {got} MB");
        }
        let ultra = metal_default_working_set_bytes(256.0 * GIB) / 1_048_576.0;
        assert!((ultra - 228065.0).abs() < 1.0, "{ultra} MiB");
    }

    #[test]
    fn more_memory_never_gives_the_gpu_less() {
        let mut last = 0.0;
        for gib in 1..=1024 {
            let b = metal_default_working_set_bytes(f64::from(gib) * GIB);
            assert!(b > last, "{gib} GiB");
            last = b;
        }
    }
}
