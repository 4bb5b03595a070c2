//! One action applied: the update function, what an open overlay takes, the to-fit list's
//! apply and undo, and the fingerprint that tells whether anything visible changed. Kept apart
//! from the state itself (`super`) and the cursor movement (`navigation`).

use super::{App, Effect, Knob, Overlay, Side, settle};
use crate::engine::Scenario;
use crate::engine::runtimes::presets::Setting;
use crate::engine::verdict::rank::SortBy;
use crate::tui::action::{Action, Pane};

/// What the view depends on, to tell whether an action changed anything.
#[derive(PartialEq)]
struct Fingerprint {
    model: usize,
    model_cursor: usize,
    filter: String,
    filtering: bool,
    scenario: Scenario,
    focus: Pane,
    knob: usize,
    segment: usize,
    card_cursor: Option<(usize, u32)>,
    pinned: Option<(usize, u32)>,
    all_combos: bool,
    sort_by: SortBy,
    overlay: Overlay,
    overlay_scroll: u16,
    quit: bool,
}

impl App {
    /// Apply one action. Returns whether anything visible changed (no change, no redraw).
    pub fn update(&mut self, action: Action) -> bool {
        let had_status = self.status.take().is_some();
        let before = self.snapshot();
        self.apply(action);
        had_status || self.status.is_some() || self.snapshot() != before
    }

    /// A cheap fingerprint of what the view shows.
    fn snapshot(&self) -> Fingerprint {
        Fingerprint {
            model: self.model,
            model_cursor: self.model_cursor,
            filter: self.filter.clone(),
            filtering: self.filtering,
            scenario: self.scenario.clone(),
            focus: self.focus,
            knob: self.knob,
            segment: self.segment,
            card_cursor: self.card_cursor,
            pinned: self.pinned,
            all_combos: self.all_combos,
            sort_by: self.sort_by,
            overlay: self.overlay,
            overlay_scroll: self.overlay_scroll,
            quit: self.quit,
        }
    }

    /// With an overlay open: close it, scroll it, or let a one-key knob through (true when
    /// the action was taken here).
    fn apply_in_overlay(&mut self, action: Action) -> bool {
        match action {
            Action::Back | Action::Explain
                if matches!(self.overlay, Overlay::ExplainSegments | Overlay::ExplainCard(..)) =>
            {
                self.overlay = Overlay::None;
                true
            }
            Action::Back | Action::Help => {
                self.overlay = Overlay::None;
                true
            }
            Action::Compare if self.overlay == Overlay::Compare => {
                self.overlay = Overlay::None;
                true
            }
            Action::ToFit if self.overlay == Overlay::ToFit => {
                self.overlay = Overlay::None;
                true
            }
            Action::Down if self.overlay == Overlay::ToFit => {
                let n = self.advice.as_ref().map_or(0, |a| a.suggestions.len());
                self.overlay_scroll = (self.overlay_scroll + 1).min(n.saturating_sub(1) as u16);
                true
            }
            Action::Select if self.overlay == Overlay::ToFit => {
                self.apply_suggestion(usize::from(self.overlay_scroll));
                true
            }
            Action::Up => {
                self.overlay_scroll = self.overlay_scroll.saturating_sub(1);
                true
            }
            Action::Down => {
                self.overlay_scroll = self.overlay_scroll.saturating_add(1);
                true
            }
            Action::Quit
            | Action::CycleMethod
            | Action::CycleWeights
            | Action::CycleKv
            | Action::ToggleConvention
            | Action::ContextUp
            | Action::ContextDown
            | Action::BatchUp
            | Action::BatchDown => false,
            _ => true,
        }
    }

