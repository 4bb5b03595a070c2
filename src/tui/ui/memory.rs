//! The memory pane: the stacked bar against one card of the target, and its footer.

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::bar::{MemoryBar, verdict_word};
use super::devices::DeviceBars;
use super::{block, pane_title};
use crate::engine::basics::units::{group_thousands, to_gb};
use crate::engine::verdict::rank::SortBy;
use crate::tr;
use crate::tui::action::Pane;
use crate::tui::app::App;

pub fn memory(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let target = app.target();
    let against = match target {
        Some(o) => {
            let g = &app.catalog.gpus[o.gpu];
            let why = if !o.rig.is_empty() {
                tr!("tui.why_rig")
            } else if app.pinned.is_some() {
                tr!("tui.why_pinned")
            } else if app.local == Some((o.gpu, o.count)) {
                String::new()
            } else if o.verdict.is_fit()
                && o.price_usd_month.is_none()
                && !matches!(app.sort_by, SortBy::Cards | SortBy::Speed | SortBy::Target)
            {
                // Ranked first only because nothing priced fits: not "the cheapest".
                tr!("tui.why_unpriced")
            } else if o.verdict.is_fit() {
                match app.sort_by {
                    SortBy::Price => tr!("tui.why_cheapest_fit"),
                    SortBy::Rent => tr!("tui.why_cheapest_rent"),
                    SortBy::Finish => tr!("tui.why_cheapest_finish"),
                    SortBy::Cards => tr!("tui.why_fewest_cards"),
                    SortBy::Speed => tr!("tui.why_fastest"),
                    SortBy::Target if o.target.is_some_and(|c| c.meets) => tr!("tui.why_cheapest_meeting"),
                    SortBy::Target => tr!("tui.why_cheapest_fit"),
                }
            } else {
                tr!("tui.why_closest")
            };
            let card = if !o.rig.is_empty() || o.spills() {
                // A rig names its cards; a plan that spills says "+ RAM".
                crate::present::option_label(&app.catalog.gpus, o)
            } else if o.count > 1 {
                format!("{}× {}", o.count, g.name)
            } else {
                g.name.clone()
            };
            let card = if g.local {
                tr!("tui.this_machine_card", card = card)
            } else {
                card
            };
            format!(" {}{why}", tr!("tui.against", card = card))
        }
        None => String::new(),
    };
    let mut block = block(app, Pane::Bar, pane_title(app, Pane::Bar, &against));
    let breakdown = app.target_breakdown();
    if let Some(o) = target {
        let (word, style) = verdict_word(o.verdict, t);
        // Never "0.00 short" nor "-0.00 free": a shortfall shows at least its last digit.
        let room = if o.free_bytes_per_card >= 0.0 {
            tr!(
                "tui.gb_free",
                gb = crate::engine::basics::units::fixed(to_gb(o.free_bytes_per_card), 2)
            )
        } else {
            tr!(
                "tui.gb_short",
                gb = crate::engine::basics::units::fixed(to_gb(o.free_bytes_per_card), 2).replace('-', "")
            )
        };
        block = block.title_bottom(
            Line::from(vec![
                Span::styled(
                    format!(
                        " {} · {room} · ",
                        tr!(
                            "tui.used_of_usable",
                            used = format!("{:.2}", to_gb(o.per_card_bytes)),
                            usable = format!("{:.2}", to_gb(o.usable_bytes / f64::from(o.count)))
                        )
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
    // A plan spread over a machine (a rig, layers or experts in RAM): a bar per device.
    if let Some(p) = target
        .and_then(|o| o.placement.as_ref().filter(|_| o.spills() || !o.rig.is_empty()))
        .filter(|_| inner.height >= 2)
    {
        let bars = DeviceBars {
            placement: p,
            gpus: &app.catalog.gpus,
            theme: t,
        };
        // The hint keeps the last row when there is one to spare.
        let rows = bars.height().min(
            inner
                .height
                .saturating_sub(u16::from(inner.height > bars.height())),
        );
        let hint_row = inner.y + rows;
        frame.render_widget(
            bars,
            Rect {
                x: inner.x + 1,
                width: inner.width.saturating_sub(2),
                height: rows,
                ..inner
            },
        );
        if hint_row < inner.y + inner.height {
            let line = Rect {
                x: inner.x + 1,
                y: hint_row,
                width: inner.width.saturating_sub(2),
                height: 1,
            };
            frame.render_widget(Paragraph::new(hint(app, usize::from(line.width))), line);
        }
        return;
    }
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
            height: inner.height.min(3),
            ..inner
        },
    );
    if inner.height >= 4 {
        let line = Rect {
            x: inner.x + 1,
            y: inner.y + 3,
            width: inner.width.saturating_sub(2),
            height: 1,
        };
        frame.render_widget(Paragraph::new(hint(app, usize::from(line.width))), line);
    }
}

/// One line under the bar: the changes that would make it fit, or the headroom when it
/// does; whole pieces only, as many as the width holds.
fn hint(app: &App, width: usize) -> Line<'static> {
    let t = &app.theme;
    let Some(a) = &app.advice else {
        return Line::raw("");
    };
    let what = if app.scenario.method.is_training() {
        tr!("advice.sequence")
    } else {
        tr!("advice.context_word")
    };
    let (lead, pieces, style) = if a.now.verdict.is_fit() {
        // Only the limits there are: never "batch ≤ none".
        let at_max = if a.now.limits.context_at_model_max {
            tr!("tui.model_max")
        } else {
            String::new()
        };
        let context = a
            .max_context
            .map(|n| format!("{what} ≤ {}{at_max}", group_thousands(n as i64)));
        let batch = a
            .max_batch
            .map(|n| tr!("tui.batch_at_most", n = group_thousands(n as i64)));
        (
            tr!("tui.headroom"),
            context.into_iter().chain(batch).collect(),
            t.dim,
        )
    } else if a.suggestions.is_empty() {
        (tr!("tui.no_change_fits"), Vec::new(), t.no)
    } else {
        let labels = a
            .suggestions
            .iter()
            .map(|s| crate::present::advice::label(&s.change, &app.catalog.gpus))
            .collect();
        (tr!("tui.fits_with"), labels, t.key)
    };
    let tail = format!("  {}", tr!("tui.f_more"));
    let w = crate::text::width;
    let mut text = lead;
    for (i, p) in pieces.into_iter().enumerate() {
        let sep = if i == 0 { "" } else { " · " };
        if w(&text) + w(sep) + w(&p) + w(&tail) > width {
            break;
        }
        text.push_str(sep);
        text.push_str(&p);
    }
    Line::from(vec![Span::styled(text, style), Span::styled(tail, t.dim)])
}
