//! The one key map: the app looks keys up here and the help overlay and status bar are
//! generated from it, so they cannot disagree.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Everywhere,
    /// While typing a model filter.
    Filter,
}

pub struct Binding {
    pub keys: &'static [(KeyCode, KeyModifiers)],
    /// How the help overlay writes the keys.
    pub label: &'static str,
    pub action: Action,
    pub help: &'static str,
    pub scope: Scope,
    /// Shown in the status bar hint line: the keys as written there, and the word.
    pub hint: Option<(&'static str, &'static str)>,
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;

pub const BINDINGS: &[Binding] = &[
    Binding {
        keys: &[(KeyCode::Char('q'), NONE), (KeyCode::Char('c'), CTRL)],
        label: "q  Ctrl-C",
        action: Action::Quit,
        help: "quit",
        scope: Scope::Everywhere,
        hint: Some(("q", "quit")),
    },
    Binding {
        keys: &[(KeyCode::Esc, NONE)],
        label: "Esc",
        action: Action::Back,
        help: "close the overlay, or stop and clear the filter (never quits)",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Tab, NONE)],
        label: "Tab",
        action: Action::NextPane,
        help: "next pane (models, workload, memory bar, cards)",
        scope: Scope::Everywhere,
        hint: Some(("Tab", "pane")),
    },
    Binding {
        keys: &[(KeyCode::BackTab, SHIFT), (KeyCode::BackTab, NONE)],
        label: "Shift-Tab",
        action: Action::PrevPane,
        help: "previous pane",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Up, NONE), (KeyCode::Char('k'), NONE)],
        label: "↑  k",
        action: Action::Up,
        help: "move up (model, knob, card)",
        scope: Scope::Everywhere,
        hint: Some(("↑↓", "move")),
    },
    Binding {
        keys: &[(KeyCode::Down, NONE), (KeyCode::Char('j'), NONE)],
        label: "↓  j",
        action: Action::Down,
        help: "move down",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Left, NONE), (KeyCode::Char('h'), NONE)],
        label: "←  h",
        action: Action::Left,
        help: "decrease the focused knob / previous bar segment",
        scope: Scope::Everywhere,
        hint: Some(("←→", "change")),
    },
    Binding {
        keys: &[(KeyCode::Right, NONE), (KeyCode::Char('l'), NONE)],
        label: "→  l",
        action: Action::Right,
        help: "increase the focused knob / next bar segment",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::PageUp, NONE)],
        label: "PgUp",
        action: Action::PageUp,
        help: "page up",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::PageDown, NONE)],
        label: "PgDn",
        action: Action::PageDown,
        help: "page down",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Home, NONE), (KeyCode::Char('g'), NONE)],
        label: "Home  g",
        action: Action::Home,
        help: "first row",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[
            (KeyCode::End, NONE),
            (KeyCode::Char('G'), SHIFT),
            (KeyCode::Char('G'), NONE),
        ],
        label: "End  G",
        action: Action::End,
        help: "last row",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Enter, NONE)],
        label: "Enter",
        action: Action::Select,
        help: "cards: pin the bar to this card; again to unpin",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('/'), NONE)],
        label: "/",
        action: Action::StartFilter,
        help: "filter models by name, family or size",
        scope: Scope::Everywhere,
        hint: Some(("/", "filter")),
    },
    Binding {
        keys: &[(KeyCode::Char('m'), NONE)],
        label: "m",
        action: Action::CycleMethod,
        help: "next method (inference, full, LoRA, QLoRA)",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('p'), NONE)],
        label: "p",
        action: Action::CycleWeights,
        help: "next weight precision",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('v'), NONE)],
        label: "v",
        action: Action::CycleKv,
        help: "next KV-cache precision",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('a'), NONE)],
        label: "a",
        action: Action::PinA,
        help: "pin the current plan as A",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('b'), NONE)],
        label: "b",
        action: Action::Compare,
        help: "compare A with the current plan (B), side by side",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('w'), NONE)],
        label: "w",
        action: Action::Save,
        help: "save the plan (TOML, data folder); open it with vramfit --open FILE",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('x'), NONE)],
        label: "x",
        action: Action::Export,
        help: "export the view as SVG and the plan as Markdown (data folder)",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('r'), NONE)],
        label: "r",
        action: Action::ToggleConvention,
        help: "switch rules: calibrated / quick rules (explain compares them)",
        scope: Scope::Everywhere,
        hint: Some(("r", "rules")),
    },
    Binding {
        keys: &[(KeyCode::Char(']'), NONE)],
        label: "]",
        action: Action::ContextUp,
        help: "longer context",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('['), NONE)],
        label: "[",
        action: Action::ContextDown,
        help: "shorter context",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('}'), SHIFT), (KeyCode::Char('}'), NONE)],
        label: "}",
        action: Action::BatchUp,
        help: "bigger batch",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('{'), SHIFT), (KeyCode::Char('{'), NONE)],
        label: "{",
        action: Action::BatchDown,
        help: "smaller batch",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('c'), NONE)],
        label: "c",
        action: Action::ToggleCombos,
        help: "cards: one row per card / every 2-4-8 combo",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('e'), NONE)],
        label: "e",
        action: Action::Explain,
        help: "explain the focused segment or card: formula with your numbers",
        scope: Scope::Everywhere,
        hint: Some(("e", "explain")),
    },
    Binding {
        keys: &[(KeyCode::Char('f'), NONE)],
        label: "f",
        action: Action::ToFit,
        help: "what would make it fit on this card: each change, Enter applies it",
        scope: Scope::Everywhere,
        hint: Some(("f", "to fit")),
    },
    Binding {
        keys: &[(KeyCode::Char('u'), NONE)],
        label: "u",
        action: Action::Undo,
        help: "undo the change applied from the to-fit list",
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Char('?'), SHIFT), (KeyCode::Char('?'), NONE)],
        label: "?",
        action: Action::Help,
        help: "this help",
        scope: Scope::Everywhere,
        hint: Some(("?", "help")),
    },
    Binding {
        keys: &[(KeyCode::Enter, NONE), (KeyCode::Tab, NONE)],
        label: "Enter",
        action: Action::EndFilter,
        help: "keep the filter and stop typing",
        scope: Scope::Filter,
        hint: None,
    },
    Binding {
        keys: &[(KeyCode::Backspace, NONE)],
        label: "Backspace",
        action: Action::FilterBackspace,
        help: "delete a character",
        scope: Scope::Filter,
        hint: None,
    },
];

/// Look a key up: while filtering, printable characters are text.
pub fn action_for(key: &KeyEvent, filtering: bool) -> Option<Action> {
    let matches = |b: &Binding| {
        b.keys
            .iter()
            .any(|(code, mods)| *code == key.code && *mods == key.modifiers)
    };
    if filtering {
        if let Some(b) = BINDINGS.iter().find(|b| b.scope == Scope::Filter && matches(b)) {
            return Some(b.action);
        }
        match key.code {
            KeyCode::Esc => return Some(Action::Back),
            KeyCode::Char('c') if key.modifiers == CTRL => return Some(Action::Quit),
            KeyCode::Char(c) if !key.modifiers.contains(CTRL) => return Some(Action::FilterChar(c)),
            KeyCode::Up | KeyCode::Down => {}
            _ => return None,
        }
    }
    BINDINGS
        .iter()
        .find(|b| b.scope == Scope::Everywhere && matches(b))
        .map(|b| b.action)
}

/// The status bar's hint: "Tab pane  ↑↓ move  ←→ change …".
pub fn hints() -> Vec<(&'static str, &'static str)> {
    BINDINGS.iter().filter_map(|b| b.hint).collect()
}
