//! The A/B overlay: two plans side by side.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span, Text};

use super::popup;
use crate::engine::Choice;
use crate::engine::basics::units::{group_thousands, to_gb};
use crate::present::i18n::{label, word};
use crate::present::segment_label;
use crate::text::{pad, width};
use crate::tr;
use crate::tui::app::App;

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
        (tr!("ab.model"), m.name.clone()),
        (
            tr!("ab.method"),
            format!(
                "{} · {}",
                label("method", sc.method.id(), sc.method.label()),
                sc.weights.label()
            ),
        ),
        (
            tr!("ab.tokens"),
            tr!(
                "ab.tokens_value",
                context = group_thousands(sc.context as i64),
                batch = sc.batch
            ),
        ),
        (
            tr!("ab.rules"),
            format!(
                "{}{}",
                word("rules", sc.convention.id()),
                if sc.cards > 1 {
                    format!(" · {}", tr!("advice.cards", n = sc.cards))
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
            rows.push((segment_label(kind), format!("{:.2} GB", to_gb(s.bytes))));
        } else {
            rows.push((segment_label(kind), "–".into()));
        }
    }
    let total = format!("{:.2} GB", to_gb(shown.total()));
    rows.push((
        tr!("plan.total"),
        if cards > 1 {
            tr!("ab.per_card_value", gb = total)
        } else {
            total
        },
    ));
    match best {
        Some(o) => {
            let name = crate::present::option_label(&app.catalog.gpus, o);
            rows.push((
                tr!("ab.card"),
                tr!(
                    "ab.card_value",
                    card = name,
                    verdict = word("verdict", o.verdict.id())
                ),
            ));
            rows.push((tr!("ab.per_card"), format!("{:.2} GB", to_gb(o.per_card_bytes))));
            rows.push((
                tr!("ab.per_month"),
                o.price_usd_month.map_or(tr!("price.none"), money),
            ));
            rows.push((
                tr!("tui.col_decode"),
                o.decode_tokens_per_s
                    .map_or("–".into(), |t| tr!("ab.per_stream", tps = format!("{t:.1}"))),
            ));
            rows.push((
                tr!("ab.concurrency"),
                o.serving.map_or("–".into(), |c| {
                    tr!(
                        "ab.concurrency_value",
                        seqs = crate::present::concurrent_sequences(sc, &c),
                        tokens = group_thousands(c.kv_capacity_tokens as i64)
                    )
                }),
            ));
            rows.push((
                tr!("ab.to_finish"),
                match (o.training, o.train_cost_usd) {
                    (Some(t), Some(c)) => tr!(
                        "ab.to_finish_value",
                        hours = format!("{:.1}", t.hours),
                        cost = money(c)
                    ),
                    _ => "–".into(),
                },
            ));
        }
        None => rows.push((tr!("ab.card"), tr!("tui.nothing_fits"))),
    }
    rows
}
pub fn compare(frame: &mut Frame, area: Rect, app: &App) {
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
        Span::styled(pad("", 14), t.header),
        Span::styled(pad(&tr!("ab.a_pinned"), w), t.header),
        Span::styled(pad(&tr!("ab.b_now"), w), t.header),
    ])];
    for ((name, va), (_, vb)) in left.iter().zip(right.iter()) {
        let differs = va != vb;
        let style = if differs { t.key } else { t.text };
        // Cut to the column by display width (a Chinese character takes two).
        let cut = |v: &str| {
            if width(v) < w {
                v.to_string()
            } else {
                crate::text::truncate(v, w.saturating_sub(1))
            }
        };
        lines.push(Line::from(vec![
            Span::styled(pad(name, 14), t.dim),
            Span::styled(pad(&cut(va), w), style),
            Span::styled(pad(&cut(vb), w), style),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(tr!("ab.keys"), t.dim));
    popup(
        frame,
        area,
        app,
        "A / B",
        Text::from(lines),
        area.width.saturating_sub(4),
    );
}
