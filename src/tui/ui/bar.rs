//! The stacked memory bar against one card or combo.
//!
//! ```text
//! ██████████████████████████████████▓▓▓▪▪·······
//!                                       ┆    ┃ 80 GB
//! █ weights 70.55  ▓ KV cache 2.68  ▪ overhead 2.00   75.24 / 80 GB · 4.76 free · tight
//! ```
//! Segments past the capacity marker are drawn in the overflow style.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::engine::basics::units::to_gb;
use crate::engine::verdict::fit::largest_comfortable_need;
use crate::engine::{Breakdown, FitOption, SegmentKind, TightRule, Verdict};
use crate::tui::theme::Theme;

/// Split `width` cells among `values` in proportion, largest remainder first, so the
/// parts add up to exactly `width` (when any value is positive).
pub fn segment_widths(values: &[f64], width: u16) -> Vec<u16> {
    let total: f64 = values.iter().filter(|v| **v > 0.0).sum();
    if total <= 0.0 || width == 0 {
        return vec![0; values.len()];
    }
    let exact: Vec<f64> = values
        .iter()
        .map(|v| v.max(0.0) / total * f64::from(width))
        .collect();
    let mut widths: Vec<u16> = exact.iter().map(|e| e.floor() as u16).collect();
    let mut left = width - widths.iter().sum::<u16>();
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    for i in order {
        if left == 0 {
            break;
        }
        if exact[i] > 0.0 {
            widths[i] += 1;
            left -= 1;
        }
    }
    widths
}

pub struct MemoryBar<'a> {
    /// What ONE card of the target holds (the plan's breakdown for the target's count).
    pub breakdown: &'a Breakdown,
    pub target: Option<&'a FitOption>,
    pub tight_rule: TightRule,
    pub theme: &'a Theme,
    /// Segment highlighted in the legend (bar pane focused).
    pub focused: Option<SegmentKind>,
}

/// The figures every line of the bar shares.
struct Geometry {
    total: f64,
    capacity: f64,
    scale: f64,
    width: u16,
    capacity_col: u16,
}

impl Widget for MemoryBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 || area.width < 10 {
            return;
        }
        let segs: Vec<(SegmentKind, f64)> = self
            .breakdown
            .segments
            .iter()
            .map(|s| (s.kind, s.bytes))
            .collect();
        let total = self.breakdown.total();
        // Per card: the bar is drawn for one card of the option, against what the plan may
        // use of it (a serving engine's share under the calibrated rules).
        let capacity = self.target.map_or(total, |o| o.usable_bytes / f64::from(o.count));
        let scale = total.max(capacity).max(1.0);
        let g = Geometry {
            total,
            capacity,
            scale,
            width: area.width,
            capacity_col: ((capacity / scale) * f64::from(area.width)).round() as u16,
        };
        self.bar_line(area, buf, &segs, &g);
        if area.height >= 2 {
            self.marker_line(area, buf, &g);
        }
        if area.height >= 3 {
            self.legend_line(area, buf, &segs);
        }
    }
}

