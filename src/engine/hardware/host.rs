//! The host a plan may spill into: its RAM, that RAM's bandwidth, and the memory platforms
//! whose bandwidth is known. A leaf: the scenario holds a [`Host`], the placement reads it.

use serde::Serialize;

/// Cards in one server: the most a tensor-parallel group or a data-parallel node spans
/// over its own peer link, and the most one host's RAM serves.
pub const CARDS_PER_NODE: u32 = 8;

/// This machine's (or the planned machine's) system memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Host {
    /// RAM the plan may use, bytes: the detected available memory, or what the user gave.
    pub ram_bytes: f64,
    /// Peak memory bandwidth, GB/s; `None` when neither given nor known from a platform
    /// (speeds that read host memory are then not estimated).
    pub bandwidth_gbs: Option<f64>,
    /// The platform the bandwidth comes from (an id of [`PLATFORMS`]), when it came from one.
    pub platform: Option<&'static str>,
    /// The GPU's share of a unified-memory machine raised by hand (macOS
    /// `iogpu.wired_limit_mb`), bytes; `None`: the card's default limit.
    pub gpu_limit_bytes: Option<f64>,
}

impl Host {
    /// A host of `ram_gb` decimal GB with an optional bandwidth.
    pub fn new(ram_gb: f64, bandwidth_gbs: Option<f64>) -> Host {
        Host {
            ram_bytes: ram_gb * 1e9,
            bandwidth_gbs,
            platform: None,
            gpu_limit_bytes: None,
        }
    }

    /// The same host on a known platform: its bandwidth unless one was given.
    pub fn on_platform(mut self, platform: &'static Platform) -> Host {
        self.platform = Some(platform.id);
        self.bandwidth_gbs = self.bandwidth_gbs.or(Some(platform.bandwidth_gbs));
        self
    }

    pub fn bandwidth_bytes_per_s(&self) -> Option<f64> {
        self.bandwidth_gbs.map(|b| b * 1e9)
    }
}

/// What the user pinned: a layer count (`-ngl`) or an expert count (`--n-cpu-moe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Pin {
    pub gpu_layers: Option<u64>,
    pub cpu_moe: Option<u64>,
}

/// A memory platform: channels × transfer rate × 8 bytes per 64-bit channel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Platform {
    pub id: &'static str,
    pub name: &'static str,
    pub channels: u32,
    /// Mega-transfers per second of one channel.
    pub mt_s: u32,
    /// Peak bandwidth, GB/s: `channels × mt_s × 8 B ÷ 1000`.
    pub bandwidth_gbs: f64,
    /// Where the channel count and the supported speed are stated.
    pub source: &'static str,
}

/// Peak bandwidth of `channels` 64-bit channels at `mt_s`: the platform table's one formula.
pub const fn peak_gbs(channels: u32, mt_s: u32) -> f64 {
    channels as f64 * mt_s as f64 * 8.0 / 1000.0
}

macro_rules! platform {
    ($id:literal, $name:literal, $channels:literal, $mts:literal, $source:literal) => {
        Platform {
            id: $id,
            name: $name,
            channels: $channels,
            mt_s: $mts,
            bandwidth_gbs: peak_gbs($channels, $mts),
            source: $source,
        }
    };
}

