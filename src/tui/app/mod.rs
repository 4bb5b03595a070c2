//! The planner's state and its update function: key → action → scenario → plan.
//! Nothing here draws; the view reads this state. Cursor movement and the mouse are in
//! `navigation`, applying one action in `update`, taking in this machine's models and cards
//! in `machine`, the workload pane's rows in `rows`.

mod import;
mod machine;
mod navigation;
mod rows;
pub use navigation::ModelRow;
mod update;

use ratatui::layout::Rect;

use super::action::Pane;
pub use super::knobs::*;
use super::theme::Theme;
use crate::catalog::Catalog;
use crate::engine::runtimes::presets::Setting;
use crate::engine::runtimes::settle::UserSet;
use crate::engine::verdict::rank::SortBy;
use crate::engine::{
    Breakdown, Convention, FitOption, KvPrecision, Model, Plan, Scenario, SegmentKind, plan,
};

/// What floats over the panes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Overlay {
    None,
    Help,
    ExplainSegments,
    ExplainCard(usize, u32),
    Compare,
    /// What would make it fit on the target; the overlay's cursor is `overlay_scroll`.
    ToFit,
}

/// A scenario pinned for comparison.
#[derive(Debug, Clone)]
pub struct Side {
    pub model: usize,
    pub scenario: Scenario,
    pub plan: Plan,
    pub target: Option<(usize, u32)>,
}

/// The scenario under the other convention.
pub fn other_convention(sc: &Scenario) -> Scenario {
    let convention = match sc.convention {
        Convention::Calibrated => Convention::Seed,
        Convention::Seed => Convention::Calibrated,
    };
    Scenario {
        convention,
        ..sc.clone()
    }
}

/// What `u` goes back to: the scenario, the pin and the user's knobs.
pub type Undo = (Scenario, Option<(usize, u32)>, UserSet);

/// Work the update asks for that touches files: done by `tui::effects` after the update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Save,
    Export,
}

/// The target as asked and under each change, for the to-fit list.
#[derive(Debug, Clone)]
pub struct TargetReaches {
    pub asked: Option<(usize, u32, u32, f64)>,
    pub changes: Vec<crate::engine::renting::reach::Reach>,
}

pub struct App {
    /// Whether a model the local cache lacks may be fetched from the Hub (`--hub`).
    pub hub: bool,
    /// A model to import that the event loop has not started on yet (see `app::import`).
    pub import_request: Option<String>,
    /// The model being imported, shown in the models pane until it arrives.
    pub importing: Option<String>,
    /// Why the last import failed, shown in the models pane (which has room to wrap it)
    /// until the filter changes.
    pub import_error: Option<String>,
    /// What the last update asked to be written (taken by `tui::effects::perform`).
    pub effect: Option<Effect>,
    pub catalog: Catalog,
    /// Display order: an imported model first, then the catalog by family and size.
    pub models: Vec<Model>,
    pub model: usize,
    pub model_cursor: usize,
    pub filter: String,
    pub filtering: bool,
    pub scenario: Scenario,
    /// The knobs the user set (turned rows, applied suggestions, a plan file's values that
    /// differ from its defaults): they stay when the framework or method changes, the rest
    /// follow it, as `plan` does with the same flags.
    pub user: UserSet,
    pub plan: Plan,
    /// The same scenario under the other convention, for the explain view's comparison.
    pub other: Breakdown,
    /// What would make the plan fit on the target (or its headroom when it fits).
    pub advice: Option<crate::engine::verdict::advise::Advice>,
    /// With a target, while the to-fit list is open: the cheapest option meeting it as asked
    /// and under each change (`engine::verdict::meets_target::reachable`), re-planned over the catalog.
    pub reaches: Option<TargetReaches>,
    /// This machine's cards, when detected: the index of their entry in `catalog.gpus` and
    /// how many there are. The bar is drawn against them unless something is pinned.
    pub local: Option<(usize, u32)>,
    /// What other processes use on this machine's cards, for the cards pane's first row.
    pub local_used_bytes: u64,
    /// The scenario, pin and user's knobs before the last change applied from the to-fit
    /// list (`u`).
    pub undo: Option<Undo>,
    pub focus: Pane,
    pub knob: usize,
    pub segment: usize,
    /// The card row under the cursor, by (card, count), so it survives re-sorting.
    pub card_cursor: Option<(usize, u32)>,
    /// The card the bar is drawn against; `None` follows the cheapest fit.
    pub pinned: Option<(usize, u32)>,
    /// A rig of cards planned together (`+` adds the card under the cursor, `-` takes one
    /// away): catalog indices with counts; when set, the bar is drawn against it.
    pub rig: Vec<(usize, u32)>,
    pub all_combos: bool,
    /// How the cards pane ranks fitting options.
    pub sort_by: SortBy,
    /// The scenario pinned as "A".
    pub side_a: Option<Side>,
    /// One line for the status bar (what a save or export did), until the next key.
    pub status: Option<String>,
    /// Where `w` saves plans and `x` exports views.
    pub data_dir: Option<std::path::PathBuf>,
    pub overlay: Overlay,
    pub overlay_scroll: u16,
    pub theme: Theme,
    pub quit: bool,
    pub mouse: bool,
    /// The models folders to list (with the Hugging Face cache) once the first frame is
    /// drawn; `None` once listed, or when nothing is to be listed.
    pub local_sources: Option<Vec<std::path::PathBuf>>,
    /// Written by the view: the last screen size and list scroll offsets (for mouse hits).
    pub last_area: Rect,
    pub model_offset: usize,
    pub card_offset: usize,
    pub knob_offset: usize,
}