    fn apply(&mut self, action: Action) {
        if self.overlay != Overlay::None && self.apply_in_overlay(action) {
            return;
        }
        match action {
            Action::Quit => self.quit = true,
            // Esc never quits: it stops and clears a filter (q and Ctrl-C quit).
            Action::Back if self.filtering || !self.filter.is_empty() => {
                self.filtering = false;
                self.filter.clear();
            }
            Action::Back => {}
            Action::NextPane => self.focus = self.focus.next(),
            Action::PrevPane => self.focus = self.focus.prev(),
            Action::Focus(p) => self.focus = p,
            Action::Help => {
                self.overlay = Overlay::Help;
                self.overlay_scroll = 0;
            }
            Action::Explain => {
                self.overlay_scroll = 0;
                self.overlay = match (self.focus, self.card_or_target()) {
                    (Pane::Cards, Some((g, n))) => Overlay::ExplainCard(g, n),
                    _ => Overlay::ExplainSegments,
                };
            }
            Action::RigAdd => {
                if let Some((g, _)) = self.card_cursor {
                    match self.rig.iter_mut().find(|(i, _)| *i == g) {
                        Some((_, n)) => *n = (*n + 1).min(crate::engine::verdict::judge::CARDS_PER_NODE),
                        None => self.rig.push((g, 1)),
                    }
                    self.recompute();
                }
            }
            Action::RigRemove => {
                let kind = self
                    .card_cursor
                    .and_then(|(g, _)| self.rig.iter().position(|(i, _)| *i == g));
                if let Some(k) = kind.or_else(|| self.rig.len().checked_sub(1)) {
                    self.rig[k].1 -= 1;
                    if self.rig[k].1 == 0 {
                        self.rig.remove(k);
                    }
                    self.recompute();
                }
            }
            Action::ToggleCombos => {
                self.all_combos = !self.all_combos;
                // Every combo's row needs its limits now (or no longer).
                self.recompute();
            }
            Action::ToFit => {
                self.overlay = Overlay::ToFit;
                self.overlay_scroll = 0;
                self.refresh_reaches();
            }
            Action::Undo => self.undo(),
            Action::Target => {
                use crate::tui::knobs::Knob;
                let knobs = self.knobs();
                if let Some(i) = knobs
                    .iter()
                    .position(|k| matches!(k, Knob::Users | Knob::Deadline))
                {
                    self.focus = Pane::Workload;
                    self.knob = i;
                }
            }
            Action::PinA => self.pin_a(),
            Action::Compare => {
                if self.side_a.is_some() {
                    self.overlay = Overlay::Compare;
                    self.overlay_scroll = 0;
                } else {
                    self.status = Some(crate::tr!("status.nothing_pinned"));
                }
            }
            // Files are written outside the state update (see `tui::effects`).
            Action::Save => self.effect = Some(Effect::Save),
            Action::Export => self.effect = Some(Effect::Export),
            Action::StartFilter => {
                self.focus = Pane::Models;
                self.filtering = true;
            }
            Action::FilterChar(c) => {
                self.import_error = None;
                self.filter.push(c);
                self.follow_filter();
            }
            Action::FilterBackspace => {
                self.import_error = None;
                self.filter.pop();
                self.follow_filter();
            }
            Action::EndFilter => self.filtering = false,
            Action::FilterEnter => {
                self.filtering = false;
                self.request_import();
            }
            Action::CycleMethod => self.change(Knob::Method, true),
            Action::CycleWeights => self.change(Knob::Weights, true),
            Action::CycleKv => self.change(Knob::Kv, true),
            Action::ToggleConvention => self.change(Knob::Convention, true),
            Action::ContextUp => self.change(Knob::Context, true),
            Action::ContextDown => self.change(Knob::Context, false),
            Action::BatchUp => self.change(Knob::Batch, true),
            Action::BatchDown => self.change(Knob::Batch, false),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-10),
            Action::PageDown => self.move_by(10),
            Action::Home => self.move_by(-100_000),
            Action::End => self.move_by(100_000),
            Action::Left | Action::Right => self.sideways(action == Action::Right),
            Action::Select => self.select(),
            Action::Click(x, y) => self.click(x, y, false),
            Action::ScrollUp(x, y) => {
                self.click(x, y, true);
                self.move_by(-3);
            }
            Action::ScrollDown(x, y) => {
                self.click(x, y, true);
                self.move_by(3);
            }
        }
    }

    /// `a`: keep the current plan as side A of a comparison.
    fn pin_a(&mut self) {
        self.side_a = Some(Side {
            model: self.model,
            scenario: self.scenario.clone(),
            plan: self.plan.clone(),
            target: self.target().map(|o| (o.gpu, o.count)),
        });
        self.status = Some(crate::tr!("status.pinned_a"));
    }

    /// Apply the to-fit list's `i`-th change: the scenario changes, the bar stays on the
    /// card being fitted (or moves to the one suggested), and `u` can take it back.
    fn apply_suggestion(&mut self, i: usize) {
        let Some(advice) = &self.advice else { return };
        let Some(s) = advice.suggestions.get(i) else {
            return;
        };
        let (scenario, target) = s.change.apply(&self.scenario, advice.target);
        let label = crate::present::advice::label(&s.change, &self.catalog.gpus);
        self.undo = Some((self.scenario.clone(), self.pinned, self.user.clone()));
        self.overlay = Overlay::None;
        // What the suggestion changed is now the user's choice.
        let before = Setting::all_of(&self.scenario);
        for (old, new) in before.into_iter().zip(Setting::all_of(&scenario)) {
            if old != new {
                self.user.set(new);
            }
        }
        self.scenario = scenario;
        settle(&mut self.scenario, &self.user);
        self.recompute();
        self.pin(Some((target.gpu, target.count)));
        self.status = Some(crate::tr!("status.applied", change = label));
    }

    /// `u`: back to the scenario and pin before the last applied change.
    fn undo(&mut self) {
        match self.undo.take() {
            Some((scenario, pinned, user)) => {
                self.scenario = scenario;
                self.user = user;
                self.recompute();
                self.pin(pinned);
                self.status = Some(crate::tr!("status.undone"));
            }
            None => self.status = Some(crate::tr!("status.nothing_to_undo")),
        }
    }
}
