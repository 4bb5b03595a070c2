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
    /// Names the binding's words in the message files: `keys.<id>.help` (the help
    /// overlay) and `keys.<id>.hint` (the status bar, where `hint` is set).
    pub id: &'static str,
    pub keys: &'static [(KeyCode, KeyModifiers)],
    /// How the help overlay writes the keys.
    pub label: &'static str,
    pub action: Action,
    pub scope: Scope,
    /// Shown in the status bar hint line: the keys as written there (the word is
    /// `keys.<id>.hint`).
    pub hint: Option<&'static str>,
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;

pub const BINDINGS: &[Binding] = &[
    Binding {
        id: "quit",
        keys: &[(KeyCode::Char('q'), NONE), (KeyCode::Char('c'), CTRL)],
        label: "q  Ctrl-C",
        action: Action::Quit,
        scope: Scope::Everywhere,
        hint: Some("q"),
    },
    Binding {
        id: "back",
        keys: &[(KeyCode::Esc, NONE)],
        label: "Esc",
        action: Action::Back,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "next_pane",
        keys: &[(KeyCode::Tab, NONE)],
        label: "Tab",
        action: Action::NextPane,
        scope: Scope::Everywhere,
        hint: Some("Tab"),
    },
    Binding {
        id: "prev_pane",
        keys: &[(KeyCode::BackTab, SHIFT), (KeyCode::BackTab, NONE)],
        label: "Shift-Tab",
        action: Action::PrevPane,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "up",
        keys: &[(KeyCode::Up, NONE), (KeyCode::Char('k'), NONE)],
        label: "↑  k",
        action: Action::Up,
        scope: Scope::Everywhere,
        hint: Some("↑↓"),
    },
    Binding {
        id: "down",
        keys: &[(KeyCode::Down, NONE), (KeyCode::Char('j'), NONE)],
        label: "↓  j",
        action: Action::Down,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "left",
        keys: &[(KeyCode::Left, NONE), (KeyCode::Char('h'), NONE)],
        label: "←  h",
        action: Action::Left,
        scope: Scope::Everywhere,
        hint: Some("←→"),
    },
    Binding {
        id: "right",
        keys: &[(KeyCode::Right, NONE), (KeyCode::Char('l'), NONE)],
        label: "→  l",
        action: Action::Right,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "page_up",
        keys: &[(KeyCode::PageUp, NONE)],
        label: "PgUp",
        action: Action::PageUp,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "page_down",
        keys: &[(KeyCode::PageDown, NONE)],
        label: "PgDn",
        action: Action::PageDown,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "home",
        keys: &[(KeyCode::Home, NONE), (KeyCode::Char('g'), NONE)],
        label: "Home  g",
        action: Action::Home,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "end",
        keys: &[
            (KeyCode::End, NONE),
            (KeyCode::Char('G'), SHIFT),
            (KeyCode::Char('G'), NONE),
        ],
        label: "End  G",
        action: Action::End,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "select",
        keys: &[(KeyCode::Enter, NONE)],
        label: "Enter",
        action: Action::Select,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "start_filter",
        keys: &[(KeyCode::Char('/'), NONE)],
        label: "/",
        action: Action::StartFilter,
        scope: Scope::Everywhere,
        hint: Some("/"),
    },
    Binding {
        id: "cycle_method",
        keys: &[(KeyCode::Char('m'), NONE)],
        label: "m",
        action: Action::CycleMethod,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "cycle_weights",
        keys: &[(KeyCode::Char('p'), NONE)],
        label: "p",
        action: Action::CycleWeights,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "cycle_kv",
        keys: &[(KeyCode::Char('v'), NONE)],
        label: "v",
        action: Action::CycleKv,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "pin_a",
        keys: &[(KeyCode::Char('a'), NONE)],
        label: "a",
        action: Action::PinA,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "compare",
        keys: &[(KeyCode::Char('b'), NONE)],
        label: "b",
        action: Action::Compare,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "save",
        keys: &[(KeyCode::Char('w'), NONE)],
        label: "w",
        action: Action::Save,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "export",
        keys: &[(KeyCode::Char('x'), NONE)],
        label: "x",
        action: Action::Export,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "toggle_convention",
        keys: &[(KeyCode::Char('r'), NONE)],
        label: "r",
        action: Action::ToggleConvention,
        scope: Scope::Everywhere,
        hint: Some("r"),
    },
    Binding {
        id: "context_up",
        keys: &[(KeyCode::Char(']'), NONE)],
        label: "]",
        action: Action::ContextUp,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "context_down",
        keys: &[(KeyCode::Char('['), NONE)],
        label: "[",
        action: Action::ContextDown,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "batch_up",
        keys: &[(KeyCode::Char('}'), SHIFT), (KeyCode::Char('}'), NONE)],
        label: "}",
        action: Action::BatchUp,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "batch_down",
        keys: &[(KeyCode::Char('{'), SHIFT), (KeyCode::Char('{'), NONE)],
        label: "{",
        action: Action::BatchDown,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "toggle_combos",
        keys: &[(KeyCode::Char('c'), NONE)],
        label: "c",
        action: Action::ToggleCombos,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "rig_add",
        keys: &[
            (KeyCode::Char('+'), SHIFT),
            (KeyCode::Char('+'), NONE),
            (KeyCode::Char('='), NONE),
        ],
        label: "+",
        action: Action::RigAdd,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "rig_remove",
        keys: &[(KeyCode::Char('-'), NONE)],
        label: "-",
        action: Action::RigRemove,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "explain",
        keys: &[(KeyCode::Char('e'), NONE)],
        label: "e",
        action: Action::Explain,
        scope: Scope::Everywhere,
        hint: Some("e"),
    },
    Binding {
        id: "to_fit",
        keys: &[(KeyCode::Char('f'), NONE)],
        label: "f",
        action: Action::ToFit,
        scope: Scope::Everywhere,
        hint: Some("f"),
    },
    Binding {
        id: "target",
        keys: &[(KeyCode::Char('t'), NONE)],
        label: "t",
        action: Action::Target,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "undo",
        keys: &[(KeyCode::Char('u'), NONE)],
        label: "u",
        action: Action::Undo,
        scope: Scope::Everywhere,
        hint: None,
    },
    Binding {
        id: "help",
        keys: &[(KeyCode::Char('?'), SHIFT), (KeyCode::Char('?'), NONE)],
        label: "?",
        action: Action::Help,
        scope: Scope::Everywhere,
        hint: Some("?"),
    },
    Binding {
        id: "filter_enter",
        keys: &[(KeyCode::Enter, NONE)],
        label: "Enter",
        action: Action::FilterEnter,
        scope: Scope::Filter,
        hint: None,
    },
    Binding {
        id: "end_filter",
        keys: &[(KeyCode::Tab, NONE)],
        label: "Tab",
        action: Action::EndFilter,
        scope: Scope::Filter,
        hint: None,
    },
    Binding {
        id: "filter_backspace",
        keys: &[(KeyCode::Backspace, NONE)],
        label: "Backspace",
        action: Action::FilterBackspace,
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

impl Binding {
    /// What the key does, for the help overlay, in the current language.
    pub fn help(&self) -> String {
        crate::present::i18n::message(&format!("keys.{}.help", self.id))
    }
}

/// The status bar's hint: "Tab pane  ↑↓ move  ←→ change …", the words in the current
/// language.
pub fn hints() -> Vec<(&'static str, String)> {
    BINDINGS
        .iter()
        .filter_map(|b| {
            b.hint.map(|keys| {
                (
                    keys,
                    crate::present::i18n::message(&format!("keys.{}.hint", b.id)),
                )
            })
        })
        .collect()
}
