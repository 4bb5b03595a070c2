//! The cards pane: one row per card (or every combo), ranked.

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Table};

use super::bar::verdict_word;
use super::{block, pane_title, scroll_offset};
use crate::engine::units::to_gb;
use crate::tui::action::Pane;
use crate::tui::app::App;

pub fn cards(frame: &mut Frame, area: Rect, app: &mut App, large: bool) {
    let t = app.theme.clone();
    let mode = if app.all_combos {
        " all combos · c: one per card"
    } else {
        " one row per card · c: all combos"
    };
    let block = block(app, Pane::Cards, pane_title(app, Pane::Cards, mode));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows_idx = app.visible_cards();
    let cursor = app.card_cursor_row();
    let nothing_fits = app.plan.best().is_none() && inner.height > 2;
    let height = inner.height.saturating_sub(1 + u16::from(nothing_fits)) as usize;
    app.card_offset = scroll_offset(app.card_offset, cursor, height, rows_idx.len());
    let target = app.target().map(|o| (o.gpu, o.count));
    let training = app.scenario.method.is_training();
    let wide = large && inner.width >= 110;
    let rent = app.scenario.rent.clone();
    let cny = rent.display_currency == "CNY";
    let show_term = (rent.hours - crate::engine::gpu::HOURS_PER_MONTH).abs() > 0.5;
    let show_finish = training && rent.train_tokens.is_some();
    let term_header = format!("{:.0} h", rent.hours);
    let mut header: Vec<&str> = vec![
        "  fit",
        "card",
        "free/card",
        if cny { "¥/month" } else { "$/month" },
    ];
    if show_term {
        header.push(&term_header);
    }
    if show_finish {
        header.push("finish");
    }
    header.push(if training { "" } else { "decode ≤" });
    if !training {
        header.push("seqs");
    }
    if wide {
        header.extend(["used", "spot", "split link GB/s", "note"]);
    }
    let rows: Vec<Row> = rows_idx
        .iter()
        .enumerate()
        .skip(app.card_offset)
        .take(height)
        .map(|(row, &i)| {
            let o = &app.plan.options[i];
            let g = &app.catalog.gpus[o.gpu];
            let (word, vstyle) = verdict_word(o.verdict, &t);
            let mark = if Some((o.gpu, o.count)) == target {
                "▶"
            } else {
                " "
            };
            let name = if o.count > 1 {
                format!("{}× {}", o.count, g.name)
            } else {
                g.name.clone()
            };
            let price = crate::present::price_text_in(g, o, &rent.rates, &rent.display_currency);
            let money = |v: Option<f64>| {
                v.map_or("–".to_string(), |u| {
                    crate::present::money(u, &rent.rates, &rent.display_currency)
                })
            };
            // Per-stream ceiling and which roofline binds (bw: bandwidth, cmp: compute).
            let decode = match (o.decode_tokens_per_s, o.roofline) {
                (Some(tps), Some(r)) if o.verdict.is_fit() => {
                    format!(
                        "{tps:.0}/s {}",
                        if r.bound == crate::engine::serving::Bound::Compute {
                            "cmp"
                        } else {
                            "bw"
                        }
                    )
                }
                _ => String::new(),
            };
            let seqs = o
                .serving
                .map_or(String::new(), |c| c.max_concurrent_sequences.to_string());
            let mut cells = vec![
                Cell::from(Line::styled(format!("{mark}{word}"), vstyle)),
                Cell::from(name),
                Cell::from(
                    Line::from(format!("{:.1}", to_gb(o.free_bytes_per_card))).alignment(Alignment::Right),
                ),
                Cell::from(Line::from(price).alignment(Alignment::Right)),
            ];
            if show_term {
                cells.push(Cell::from(
                    Line::from(money(o.rent_cost_usd)).alignment(Alignment::Right),
                ));
            }
            if show_finish {
                let finish = match o.training {
                    Some(t) => format!(
                        "{} {}",
                        crate::present::compact_hours(t.hours),
                        money(o.train_cost_usd)
                    ),
                    None => "–".into(),
                };
                cells.push(Cell::from(Line::from(finish).alignment(Alignment::Right)));
            }
            cells.push(Cell::from(Line::from(decode).alignment(Alignment::Right)));
            if !training {
                cells.push(Cell::from(Line::from(seqs).alignment(Alignment::Right)));
            }
            if wide {
                cells.push(Cell::from(
                    Line::from(format!("{:.1}", to_gb(o.per_card_bytes))).alignment(Alignment::Right),
                ));
                cells.push(Cell::from(
                    Line::from(money(o.spot_rent_cost_usd)).alignment(Alignment::Right),
                ));
                cells.push(Cell::from(if o.count > 1 {
                    let pcie = g.pcie_gen.map_or(String::new(), |n| n.to_string());
                    let kind = if o.link.kind == crate::engine::gpu::LinkKind::Pcie {
                        format!("PCIe{pcie}")
                    } else {
                        o.link.kind.short_label().to_string()
                    };
                    format!(
                        "{} {kind} {:.0}{}",
                        o.split.id(),
                        o.link.gbs,
                        if o.count > 8 { " +net" } else { "" }
                    )
                } else {
                    String::new()
                }));
                cells.push(Cell::from(
                    o.reason
                        .map(|r| r.short_text())
                        .or_else(|| o.tp_over_pcie.then(|| "⚠ TP over PCIe".to_string()))
                        .unwrap_or_default(),
                ));
            }
            let mut style = if o.verdict.is_fit() { t.text } else { t.dim };
            if row == cursor && app.focus == Pane::Cards {
                style = style.patch(t.cursor);
            }
            Row::new(cells).style(style)
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(8),
        // The card's name comes first: at least 26 columns where the screen has them.
        Constraint::Min(if wide { 26 } else { 16 }),
        Constraint::Length(9),
        Constraint::Length(10),
    ];
    if show_term {
        widths.push(Constraint::Length(10));
    }
    if show_finish {
        widths.push(Constraint::Length(15));
    }
    widths.push(Constraint::Length(if training { 0 } else { 11 }));
    if !training {
        widths.push(Constraint::Length(5));
    }
    if wide {
        widths.extend([
            Constraint::Length(6),
            Constraint::Length(7),
            Constraint::Length(20),
            Constraint::Fill(1),
        ]);
    }
    let header = Row::new(
        header
            .into_iter()
            .map(|h| Cell::from(Line::from(h)))
            .collect::<Vec<_>>(),
    )
    .style(t.header);
    let mut table_area = inner;
    if nothing_fits {
        // Nothing fits: say so above the rows, which list the closest options first.
        frame.render_widget(
            Paragraph::new(Line::styled(
                " ✗ nothing in the catalog holds this plan · closest first, short per card:",
                t.no,
            )),
            Rect { height: 1, ..inner },
        );
        table_area.y += 1;
        table_area.height -= 1;
    }
    frame.render_widget(
        Table::new(rows, widths).header(header).column_spacing(1),
        table_area,
    );
}
