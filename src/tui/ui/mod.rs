//! Drawing: reads the app state and the plan, computes nothing of the arithmetic. `view`
//! lays the panes out; each pane and overlay has its own file.

pub mod bar;
mod breakdown;
mod cards;
mod compare;
mod devices;
mod explain;
mod help;
mod memory;
mod models;
mod title;
mod tofit;
mod workload;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};

use super::action::Pane;
use super::app::{App, Overlay};
use super::layout::{MIN_HEIGHT, MIN_WIDTH, PlannerLayout};

/// Draw the whole screen.
pub fn view(frame: &mut Frame, app: &mut App) {
    let area = frame.area();
    app.last_area = area;
    let Some(layout) = PlannerLayout::new(area) else {
        too_small(frame, area, app);
        return;
    };
    title::title(frame, layout.title, app);
    models::models(frame, layout.models, app);
    workload::workload(frame, layout.workload, app);
    if let Some(r) = layout.breakdown {
        breakdown::breakdown(frame, r, app);
    }
    memory::memory(frame, layout.bar, app);
    cards::cards(frame, layout.cards, app, layout.large);
    title::status(frame, layout.status, app);
    match app.overlay {
        Overlay::None => {}
        Overlay::Help => help::help(frame, area, app),
        Overlay::ExplainSegments | Overlay::ExplainCard(..) => explain::explain(frame, area, app),
        Overlay::Compare => compare::compare(frame, area, app),
        Overlay::ToFit => tofit::tofit(frame, area, app),
    }
}
fn too_small(frame: &mut Frame, area: Rect, app: &App) {
    let text = crate::tr!(
        "tui.too_small",
        size = format!("{}×{}", area.width, area.height),
        needs = format!("{MIN_WIDTH}×{MIN_HEIGHT}")
    );
    frame.render_widget(
        Paragraph::new(text)
            .style(app.theme.text)
            .wrap(Wrap { trim: true })
            .alignment(Alignment::Center),
        area,
    );
}
pub fn block<'a>(app: &App, pane: Pane, title: Line<'a>) -> Block<'a> {
    let focused = app.focus == pane && app.overlay == Overlay::None;
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(if focused {
            app.theme.border_focused
        } else {
            app.theme.border
        })
        .title(title)
}
pub fn pane_title<'a>(app: &App, pane: Pane, extra: &str) -> Line<'a> {
    let style = if app.focus == pane {
        app.theme.title
    } else {
        app.theme.header
    };
    Line::from(vec![
        Span::styled(format!(" {}", pane.title()), style),
        Span::styled(format!("{extra} "), app.theme.dim),
    ])
}
/// Keep `cursor` inside a window of `height` rows starting at `offset`.
pub fn scroll_offset(offset: usize, cursor: usize, height: usize, len: usize) -> usize {
    if height == 0 {
        return 0;
    }
    let mut off = offset.min(len.saturating_sub(height));
    if cursor < off {
        off = cursor;
    } else if cursor >= off + height {
        off = cursor + 1 - height;
    }
    off
}
pub fn overlay_area(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width.saturating_sub(2)).max(10);
    let h = height.min(area.height.saturating_sub(2)).max(5);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}
/// A bordered overlay centred on `area`, sized to its wrapped text, scrolled `scroll` lines.
pub fn popup(frame: &mut Frame, area: Rect, app: &App, title: &str, text: Text, width: u16) {
    popup_scrolled(frame, area, app, title, text, width, app.overlay_scroll);
}

pub fn popup_scrolled(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    title: &str,
    text: Text,
    width: u16,
    scroll: u16,
) {
    let t = &app.theme;
    let w = width.min(area.width.saturating_sub(2)).max(10);
    // Height of the text once wrapped to the popup's inner width.
    let inner = usize::from(w.saturating_sub(2)).max(1);
    let wrapped: usize = text.lines.iter().map(|l| l.width().max(1).div_ceil(inner)).sum();
    let r = overlay_area(area, w, wrapped as u16 + 2);
    frame.render_widget(Clear, r);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Double)
        .border_style(t.border_focused)
        .title(Line::styled(format!(" {title} "), t.title))
        .title_bottom(Line::styled(format!(" {} ", crate::tr!("tui.popup_keys")), t.dim));
    frame.render_widget(
        Paragraph::new(text)
            .block(block)
            .style(t.text)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        r,
    );
}

/// Draw an app into an off-screen buffer of the given size (snapshots, screenshots, the
/// planner's `x` export).
pub fn render_to_buffer(app: &mut App, width: u16, height: u16) -> Buffer {
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height))
        .expect("an off-screen terminal cannot fail");
    terminal
        .draw(|f| view(f, app))
        .expect("drawing off-screen cannot fail");
    terminal.backend().buffer().clone()
}
