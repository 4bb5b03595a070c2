//! The workload pane's machine rows: the RAM a plan may spill into, its bandwidth, and the
//! class of cards the plan is drawn for.

use crate::engine::Scenario;

/// Host RAM in GB (0: VRAM only): common desktop, workstation and server sizes.
pub const RAM_STEPS: &[u64] = &[0, 8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048];

/// The host's RAM one step up or down (0 GB: no host, VRAM only); its bandwidth stays.
pub fn turn_ram(sc: &mut Scenario, up: bool) {
    use crate::engine::hardware::host::Host;
    let now = sc.host.as_ref().map_or(0, |h| (h.ram_bytes / 1e9).round() as u64);
    let next = if up {
        RAM_STEPS.iter().copied().find(|s| *s > now).unwrap_or(now)
    } else {
        RAM_STEPS.iter().rev().copied().find(|s| *s < now).unwrap_or(now)
    };
    sc.host = (next > 0).then(|| match sc.host.take() {
        Some(h) => Host {
            ram_bytes: next as f64 * 1e9,
            ..h
        },
        None => Host::new(next as f64, None),
    });
}

/// The host's bandwidth through unknown and the memory platforms, slowest first.
pub fn turn_ram_bandwidth(sc: &mut Scenario, up: bool) {
    use crate::engine::hardware::host::PLATFORMS;
    let Some(h) = sc.host.as_mut() else { return };
    let mut platforms: Vec<_> = PLATFORMS.iter().collect();
    platforms.sort_by(|a, b| a.bandwidth_gbs.total_cmp(&b.bandwidth_gbs));
    // Position 0 is "unknown"; a bandwidth given by hand sits before the first faster one.
    let now = match h.bandwidth_gbs {
        None => 0,
        Some(b) => platforms
            .iter()
            .position(|p| p.bandwidth_gbs >= b)
            .map_or(platforms.len(), |i| i + 1),
    };
    let next = if up {
        (now + 1).min(platforms.len())
    } else {
        now.saturating_sub(1)
    };
    (h.bandwidth_gbs, h.platform) = match next {
        0 => (None, None),
        i => (Some(platforms[i - 1].bandwidth_gbs), Some(platforms[i - 1].id)),
    };
}

/// The cards pane's class through all, then each class.
pub fn turn_class(sc: &mut Scenario, up: bool) {
    use crate::engine::hardware::gpu::GpuClass;
    let order: Vec<Option<GpuClass>> = std::iter::once(None).chain(GpuClass::ALL.map(Some)).collect();
    let now = order.iter().position(|c| *c == sc.card_class).unwrap_or(0);
    let n = order.len();
    sc.card_class = order[if up { (now + 1) % n } else { (now + n - 1) % n }];
}
