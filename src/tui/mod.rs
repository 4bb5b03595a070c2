//! The interactive planner: ratatui + crossterm over the engine.

pub mod action;
pub mod app;
pub mod effects;
pub mod keymap;
pub mod knobs;
pub mod layout;
pub mod states;
pub mod svg;
pub mod theme;
pub mod ui;

use std::io;

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseEventKind};
use crossterm::execute;
use ratatui::DefaultTerminal;

use self::action::Action;
use self::app::App;

/// Translate a terminal event into an action (none for key releases and unbound keys).
pub fn action_for_event(app: &App, event: &Event) -> Option<Action> {
    match event {
        Event::Key(k) if k.kind == KeyEventKind::Press => keymap::action_for(k, app.filtering),
        Event::Mouse(m) if app.mouse => match m.kind {
            MouseEventKind::Down(_) => Some(Action::Click(m.column, m.row)),
            MouseEventKind::ScrollUp => Some(Action::ScrollUp(m.column, m.row)),
            MouseEventKind::ScrollDown => Some(Action::ScrollDown(m.column, m.row)),
            _ => None,
        },
        _ => None,
    }
}

/// Apply one action and carry out the file work it asks for. Returns whether anything
/// visible changed (the loop redraws only then).
pub fn handle(app: &mut App, action: Action) -> bool {
    let changed = app.update(action);
    effects::perform(app) || changed
}

/// Run the planner until the user quits. The terminal is restored on return, on error and
/// (through the hook `ratatui::init` installs, extended here for the mouse) on panic.
pub fn run(mut app: App, detect: bool) -> color_eyre::Result<()> {
    let mouse = app.mouse;
    if mouse {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = execute!(io::stdout(), DisableMouseCapture);
            previous(info);
        }));
    }
    use std::io::IsTerminal;
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(color_eyre::eyre::eyre!(crate::tr!("status.needs_terminal")));
    }
    let mut terminal = ratatui::try_init()?;
    if mouse {
        execute!(io::stdout(), EnableMouseCapture)?;
    }
    // This machine's GPUs are looked for beside the first frame, never before it.
    let found = detect.then(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        let catalog = app.catalog.clone();
        std::thread::spawn(move || {
            let _ = tx.send(crate::detect::detect(&catalog, crate::detect::TOOL_TIMEOUT));
        });
        rx
    });
    let result = event_loop(&mut terminal, &mut app, found);
    if mouse {
        let _ = execute!(io::stdout(), DisableMouseCapture);
    }
    ratatui::restore();
    result
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    app: &mut App,
    mut found: Option<std::sync::mpsc::Receiver<crate::detect::Detection>>,
) -> color_eyre::Result<()> {
    terminal.draw(|f| ui::view(f, app))?;
    while !app.quit {
        // While detection runs, wake every 50 ms to take its answer; after that, block:
        // nothing animates, so an idle planner uses no CPU.
        if let Some(rx) = &found {
            match rx.try_recv() {
                Ok(d) => {
                    app.set_local(&d);
                    found = None;
                    terminal.draw(|f| ui::view(f, app))?;
                    continue;
                }
                Err(std::sync::mpsc::TryRecvError::Disconnected) => found = None,
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
            }
            if !event::poll(std::time::Duration::from_millis(50))? {
                continue;
            }
        }
        let event = event::read()?;
        let changed = match action_for_event(app, &event) {
            Some(action) => handle(app, action),
            None => matches!(event, Event::Resize(..)),
        };
        if changed && !app.quit {
            terminal.draw(|f| ui::view(f, app))?;
        }
    }
    Ok(())
}
