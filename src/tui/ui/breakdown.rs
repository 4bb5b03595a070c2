//! The breakdown table: one card of the target, segment by segment.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};

use crate::engine::Choice;
use crate::engine::units::{group_thousands, to_gb};
use crate::tui::app::App;

pub fn breakdown(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Line::styled(
            match app.target() {
                Some(o) if o.count > 1 => format!(" Breakdown per card of {} ", o.count),
                _ => " Breakdown ".to_string(),
            },
            t.header,
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let shown = app.target_breakdown();
    let total = shown.total();
    let mut rows: Vec<Row> = shown
        .segments
        .iter()
        .map(|s| {
            let look = t.segment(s.kind);
            Row::new(vec![
                Cell::from(Line::from(vec![
                    Span::styled(look.symbol.clone(), look.style),
                    Span::styled(format!(" {}", s.kind.label()), t.text),
                ])),
                Cell::from(Line::styled(format!("{:>9.2} GB", to_gb(s.bytes)), t.text)),
                Cell::from(Line::styled(
                    format!("{:>5.1} %", 100.0 * s.bytes / total.max(1.0)),
                    t.dim,
                )),
            ])
        })
        .collect();
    rows.push(Row::new(vec![
        Cell::from(Line::styled("  total", t.text.add_modifier(Modifier::BOLD))),
        Cell::from(Line::styled(
            format!("{:>9.2} GB", to_gb(total)),
            t.text.add_modifier(Modifier::BOLD),
        )),
        Cell::from(""),
    ]));
    let kv = if shown.host_bytes > 0.0 {
        format!(
            "host RAM {:.2} GB (offloaded or paged state)",
            to_gb(shown.host_bytes)
        )
    } else {
        format!(
            "KV {} B/token ({})",
            group_thousands(app.plan.kv_bytes_per_token as i64),
            app.scenario.kv.label()
        )
    };
    let decode = shown
        .decode_bytes_per_token
        .map(|b| format!(" · decode reads {:.2} GB/token", to_gb(b)))
        .unwrap_or_default();
    let table = Table::new(
        rows,
        [
            Constraint::Length(16),
            Constraint::Length(13),
            Constraint::Length(8),
        ],
    );
    let [table_area, foot] =
        ratatui::layout::Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(inner);
    frame.render_widget(table, table_area);
    frame.render_widget(
        Paragraph::new(Line::styled(format!(" {kv}{decode}"), t.dim)),
        foot,
    );
}
