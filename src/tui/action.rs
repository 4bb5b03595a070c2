//! Everything a key press (or click) can ask the planner to do.

/// The four panes, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Models,
    Workload,
    Bar,
    Cards,
}

impl Pane {
    pub const ALL: [Pane; 4] = [Pane::Models, Pane::Workload, Pane::Bar, Pane::Cards];

    pub fn next(self) -> Pane {
        let i = Self::ALL.iter().position(|p| *p == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }

    pub fn prev(self) -> Pane {
        let i = Self::ALL.iter().position(|p| *p == self).unwrap_or(0);
        Self::ALL[(i + Self::ALL.len() - 1) % Self::ALL.len()]
    }

    /// The pane's title in the current language.
    pub fn title(self) -> String {
        match self {
            Pane::Models => crate::tr!("pane.models"),
            Pane::Workload => crate::tr!("pane.workload"),
            Pane::Bar => crate::tr!("pane.memory"),
            Pane::Cards => crate::tr!("pane.cards"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    NextPane,
    PrevPane,
    Focus(Pane),
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Select,
    StartFilter,
    FilterChar(char),
    FilterBackspace,
    /// Leave filter typing, keeping the filter.
    EndFilter,
    /// Enter while typing a filter: where no model matches and the text names a path, a
    /// GGUF file or an `org/name`, import it; else as `EndFilter`.
    FilterEnter,
    /// Close an overlay, or stop and clear the filter.
    Back,
    ToggleCombos,
    /// Add a card of the kind under the cursor to the rig planned together.
    RigAdd,
    /// Take one card of that kind (or the last added) out of the rig.
    RigRemove,
    Explain,
    /// Open the "to fit" list for the card the bar is drawn against.
    ToFit,
    /// Go to the target rows (users, speed, first token; a fine-tune's deadline).
    Target,
    /// Take back the last change applied from the "to fit" list.
    Undo,
    Help,
    CycleMethod,
    CycleWeights,
    CycleKv,
    ToggleConvention,
    /// Pin the current scenario as "A" for an A/B comparison.
    PinA,
    /// Show A next to the current scenario (B).
    Compare,
    /// Save the plan to a file in the data folder.
    Save,
    /// Export the current view as SVG and Markdown.
    Export,
    ContextUp,
    ContextDown,
    BatchUp,
    BatchDown,
    /// Click at a screen cell (mouse mode).
    Click(u16, u16),
    ScrollUp(u16, u16),
    ScrollDown(u16, u16),
}