impl MemoryBar<'_> {
    /// Line 1: the segments, then free room up to the capacity; past it, the overflow style.
    fn bar_line(&self, area: Rect, buf: &mut Buffer, segs: &[(SegmentKind, f64)], g: &Geometry) {
        let t = self.theme;
        let mut values: Vec<f64> = segs.iter().map(|s| s.1).collect();
        values.push((g.capacity - g.total).max(0.0));
        let widths = segment_widths(&values, g.width);
        let mut x = area.x;
        for (i, w) in widths.iter().enumerate() {
            let (symbol, style) = match segs.get(i) {
                Some((kind, _)) => {
                    let look = t.segment(*kind);
                    (look.symbol.as_str(), look.style)
                }
                None => (t.free.symbol.as_str(), t.free.style),
            };
            for _ in 0..*w {
                let over = x - area.x >= g.capacity_col;
                let style = if over { style.patch(t.overflow) } else { style };
                buf[(x, area.y)].set_symbol(symbol).set_style(style);
                x += 1;
            }
        }
    }

    /// Line 2: the capacity and margin markers with their figures.
    fn marker_line(&self, area: Rect, buf: &mut Buffer, g: &Geometry) {
        let t = self.theme;
        let y = area.y + 1;
        if let Some(o) = self.target {
            // Where "tight" begins on one card of the option (the quick rules allow
            // 5 GB on a single card, 2 GB per card on a combo).
            let comfortable =
                largest_comfortable_need(self.tight_rule, o.count, g.capacity * f64::from(o.count))
                    / f64::from(o.count);
            let margin_col = ((comfortable / g.scale) * f64::from(g.width)).round() as u16;
            let cap_x = area.x + g.capacity_col.min(g.width - 1);
            // The margin marker never covers the capacity marker.
            let margin_x =
                (margin_col < g.capacity_col.min(g.width - 1)).then(|| area.x + margin_col.min(g.width - 1));
            // Both markers always show; the figures go right of the capacity marker when
            // they fit there, else left of the leftmost marker.
            buf.set_string(cap_x, y, "┃", t.capacity);
            if let Some(mx) = margin_x {
                buf.set_string(mx, y, "┆", t.margin);
            }
            let over = (g.total > g.capacity)
                .then(|| crate::tr!("tui.over_by", gb = format!("{:.2}", to_gb(g.total - g.capacity))));
            let per_card = o.capacity_bytes / f64::from(o.count);
            let cap_gb = if g.capacity < per_card * 0.999 {
                crate::tr!(
                    "tui.usable_of",
                    usable = format!("{:.1}", to_gb(g.capacity)),
                    of = format!("{:.1}", to_gb(per_card))
                )
            } else {
                format!("{:.0} GB", to_gb(g.capacity))
            };
            let label = match &over {
                Some(over) => format!("{cap_gb} · {over}"),
                None => cap_gb.clone(),
            };
            let len = crate::text::width(&label) as u16;
            let start = if cap_x + 2 + len <= area.x + g.width {
                cap_x + 2
            } else {
                let anchor = margin_x.unwrap_or(cap_x);
                anchor.saturating_sub(len + 1).max(area.x)
            };
            buf.set_string(start, y, &cap_gb, t.capacity);
            if let Some(over) = &over {
                let over_x = start + crate::text::width(&cap_gb) as u16;
                buf.set_string(over_x, y, " · ", t.text);
                buf.set_string(over_x + 3, y, over, t.no.add_modifier(Modifier::BOLD));
            }
            if let Some(mx) = margin_x {
                let word = format!(" {}", crate::present::i18n::word("verdict", "tight"));
                let word_width = crate::text::width(&word) as u16;
                let fits_between = mx + 1 + word_width <= cap_x;
                let clear_of_label = mx + 1 >= start + len || mx + 1 + word_width <= start;
                if fits_between && clear_of_label {
                    buf.set_string(mx + 1, y, &word, t.margin.add_modifier(Modifier::DIM));
                }
            }
        }
    }

    /// Line 3: the legend, with short labels when the full ones do not fit.
    fn legend_line(&self, area: Rect, buf: &mut Buffer, segs: &[(SegmentKind, f64)]) {
        let t = self.theme;
        let legend = |short: bool| -> Vec<Span> {
            let mut spans = Vec::new();
            for (kind, bytes) in segs {
                let look = t.segment(*kind);
                let mut label_style = t.text;
                if self.focused == Some(*kind) {
                    label_style = label_style.patch(t.cursor);
                }
                let text = if short {
                    format!(" {} {:.1}", short_label(*kind), to_gb(*bytes))
                } else {
                    format!(" {} {:.2}", crate::present::segment_label(*kind), to_gb(*bytes))
                };
                spans.push(Span::styled(look.symbol.clone(), look.style));
                spans.push(Span::styled(text, label_style));
                spans.push(Span::raw(if short { " " } else { "  " }));
            }
            spans.push(Span::styled("GB", t.dim));
            spans
        };
        let full = Line::from(legend(false));
        let line = if full.width() <= usize::from(area.width) {
            full
        } else {
            Line::from(legend(true))
        };
        Paragraph::new(line).render(
            Rect {
                y: area.y + 2,
                height: 1,
                ..area
            },
            buf,
        );
    }
}

/// Four-column segment names for narrow legends (`segment_short.<id>`).
fn short_label(kind: SegmentKind) -> String {
    crate::present::i18n::message(&format!("segment_short.{}", kind.id()))
}

/// Verdict as glyph + word + style, so it reads without colour.
pub fn verdict_word(v: Verdict, t: &Theme) -> (String, Style) {
    let word = crate::present::i18n::word("verdict", v.id());
    match v {
        Verdict::Fits => (format!("✓ {word}"), t.fits),
        Verdict::Tight => (format!("! {word}"), t.tight),
        Verdict::No => (format!("✗ {word}"), t.no),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_add_up_to_the_width() {
        assert_eq!(segment_widths(&[70.0, 2.7, 2.0, 5.3], 40).iter().sum::<u16>(), 40);
        assert_eq!(segment_widths(&[1.0, 1.0, 1.0], 7), vec![3, 2, 2]);
        assert_eq!(segment_widths(&[1.0, 2.0], 0), vec![0, 0]);
        assert_eq!(segment_widths(&[1.0], 1), vec![1]);
        assert_eq!(segment_widths(&[0.0, 0.0], 5), vec![0, 0]);
        assert_eq!(
            segment_widths(&[0.0, 3.0], 5),
            vec![0, 5],
            "an empty segment gets no cell"
        );
    }
}