impl App {
    /// A planner over `catalog`, starting on `start_model` (an id in the catalog, or an
    /// imported model shown first).
    pub fn new(catalog: Catalog, theme: Theme, imported: Option<Model>, start: Option<&str>) -> App {
        let mut models: Vec<Model> = catalog.models.clone();
        models.sort_by(|a, b| {
            a.family
                .to_lowercase()
                .cmp(&b.family.to_lowercase())
                .then(a.params().total.cmp(&b.params().total))
        });
        let mut first = None;
        if let Some(m) = imported {
            first = Some(m.id.clone());
            models.insert(0, m);
        }
        let wanted = start
            .map(str::to_string)
            .or(first)
            .unwrap_or_else(|| "llama-3.1-70b".into());
        let model = models.iter().position(|m| m.id == wanted).unwrap_or(0);
        let scenario = Scenario::seed_inference(crate::engine::WeightPrecision::Bf16).calibrated();
        let plan = plan(&models[model], &catalog.gpus, &scenario, true);
        let other = crate::engine::memory::breakdown(&models[model], &other_convention(&scenario));
        let mut app = App {
            hub: false,
            import_request: None,
            importing: None,
            import_error: None,
            catalog,
            models,
            model,
            model_cursor: model,
            filter: String::new(),
            filtering: false,
            scenario,
            user: UserSet::default(),
            plan,
            other,
            advice: None,
            reaches: None,
            local: None,
            local_used_bytes: 0,
            undo: None,
            focus: Pane::Workload,
            knob: 0,
            segment: 0,
            card_cursor: None,
            pinned: None,
            rig: Vec::new(),
            all_combos: false,
            sort_by: SortBy::Price,
            side_a: None,
            status: None,
            data_dir: crate::planfile::data_dir(),
            effect: None,
            overlay: Overlay::None,
            overlay_scroll: 0,
            theme,
            quit: false,
            mouse: false,
            local_sources: None,
            last_area: Rect::default(),
            model_offset: 0,
            card_offset: 0,
            knob_offset: 0,
        };
        app.refresh_other();
        // A model from a checkpoint starts in its stored format.
        if app.current_model().checkpoint.is_some() {
            app.recompute();
        }
        app
    }

    pub fn current_model(&self) -> &Model {
        &self.models[self.model]
    }

    /// The option the memory bar is drawn against: the pinned one, else the cheapest fit
    /// under the rank, else (nothing fits) the one that comes closest.
    pub fn target(&self) -> Option<&FitOption> {
        if !self.rig.is_empty()
            && let Some(o) = self.plan.options.iter().find(|o| !o.rig.is_empty())
        {
            return Some(o);
        }
        self.pinned
            .and_then(|(g, n)| self.find_option(g, n))
            .or_else(|| self.local.and_then(|(g, n)| self.find_option(g, n)))
            .or_else(|| self.plan.target())
    }

    /// What one card of the target holds, segment by segment (the plan's own breakdown
    /// when there is no target).
    pub fn target_breakdown(&self) -> &crate::engine::Breakdown {
        match self.target() {
            Some(o) => self.plan.breakdown_of(o),
            None => &self.plan.breakdown,
        }
    }

    pub fn find_option(&self, gpu: usize, count: u32) -> Option<&FitOption> {
        self.plan
            .options
            .iter()
            .find(|o| o.gpu == gpu && o.count == count && o.rig.is_empty())
    }

    /// The segments drawn, in bar order.
    pub fn bar_segments(&self) -> Vec<SegmentKind> {
        SegmentKind::ALL
            .iter()
            .copied()
            .filter(|k| self.plan.breakdown.segment(*k).is_some())
            .collect()
    }