/// The platforms a host's bandwidth can be named by (`--ram-bandwidth ddr5-5600-dual`).
/// Peak figures: real reads reach 60–90 % of them (the measured runs say how much). Each
/// `source` is a page that states the channel count or the speed, with its words; a figure
/// no page was found for says "unsourced".
pub const PLATFORMS: &[Platform] = &[
    platform!(
        "ddr4-2666-dual",
        "DDR4-2666, dual channel (desktop)",
        2,
        2666,
        "unsourced: JEDEC speed bin arithmetic (two 64-bit channels × 2666 MT/s × 8 B); no page found stating a dual-channel DDR4-2666 platform"
    ),
    platform!(
        "ddr4-3200-dual",
        "DDR4-3200, dual channel (desktop)",
        2,
        3200,
        "https://wccftech.com/intel-raptor-lake-13th-gen-core-cpus-will-retain-ddr4-memory-support-in-addition-to-ddr5/: \"The existing Alder Lake memory controller allows for both DDR4-3200 and DDR5-4800 standards.\""
    ),
    platform!(
        "ddr4-3600-dual",
        "DDR4-3600, dual channel (desktop, XMP)",
        2,
        3600,
        "https://hothardware.com/news/ryzen-7000-cpus-optimal-memory-speeds: \"if your memory runs faster than this speed—that's DDR4-3600\" (Ryzen's 1:1 Infinity Fabric limit; an XMP speed, not a CPU specification)"
    ),
    platform!(
        "ddr5-4800-dual",
        "DDR5-4800, dual channel (desktop)",
        2,
        4800,
        "https://www.thefpsreview.com/2022/07/06/13th-gen-core-raptor-lake-s-processors-to-support-ddr5-5600-and-ddr4-3200-memory/: \"Alder Lake, which only supports DDR5-4800 by default\""
    ),
    platform!(
        "ddr5-5600-dual",
        "DDR5-5600, dual channel (desktop)",
        2,
        5600,
        "https://hardwareluxx.de/index.php/news/hardware/arbeitsspeicher/64656-arrow-lake-s-cudimm,-udimm-und-die-vorgaben-des-speichercontrollers.html: \"UDIMMs und SODIMMs für DDR5-5600 … über zwei Speicherkanäle\""
    ),
    platform!(
        "ddr5-6000-dual",
        "DDR5-6000, dual channel (desktop, EXPO)",
        2,
        6000,
        "https://airlinkfreights.com/amd-ryzen-7000s-memory-sweet-spot-will-be-ddr5-6000/: \"DDR5-6000 will be the sweet spot for Zen 4 CPUs\" (an EXPO speed; Ryzen 7000 is rated DDR5-5200)"
    ),
    platform!(
        "ddr5-6400-dual",
        "DDR5-6400, dual channel (desktop, CUDIMM)",
        2,
        6400,
        "https://hardwareluxx.de/index.php/news/hardware/arbeitsspeicher/64656-arrow-lake-s-cudimm,-udimm-und-die-vorgaben-des-speichercontrollers.html: \"CUDIMM/CSODIMM | 1DPC: DDR5-6400\" (boards with two DIMM slots)"
    ),
    platform!(
        "lpddr5x-8533",
        "LPDDR5X-8533, 128-bit (Intel Core Ultra 200V laptop)",
        2,
        8533,
        "https://beebom.com/intel-announces-core-ultra-200v-lunar-lake/: \"The memory speed is 8,533 MT/s.\"; the 128-bit bus (two 64-bit channels' worth) is unsourced"
    ),
    platform!(
        "threadripper-7000",
        "AMD Threadripper 7000 (4-channel DDR5-5200)",
        4,
        5200,
        "https://i2hard.ru/publications/34228: TRX50 \"может предложить только 4-канальную память\" (only 4-channel memory); DDR5-5200 unsourced: JEDEC speed bin arithmetic"
    ),
    platform!(
        "threadripper-pro-7000wx",
        "AMD Threadripper PRO 7000 WX on WRX90 (8-channel DDR5-5200)",
        8,
        5200,
        "https://i2hard.ru/publications/34228: WRX90 \"поддерживает только модели серии Threadripper PRO 7000WX и предлагает 8-канальную память\" (8-channel memory); DDR5-5200 unsourced: JEDEC speed bin arithmetic"
    ),
    platform!(
        "xeon-w-2400",
        "Intel Xeon W-2400 (4-channel DDR5-4800)",
        4,
        4800,
        "https://www.sweclockers.com/nyhet/35696-intel-kontrar-amd-ryzen-threadripper-med-sapphire-rapids-och-56-karnor: \"fyra stycken DDR5-minneskanaler med en effektiv klockfrekvens om 4 800 MHz för en bandbredd om 153,6 GB/s\""
    ),
    platform!(
        "xeon-w-3400",
        "Intel Xeon W-3400 (8-channel DDR5-4800)",
        8,
        4800,
        "https://www.sweclockers.com/nyhet/35696-intel-kontrar-amd-ryzen-threadripper-med-sapphire-rapids-och-56-karnor: \"dubblerar detta till åtta kanaler för en bandbredd om 307,2 GB/s\""
    ),
    platform!(
        "epyc-7003",
        "AMD EPYC 7003 (8-channel DDR4-3200)",
        8,
        3200,
        "https://www.tomshardware.com/news/amd-confirms-12-ddr5-memory-channels-on-genoa: \"the 204.8 GB/s available to current-generation EPYC CPUs with DDR4-3200\""
    ),
    platform!(
        "epyc-9004",
        "AMD EPYC 9004 (12-channel DDR5-4800)",
        12,
        4800,
        "https://www.tomshardware.com/news/amd-confirms-12-ddr5-memory-channels-on-genoa: \"Twelve 64-bit DDR5 memory channels would theoretically increase the memory bandwidth available to Genoa processors to a whopping 460.8 GB/s per socket\""
    ),
    platform!(
        "epyc-9005",
        "AMD EPYC 9005 (12-channel DDR5-6000)",
        12,
        6000,
        "https://www.tomshardware.com/pc-components/cpus/leak-suggests-amds-upcoming-turin-zen-5-cpus-will-be-able-to-run-ram-at-6000-mts: \"supports DDR5 speeds of up to 6000 MT/s … only with a Turin CPU inserted\" (a pre-launch leak; 12 channels from the shared SP5 socket)"
    ),
    platform!(
        "xeon-sapphire-rapids",
        "Intel Xeon 4th gen Scalable (8-channel DDR5-4800)",
        8,
        4800,
        "https://kitguru.net/page/184/!https:/www.kitguru.net/components/cpu/joao-silva/intel-xeon-emerald-rapids-will-natively-support-ddr5-5600-memory-according-to-leak: \"The Sapphire Rapids platform is limited to DDR5-4800 in 1DPC (DIMM per channel) and 2DPC configurations\""
    ),
    platform!(
        "xeon-emerald-rapids",
        "Intel Xeon 5th gen Scalable (8-channel DDR5-5600)",
        8,
        5600,
        "https://wccftech.com/intel-emerald-rapids-5th-gen-xeon-cpu-family-specs-leaked-up-to-64-cores-ddr5-5600-80-gen-5-lanes-350w/: \"support for faster DDR5-5600 (1DPC) … The 8-channel DDR5 memory platform\""
    ),
    platform!(
        "xeon-6-granite-rapids",
        "Intel Xeon 6900P (12-channel DDR5-6400)",
        12,
        6400,
        "https://www.tomshardware.com/pc-components/cpus/intel-launches-granite-rapids-xeon-6900p-series-with-120-cores-matches-amd-epycs-core-counts-for-the-first-time-since-2017: \"support for 12 memory channels\"; DDR5-6400: wccftech.com/intel-xeon-6900p-granite-rapids-p-core-launched-128-cores-tackles-amd-epyc-turin \"Up To 6400 MT/s DDR5 Support\""
    ),
];

/// The platform named `id` (case-insensitive).
pub fn platform(id: &str) -> Option<&'static Platform> {
    PLATFORMS.iter().find(|p| p.id.eq_ignore_ascii_case(id.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_platform_names_a_page_or_says_it_has_none() {
        for p in PLATFORMS {
            assert!(
                p.source.starts_with("https://") || p.source.starts_with("unsourced: "),
                "{}: {}",
                p.id,
                p.source
            );
            assert_eq!(p.bandwidth_gbs, peak_gbs(p.channels, p.mt_s), "{}", p.id);
        }
    }

    #[test]
    fn peaks_agree_with_the_figures_the_sources_state() {
        // GB/s as the pages print them (Tom's Hardware, SweClockers).
        for (id, stated) in [
            ("epyc-7003", 204.8),
            ("epyc-9004", 460.8),
            ("xeon-w-2400", 153.6),
            ("xeon-w-3400", 307.2),
        ] {
            let p = platform(id).unwrap();
            assert!((p.bandwidth_gbs - stated).abs() < 1e-9, "{id}");
        }
        assert!((platform("lpddr5x-8533").unwrap().bandwidth_gbs - 136.528).abs() < 1e-9);
    }
}
