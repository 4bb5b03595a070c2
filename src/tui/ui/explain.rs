//! The explain overlay: a card's figures, or every segment's formula.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span, Text};

use super::popup;
use crate::engine::Choice;
use crate::engine::basics::units::{group_thousands, to_gb};
use crate::present::explain::explain_option;
use crate::present::i18n::{formula, label, word};
use crate::present::segment_label;
use crate::tr;
use crate::tui::action::Pane;
use crate::tui::app::{App, Overlay};

pub fn explain(frame: &mut Frame, area: Rect, app: &App) {
    let (title, lines) = match app.overlay {
        Overlay::ExplainCard(g, n) => (tr!("tui.explain_card"), card_lines(app, g, n)),
        _ => (tr!("tui.explain_memory"), segment_lines(app)),
    };
    let width = (area.width * 9 / 10).max(60);
    popup(frame, area, app, &title, Text::from(lines), width);
}

/// A card or combo: its figures, the first line bold.
fn card_lines(app: &App, g: usize, n: u32) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    match app.find_option(g, n) {
        Some(o) => {
            for (i, l) in explain_option(
                app.current_model(),
                &app.catalog.gpus[g],
                o,
                &app.plan,
                &app.scenario,
            )
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
        None => lines.push(Line::raw(tr!("tui.option_gone"))),
    }
    if let Some(o) = app.find_option(g, n) {
        lines.extend(placement_lines(app, o));
    }
    lines
}

/// Every segment of one card of the target, with its formula and the other rules' figure.
fn segment_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    let focused = app.bar_segments().get(app.segment).copied();
    let sc = &app.scenario;
    lines.push(Line::styled(
        tr!(
            "tui.explain_header",
            model = app.current_model().name.clone(),
            method = label("method", sc.method.id(), sc.method.label()),
            weights = sc.weights.label(),
            context = group_thousands(sc.context as i64),
            batch = sc.batch,
            rules = word("rules", sc.convention.id())
        ),
        t.text.add_modifier(Modifier::BOLD),
    ));
    // Where a framework's preset set the knobs, each value with where that framework sets it.
    if sc.framework != crate::engine::Framework::Generic {
        lines.push(Line::styled(
            tr!("tui.explain_preset", framework = sc.runtime_label()),
            t.text,
        ));
        for p in sc.framework.presets(sc) {
            lines.push(Line::styled(
                format!(
                    "   --{} {} · {}",
                    p.setting.flag(),
                    p.setting.value(),
                    formula(p.source)
                ),
                t.dim,
            ));
        }
    }
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
                format!(" {} = {:.2} GB", segment_label(s.kind), to_gb(s.bytes)),
                name_style,
            ),
        ]));
        lines.push(Line::styled(format!("   {}", formula(&s.formula)), t.text));
        let there = app.other.get(s.kind);
        if (there - s.bytes).abs() > 1e6 {
            lines.push(Line::styled(
                format!(
                    "   {}",
                    tr!(
                        "tui.other_rules",
                        rules = word("rules", other.id()),
                        gb = format!("{:.2}", to_gb(there)),
                        why = crate::present::explain::convention_difference(s.kind)
                    )
                ),
                t.dim,
            ));
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        tr!(
            "tui.explain_total",
            gb = format!("{:.2}", to_gb(shown.total())),
            cards = cards,
            rules = word("rules", sc.convention.id()),
            other = word("rules", other.id()),
            other_gb = format!("{:.2}", to_gb(app.other.total()))
        ),
        t.text.add_modifier(Modifier::BOLD),
    ));
    if shown.host_bytes > 0.0 {
        lines.push(Line::styled(
            tr!("tui.host_ram", gb = format!("{:.2}", to_gb(shown.host_bytes))),
            t.text,
        ));
    }
    if let Some(f) = &shown.decode_formula {
        lines.push(Line::styled(
            tr!("tui.explain_decode", formula = formula(f)),
            t.dim,
        ));
    }
    for note in &shown.notes {
        lines.push(Line::styled(tr!("plan.note", note = formula(note)), t.dim));
    }
    if let Some(o) = app.target() {
        lines.extend(placement_lines(app, o));
    }
    lines
}

/// Where a plan spread over a machine puts what (each device's bytes and layers), the
/// decode time by part and the runtime's flags: the same words as `plan`'s text.
fn placement_lines(app: &App, o: &crate::engine::FitOption) -> Vec<Line<'static>> {
    if !o.spills() && o.rig.is_empty() {
        return Vec::new();
    }
    let Some(text) = crate::present::placement::placement_text(&app.catalog.gpus, &app.scenario, o) else {
        return Vec::new();
    };
    let t = &app.theme;
    let mut lines = vec![Line::raw("")];
    for (i, l) in text.lines().enumerate() {
        let style = if i == 0 {
            t.text.add_modifier(Modifier::BOLD)
        } else {
            t.text
        };
        lines.push(Line::styled(l.to_string(), style));
    }
    lines
}
