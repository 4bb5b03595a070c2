//! The cards pane: one row per card (or every combo), ranked.

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Table};

use super::bar::verdict_word;
use super::{block, pane_title, scroll_offset};
use crate::engine::FitOption;
use crate::engine::basics::units::to_gb;
use crate::engine::hardware::gpu::LinkKind;
use crate::engine::hardware::offers::HOURS_PER_MONTH;
use crate::engine::speed::serving::Bound;
use crate::present::i18n::{formula, word};
use crate::tr;
use crate::tui::action::Pane;
use crate::tui::app::App;

/// Which columns the table shows: they depend on the method, the renting knobs and the width.
struct Columns {
    training: bool,
    /// The rental term's cost (when the term is not a month).
    term: bool,
    /// Hours and cost to finish (training with a data set size).
    finish: bool,
    /// Memory used, spot price, split and link, note (wide screens).
    wide: bool,
    cny: bool,
    hours: f64,
    /// The seqs column: wider where it counts fixed slots ("4 slots": llama.cpp, Ollama).
    seqs_width: u16,
    /// A target is set: whether each option meets it ("✓ 3×" replicas, "✗ speed").
    target: bool,
}

impl Columns {
    fn of(app: &App, width: u16, large: bool) -> Columns {
        let rent = &app.scenario.rent;
        let training = app.scenario.method.is_training();
        Columns {
            training,
            term: (rent.hours - HOURS_PER_MONTH).abs() > 0.5,
            finish: training && rent.train_tokens.is_some(),
            wide: large && width >= 110,
            seqs_width: if app.scenario.framework.is_ggml() {
                (crate::text::width(&tr!("tui.slots", n = app.scenario.batch)) as u16).max(5)
            } else {
                5
            },
            cny: rent.display_currency == "CNY",
            hours: rent.hours,
            target: app.scenario.target.is_set(),
        }
    }

    fn header(&self) -> Row<'static> {
        let mut header: Vec<String> = vec![
            format!("  {}", tr!("tui.col_fit")),
            tr!("tui.col_card"),
            tr!("tui.col_free"),
            if self.cny {
                tr!("tui.col_cny_month")
            } else {
                tr!("tui.col_usd_month")
            },
        ];
        if self.target {
            header.push(tr!("tui.col_target"));
        }
        if self.term {
            header.push(tr!("column.hours", hours = format!("{:.0}", self.hours)));
        }
        if self.finish {
            header.push(tr!("tui.col_finish"));
        }
        header.push(if self.training {
            String::new()
        } else {
            tr!("tui.col_decode")
        });
        if !self.training {
            header.push(tr!("tui.col_seqs"));
        }
        if self.wide {
            header.extend([
                tr!("tui.col_used"),
                tr!("tui.col_spot"),
                tr!("tui.col_link"),
                tr!("tui.col_note"),
            ]);
        }
        Row::new(
            header
                .into_iter()
                .map(|h| Cell::from(Line::from(h)))
                .collect::<Vec<_>>(),
        )
    }

    fn widths(&self) -> Vec<Constraint> {
        // The verdict column holds the widest verdict word with its marks ("▶✗ no").
        let verdict = ["fits", "tight", "no"]
            .iter()
            .map(|v| crate::text::width(&word("verdict", v)))
            .max()
            .unwrap_or(5);
        let mut widths = vec![
            Constraint::Length((verdict as u16 + 3).max(8)),
            // The card's name comes first: at least 26 columns where the screen has them.
            Constraint::Min(if self.wide { 26 } else { 16 }),
            Constraint::Length(9),
            Constraint::Length(10),
        ];
        if self.target {
            widths.push(Constraint::Length(if self.wide { 14 } else { 9 }));
        }
        if self.term {
            widths.push(Constraint::Length(10));
        }
        if self.finish {
            widths.push(Constraint::Length(15));
        }
        widths.push(Constraint::Length(if self.training { 0 } else { 11 }));
        if !self.training {
            widths.push(Constraint::Length(self.seqs_width));
        }
        if self.wide {
            widths.extend([
                Constraint::Length(6),
                Constraint::Length(7),
                Constraint::Length(20),
                Constraint::Fill(1),
            ]);
        }
        widths
    }
}

pub fn cards(frame: &mut Frame, area: Rect, app: &mut App, large: bool) {
    let t = app.theme.clone();
    let mode = if app.all_combos {
        format!(" {}", tr!("tui.mode_all_combos"))
    } else {
        format!(" {}", tr!("tui.mode_one_per_card"))
    };
    // With a target: what meets it, cheapest first, in the title (in place of the rows'
    // mode on a narrow screen, where both do not fit).
    let mode = match crate::present::target_text::title(&app.catalog.gpus, &app.scenario, &app.plan.options) {
        Some(result) if large => format!("{mode} · {result}"),
        Some(result) => format!(" {result}"),
        None => mode,
    };
    let mode = match app.local {
        Some(_) => format!(
            "{mode} · {}",
            tr!(
                "tui.machine_in_use",
                gb = format!("{:.1}", app.local_used_bytes as f64 / 1e9)
            )
        ),
        None => mode,
    };
    let block = block(app, Pane::Cards, pane_title(app, Pane::Cards, &mode));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows_idx = app.visible_cards();
    let cursor = app.card_cursor_row();
    let nothing_fits = app.plan.best().is_none() && inner.height > 2;
    let height = inner.height.saturating_sub(1 + u16::from(nothing_fits)) as usize;
    app.card_offset = scroll_offset(app.card_offset, cursor, height, rows_idx.len());
    let columns = Columns::of(app, inner.width, large);
    let rows: Vec<Row> = rows_idx
        .iter()
        .enumerate()
        .skip(app.card_offset)
        .take(height)
        .map(|(row, &i)| {
            let o = &app.plan.options[i];
            let mut style = if o.verdict.is_fit() { t.text } else { t.dim };
            if row == cursor && app.focus == Pane::Cards {
                style = style.patch(t.cursor);
            }
            Row::new(cells(app, o, &columns)).style(style)
        })
        .collect();
    let mut table_area = inner;
    if nothing_fits {
        // Nothing fits: say so above the rows, which list the closest options first.
        frame.render_widget(
            Paragraph::new(Line::styled(format!(" ✗ {}", tr!("tui.nothing_holds")), t.no)),
            Rect { height: 1, ..inner },
        );
        table_area.y += 1;
        table_area.height -= 1;
    }
    let table = Table::new(rows, columns.widths())
        .header(columns.header().style(t.header))
        .column_spacing(1);
    frame.render_widget(table, table_area);
}

