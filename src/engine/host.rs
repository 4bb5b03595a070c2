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
/// Peak figures: real reads reach 60–90 % of them (the measured runs say how much).
pub const PLATFORMS: &[Platform] = &[
    platform!(
        "ddr4-2666-dual",
        "DDR4-2666, dual channel (desktop)",
        2,
        2666,
        "JEDEC JESD79-4 speed bin DDR4-2666; two 64-bit channels on mainstream desktop boards"
    ),
    platform!(
        "ddr4-3200-dual",
        "DDR4-3200, dual channel (desktop)",
        2,
        3200,
        "AMD Ryzen 5000 specifications: 2 channels, up to DDR4-3200 (amd.com/en/products/processors/desktops/ryzen/5000-series)"
    ),
    platform!(
        "ddr4-3600-dual",
        "DDR4-3600, dual channel (desktop, XMP)",
        2,
        3600,
        "XMP profile DDR4-3600 on two 64-bit channels (a common overclocked desktop setting)"
    ),
    platform!(
        "ddr5-4800-dual",
        "DDR5-4800, dual channel (desktop)",
        2,
        4800,
        "Intel Core 12th–14th gen specifications: 2 channels, up to DDR5-4800/5600 (ark.intel.com)"
    ),
    platform!(
        "ddr5-5600-dual",
        "DDR5-5600, dual channel (desktop)",
        2,
        5600,
        "Intel Core 14th gen (ark.intel.com: Max Memory Speed DDR5 5600 MT/s, 2 channels)"
    ),
    platform!(
        "ddr5-6000-dual",
        "DDR5-6000, dual channel (desktop, EXPO)",
        2,
        6000,
        "AMD Ryzen 7000/9000: 2 channels, DDR5-5200/5600 rated, DDR5-6000 EXPO the common setting (amd.com)"
    ),
    platform!(
        "ddr5-6400-dual",
        "DDR5-6400, dual channel (desktop)",
        2,
        6400,
        "Intel Core Ultra 200S specifications: 2 channels, up to DDR5-6400 (ark.intel.com)"
    ),
    platform!(
        "threadripper-7000",
        "AMD Threadripper 7000 (4-channel DDR5-5200)",
        4,
        5200,
        "AMD Ryzen Threadripper 7980X specifications: 4 channels, DDR5-5200 (amd.com)"
    ),
    platform!(
        "threadripper-pro-7000wx",
        "AMD Threadripper PRO 7000 WX (8-channel DDR5-5200)",
        8,
        5200,
        "AMD Ryzen Threadripper PRO 7995WX specifications: 8 channels, DDR5-5200 (amd.com)"
    ),
    platform!(
        "xeon-w-2400",
        "Intel Xeon W-2400 (4-channel DDR5-4800)",
        4,
        4800,
        "Intel Xeon w5-2455X (ark.intel.com): 4 memory channels, DDR5-4800"
    ),
    platform!(
        "xeon-w-3400",
        "Intel Xeon W-3400 (8-channel DDR5-4800)",
        8,
        4800,
        "Intel Xeon w9-3495X (ark.intel.com): 8 memory channels, DDR5-4800"
    ),
    platform!(
        "epyc-7003",
        "AMD EPYC 7003 (8-channel DDR4-3200)",
        8,
        3200,
        "AMD EPYC 7003 series: 8 channels DDR4-3200, 204.8 GB/s per socket (amd.com)"
    ),
    platform!(
        "epyc-9004",
        "AMD EPYC 9004 (12-channel DDR5-4800)",
        12,
        4800,
        "AMD EPYC 9004 series: 12 channels DDR5-4800, 460.8 GB/s per socket (amd.com)"
    ),
    platform!(
        "epyc-9005",
        "AMD EPYC 9005 (12-channel DDR5-6000)",
        12,
        6000,
        "AMD EPYC 9005 series: 12 channels, DDR5-6000 (amd.com)"
    ),
    platform!(
        "xeon-sapphire-rapids",
        "Intel Xeon 4th gen Scalable (8-channel DDR5-4800)",
        8,
        4800,
        "Intel Xeon Platinum 8480+ (ark.intel.com): 8 channels, DDR5-4800"
    ),
    platform!(
        "xeon-emerald-rapids",
        "Intel Xeon 5th gen Scalable (8-channel DDR5-5600)",
        8,
        5600,
        "Intel Xeon Platinum 8592+ (ark.intel.com): 8 channels, DDR5-5600"
    ),
    platform!(
        "xeon-6-granite-rapids",
        "Intel Xeon 6 P-core (12-channel DDR5-6400)",
        12,
        6400,
        "Intel Xeon 6980P (ark.intel.com): 12 channels, DDR5-6400"
    ),
];

/// The platform named `id` (case-insensitive).
pub fn platform(id: &str) -> Option<&'static Platform> {
    PLATFORMS.iter().find(|p| p.id.eq_ignore_ascii_case(id.trim()))
}
