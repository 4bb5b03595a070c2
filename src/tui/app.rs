//! The planner's state and its update function: key → action → scenario → plan.
//! Nothing here draws; the view reads this state.

use ratatui::layout::Rect;

use super::action::{Action, Pane};
use super::theme::Theme;
use crate::catalog::Catalog;
use crate::engine::fit::{SortBy, one_row_per_card};
use crate::engine::{
    Breakdown, Choice, Convention, FitOption, KvPrecision, Method, Model, Plan, Scenario, SegmentKind,
    TightRule, plan,
};

/// Context lengths a slider steps through: powers of two and the common marketed sizes.
pub const CONTEXT_STEPS: &[u64] = &[
    512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131_072, 200_000, 262_144, 524_288, 1_048_576,
];
pub const BATCH_STEPS: &[u64] = &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
pub const RANK_STEPS: &[u64] = &[4, 8, 16, 32, 64, 128, 256];
pub const TIGHT_RULES: &[TightRule] = &[TightRule::Seed, TightRule::Margin(0.3), TightRule::Margin(0.5)];
pub const CARD_STEPS: &[u64] = &[1, 2, 4, 8, 16, 32, 64];
pub const HOUR_STEPS: &[u64] = &[1, 8, 24, 72, 168, 720, 2160, 4320, 8640];
pub const TRAIN_TOKEN_STEPS: &[u64] = &[
    0,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
];
pub const EPOCH_STEPS: &[u64] = &[1, 2, 3, 4, 5, 10];
pub const UTILIZATION_STEPS: &[u64] = &[20, 30, 35, 40, 45, 50, 60];

pub const GPU_UTIL_STEPS: &[f64] = &[0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.92, 0.95, 0.98];

/// The workload pane's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    Method,
    Weights,
    Kv,
    Context,
    Batch,
    LoraRank,
    LoraTargets,
    Optimizer,
    Precision,
    Checkpointing,
    FlashAttention,
    FusedCe,
    OptimizerInBackward,
    Zero,
    Offload,
    Cards,
    Split,
    Prompt,
    GpuUtil,
    Convention,
    Tight,
    Hours,
    Currency,
    Rank,
    TrainTokens,
    Epochs,
    Utilization,
}

impl Knob {
    /// The rows shown for a method, in order.
    pub fn for_method(method: Method) -> Vec<Knob> {
        use crate::engine::Method as M;
        use Knob::*;
        match method {
            M::Inference => {
                vec![
                    Method,
                    Weights,
                    Kv,
                    Context,
                    Batch,
                    Prompt,
                    FlashAttention,
                    Cards,
                    Split,
                    GpuUtil,
                    Convention,
                    Tight,
                    Hours,
                    Currency,
                    Rank,
                ]
            }
            training => {
                // One list for every training method, so a row added here reaches them all.
                let adapter: &[Knob] = if training == M::Full {
                    &[]
                } else {
                    &[LoraRank, LoraTargets]
                };
                let in_backward: &[Knob] = if training == M::Full {
                    &[OptimizerInBackward]
                } else {
                    &[]
                };
                [
                    &[Method, Weights, Context, Batch][..],
                    adapter,
                    &[Optimizer, Precision, Checkpointing, FlashAttention, FusedCe],
                    in_backward,
                ]
                .concat()
                .into_iter()
                .chain([
                    Zero,
                    Offload,
                    Cards,
                    Convention,
                    Tight,
                    TrainTokens,
                    Epochs,
                    Utilization,
                    Hours,
                    Currency,
                    Rank,
                ])
                .collect()
            }
        }
    }

