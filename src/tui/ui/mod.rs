//! Drawing: reads the app state and the plan, computes nothing of the arithmetic.

pub mod bar;
pub mod layout;

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, BorderType, Borders, Cell, Clear, Paragraph, Row, Table, Wrap};

use self::bar::{MemoryBar, verdict_word};
use self::layout::{MIN_HEIGHT, MIN_WIDTH, PlannerLayout};
use super::action::Pane;
use super::app::{App, Overlay};
use super::keymap::{BINDINGS, Scope, hints};
use crate::engine::Choice;
use crate::engine::fit::SortBy;
use crate::engine::units::{format_params, format_usd, group_thousands, to_gb};
use crate::present::explain::explain_option;

/// Draw the whole screen.
pub fn view(frame: &mut Frame, app: &mut App) {
    let area = frame.area();
    app.last_area = area;
    let Some(layout) = PlannerLayout::new(area) else {
        too_small(frame, area, app);
        return;
    };
    title(frame, layout.title, app);
    models(frame, layout.models, app);
    workload(frame, layout.workload, app);
    if let Some(r) = layout.breakdown {
        breakdown(frame, r, app);
    }
    memory(frame, layout.bar, app);
    cards(frame, layout.cards, app, layout.large);
    status(frame, layout.status, app);
    match app.overlay {
        Overlay::None => {}
        Overlay::Help => help(frame, area, app),
        Overlay::ExplainSegments | Overlay::ExplainCard(..) => explain(frame, area, app),
        Overlay::Compare => compare(frame, area, app),
    }
}

fn too_small(frame: &mut Frame, area: Rect, app: &App) {
    let text = format!(
        "terminal too small: {}×{}, vramfit needs {MIN_WIDTH}×{MIN_HEIGHT}",
        area.width, area.height
    );
    frame.render_widget(
        Paragraph::new(text)
            .style(app.theme.text)
            .wrap(Wrap { trim: true })
            .alignment(Alignment::Center),
        area,
    );
}

fn block<'a>(app: &App, pane: Pane, title: Line<'a>) -> Block<'a> {
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

