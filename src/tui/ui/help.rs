//! The help overlay, generated from the key map.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span, Text};

use super::popup;
use crate::text::pad;
use crate::tr;
use crate::tui::app::App;
use crate::tui::keymap::{BINDINGS, Scope};

pub fn help(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let mut lines = vec![Line::styled(tr!("tui.help_every_key"), t.dim), Line::raw("")];
    for b in BINDINGS.iter().filter(|b| b.scope == Scope::Everywhere) {
        lines.push(Line::from(vec![
            Span::styled(format!(" {}", pad(b.label, 12)), t.key),
            Span::styled(b.help(), t.text),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(tr!("tui.help_while_filtering"), t.dim));
    for b in BINDINGS.iter().filter(|b| b.scope == Scope::Filter) {
        lines.push(Line::from(vec![
            Span::styled(format!(" {}", pad(b.label, 12)), t.key),
            Span::styled(b.help(), t.text),
        ]));
    }
    lines.push(Line::from(vec![
        Span::styled(format!(" {}", pad("Esc", 12)), t.key),
        Span::styled(tr!("tui.help_clear_filter"), t.text),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::styled(tr!("tui.help_cards_pane"), t.dim));
    for (what, id) in COLUMNS {
        lines.push(Line::from(vec![
            Span::styled(format!(" {}", pad(&column_name(what), 12)), t.key),
            Span::styled(
                crate::present::i18n::message(&format!("help_column.{id}")),
                t.text,
            ),
        ]));
    }
    popup(frame, area, app, &tr!("tui.help"), Text::from(lines), 76);
}

/// A column's name as its header writes it (the marks are the same in every language).
fn column_name(what: &str) -> String {
    match what.strip_prefix("tui.") {
        Some(_) => rust_i18n::t!(what).into_owned(),
        None => what.to_string(),
    }
}

/// The cards pane's columns and marks: the header (a mark, or the header's message key) and
/// what it means (`help_column.<id>`).
pub const COLUMNS: &[(&str, &str)] = &[
    ("✓ ! ✗", "verdicts"),
    ("▶", "target"),
    ("tui.col_free", "free"),
    ("tui.col_usd_month", "month"),
    ("tui.col_decode", "decode"),
    ("tui.col_seqs", "seqs"),
    ("tui.col_used", "used"),
    ("tui.highlight", "highlight"),
];
