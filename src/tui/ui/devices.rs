//! One bar per device when the plan spreads over a machine (a rig of mixed cards, layers or
//! experts in RAM): each kind of card and the host, against what each may use.
//!
//! ```text
//! RTX 4090  ██████████████████████▓▓▪··  24.1/25.3 GB  43 of 81 layers
//! host RAM  ████████████▓·············· 21.7/64.0 GB  38 layers
//! ```

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::bar::segment_widths;
use crate::engine::SegmentKind;
use crate::engine::basics::units::to_gb;
use crate::engine::placement::{DeviceKind, Placement};
use crate::tui::theme::Theme;

pub struct DeviceBars<'a> {
    pub placement: &'a Placement,
    pub gpus: &'a [crate::engine::Gpu],
    pub theme: &'a Theme,
}

impl DeviceBars<'_> {
    /// The rows the bars take (one per device).
    pub fn height(&self) -> u16 {
        self.placement.devices.len() as u16
    }
}

impl Widget for DeviceBars<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let p = self.placement;
        let names: Vec<String> = p
            .devices
            .iter()
            .map(|d| crate::present::placement::device_name(self.gpus, d))
            .collect();
        let name_w = names
            .iter()
            .map(|n| crate::text::width(n))
            .max()
            .unwrap_or(0)
            .min(22);
        for (row, (d, name)) in p.devices.iter().zip(&names).enumerate() {
            let y = area.y + row as u16;
            if y >= area.y + area.height {
                break;
            }
            let figures = format!(
                " {:.1}/{:.1} GB  {}",
                to_gb(d.bytes),
                to_gb(d.capacity_bytes),
                match d.kind {
                    DeviceKind::Gpu =>
                        crate::tr!("placement.gpu_layers", layers = d.layers, total = p.total_layers),
                    DeviceKind::Host if p.streamed_bytes_per_card > 0.0 =>
                        crate::tr!("placement.host_streamed"),
                    DeviceKind::Host if d.experts_on_host > 0 => crate::tr!(
                        "placement.host_experts",
                        layers = d.layers,
                        experts = d.experts_on_host
                    ),
                    DeviceKind::Host => crate::tr!("placement.host_layers", layers = d.layers),
                }
            );
            let label = crate::text::truncate(name, name_w);
            let pad = name_w.saturating_sub(crate::text::width(&label));
            let head = format!("{label}{} ", " ".repeat(pad));
            let head_w = crate::text::width(&head) as u16;
            // The figures shrink to fit: a narrow pane keeps the bar and the GB.
            let fig_w = (crate::text::width(&figures) as u16).min(area.width.saturating_sub(head_w + 8));
            let figures = crate::text::truncate(&figures, usize::from(fig_w));
            let bar_w = area.width.saturating_sub(head_w + fig_w);
            buf.set_string(area.x, y, &head, t.text);
            let parts = [
                (SegmentKind::Weights, d.parts.weights),
                (SegmentKind::KvCache, d.parts.kv_cache),
                (SegmentKind::Activations, d.parts.activations),
                (SegmentKind::Overhead, d.parts.overhead),
            ];
            let scale = d.bytes.max(d.capacity_bytes).max(1.0);
            let mut values: Vec<f64> = parts.iter().map(|p| p.1).collect();
            values.push((d.capacity_bytes - d.bytes).max(0.0));
            let widths = segment_widths(&values, bar_w);
            let capacity_col = ((d.capacity_bytes / scale) * f64::from(bar_w)).round() as u16;
            let mut x = area.x + head_w;
            for (i, w) in widths.iter().enumerate() {
                let (symbol, style) = match parts.get(i) {
                    Some((kind, _)) => {
                        let look = t.segment(*kind);
                        (look.symbol.clone(), look.style)
                    }
                    None => (t.free.symbol.clone(), t.free.style),
                };
                for _ in 0..*w {
                    let over = x - area.x - head_w >= capacity_col;
                    let style = if over { style.patch(t.overflow) } else { style };
                    buf[(x, y)].set_symbol(&symbol).set_style(style);
                    x += 1;
                }
            }
            let style = if d.fits() { t.text } else { t.no };
            Paragraph::new(Line::from(Span::styled(figures, style))).render(
                Rect {
                    x: area.x + head_w + bar_w,
                    y,
                    width: fig_w,
                    height: 1,
                },
                buf,
            );
        }
    }
}
