//! Moving around: the rows each pane shows, the cursors, the mouse, Enter and ←/→.

use super::App;

/// A row of the models pane: the heading of a family (named by its first model, an index
/// into `models`), or a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelRow {
    Family(usize),
    Model(usize),
}
use crate::engine::verdict::rank::one_row_per_card;
use crate::tui::action::Pane;

impl App {
    /// Indices into `models` that pass the filter.
    pub fn visible_models(&self) -> Vec<usize> {
        let f = self.filter.to_lowercase();
        self.models
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                f.is_empty()
                    || m.id.to_lowercase().contains(&f)
                    || m.name.to_lowercase().contains(&f)
                    || m.family.to_lowercase().contains(&f)
                    // "Qwen/Qwen3-8B" finds the catalog's Qwen3 8B rather than offering an import.
                    || m.hf_repo.as_ref().is_some_and(|r| r.to_lowercase().contains(&f))
            })
            .map(|(i, _)| i)
            .collect()
    }
    /// The models pane's rows: the visible models, each family under its heading.
    pub fn model_rows(&self) -> Vec<ModelRow> {
        let mut rows = Vec::new();
        let mut last: Option<&str> = None;
        for i in self.visible_models() {
            let family = self.models[i].family.as_str();
            if last != Some(family) {
                rows.push(ModelRow::Family(i));
                last = Some(family);
            }
            rows.push(ModelRow::Model(i));
        }
        rows
    }
    /// Indices into `plan.options` shown in the cards pane.
    pub fn visible_cards(&self) -> Vec<usize> {
        let mut rows = listed_rows(&self.plan.options, self.all_combos, self.pinned);
        // In ranked order, as the options themselves are, with this machine's cards first.
        let local = self.local.map(|(g, _)| g);
        rows.sort_by_key(|&i| (Some(self.plan.options[i].gpu) != local, i));
        rows
    }
    /// Row of the card cursor among the visible cards.
    pub fn card_cursor_row(&self) -> usize {
        let rows = self.visible_cards();
        self.card_cursor
            .and_then(|(g, n)| {
                rows.iter()
                    .position(|&i| self.plan.options[i].gpu == g && self.plan.options[i].count == n)
            })
            .unwrap_or(0)
    }
    /// ←/→: turn the focused knob, or move along the bar's segments.
    pub(super) fn sideways(&mut self, up: bool) {
        match self.focus {
            Pane::Workload => {
                let knob = self.knobs()[self.knob.min(self.knobs().len() - 1)];
                self.change(knob, up);
            }
            Pane::Bar => {
                let n = self.bar_segments().len().max(1);
                self.segment = if up {
                    (self.segment + 1) % n
                } else {
                    (self.segment + n - 1) % n
                };
            }
            Pane::Models | Pane::Cards => {}
        }
    }
    /// Enter: pin the card under the cursor (on the pinned one: unpin), or leave the models.
    pub(super) fn select(&mut self) {
        match self.focus {
            Pane::Cards => {
                let rows = self.visible_cards();
                if let Some(&i) = rows.get(self.card_cursor_row()) {
                    let o = &self.plan.options[i];
                    let here = (o.gpu, o.count);
                    // Enter on the pinned card unpins it: the bar follows the cheapest again.
                    self.pin((self.pinned != Some(here)).then_some(here));
                }
            }
            Pane::Models => self.focus = Pane::Workload,
            _ => {}
        }
    }
    pub(super) fn card_or_target(&self) -> Option<(usize, u32)> {
        let rows = self.visible_cards();
        rows.get(self.card_cursor_row())
            .map(|&i| (self.plan.options[i].gpu, self.plan.options[i].count))
    }
    /// Keep the model cursor on a visible model while the filter changes; pick it.
    pub(super) fn follow_filter(&mut self) {
        let visible = self.visible_models();
        if let Some(&first) = visible.first()
            && !visible.contains(&self.model_cursor)
        {
            self.model_cursor = first;
            self.set_model(first);
        }
    }
    pub(super) fn move_by(&mut self, delta: i64) {
        let clamp = |pos: usize, len: usize| -> usize {
            (pos as i64 + delta).clamp(0, len.saturating_sub(1) as i64) as usize
        };
        match self.focus {
            Pane::Models => {
                let visible = self.visible_models();
                let pos = visible.iter().position(|&i| i == self.model_cursor).unwrap_or(0);
                if let Some(&next) = visible.get(clamp(pos, visible.len())) {
                    self.model_cursor = next;
                    self.set_model(next);
                }
            }
            Pane::Workload => self.knob = clamp(self.knob, self.knobs().len()),
            Pane::Bar => {
                let n = self.bar_segments().len();
                self.segment = clamp(self.segment, n);
            }
            Pane::Cards => {
                let rows = self.visible_cards();
                if let Some(&i) = rows.get(clamp(self.card_cursor_row(), rows.len())) {
                    self.card_cursor = Some((self.plan.options[i].gpu, self.plan.options[i].count));
                }
            }
        }
    }
    /// Focus the pane under a click, and put the cursor on the clicked row.
    pub(super) fn click(&mut self, x: u16, y: u16, focus_only: bool) {
        let Some(layout) = crate::tui::layout::PlannerLayout::new(self.last_area) else {
            return;
        };
        let Some((pane, rect)) = layout.pane_at(x, y) else {
            return;
        };
        self.focus = pane;
        if focus_only || y <= rect.y {
            return;
        }
        let row = (y - rect.y - 1) as usize;
        match pane {
            Pane::Models => {
                // A heading is no model: a click on it selects nothing.
                if let Some(&ModelRow::Model(i)) = self.model_rows().get(self.model_offset + row) {
                    self.model_cursor = i;
                    self.set_model(i);
                }
            }
            Pane::Workload => {
                let row = row + self.knob_offset;
                if row < self.knobs().len() {
                    self.knob = row;
                }
            }
            Pane::Cards => {
                let rows = self.visible_cards();
                // One header row above the cards.
                if row >= 1
                    && let Some(&i) = rows.get(self.card_offset + row - 1)
                {
                    self.card_cursor = Some((self.plan.options[i].gpu, self.plan.options[i].count));
                }
            }
            Pane::Bar => {}
        }
    }
}

/// The options the cards pane lists, in their order: every one with all combos shown, else
/// one row per card, and the option the bar is pinned to even when a combo of it fits.
pub(super) fn listed_rows(
    options: &[crate::engine::FitOption],
    all_combos: bool,
    pinned: Option<(usize, u32)>,
) -> Vec<usize> {
    if all_combos {
        return (0..options.len()).collect();
    }
    let mut rows = one_row_per_card(options);
    if let Some((g, n)) = pinned
        && let Some(i) = options
            .iter()
            .position(|o| o.gpu == g && o.count == n && o.rig.is_empty())
        && !rows.contains(&i)
    {
        rows.push(i);
    }
    // A rig the user put together is always listed.
    rows.extend((0..options.len()).filter(|&i| !options[i].rig.is_empty()));
    rows
}