    pub fn label(self, method: Method) -> &'static str {
        match self {
            Knob::Method => "Method",
            Knob::Weights => "Weights",
            Knob::Kv => "KV cache",
            Knob::Context if method.is_training() => "Sequence",
            Knob::Context => "Context",
            Knob::Batch => "Batch",
            Knob::LoraRank => "LoRA rank",
            Knob::LoraTargets => "Targets",
            Knob::Optimizer => "Optimizer",
            Knob::Precision => "Precision",
            Knob::Checkpointing => "Checkpoint",
            Knob::FlashAttention => "Flash attn",
            Knob::FusedCe => "Fused CE",
            Knob::OptimizerInBackward => "Opt in bwd",
            Knob::Zero => "ZeRO",
            Knob::Offload => "Offload",
            Knob::Cards => "Cards",
            Knob::Split => "Split",
            Knob::Prompt => "Prompt",
            Knob::GpuUtil => "GPU util",
            Knob::Convention => "Rules",
            Knob::Tight => "Tight when",
            Knob::Hours => "Rent for",
            Knob::Currency => "Currency",
            Knob::Rank => "Rank by",
            Knob::TrainTokens => "Train tok",
            Knob::Epochs => "Epochs",
            Knob::Utilization => "Utilization",
        }
    }

    /// Knobs the quick rules fix (shown, but they change nothing there): the quick rules
    /// assume AdamW in mixed precision, checkpointing, attention-only adapters, one process,
    /// and the whole card.
    pub fn calibrated_only(self) -> bool {
        matches!(
            self,
            Knob::LoraTargets
                | Knob::Optimizer
                | Knob::Precision
                | Knob::Checkpointing
                | Knob::FlashAttention
                | Knob::FusedCe
                | Knob::OptimizerInBackward
                | Knob::Zero
                | Knob::Offload
                | Knob::GpuUtil
        )
    }
}

/// What floats over the panes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Overlay {
    None,
    Help,
    ExplainSegments,
    ExplainCard(usize, u32),
    Compare,
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

/// The next value in `steps` above (`up`) or below `value`, or `value` at the ends.
pub fn step(steps: &[u64], value: u64, up: bool) -> u64 {
    if up {
        steps.iter().copied().find(|s| *s > value).unwrap_or(value)
    } else {
        steps.iter().rev().copied().find(|s| *s < value).unwrap_or(value)
    }
}

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

