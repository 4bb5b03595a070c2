//! The workload pane: one row per knob.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{block, pane_title, scroll_offset};
use crate::tui::action::Pane;
use crate::tui::app::App;

pub fn workload(frame: &mut Frame, area: Rect, app: &mut App) {
    let t = app.theme.clone();
    let knobs = app.knobs();
    let height = area.height.saturating_sub(2) as usize;
    app.knob_offset = scroll_offset(app.knob_offset, app.knob, height, knobs.len());
    let more = if knobs.len() > height {
        format!(" {}/{} ↕", app.knob + 1, knobs.len())
    } else {
        String::new()
    };
    let block = block(app, Pane::Workload, pane_title(app, Pane::Workload, &more));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let method = app.scenario.method;
    let seed = app.scenario.convention == crate::engine::Convention::Seed;
    let lines: Vec<Line> = knobs
        .iter()
        .enumerate()
        .skip(app.knob_offset)
        .take(height)
        .map(|(i, k)| {
            let focused = app.focus == Pane::Workload && app.knob == i;
            let inert = seed && k.calibrated_only();
            let value = app.knob_value(*k);
            let base = if inert { t.dim } else { t.text };
            let value_style = if focused {
                base.patch(t.cursor)
            } else {
                base.add_modifier(Modifier::BOLD)
            };
            let mut spans = vec![
                Span::styled(
                    format!(" {} ", crate::text::pad(&k.label(method), 10)),
                    if focused { t.key } else { t.dim },
                ),
                Span::styled(if focused { "◀ " } else { "  " }, t.key),
                Span::styled(value, value_style),
                Span::styled(if focused { " ▶" } else { "" }, t.key),
            ];
            if inert {
                spans.push(Span::styled(
                    format!("  {}", crate::tr!("tui.calibrated_only")),
                    t.dim,
                ));
            }
            Line::from(spans)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}
