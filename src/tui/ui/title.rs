//! The top line (model, workload, the pick) and the status line at the bottom.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::engine::Choice;
use crate::engine::basics::units::{format_params, group_thousands};
use crate::engine::verdict::rank::SortBy;
use crate::present::i18n::label;
use crate::text::width;
use crate::tr;
use crate::tui::app::App;
use crate::tui::keymap::hints;

pub fn title(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let m = app.current_model();
    let p = app.plan.params;
    let sc = &app.scenario;
    let params = if p.active != p.total {
        tr!(
            "tui.params_active",
            total = format_params(p.total),
            active = format_params(p.active)
        )
    } else {
        format_params(p.total)
    };
    let pieces = vec![
        Span::styled(" vramfit ", t.title.add_modifier(Modifier::REVERSED)),
        Span::styled(format!(" {} ", m.name), t.text.add_modifier(Modifier::BOLD)),
        // A family read from its config alone: its count's stated bound, on screen.
        Span::styled(
            m.params_error_bound()
                .map(|b| {
                    format!(
                        "{} ",
                        tr!(
                            "tui.unknown_family",
                            percent = format!("{:.0}", (b * 100.0).ceil())
                        )
                    )
                })
                .unwrap_or_default(),
            t.tight,
        ),
        Span::styled(
            format!(
                "{params} · {} {} · ",
                label("method", sc.method.id(), sc.method.label()),
                sc.weights.label()
            ),
            t.text,
        ),
        Span::styled(
            tr!(
                "tui.tokens_times_batch",
                context = group_thousands(sc.context as i64),
                batch = sc.batch
            ),
            t.text,
        ),
        Span::styled(
            if sc.context > m.max_context {
                format!(
                    " {}",
                    tr!("tui.over_max", max = group_thousands(m.max_context as i64))
                )
            } else {
                String::new()
            },
            t.tight,
        ),
        Span::styled(
            if sc.cards > 1 {
                format!(" · {}", tr!("tui.per_card_of", cards = sc.cards))
            } else {
                String::new()
            },
            t.dim,
        ),
        Span::styled(
            format!(
                " · {}",
                label("convention", sc.convention.id(), sc.convention.label()).to_lowercase()
            ),
            t.dim,
        ),
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
    // Fewest cards names the first fit; "cheapest" only ever names an option with a price.
    let pick = if app.sort_by == SortBy::Cards {
        app.plan.best()
    } else {
        crate::present::cheapest_priced(&app.plan.options)
    };
    // With a target, the right side names what meets it (replicas and their month).
    let meets = crate::present::target_text::title(&app.catalog.gpus, &app.scenario, &app.plan.options);
    let best = match pick {
        _ if meets.is_some() => format!(" {} ", meets.unwrap_or_default()),
        Some(o) => {
            let name = crate::present::option_label(&app.catalog.gpus, o);
            let price = o.price_usd_month.map_or(String::new(), |p| {
                let rent = &app.scenario.rent;
                let price = crate::present::money(p, &rent.rates, &rent.display_currency);
                format!(" {}", tr!("tui.per_month_short", price = price))
            });
            let what = if app.sort_by == SortBy::Cards {
                tr!("tui.fewest_cards")
            } else {
                tr!("tui.cheapest")
            };
            format!(
                " {} ",
                tr!("tui.best", what = what, option = format!("{name}{price}"))
            )
        }
        None if app.plan.best().is_some() => format!(" {} ", tr!("tui.no_priced_fit")),
        None => format!(" {} ", tr!("tui.nothing_fits")),
    };
    // The cheapest pick is shown on the right only where it leaves the left part whole.
    let best_width = width(&best) as u16;
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
        spans.push(Span::styled(format!(" {}", tr!("tui.typing_filter")), t.status));
    } else {
        // Whole hints only; the last one ("? help", where every key is) always shows.
        let all = hints();
        let hint_width = |(k, w): &(&str, String)| width(k) + width(w) + 3;
        let last = all.last().cloned();
        let mut room = usize::from(area.width).saturating_sub(last.as_ref().map_or(0, hint_width));
        let mut shown: Vec<(&str, String)> = Vec::new();
        for h in &all[..all.len().saturating_sub(1)] {
            if hint_width(h) > room {
                continue;
            }
            room -= hint_width(h);
            shown.push(h.clone());
        }
        shown.extend(last);
        for (key, what) in shown {
            spans.push(Span::styled(format!(" {key}"), t.key));
            spans.push(Span::styled(format!(" {what} "), t.status));
        }
    }
    if !app.scenario.method.is_training() {
        let note = format!(" {}", tr!("tui.decode_note"));
        let used: usize = spans.iter().map(|s| width(&s.content)).sum();
        if used + width(&note) < area.width as usize {
            spans.push(Span::styled(note, t.dim));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