pub struct App {
    pub catalog: Catalog,
    /// Display order: an imported model first, then the catalog by family and size.
    pub models: Vec<Model>,
    pub model: usize,
    pub model_cursor: usize,
    pub filter: String,
    pub filtering: bool,
    pub scenario: Scenario,
    pub plan: Plan,
    /// The same scenario under the other convention, for the explain view's comparison.
    pub other: Breakdown,
    pub focus: Pane,
    pub knob: usize,
    pub segment: usize,
    /// The card row under the cursor, by (card, count), so it survives re-sorting.
    pub card_cursor: Option<(usize, u32)>,
    /// The card the bar is drawn against; `None` follows the cheapest fit.
    pub pinned: Option<(usize, u32)>,
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
        App {
            catalog,
            models,
            model,
            model_cursor: model,
            filter: String::new(),
            filtering: false,
            scenario,
            plan,
            other,
            focus: Pane::Workload,
            knob: 0,
            segment: 0,
            card_cursor: None,
            pinned: None,
            all_combos: false,
            sort_by: SortBy::Price,
            side_a: None,
            status: None,
            data_dir: crate::planfile::data_dir(),
            overlay: Overlay::None,
            overlay_scroll: 0,
            theme,
            quit: false,
            mouse: false,
            last_area: Rect::default(),
            model_offset: 0,
            card_offset: 0,
            knob_offset: 0,
        }
    }

    pub fn current_model(&self) -> &Model {
        &self.models[self.model]
    }

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
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Indices into `plan.options` shown in the cards pane.
    pub fn visible_cards(&self) -> Vec<usize> {
        if self.all_combos {
            return (0..self.plan.options.len()).collect();
        }
        let mut rows = one_row_per_card(&self.plan.options);
        // The card the bar is pinned to is always listed, even when a combo of it fits.
        if let Some((g, n)) = self.pinned
            && let Some(i) = self.plan.options.iter().position(|o| o.gpu == g && o.count == n)
            && !rows.contains(&i)
        {
            rows.push(i);
            // In ranked order, as the options themselves are.
            rows.sort_unstable();
        }
        rows
    }

    /// The option the memory bar is drawn against: the pinned one, else the cheapest fit
    /// under the rank, else (nothing fits) the one that comes closest.
    pub fn target(&self) -> Option<&FitOption> {
        self.pinned
            .and_then(|(g, n)| self.find_option(g, n))
            .or_else(|| self.plan.target())
    }

    /// What one card of the target holds, segment by segment (the plan's own breakdown
    /// when there is no target).
    pub fn target_breakdown(&self) -> &crate::engine::Breakdown {
        match self.target() {
            Some(o) => self.plan.breakdown_for(o.count),
            None => &self.plan.breakdown,
        }
    }

    pub fn find_option(&self, gpu: usize, count: u32) -> Option<&FitOption> {
        self.plan
            .options
            .iter()
            .find(|o| o.gpu == gpu && o.count == count)
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

    /// The segments drawn, in bar order.
    pub fn bar_segments(&self) -> Vec<SegmentKind> {
        SegmentKind::ALL
            .iter()
            .copied()
            .filter(|k| self.plan.breakdown.segment(*k).is_some())
            .collect()
    }

    /// The knob rows shown for the current method.
    pub fn knobs(&self) -> Vec<Knob> {
        Knob::for_method(self.scenario.method)
    }

    fn recompute(&mut self) {
        self.plan = plan(self.current_model(), &self.catalog.gpus, &self.scenario, true);
        crate::engine::fit::rank_options(&mut self.plan.options, self.sort_by);
        self.refresh_other();
        let k = self.knobs().len();
        if self.knob >= k {
            self.knob = k - 1;
        }
        let n = self.bar_segments().len();
        if self.segment >= n {
            self.segment = n.saturating_sub(1);
        }
    }

    /// The other convention's breakdown on one card of the target, for the explain view.
    fn refresh_other(&mut self) {
        let count = self.target().map_or(1, |o| o.count);
        self.other =
            crate::engine::plan::breakdown_on(self.current_model(), &other_convention(&self.scenario), count);
    }

    /// Apply one action. Returns whether anything visible changed (no change, no redraw).
    pub fn update(&mut self, action: Action) -> bool {
        let had_status = self.status.take().is_some();
        let before = self.snapshot();
        self.apply(action);
        had_status || self.status.is_some() || self.snapshot() != before
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
        self.refresh_other();
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

    fn file_stem(&self) -> String {
        crate::planfile::slug(&[
            &self.current_model().id,
            self.scenario.method.id(),
            self.scenario.weights.id(),
        ])
    }

    fn save(&mut self) {
        let Some(dir) = self.data_dir.as_ref().map(|d| d.join("plans")) else {
            self.status = Some("cannot save: no data folder (set VRAMFIT_DATA)".into());
            return;
        };
        let path = dir.join(format!("{}.toml", self.file_stem()));
        let result = std::fs::create_dir_all(&dir).and_then(|_| self.plan_file().save(&path));
        self.status = Some(match result {
            Ok(()) => format!("saved {}  (vramfit --open it)", path.display()),
            Err(e) => format!("cannot save {}: {e}", path.display()),
        });
    }

    fn export(&mut self) {
        let Some(dir) = self.data_dir.as_ref().map(|d| d.join("exports")) else {
            self.status = Some("cannot export: no data folder (set VRAMFIT_DATA)".into());
            return;
        };
        let area = if self.last_area.width > 0 {
            self.last_area
        } else {
            Rect::new(0, 0, 120, 40)
        };
        let buf = super::ui::render_to_buffer(self, area.width, area.height);
        let svg = super::svg::buffer_to_svg(&buf, self.theme.preview_fg, self.theme.preview_bg);
        let md = crate::present::markdown::plan_markdown(
            self.current_model(),
            &self.catalog.gpus,
            &self.scenario,
            &self.plan,
        );
        let stem = self.file_stem();
        let (svg_path, md_path) = (dir.join(format!("{stem}.svg")), dir.join(format!("{stem}.md")));
        let result = std::fs::create_dir_all(&dir)
            .and_then(|_| crate::files::write_atomic(&svg_path, svg.as_bytes()))
            .and_then(|_| crate::files::write_atomic(&md_path, md.as_bytes()));
        self.status = Some(match result {
            Ok(()) => format!("exported {} and .md", svg_path.display()),
            Err(e) => format!("cannot export to {}: {e}", dir.display()),
        });
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

    fn apply(&mut self, action: Action) {
        if self.overlay != Overlay::None {
            match action {
                Action::Back | Action::Explain
                    if matches!(self.overlay, Overlay::ExplainSegments | Overlay::ExplainCard(..)) =>
                {
                    self.overlay = Overlay::None;
                    return;
                }
                Action::Back | Action::Help => {
                    self.overlay = Overlay::None;
                    return;
                }
                Action::Compare if self.overlay == Overlay::Compare => {
                    self.overlay = Overlay::None;
                    return;
                }
                Action::Up => {
                    self.overlay_scroll = self.overlay_scroll.saturating_sub(1);
                    return;
                }
                Action::Down => {
                    self.overlay_scroll = self.overlay_scroll.saturating_add(1);
                    return;
                }
                Action::Quit
                | Action::CycleMethod
                | Action::CycleWeights
                | Action::CycleKv
                | Action::ToggleConvention
                | Action::ContextUp
                | Action::ContextDown
                | Action::BatchUp
                | Action::BatchDown => {}
                _ => return,
            }
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
            Action::ToggleCombos => self.all_combos = !self.all_combos,
            Action::PinA => {
                self.side_a = Some(Side {
                    model: self.model,
                    scenario: self.scenario.clone(),
                    plan: self.plan.clone(),
                    target: self.target().map(|o| (o.gpu, o.count)),
                });
                self.status = Some("pinned as A: change anything, then b compares A and B".into());
            }
            Action::Compare => {
                if self.side_a.is_some() {
                    self.overlay = Overlay::Compare;
                    self.overlay_scroll = 0;
                } else {
                    self.status = Some("nothing pinned yet: a pins the current plan as A".into());
                }
            }
            Action::Save => self.save(),
            Action::Export => self.export(),
            Action::StartFilter => {
                self.focus = Pane::Models;
                self.filtering = true;
            }
            Action::FilterChar(c) => {
                self.filter.push(c);
                self.follow_filter();
            }
            Action::FilterBackspace => {
                self.filter.pop();
                self.follow_filter();
            }
            Action::EndFilter => self.filtering = false,
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
            Action::Left | Action::Right => {
                let up = action == Action::Right;
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
            Action::Select => match self.focus {
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
            },
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

    fn card_or_target(&self) -> Option<(usize, u32)> {
        let rows = self.visible_cards();
        rows.get(self.card_cursor_row())
            .map(|&i| (self.plan.options[i].gpu, self.plan.options[i].count))
    }

    /// Keep the model cursor on a visible model while the filter changes; pick it.
    fn follow_filter(&mut self) {
        let visible = self.visible_models();
        if let Some(&first) = visible.first()
            && !visible.contains(&self.model_cursor)
        {
            self.model_cursor = first;
            self.set_model(first);
        }
    }

    fn set_model(&mut self, index: usize) {
        if index != self.model {
            self.model = index;
            self.recompute();
        }
    }

    fn move_by(&mut self, delta: i64) {
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

    /// Change one knob one step and re-plan.
    pub fn change(&mut self, knob: Knob, up: bool) {
        let sc = &mut self.scenario;
        fn cycle<T: Choice>(v: T, up: bool) -> T {
            if up { v.next() } else { v.prev() }
        }
        match knob {
            Knob::Method => {
                let before = sc.method;
                sc.method = cycle(sc.method, up);
                if sc.validate().is_err() {
                    sc.weights = sc.method.default_weights();
                }
                // Training plans start at the seed's sequence of 2,048; inference at 8,192.
                if before.is_training() != sc.method.is_training() {
                    sc.context = if sc.method.is_training() { 2048 } else { 8192 };
                }
            }
            Knob::Weights => {
                let valid: Vec<_> = crate::engine::WeightPrecision::ALL
                    .iter()
                    .copied()
                    .filter(|w| {
                        Scenario {
                            weights: *w,
                            ..sc.clone()
                        }
                        .validate()
                        .is_ok()
                    })
                    .collect();
                let pos = valid.iter().position(|w| *w == sc.weights).unwrap_or(0);
                let n = valid.len();
                sc.weights = valid[if up { (pos + 1) % n } else { (pos + n - 1) % n }];
            }
            Knob::Kv => sc.kv = cycle(sc.kv, up),
            Knob::Context => sc.context = step(CONTEXT_STEPS, sc.context, up),
            Knob::Batch => sc.batch = step(BATCH_STEPS, sc.batch, up),
            Knob::LoraRank => sc.lora_rank = step(RANK_STEPS, sc.lora_rank, up),
            Knob::LoraTargets => sc.lora_targets = cycle(sc.lora_targets, up),
            Knob::Optimizer => sc.optimizer = cycle(sc.optimizer, up),
            Knob::Precision => sc.training_precision = cycle(sc.training_precision, up),
            Knob::Checkpointing => sc.checkpointing = !sc.checkpointing,
            Knob::FlashAttention => sc.flash_attention = !sc.flash_attention,
            Knob::FusedCe => sc.fused_ce = !sc.fused_ce,
            Knob::OptimizerInBackward => sc.optimizer_in_backward = !sc.optimizer_in_backward,
            Knob::Zero => sc.zero = if up { (sc.zero + 1) % 4 } else { (sc.zero + 3) % 4 },
            Knob::Offload => sc.offload = cycle(sc.offload, up),
            Knob::Cards => sc.cards = step(CARD_STEPS, u64::from(sc.cards), up) as u32,
            Knob::Split => sc.split = cycle(sc.split, up),
            Knob::Prompt => sc.prompt = step(CONTEXT_STEPS, sc.prompt, up),
            Knob::GpuUtil => {
                let pos = GPU_UTIL_STEPS
                    .iter()
                    .position(|u| (*u - sc.gpu_util).abs() < 1e-9);
                let i = match (pos, up) {
                    (Some(p), true) => (p + 1).min(GPU_UTIL_STEPS.len() - 1),
                    (Some(p), false) => p.saturating_sub(1),
                    (None, _) => GPU_UTIL_STEPS.iter().position(|u| *u >= sc.gpu_util).unwrap_or(0),
                };
                sc.gpu_util = GPU_UTIL_STEPS[i];
            }
            Knob::Convention => sc.convention = cycle(sc.convention, up),
            Knob::Hours => sc.rent.hours = step(HOUR_STEPS, sc.rent.hours as u64, up) as f64,
            Knob::Currency => {
                sc.rent.display_currency = if sc.rent.display_currency == "USD" {
                    "CNY".into()
                } else {
                    "USD".into()
                }
            }
            Knob::Rank => self.sort_by = cycle(self.sort_by, up),
            Knob::TrainTokens => {
                let now = sc.rent.train_tokens.unwrap_or(0);
                let next = step(TRAIN_TOKEN_STEPS, now, up);
                sc.rent.train_tokens = (next > 0).then_some(next);
            }
            Knob::Epochs => sc.rent.epochs = step(EPOCH_STEPS, u64::from(sc.rent.epochs), up) as u32,
            Knob::Utilization => {
                let v = (sc.rent.utilization * 100.0).round() as u64;
                sc.rent.utilization = step(UTILIZATION_STEPS, v, up) as f64 / 100.0;
            }
            Knob::Tight => {
                let pos = TIGHT_RULES.iter().position(|r| *r == sc.tight_rule).unwrap_or(0);
                let n = TIGHT_RULES.len();
                sc.tight_rule = TIGHT_RULES[if up { (pos + 1) % n } else { (pos + n - 1) % n }];
            }
        }
        // A step never leaves a knob's range (the one the CLI and plan files check).
        sc.clamp_to_ranges();
        self.recompute();
    }

    /// Focus the pane under a click, and put the cursor on the clicked row.
    fn click(&mut self, x: u16, y: u16, focus_only: bool) {
        let Some(layout) = super::layout::PlannerLayout::new(self.last_area) else {
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
                let visible = self.visible_models();
                if let Some(&i) = visible.get(self.model_offset + row) {
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

    /// Value text of a knob, for the workload pane.
    pub fn knob_value(&self, knob: Knob) -> String {
        let sc = &self.scenario;
        let on = |b: bool| if b { "on" } else { "off" }.to_string();
        match knob {
            Knob::Method => sc.method.label().into(),
            Knob::Weights => sc.weights.label().into(),
            Knob::Kv => sc.kv.label().into(),
            Knob::Context => crate::engine::units::group_thousands(sc.context as i64),
            Knob::Batch => sc.batch.to_string(),
            Knob::LoraRank => sc.lora_rank.to_string(),
            Knob::LoraTargets => sc.lora_targets.label().into(),
            Knob::Optimizer => sc.optimizer.label().into(),
            Knob::Precision => sc.training_precision.label().into(),
            Knob::Checkpointing => on(sc.checkpointing),
            Knob::FlashAttention => on(sc.flash_attention),
            Knob::FusedCe => on(sc.fused_ce),
            Knob::OptimizerInBackward => on(sc.optimizer_in_backward),
            Knob::Zero => format!("stage {}", sc.zero),
            Knob::Offload => sc.offload.label().into(),
            Knob::Cards => {
                if sc.cards == 1 {
                    let most = crate::engine::plan::candidate_counts(sc)
                        .last()
                        .copied()
                        .unwrap_or(8);
                    format!("1 (combos of 2–{most} listed)")
                } else {
                    format!("{} per plan", sc.cards)
                }
            }
            Knob::Split => sc.split.label().into(),
            Knob::Prompt => crate::engine::units::group_thousands(sc.prompt as i64),
            Knob::GpuUtil => format!("{:.0} %", sc.gpu_util * 100.0),
            Knob::Convention => sc.convention.label().into(),
            Knob::Tight => crate::present::tight_rule_label(sc.tight_rule),
            Knob::Hours => crate::present::hours_label(sc.rent.hours),
            Knob::Currency if sc.rent.display_currency == "CNY" => {
                format!("CNY ({} CNY per USD)", sc.rent.rates.usd_cny)
            }
            Knob::Currency => sc.rent.display_currency.clone(),
            Knob::Rank => self.sort_by.label().into(),
            Knob::TrainTokens => match sc.rent.train_tokens {
                Some(t) => format!(
                    "{} tokens",
                    crate::engine::units::format_params(t)
                        .replace('B', " B")
                        .replace('M', " M")
                ),
                None => "off (no time to finish)".into(),
            },
            Knob::Epochs => sc.rent.epochs.to_string(),
            Knob::Utilization => format!("{:.0} % of peak", sc.rent.utilization * 100.0),
        }
    }

    /// For tests and scripted states: KV precision by id.
    pub fn set_kv(&mut self, kv: KvPrecision) {
        self.scenario.kv = kv;
        self.recompute();
    }

    /// Replace the scenario (from the CLI or a test) and re-plan.
    pub fn set_scenario(&mut self, scenario: Scenario) {
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
