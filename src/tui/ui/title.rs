//! The top line (model, workload, the pick) and the status line at the bottom.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::engine::Choice;
use crate::engine::rank::SortBy;
use crate::engine::units::{format_params, format_usd, group_thousands};
use crate::tui::app::App;
use crate::tui::keymap::hints;

pub fn title(frame: &mut Frame, area: Rect, app: &App) {
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
pub fn status(frame: &mut Frame, area: Rect, app: &App) {
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
        // Whole hints only; the last one ("? help", where every key is) always shows.
        let all = hints();
        let width = |(k, w): &(&str, &str)| k.chars().count() + w.chars().count() + 3;
        let last = all.last().copied();
        let mut room = usize::from(area.width).saturating_sub(last.as_ref().map_or(0, width));
        let mut shown: Vec<(&str, &str)> = Vec::new();
        for h in &all[..all.len().saturating_sub(1)] {
            if width(h) > room {
                continue;
            }
            room -= width(h);
            shown.push(*h);
        }
        shown.extend(last);
        for (key, what) in shown {
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
