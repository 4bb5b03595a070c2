//! The breakdown table: one card of the target, segment by segment.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};

use crate::engine::Choice;
use crate::engine::basics::units::{group_thousands, to_gb};
use crate::tr;
use crate::tui::app::App;

pub fn breakdown(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Line::styled(
            match app.target() {
                // Spread over a machine, the memory pane shows each device; this is the
                // plan before it is placed.
                Some(o) if o.spills() || !o.rig.is_empty() => {
                    format!(" {} ", tr!("tui.breakdown_before_placement", cards = o.count))
                }
                Some(o) if o.count > 1 => format!(" {} ", tr!("tui.breakdown_per_card", cards = o.count)),
                _ => format!(" {} ", tr!("tui.breakdown")),
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
                    Span::styled(format!(" {}", crate::present::segment_label(s.kind)), t.text),
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
        Cell::from(Line::styled(
            format!("  {}", tr!("plan.total")),
            t.text.add_modifier(Modifier::BOLD),
        )),
        Cell::from(Line::styled(
            format!("{:>9.2} GB", to_gb(total)),
            t.text.add_modifier(Modifier::BOLD),
        )),
        Cell::from(""),
    ]));
    let kv = if shown.host_bytes > 0.0 {
        tr!("tui.host_ram", gb = format!("{:.2}", to_gb(shown.host_bytes)))
    } else {
        let state = crate::engine::memory::kv::state_elements(app.current_model()) as f64
            * app.scenario.kv.bytes_per_element();
        let kv = tr!(
            "tui.kv_per_token",
            bytes = group_thousands(app.plan.kv_bytes_per_token as i64),
            precision = app.scenario.kv.label()
        );
        if state > 0.0 {
            format!("{kv} · {}", tr!("plan.state", mb = format!("{:.2}", state / 1e6)))
        } else {
            kv
        }
    };
    let decode = shown
        .decode_bytes_per_token
        .map(|b| format!(" · {}", tr!("tui.decode_reads", gb = format!("{:.2}", to_gb(b)))))
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
    // The decode figure only where it fits whole; a cut phrase reads as a wrong one.
    let mut footer = format!(" {kv}");
    if crate::text::width(&footer) + crate::text::width(&decode) <= usize::from(foot.width) {
        footer.push_str(&decode);
    }
    frame.render_widget(Paragraph::new(Line::styled(footer, t.dim)), foot);
}
