//! The A/B overlay: two plans side by side.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span, Text};

use super::popup;
use crate::engine::Choice;
use crate::engine::units::{group_thousands, to_gb};
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
