//! A placement in words: what each device holds, the decode ceiling it allows and the
//! runtime's flags (the CLI's text after the table; explain and the planner use the lines).

use crate::engine::basics::units::format_gb;
use crate::engine::placement::{DeviceKind, DevicePart, Placement};
use crate::engine::{FitOption, Gpu, Scenario};
use crate::tr;

/// A device's name as shown: the card's, or "host RAM".
pub fn device_name(gpus: &[Gpu], d: &DevicePart) -> String {
    match d.kind {
        DeviceKind::Host => tr!("placement.host"),
        DeviceKind::Gpu => {
            let name = gpus
                .iter()
                .find(|g| g.id == d.device)
                .map_or(d.device.as_str(), |g| g.name.as_str());
            if d.count > 1 {
                format!("{}× {name}", d.count)
            } else {
                name.to_string()
            }
        }
    }
}

/// One line per device: "RTX 4090   33 of 81 layers   22.9 GB of 23.5 GB".
pub fn device_lines(gpus: &[Gpu], p: &Placement) -> Vec<String> {
    let names: Vec<String> = p.devices.iter().map(|d| device_name(gpus, d)).collect();
    let width = names
        .iter()
        .map(|n| unicode_width::UnicodeWidthStr::width(n.as_str()))
        .max()
        .unwrap_or(0);
    p.devices
        .iter()
        .zip(&names)
        .map(|(d, name)| {
            let pad = " ".repeat(width - unicode_width::UnicodeWidthStr::width(name.as_str()));
            let held = match (d.kind, p.cpu_moe_layers) {
                (DeviceKind::Host, _) if p.streamed_bytes_per_card > 0.0 => tr!("placement.host_streamed"),
                (DeviceKind::Host, k) if k > 0 => tr!(
                    "placement.host_experts",
                    layers = d.layers,
                    experts = d.experts_on_host
                ),
                (DeviceKind::Host, _) => tr!("placement.host_layers", layers = d.layers),
                (DeviceKind::Gpu, _) => {
                    tr!("placement.gpu_layers", layers = d.layers, total = p.total_layers)
                }
            };
            let short = if d.fits() {
                String::new()
            } else {
                format!("  {}", tr!("placement.short", gb = format_gb(-d.free_bytes)))
            };
            format!(
                "{name}{pad}  {held}  {}{short}",
                tr!(
                    "placement.bytes",
                    used = format_gb(d.bytes),
                    capacity = format_gb(d.capacity_bytes)
                )
            )
        })
        .collect()
}

/// "decode ≤ 2.9 tokens/s (bound: host RAM): RTX 4090 17.2 GB ÷ 1,008 GB/s = 17 ms + …".
pub fn speed_line(p: &Placement) -> Option<String> {
    let s = p.speed.as_ref()?;
    let parts: Vec<String> = s
        .parts
        .iter()
        // Hidden states crossing PCIe are kilobytes: named in the JSON, not worth a term here.
        .filter(|x| x.bytes >= 1e6)
        .map(|x| {
            format!(
                "{} {} ÷ {:.0} GB/s = {:.1} ms",
                if x.device == "host RAM" {
                    tr!("placement.host")
                } else {
                    x.device.clone()
                },
                format_gb(x.bytes),
                x.bytes_per_s / 1e9,
                x.seconds * 1e3
            )
        })
        .collect();
    Some(tr!(
        "placement.speed",
        tps = format!("{:.1}", s.tokens_per_s),
        bound = if s.bound == "host RAM" {
            tr!("placement.host")
        } else {
            s.bound.clone()
        },
        parts = parts.join(" + ")
    ))
}

/// The placement of `o` as the CLI prints it under the table, when it says something the
/// table does not: a rig, or a plan with a host.
pub fn placement_text(gpus: &[Gpu], scenario: &Scenario, o: &FitOption) -> Option<String> {
    let p = o.placement.as_ref()?;
    if scenario.host.is_none() && o.rig.is_empty() && !o.spills() {
        return None;
    }
    if scenario.method.is_training() {
        // Training keeps whole layers on the cards; what the host holds is its offloaded state.
        let h = p.host()?;
        let short = if h.fits() {
            String::new()
        } else {
            format!("  {}", tr!("placement.short", gb = format_gb(-h.free_bytes)))
        };
        return Some(format!(
            "{}{short}\n",
            tr!(
                "placement.training_host",
                option = super::option_label(gpus, o),
                bytes = tr!(
                    "placement.bytes",
                    used = format_gb(h.bytes),
                    capacity = format_gb(h.capacity_bytes)
                )
            )
        ));
    }
    let key = format!("placement.strategy_{}", strategy_id(p));
    let strategy = tr!(&key);
    let mut s = tr!(
        "placement.title",
        option = super::option_label(gpus, o),
        framework = scenario.runtime_label(),
        strategy = strategy
    );
    s.push('\n');
    for line in device_lines(gpus, p) {
        s += &format!("  {line}\n");
    }
    match speed_line(p) {
        Some(line) => {
            s += &format!("  {line}\n");
            if let Some(t) = p.speed.as_ref().and_then(|x| x.prefill_seconds) {
                s += &format!(
                    "  {}\n",
                    tr!(
                        "placement.prefill",
                        seconds = format!("{t:.2}"),
                        prompt = crate::engine::basics::units::group_thousands(scenario.prompt as i64)
                    )
                );
            }
        }
        None if p.offloads()
            && p.host().is_some_and(|h| h.bytes > 0.0)
            && scenario.host.as_ref().is_some_and(|h| h.bandwidth_gbs.is_none()) =>
        {
            s += &format!("  {}\n", tr!("placement.no_bandwidth"));
        }
        None => {}
    }
    if !p.runtime_flags.is_empty() {
        s += &format!("  {}\n", tr!("placement.flags", flags = p.runtime_flags));
    }
    Some(s)
}

/// The strategy's id, for the words.
pub fn strategy_id(p: &Placement) -> &'static str {
    use crate::engine::placement::Strategy as S;
    match p.strategy {
        S::AllOnGpu => "all_on_gpu",
        S::Layers => "layers",
        S::Experts => "experts",
        S::Streamed => "streamed",
    }
}
