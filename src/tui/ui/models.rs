//! The model picker.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{block, pane_title, scroll_offset};
use crate::engine::basics::units::format_params;
use crate::tui::action::Pane;
use crate::tui::app::{App, ModelRow};

pub fn models(frame: &mut Frame, area: Rect, app: &mut App) {
    let t = app.theme.clone();
    let filter = if app.filtering || !app.filter.is_empty() {
        format!(" /{}{}", app.filter, if app.filtering { "▏" } else { "" })
    } else {
        // What this machine holds (the Hugging Face cache, GGUF folders) comes first, marked ⌂.
        let here = app.models.iter().filter(|m| is_local(m)).count();
        if here > 0 {
            format!(" ⌂ {}", crate::tr!("tui.models_here", n = here))
        } else {
            String::new()
        }
    };
    let block = block(app, Pane::Models, pane_title(app, Pane::Models, &filter));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = app.model_rows();
    let height = inner.height as usize;
    let cursor = rows
        .iter()
        .position(|&r| r == ModelRow::Model(app.model_cursor))
        .unwrap_or(0);
    let mut offset = scroll_offset(app.model_offset, cursor, height, rows.len());
    // A family's first model brings its heading into view with it.
    if offset == cursor && cursor > 0 && matches!(rows[cursor - 1], ModelRow::Family(_)) {
        offset -= 1;
    }
    app.model_offset = offset;
    if rows.is_empty() {
        // Nothing listed matches: what typed text can still be (an import), or is arriving.
        let wanted = app.filter.trim();
        let mut lines = vec![Line::styled(
            format!(" {}", crate::tr!("tui.no_model_matches")),
            t.dim,
        )];
        if let Some(error) = &app.import_error {
            lines.push(Line::styled(format!(" {error}"), t.no));
        } else if let Some(text) = &app.importing {
            lines.push(Line::styled(
                format!(" {}", crate::tr!("tui.importing", text = text)),
                t.text,
            ));
        } else if crate::catalog::import::looks_importable(wanted) {
            let from = if app.hub {
                crate::tr!("tui.import_from_hub")
            } else {
                crate::tr!("tui.import_from_disk")
            };
            lines.push(Line::styled(
                format!(" {}", crate::tr!("tui.enter_imports", text = wanted, from = from)),
                t.text,
            ));
        }
        frame.render_widget(
            Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }),
            inner,
        );
        return;
    }
    for (y, (row, &entry)) in rows
        .iter()
        .enumerate()
        .skip(app.model_offset)
        .take(height)
        .enumerate()
    {
        let strip = Rect {
            y: inner.y + y as u16,
            height: 1,
            ..inner
        };
        let i = match entry {
            ModelRow::Model(i) => i,
            ModelRow::Family(i) => {
                let m = &app.models[i];
                let family = if is_local(m) {
                    format!("⌂ {}", m.family)
                } else {
                    m.family.clone()
                };
                // A rule after the name sets the heading apart also without colour.
                let width = inner.width as usize;
                let shown = crate::text::truncate(&family, width.saturating_sub(3));
                let rule = "─".repeat(width.saturating_sub(crate::text::width(&shown) + 2));
                frame.render_widget(Line::styled(format!(" {shown} {rule}"), t.header), strip);
                continue;
            }
        };
        let m = &app.models[i];
        let size = format_params(m.params().total);
        let mark = if i == app.model { "▶" } else { " " };
        let name_width = (inner.width as usize).saturating_sub(size.len() + 3);
        let shown = if is_local(m) {
            format!("⌂ {}", m.name)
        } else {
            m.name.clone()
        };
        let name = crate::text::truncate(&shown, name_width);
        let mut style = if i == app.model {
            t.text.add_modifier(Modifier::BOLD)
        } else {
            t.text
        };
        if row == cursor && app.focus == Pane::Models {
            style = style.patch(t.cursor);
        }
        let pad = name_width.saturating_sub(crate::text::width(&name));
        let line = Line::from(vec![
            Span::styled(format!("{mark}{name}{} ", " ".repeat(pad)), style),
            Span::styled(
                format!("{size:>w$} ", w = size.len()),
                if row == cursor && app.focus == Pane::Models {
                    style
                } else {
                    t.dim
                },
            ),
        ]);
        // Each row drawn as a line in its own strip: a paragraph would reflow the whole list,
        // which cost more than the rest of this pane.
        frame.render_widget(line, strip);
    }
}

/// A model found on this machine (the local Hugging Face cache or a GGUF folder).
fn is_local(m: &crate::engine::Model) -> bool {
    m.family == "On this machine"
}