fn pane_title<'a>(app: &App, pane: Pane, extra: &str) -> Line<'a> {
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

fn title(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let m = app.current_model();
    let p = app.plan.params;
    let sc = &app.scenario;
    let params = if p.active != p.total {
        format!("{} ({} active)", format_params(p.total), format_params(p.active))
    } else {
        format_params(p.total)
    };
    let pieces = vec![
        Span::styled(" vramfit ", t.title.add_modifier(Modifier::REVERSED)),
        Span::styled(format!(" {} ", m.name), t.text.add_modifier(Modifier::BOLD)),
        Span::styled(
            format!("{params} · {} {} · ", sc.method.label(), sc.weights.label()),
            t.text,
        ),
        Span::styled(
            format!("{} tok × {}", group_thousands(sc.context as i64), sc.batch),
            t.text,
        ),
        Span::styled(
            if sc.context > m.max_context {
                format!(" ⚠ > max {}", group_thousands(m.max_context as i64))
            } else {
                String::new()
            },
            t.tight,
        ),
        Span::styled(
            if sc.cards > 1 {
                format!(" · per card of {}", sc.cards)
            } else {
                String::new()
            },
            t.dim,
        ),
        Span::styled(format!(" · {}", sc.convention.label().to_lowercase()), t.dim),
    ];
    // Whole pieces only: one that does not fit is left out, never cut mid-word.
    let mut used = 0usize;
    let left = Line::from(
        pieces
            .into_iter()
            .filter(|p| {
                let w = p.width();
                let fits = used + w <= usize::from(area.width);
                if fits {
                    used += w;
                }
                fits
            })
            .collect::<Vec<_>>(),
    );
    let best = match app.plan.best() {
        Some(o) => {
            let name = crate::present::option_label(&app.catalog.gpus, o);
            let price = o
                .price_usd_month
                .map_or(String::new(), |p| format!(" {}/mo", format_usd(p)));
            let what = if app.sort_by == SortBy::Cards {
                "fewest cards"
            } else {
                "cheapest"
            };
            format!(" {what}: {name}{price} ")
        }
        None => " nothing fits ".into(),
    };
    // The cheapest pick is shown on the right only where it leaves the left part whole.
    let best_width = best.chars().count() as u16;
    let left_width = left.width() as u16;
    if area.width >= left_width + best_width {
        let r = Rect {
            x: area.x + area.width - best_width,
            width: best_width,
            ..area
        };
        frame.render_widget(Paragraph::new(Span::styled(best, t.key)), r);
    }
    frame.render_widget(Paragraph::new(left), area);
}

fn models(frame: &mut Frame, area: Rect, app: &mut App) {
    let t = app.theme.clone();
    let filter = if app.filtering || !app.filter.is_empty() {
        format!(" /{}{}", app.filter, if app.filtering { "▏" } else { "" })
    } else {
        String::new()
    };
    let block = block(app, Pane::Models, pane_title(app, Pane::Models, &filter));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let visible = app.visible_models();
    let height = inner.height as usize;
    let cursor = visible.iter().position(|&i| i == app.model_cursor).unwrap_or(0);
    app.model_offset = scroll_offset(app.model_offset, cursor, height, visible.len());
    let mut lines = Vec::new();
    if visible.is_empty() {
        lines.push(Line::styled(" no model matches", t.dim));
    }
    for (row, &i) in visible.iter().enumerate().skip(app.model_offset).take(height) {
        let m = &app.models[i];
        let size = format_params(m.params().total);
        let mark = if i == app.model { "▶" } else { " " };
        let name_width = (inner.width as usize).saturating_sub(size.len() + 3);
        let mut name: String = m.name.chars().take(name_width).collect();
        if name.chars().count() < m.name.chars().count() && name_width > 1 {
            name = format!("{}…", name.chars().take(name_width - 1).collect::<String>());
        }
        let mut style = if i == app.model {
            t.text.add_modifier(Modifier::BOLD)
        } else {
            t.text
        };
        if row == cursor && app.focus == Pane::Models {
            style = style.patch(t.cursor);
        }
        let pad = name_width.saturating_sub(name.chars().count());
        lines.push(Line::from(vec![
            Span::styled(format!("{mark}{name}{} ", " ".repeat(pad)), style),
            Span::styled(
                format!("{size:>w$} ", w = size.len()),
                if row == cursor && app.focus == Pane::Models {
                    style
                } else {
                    t.dim
                },
            ),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), inner);
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

fn workload(frame: &mut Frame, area: Rect, app: &mut App) {
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
                    format!(" {:<10} ", k.label(method)),
                    if focused { t.key } else { t.dim },
                ),
                Span::styled(if focused { "◀ " } else { "  " }, t.key),
                Span::styled(value, value_style),
                Span::styled(if focused { " ▶" } else { "" }, t.key),
            ];
            if inert {
                spans.push(Span::styled("  (calibrated only)", t.dim));
            }
            Line::from(spans)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

fn breakdown(frame: &mut Frame, area: Rect, app: &App) {
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

fn memory(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let target = app.target();
    let against = match target {
        Some(o) => {
            let g = &app.catalog.gpus[o.gpu];
            let why = if app.pinned.is_some() {
                " (pinned · Enter unpins)"
            } else if o.verdict.is_fit() {
                match app.sort_by {
                    SortBy::Price => " (cheapest fit)",
                    SortBy::Rent => " (cheapest rent)",
                    SortBy::Finish => " (cheapest to finish)",
                    SortBy::Cards => " (fewest cards)",
                }
            } else {
                " (nothing fits: closest)"
            };
            if o.count > 1 {
                format!(" vs {}× {}{why}", o.count, g.name)
            } else {
                format!(" vs {}{why}", g.name)
            }
        }
        None => String::new(),
    };
    let mut block = block(app, Pane::Bar, pane_title(app, Pane::Bar, &against));
    let breakdown = app.target_breakdown();
    if let Some(o) = target {
        let (word, style) = verdict_word(o.verdict, t);
        let room = if o.free_bytes_per_card >= 0.0 {
            format!("{:.2} free", to_gb(o.free_bytes_per_card))
        } else {
            format!("{:.2} short", to_gb(-o.free_bytes_per_card))
        };
        block = block.title_bottom(
            Line::from(vec![
                Span::styled(
                    format!(
                        " {:.2} / {:.2} GB per card · {room} · ",
                        to_gb(o.per_card_bytes),
                        to_gb(o.usable_bytes / f64::from(o.count))
                    ),
                    t.text,
                ),
                Span::styled(word, style),
                Span::raw(" "),
            ])
            .alignment(Alignment::Right),
        );
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let focused = (app.focus == Pane::Bar)
        .then(|| app.bar_segments().get(app.segment).copied())
        .flatten();
    frame.render_widget(
        MemoryBar {
            breakdown,
            target,
            tight_rule: app.scenario.tight_rule,
            theme: t,
            focused,
        },
        Rect {
            x: inner.x + 1,
            width: inner.width.saturating_sub(2),
            ..inner
        },
    );
}

fn cards(frame: &mut Frame, area: Rect, app: &mut App, large: bool) {
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

fn status(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let mut spans = Vec::new();
    if let Some(msg) = &app.status {
        spans.push(Span::styled(format!(" {msg}"), t.key));
    } else if app.filtering {
        spans.push(Span::styled(
            " typing a filter: Enter keeps it, Esc clears it",
            t.status,
        ));
    } else {
        for (key, what) in hints() {
            spans.push(Span::styled(format!(" {key}"), t.key));
            spans.push(Span::styled(format!(" {what} "), t.status));
        }
    }
    if !app.scenario.method.is_training() {
        let note = " decode = a ceiling (upper bound), not a benchmark";
        let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
        if used + note.len() < area.width as usize {
            spans.push(Span::styled(note, t.dim));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn overlay_area(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width.saturating_sub(2)).max(10);
    let h = height.min(area.height.saturating_sub(2)).max(5);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

fn popup(frame: &mut Frame, area: Rect, app: &App, title: &str, text: Text, width: u16) {
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
        .title_bottom(Line::styled(" Esc closes · ↑↓ scroll ", t.dim));
    frame.render_widget(
        Paragraph::new(text)
            .block(block)
            .style(t.text)
            .wrap(Wrap { trim: false })
            .scroll((app.overlay_scroll, 0)),
        r,
    );
}

fn help(frame: &mut Frame, area: Rect, app: &App) {
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
    popup(frame, area, app, "Help", Text::from(lines), 76);
}

fn explain(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let mut lines: Vec<Line> = Vec::new();
    let title;
    match app.overlay {
        Overlay::ExplainCard(g, n) => {
            title = "Explain card";
            match app.find_option(g, n) {
                Some(o) => {
                    for (i, l) in explain_option(&app.catalog.gpus[g], o, &app.plan, &app.scenario)
                        .into_iter()
                        .enumerate()
                    {
                        lines.push(Line::styled(
                            l,
                            if i == 0 {
                                t.text.add_modifier(Modifier::BOLD)
                            } else {
                                t.text
                            },
                        ));
                    }
                }
                None => lines.push(Line::raw("this option is gone")),
            }
        }
        _ => {
            title = "Explain memory";
            let focused = app.bar_segments().get(app.segment).copied();
            let sc = &app.scenario;
            lines.push(Line::styled(
                format!(
                    "{} · {} · {} weights · {} tokens × batch {} · {} rules",
                    app.current_model().name,
                    sc.method.label(),
                    sc.weights.label(),
                    group_thousands(sc.context as i64),
                    sc.batch,
                    sc.convention.id()
                ),
                t.text.add_modifier(Modifier::BOLD),
            ));
            let other = app.scenario.convention.next();
            let shown = app.target_breakdown();
            let cards = app.target().map_or(1, |o| o.count);
            for s in &shown.segments {
                let look = t.segment(s.kind);
                let mark = Some(s.kind) == focused && app.focus == Pane::Bar;
                let name_style = if mark { t.cursor } else { t.key };
                lines.push(Line::raw(""));
                lines.push(Line::from(vec![
                    Span::styled(look.symbol.clone(), look.style),
                    Span::styled(
                        format!(" {} = {:.2} GB", s.kind.label(), to_gb(s.bytes)),
                        name_style,
                    ),
                ]));
                lines.push(Line::styled(format!("   {}", s.formula), t.text));
                let there = app.other.get(s.kind);
                if (there - s.bytes).abs() > 1e6 {
                    lines.push(Line::styled(
                        format!(
                            "   {} rules: {:.2} GB. {}",
                            other.id(),
                            to_gb(there),
                            crate::present::explain::convention_difference(s.kind)
                        ),
                        t.dim,
                    ));
                }
            }
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                format!(
                    "total = {:.2} GB per card of {cards} ({} rules); {} rules: {:.2} GB",
                    to_gb(shown.total()),
                    sc.convention.id(),
                    other.id(),
                    to_gb(app.other.total())
                ),
                t.text.add_modifier(Modifier::BOLD),
            ));
            if shown.host_bytes > 0.0 {
                lines.push(Line::styled(
                    format!(
                        "host RAM: {:.2} GB (offloaded or paged state)",
                        to_gb(shown.host_bytes)
                    ),
                    t.text,
                ));
            }
            if let Some(f) = &shown.decode_formula {
                lines.push(Line::styled(format!("decode: {f}"), t.dim));
            }
            for note in &shown.notes {
                lines.push(Line::styled(format!("note: {note}"), t.dim));
            }
        }
    }
    let width = (area.width * 9 / 10).max(60);
    popup(frame, area, app, title, Text::from(lines), width);
}

/// One side of the comparison, as (label, value) rows.
fn side_rows(
    app: &App,
    model: usize,
    sc: &crate::engine::Scenario,
    plan: &crate::engine::Plan,
    target: Option<(usize, u32)>,
) -> Vec<(String, String)> {
    let m = &app.models[model];
    let rent = &sc.rent;
    let money = |v: f64| crate::present::money(v, &rent.rates, &rent.display_currency);
    let mut rows = vec![
        ("model".to_string(), m.name.clone()),
        (
            "method".into(),
            format!("{} · {}", sc.method.label(), sc.weights.label()),
        ),
        (
            "tokens".into(),
            format!("{} × batch {}", group_thousands(sc.context as i64), sc.batch),
        ),
        (
            "rules".into(),
            format!(
                "{}{}",
                sc.convention.id(),
                if sc.cards > 1 {
                    format!(" · {} cards", sc.cards)
                } else {
                    String::new()
                }
            ),
        ),
    ];
    let best = target
        .and_then(|(g, n)| plan.options.iter().find(|o| o.gpu == g && o.count == n))
        .or_else(|| plan.target());
    // Segments as one card of the option holds them, as the bar draws them.
    let cards = best.map_or(sc.cards, |o| o.count);
    let shown = plan.breakdown_for(cards);
    for kind in crate::engine::SegmentKind::ALL {
        if let Some(s) = shown.segment(kind) {
            rows.push((kind.label().to_string(), format!("{:.2} GB", to_gb(s.bytes))));
        } else {
            rows.push((kind.label().to_string(), "–".into()));
        }
    }
    rows.push((
        "total".into(),
        format!(
            "{:.2} GB{}",
            to_gb(shown.total()),
            if cards > 1 { " per card" } else { "" }
        ),
    ));
    match best {
        Some(o) => {
            let name = crate::present::option_label(&app.catalog.gpus, o);
            rows.push(("card".into(), format!("{name} ({})", o.verdict.id())));
            rows.push(("per card".into(), format!("{:.2} GB", to_gb(o.per_card_bytes))));
            rows.push((
                "per month".into(),
                o.price_usd_month.map_or("no price".into(), money),
            ));
            rows.push((
                "decode ≤".into(),
                o.decode_tokens_per_s
                    .map_or("–".into(), |t| format!("{t:.1} tokens/s per stream")),
            ));
            rows.push((
                "concurrency".into(),
                o.serving.map_or("–".into(), |c| {
                    format!(
                        "{} sequences, {} KV tokens",
                        c.max_concurrent_sequences,
                        group_thousands(c.kv_capacity_tokens as i64)
                    )
                }),
            ));
            rows.push((
                "to finish".into(),
                match (o.training, o.train_cost_usd) {
                    (Some(t), Some(c)) => format!("{:.1} h, {}", t.hours, money(c)),
                    _ => "–".into(),
                },
            ));
        }
        None => rows.push(("card".into(), "nothing fits".into())),
    }
    rows
}

fn compare(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let Some(a) = &app.side_a else { return };
    let left = side_rows(app, a.model, &a.scenario, &a.plan, a.target);
    let right = side_rows(
        app,
        app.model,
        &app.scenario,
        &app.plan,
        app.target().map(|o| (o.gpu, o.count)),
    );
    // Popup inner width = screen − 4 (margin) − 2 (borders); 14 for the labels.
    let w = (area.width.saturating_sub(6 + 14) / 2).max(12) as usize;
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{:<14}", ""), t.header),
        Span::styled(format!("{:<w$}", "A (pinned)"), t.header),
        Span::styled(format!("{:<w$}", "B (now)"), t.header),
    ])];
    for ((label, va), (_, vb)) in left.iter().zip(right.iter()) {
        let differs = va != vb;
        let style = if differs { t.key } else { t.text };
        let cut = |v: &str| v.chars().take(w.saturating_sub(1)).collect::<String>();
        lines.push(Line::from(vec![
            Span::styled(format!("{label:<14}"), t.dim),
            Span::styled(format!("{:<w$}", cut(va)), style),
            Span::styled(format!("{:<w$}", cut(vb)), style),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "highlighted rows differ · a pins again · b or Esc closes",
        t.dim,
    ));
    popup(
        frame,
        area,
        app,
        "A / B",
        Text::from(lines),
        area.width.saturating_sub(4),
    );
}
