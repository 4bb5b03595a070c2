//! The help overlay, generated from the key map.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span, Text};

use super::popup;
use crate::tui::app::App;
use crate::tui::keymap::{BINDINGS, Scope};

pub fn help(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let mut lines = vec![
        Line::styled("Every key of the planner (generated from its key map):", t.dim),
        Line::raw(""),
    ];
    for b in BINDINGS.iter().filter(|b| b.scope == Scope::Everywhere) {
        lines.push(Line::from(vec![
            Span::styled(format!(" {:<12}", b.label), t.key),
            Span::styled(b.help, t.text),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("While typing a model filter:", t.dim));
    for b in BINDINGS.iter().filter(|b| b.scope == Scope::Filter) {
        lines.push(Line::from(vec![
            Span::styled(format!(" {:<12}", b.label), t.key),
            Span::styled(b.help, t.text),
        ]));
    }
    lines.push(Line::from(vec![
        Span::styled(format!(" {:<12}", "Esc"), t.key),
        Span::styled("clear the filter", t.text),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::styled("What the cards pane shows:", t.dim));
    for (what, means) in COLUMNS {
        lines.push(Line::from(vec![
            Span::styled(format!(" {what:<12}"), t.key),
            Span::styled(*means, t.text),
        ]));
    }
    popup(frame, area, app, "Help", Text::from(lines), 76);
}

/// The cards pane's columns and marks, in words.
pub const COLUMNS: &[(&str, &str)] = &[
    ("✓ ! ✗", "fits · tight (little room left) · does not fit"),
    ("▶", "the card or combo the memory bar is drawn against"),
    (
        "free/card",
        "GB left on each card once the plan is loaded (negative: short)",
    ),
    (
        "$/month",
        "the cheapest offer for a month; yours: this machine's own cards",
    ),
    (
        "decode ≤",
        "tokens/s one stream can reach at most; bw: memory bandwidth binds, cmp: compute",
    ),
    (
        "seqs",
        "sequences of this context the KV cache budget holds at once",
    ),
    ("used", "GB the plan puts on each card (wide screens)"),
    ("highlight", "the row under the cursor (Enter pins it)"),
];
