//! The "to fit" overlay: the target as it stands, its exact limits, and each change that
//! makes the plan fit, with what it costs; Enter applies the selected one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span, Text};

use super::{popup, popup_scrolled};
use crate::engine::basics::units::format_gb;
use crate::present::advice::{flags, headroom_text, label, limit_text, note, target_label, top_context};
use crate::present::i18n::word;
use crate::tr;
use crate::tui::app::App;

pub fn tofit(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let mut lines: Vec<Line> = Vec::new();
    let Some(a) = &app.advice else {
        lines.push(Line::raw(tr!("tofit.no_card")));
        popup(
            frame,
            area,
            app,
            &tr!("tofit.title"),
            Text::from(lines),
            area.width * 9 / 10,
        );
        return;
    };
    let gpus = &app.catalog.gpus;
    let rent = &app.scenario.rent;
    // Prices in the currency the screen shows.
    let money = |usd: f64| crate::present::money(usd, &rent.rates, &rent.display_currency);
    let what = if app.scenario.method.is_training() {
        tr!("advice.sequence")
    } else {
        tr!("advice.context_word")
    };
    let room = if a.now.free_bytes_per_card >= 0.0 {
        tr!("advice.free", gb = format_gb(a.now.free_bytes_per_card))
    } else {
        tr!(
            "advice.short",
            gb = crate::engine::basics::units::format_shortfall(-a.now.free_bytes_per_card)
        )
    };
    lines.push(Line::styled(
        tr!(
            "tofit.now",
            target = target_label(a.target, gpus),
            verdict = word("verdict", a.now.verdict.id()),
            room = room
        ),
        t.text.add_modifier(Modifier::BOLD),
    ));
    // The words `vramfit fit` prints: a limit that does not exist is never a bare "none".
    lines.push(Line::styled(
        tr!(
            "tofit.limits",
            what = what.clone(),
            batch = app.scenario.batch,
            context = limit_text(a.max_context, top_context(&app.scenario)),
            max_batch = limit_text(a.max_batch, crate::engine::workload::ranges::MAX_BATCH)
        ),
        t.text,
    ));
    if a.now.verdict.is_fit() {
        lines.push(Line::styled(headroom_text(a, &what), t.dim));
    } else if a.suggestions.is_empty() {
        lines.push(Line::styled(tr!("tofit.nothing"), t.no));
    } else {
        lines.push(Line::styled(tr!("tofit.keys"), t.dim));
    }
    for (i, s) in a.suggestions.iter().enumerate() {
        let selected = usize::from(app.overlay_scroll) == i;
        let mark = if selected { "▶ " } else { "  " };
        let style = if selected { t.cursor } else { t.text };
        let (word, vstyle) = super::bar::verdict_word(s.after.verdict, t);
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled(format!("{mark}{}", label(&s.change, gpus)), style),
            Span::raw("  "),
            Span::styled(word, vstyle),
            Span::styled(
                format!(
                    "  {}{}{}",
                    tr!("advice.free", gb = format_gb(s.after.free_bytes_per_card)),
                    s.after.decode_tokens_per_s.map_or(String::new(), |d| {
                        format!(" · {}", tr!("advice.decode", after = format!("{d:.0}")))
                    }),
                    // The price only where the change moves it (more cards, another card).
                    match s.after.price_usd_month {
                        Some(p) if a.now.price_usd_month.is_none_or(|n| (n - p).abs() > 0.5) => {
                            format!(" · {}", tr!("advice.price", after = money(p)))
                        }
                        _ => String::new(),
                    },
                ),
                t.text,
            ),
        ]));
        let host = if s.host_bytes > 0.0 {
            format!("{} · ", tr!("advice.host", gb = format_gb(s.host_bytes)))
        } else {
            String::new()
        };
        lines.push(Line::styled(
            format!(
                "    {host}{}{}",
                note(&s.change).map_or(String::new(), |n| format!("{n} · ")),
                flags(&s.change, gpus).join(" ")
            ),
            t.dim,
        ));
    }
    // With a target: what meets it as asked, and under each change.
    if let Some(r) = &app.reaches {
        use crate::present::target_text::{reach_result, remedy_label};
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            tr!("target.remedies"),
            t.text.add_modifier(Modifier::BOLD),
        ));
        lines.push(Line::styled(
            format!(
                "  {} {}",
                tr!("target.as_asked"),
                reach_result(gpus, &app.scenario, r.asked)
            ),
            t.text,
        ));
        for c in &r.changes {
            lines.push(Line::from(vec![
                Span::styled(
                    format!(
                        "  {} {}",
                        remedy_label(c.remedy),
                        reach_result(gpus, &app.scenario, c.cheapest)
                    ),
                    t.text,
                ),
                Span::styled(format!("  {}", c.remedy.flags().join(" ")), t.dim),
            ]));
        }
    }
    // Keep the selected change in view: three header lines, then three lines a change.
    let visible = area.height.saturating_sub(4);
    let bottom = 3 + 3 * (app.overlay_scroll + 1);
    let scroll = bottom.saturating_sub(visible);
    let width = (area.width * 9 / 10).max(60);
    popup_scrolled(
        frame,
        area,
        app,
        &tr!("tofit.title"),
        Text::from(lines),
        width,
        scroll,
    );
}