    /// The plan with the limits of the options the planner can show (the cards pane's rows,
    /// the pick under the current ranking, the closest when nothing fits): hidden options
    /// need none, and solving them was most of a key press.
    fn plan_shown_rows(&self) -> crate::engine::verdict::plan::Plan {
        use crate::engine::verdict::plan::{Scope, Solve, plan_in};
        use crate::engine::verdict::rank::{closest, first_fit_under};
        let (all_combos, pinned, sort_by) = (self.all_combos, self.pinned, self.sort_by);
        let rows = |options: &[crate::engine::FitOption]| {
            let mut rows = navigation::listed_rows(options, all_combos, pinned);
            rows.extend(first_fit_under(options, sort_by));
            rows.extend(closest(options).and_then(|c| options.iter().position(|o| std::ptr::eq(o, c))));
            rows.sort_unstable();
            rows.dedup();
            rows
        };
        let scope = Scope {
            include_combos: true,
            limits: if all_combos {
                Solve::All
            } else {
                Solve::Rows(&rows)
            },
            cards: &|_| true,
        };
        plan_in(self.current_model(), &self.catalog.gpus, &self.scenario, &scope)
    }

    /// The other convention's breakdown on one card of the target, for the explain view.
    /// What depends on the target: the other convention's breakdown on one card of it (for
    /// explain) and the advice (for the hint line and the to-fit list).
    fn refresh_other(&mut self) {
        let target = self.target().map(|o| crate::engine::verdict::changes::Target {
            gpu: o.gpu,
            count: o.count,
        });
        let count = target.map_or(1, |t| t.count);
        self.other = crate::engine::verdict::plan::breakdown_on(
            self.current_model(),
            &other_convention(&self.scenario),
            count,
        );
        self.advice = target.map(|t| {
            crate::engine::verdict::advise::advise(
                self.current_model(),
                &self.catalog.gpus,
                &self.scenario,
                t,
            )
        });
        self.refresh_reaches();
    }

    /// The target's changes, while the to-fit list shows them (each is a plan of the whole
    /// catalog: not worth a key press otherwise).
    pub(super) fn refresh_reaches(&mut self) {
        self.reaches = (self.overlay == Overlay::ToFit && self.scenario.target.is_set()).then(|| {
            let (m, gpus) = (self.current_model(), &self.catalog.gpus);
            TargetReaches {
                asked: crate::engine::renting::reach::as_asked(m, gpus, &self.scenario),
                changes: crate::engine::renting::reach::reachable(m, gpus, &self.scenario),
            }
        });
    }

    /// Apply a loaded plan: its scenario, ranking and pinned card.
    pub fn open_plan(&mut self, scenario: Scenario, sort: SortBy, card: Option<&str>, count: Option<u32>) {
        self.sort_by = sort;
        self.set_scenario(scenario);
        if let Some(g) = card.and_then(|c| self.catalog.gpu_index(c)) {
            self.pin(Some((g, count.unwrap_or(1))));
        }
    }

    /// Pin the bar to a card and count (the cursor goes there too), or unpin with `None`.
    pub fn pin(&mut self, option: Option<(usize, u32)>) {
        self.pinned = option;
        if option.is_some() {
            self.card_cursor = option;
        }
        // The pinned option is shown with its limits, which a hidden one was not given.
        self.recompute();
    }

    /// The current scenario as a plan file.
    pub fn plan_file(&self) -> crate::planfile::PlanFile {
        let card = self
            .target()
            .map(|o| (self.catalog.gpus[o.gpu].id.as_str(), o.count));
        let m = self.current_model();
        // An imported model is saved by its config.json path, a catalog model by its id.
        let model = m.source_path.as_deref().unwrap_or(&m.id);
        crate::planfile::PlanFile::new(model, &self.scenario, self.sort_by, card)
    }

    fn set_model(&mut self, index: usize) {
        if index != self.model {
            self.model = index;
            self.recompute();
        }
    }

    /// For tests and scripted states: KV precision by id.
    pub fn set_kv(&mut self, kv: KvPrecision) {
        self.scenario.kv = kv;
        self.user.set(Setting::Kv(kv));
        self.recompute();
    }

    /// Replace the scenario (a plan file, a test) and re-plan. Its values that differ from
    /// what its method and framework give count as the user's.
    pub fn set_scenario(&mut self, scenario: Scenario) {
        self.user = UserSet::implied_by(&scenario);
        self.scenario = scenario;
        self.recompute();
    }

    /// Select a model by id; false if unknown.
    pub fn select_model(&mut self, id: &str) -> bool {
        match self.models.iter().position(|m| m.id == id) {
            Some(i) => {
                self.model_cursor = i;
                self.set_model(i);
                true
            }
            None => false,
        }
    }
}
