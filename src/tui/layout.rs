//! Where each pane goes, as a pure function of the screen size (the mouse code reuses it).
//!
//! Standard (under 120 columns or 32 rows):
//! ```text
//! title ─────────────────────────────────────────────
//! ┌Models──────┐┌Workload──────────────────────────┐
//! │            ││                                  │
//! └────────────┘└──────────────────────────────────┘
//! ┌Memory─────────────────────────────────────────┐
//! └───────────────────────────────────────────────┘
//! ┌Cards──────────────────────────────────────────┐
//! └───────────────────────────────────────────────┘
//! status ─────────────────────────────────────────────
//! ```
//! Large (120×32 and more): the model list runs down the left side, a breakdown table sits
//! beside the workload, and the cards pane grows extra columns.

use ratatui::layout::{Constraint, Layout, Rect};

use crate::tui::action::Pane;

/// Below this the planner says so instead of drawing.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannerLayout {
    pub title: Rect,
    pub models: Rect,
    pub workload: Rect,
    pub breakdown: Option<Rect>,
    pub bar: Rect,
    pub cards: Rect,
    pub status: Rect,
    pub large: bool,
}

impl PlannerLayout {
    /// `None` when the area is below the minimum size.
    pub fn new(area: Rect) -> Option<PlannerLayout> {
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            return None;
        }
        // Bar, markers, legend and the to-fit hint, in a border.
        let bar_height = 6;
        let [title, body, status] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(0), Constraint::Length(1)]).areas(area);
        let large = area.width >= 120 && area.height >= 32;
        // The workload pane scrolls; a large screen shows every knob of a training plan.
        let workload_height = if large {
            18
        } else if area.height < 24 {
            7
        } else {
            9
        };
        if large {
            let model_width = (area.width / 5).clamp(30, 40);
            let [models, right] =
                Layout::horizontal([Constraint::Length(model_width), Constraint::Min(0)]).areas(body);
            let [top, bar, cards] = Layout::vertical([
                Constraint::Length(workload_height),
                Constraint::Length(bar_height),
                Constraint::Min(4),
            ])
            .areas(right);
            let [workload, breakdown] =
                Layout::horizontal([Constraint::Length(44), Constraint::Min(0)]).areas(top);
            Some(PlannerLayout {
                title,
                models,
                workload,
                breakdown: Some(breakdown),
                bar,
                cards,
                status,
                large,
            })
        } else {
            let [top, bar, cards] = Layout::vertical([
                Constraint::Length(workload_height),
                Constraint::Length(bar_height),
                Constraint::Min(3),
            ])
            .areas(body);
            // The workload pane needs about 48 columns; the model list takes the rest.
            let model_width = area.width.saturating_sub(48).clamp(24, 40);
            let [models, workload] =
                Layout::horizontal([Constraint::Length(model_width), Constraint::Min(0)]).areas(top);
            Some(PlannerLayout {
                title,
                models,
                workload,
                breakdown: None,
                bar,
                cards,
                status,
                large,
            })
        }
    }

    pub fn pane_rect(&self, pane: Pane) -> Rect {
        match pane {
            Pane::Models => self.models,
            Pane::Workload => self.workload,
            Pane::Bar => self.bar,
            Pane::Cards => self.cards,
        }
    }

    /// The pane under a screen cell.
    pub fn pane_at(&self, x: u16, y: u16) -> Option<(Pane, Rect)> {
        Pane::ALL
            .iter()
            .map(|p| (*p, self.pane_rect(*p)))
            .find(|(_, r)| x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_small_is_none_and_80x24_fits_every_pane() {
        assert!(PlannerLayout::new(Rect::new(0, 0, 59, 24)).is_none());
        assert!(PlannerLayout::new(Rect::new(0, 0, 80, 19)).is_none());
        let l = PlannerLayout::new(Rect::new(0, 0, 80, 24)).unwrap();
        assert!(!l.large);
        assert_eq!(l.workload.height, 9);
        assert!(l.cards.height >= 5, "{:?}", l.cards);
        let big = PlannerLayout::new(Rect::new(0, 0, 160, 48)).unwrap();
        assert!(big.large && big.breakdown.is_some());
        assert_eq!(big.models.height, 46);
    }

    #[test]
    fn pane_at_finds_the_pane() {
        let l = PlannerLayout::new(Rect::new(0, 0, 80, 24)).unwrap();
        assert_eq!(l.pane_at(1, 2).map(|p| p.0), Some(Pane::Models));
        assert_eq!(l.pane_at(79, 23), None, "the status line is no pane");
    }
}