fn right(text: String) -> Cell<'static> {
    Cell::from(Line::from(text).alignment(Alignment::Right))
}

/// One option's cells, in the order of [`Columns::header`].
fn cells(app: &App, o: &FitOption, columns: &Columns) -> Vec<Cell<'static>> {
    let rent = &app.scenario.rent;
    let money = |v: Option<f64>| {
        v.map_or("–".to_string(), |u| {
            crate::present::money(u, &rent.rates, &rent.display_currency)
        })
    };
    let (word, vstyle) = verdict_word(o.verdict, &app.theme);
    let mark = if app.target().map(|t| (t.gpu, t.count)) == Some((o.gpu, o.count)) {
        "▶"
    } else {
        " "
    };
    let mut cells = vec![
        Cell::from(Line::styled(format!("{mark}{word}"), vstyle)),
        Cell::from(crate::present::option_label(&app.catalog.gpus, o)),
        right(crate::engine::basics::units::fixed(
            to_gb(o.free_bytes_per_card),
            1,
        )),
        price_cell(app, o),
    ];
    if columns.target {
        let mut text = crate::present::target_text::cell(o.target.as_ref());
        // Wide: what the replicas cost together (the price column is one copy's).
        if columns.wide
            && let Some(c) = o.target.filter(|c| c.meets)
            && let Some(total) = c.price_usd_month
        {
            text = format!("{text} = {}", money(Some(total)));
        }
        let style = match o.target {
            Some(c) if c.meets => app.theme.fits,
            Some(_) => app.theme.no,
            None => app.theme.dim,
        };
        cells.push(Cell::from(Line::styled(text, style)));
    }
    if columns.term {
        cells.push(right(money(o.rent_cost_usd)));
    }
    if columns.finish {
        cells.push(right(match o.training {
            Some(t) => format!(
                "{} {}",
                crate::present::compact_hours(t.hours),
                money(o.train_cost_usd)
            ),
            None => "–".into(),
        }));
    }
    // Per stream: what runs of the option's class reached (≈) beside the ceiling (≤); with no
    // class of 3 runs, the ceiling and which roofline binds (bw: bandwidth, cmp: compute).
    cells.push(right(match (o.decode_tokens_per_s, o.roofline) {
        (Some(tps), Some(r)) if o.verdict.is_fit() => match o.expected_decode_tokens_per_s {
            Some(e) => format!("≈{e:.0} ≤{tps:.0}"),
            None => format!(
                "≤{tps:.0} {}",
                if r.bound == Bound::Compute {
                    tr!("tui.bound_compute")
                } else {
                    tr!("tui.bound_bandwidth")
                }
            ),
        },
        _ => String::new(),
    }));
    if !columns.training {
        cells.push(right(o.serving.map_or(String::new(), |c| {
            crate::present::seqs_text(&app.scenario, &c, o)
        })));
    }
    if columns.wide {
        cells.push(right(format!("{:.1}", to_gb(o.per_card_bytes))));
        cells.push(right(money(o.spot_rent_cost_usd)));
        cells.push(Cell::from(link_text(app, o)));
        cells.push(Cell::from(
            o.reason
                .map(|r| formula(&r.short_text()).into_owned())
                .or_else(|| o.tp_over_pcie.then(|| format!("⚠ {}", tr!("tui.tp_over_pcie"))))
                .unwrap_or_default(),
        ));
    }
    cells
}

/// The monthly price; a stale offer's (seen over a year ago) in the warning colour with a
/// "~": the price still ranks as given, but may have moved (the explain view gives its date).
fn price_cell(app: &App, o: &FitOption) -> Cell<'static> {
    let g = &app.catalog.gpus[o.gpu];
    let rent = &app.scenario.rent;
    let text = crate::present::price_text_in(g, o, &rent.rates, &rent.display_currency);
    let stale = o
        .offer
        .is_some_and(|i| crate::dates::is_stale(g.offers[i].seen.as_deref(), crate::dates::today()));
    if stale {
        Cell::from(Line::styled(format!("~{text}"), app.theme.tight).alignment(Alignment::Right))
    } else {
        right(text)
    }
}

/// "tensor NVLink 900", "data PCIe4 32 +net" for a combo; nothing for one card.
fn link_text(app: &App, o: &FitOption) -> String {
    if o.count <= 1 {
        return String::new();
    }
    let g = &app.catalog.gpus[o.gpu];
    let kind = if o.link.kind == LinkKind::Pcie {
        format!("PCIe{}", g.pcie_gen.map_or(String::new(), |n| n.to_string()))
    } else {
        let short = o.link.kind.short_label();
        // "bridge" and "none" are words; NVLink, IF, RoCE are names.
        crate::present::i18n::label("link", short, short)
    };
    format!(
        "{} {kind} {:.0}{}",
        word("split", o.split.id()),
        o.link.gbs,
        if o.count > 8 { " +net" } else { "" }
    )
}
