//! The interactive planner: ratatui + crossterm over the engine.

pub mod action;
pub mod app;
pub mod effects;
mod host_knobs;
pub mod input;
pub mod keymap;
mod knob_steps;
mod knob_value;
pub mod knobs;
pub mod layout;
pub mod states;
pub mod svg;
mod target_knobs;
pub mod theme;
pub mod ui;

use std::io;

#[cfg(not(unix))]
use crossterm::event;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseEventKind};
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
    let result = event_loop(&mut terminal, &mut app, detect);
    if mouse {
        let _ = execute!(io::stdout(), DisableMouseCapture);
    }
    ratatui::restore();
    result
}

/// This machine's GPUs, looked for beside the first frame, never before it: `send` gets
/// the answer on a thread of its own.
fn spawn_detection(app: &App, send: impl FnOnce(Found) + Send + 'static) {
    let catalog = app.catalog.clone();
    std::thread::spawn(move || {
        let cards = crate::detect::detect(&catalog, crate::detect::TOOL_TIMEOUT);
        let host = crate::detect::this_host(crate::detect::TOOL_TIMEOUT).map(|(h, _)| h);
        send((cards, host))
    });
}

/// What detection found: the cards, and the host's RAM (and platform) beside them.
type Found = (
    crate::detect::Detection,
    Option<crate::engine::hardware::host::Host>,
);

/// Carry out `events`; whether anything visible changed.
fn dispatch(app: &mut App, events: &[Event]) -> bool {
    let mut changed = false;
    for event in events {
        changed |= match action_for_event(app, event) {
            Some(action) => handle(app, action),
            None => matches!(event, Event::Resize(..)),
        };
        if app.quit {
            break;
        }
    }
    changed
}

/// What wakes the planner on Unix.
#[cfg(unix)]
enum Wake {
    Bytes(Vec<u8>),
    /// The terminal's input ended (the terminal went away).
    Closed,
    Resize,
    Detected(Found),
    /// What this machine holds (the cache, the models folders), listed on a thread.
    Local(Vec<crate::engine::Model>),
    /// A model the models pane asked to import, read on a thread: what was typed, and the
    /// model or why there is none.
    Imported(String, Box<Result<crate::engine::Model, String>>),
}

/// Read the model an import asks for on a thread of its own (a config, a GGUF header, the
/// local cache, or the Hub when allowed), so the screen never waits on it.
#[cfg(unix)]
fn spawn_import(app: &App, wanted: String, send: std::sync::mpsc::Sender<Wake>) {
    let catalog = app.catalog.clone();
    let hub = app.hub;
    std::thread::spawn(move || {
        let found = crate::catalog::import::find_model(&catalog, &wanted, hub);
        let _ = send.send(Wake::Imported(wanted, Box::new(found)));
    });
}

/// On Unix the planner reads the terminal's bytes itself (`input`: crossterm's parser can
/// wait forever on a partial escape sequence). One channel brings input, resizes
/// (SIGWINCH) and detection's answer; the loop blocks on it, so an idle planner uses no CPU,
/// and waits at most `input::PENDING_TIMEOUT` while a sequence is unfinished.
#[cfg(unix)]
fn event_loop(terminal: &mut DefaultTerminal, app: &mut App, detect: bool) -> color_eyre::Result<()> {
    use std::io::Read;
    use std::sync::mpsc::{RecvTimeoutError, channel};
    let (tx, rx) = channel();
    let input = tx.clone();
    std::thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        let mut buf = [0u8; 1024];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if input.send(Wake::Bytes(buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = input.send(Wake::Closed);
    });
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGWINCH])?;
    let signals_handle = signals.handle();
    let resize = tx.clone();
    std::thread::spawn(move || {
        for _ in signals.forever() {
            if resize.send(Wake::Resize).is_err() {
                break;
            }
        }
    });
    if detect {
        let found = tx.clone();
        spawn_detection(app, move |d| {
            let _ = found.send(Wake::Detected(d));
        });
    }
    if let Some(dirs) = app.local_sources.take() {
        let found = tx.clone();
        std::thread::spawn(move || {
            let _ = found.send(Wake::Local(crate::catalog::local_models(&dirs)));
        });
    }
    let importer = tx.clone();
    drop(tx);
    let mut parser = input::Parser::default();
    terminal.draw(|f| ui::view(f, app))?;
    while !app.quit {
        let wake = if parser.pending() {
            match rx.recv_timeout(input::PENDING_TIMEOUT) {
                Ok(w) => Some(w),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        } else {
            match rx.recv() {
                Ok(w) => Some(w),
                Err(_) => break,
            }
        };
        let events = match wake {
            // An unfinished sequence got no more bytes in time: dropped.
            None => parser.timeout(),
            Some(Wake::Bytes(bytes)) => parser.feed(&bytes),
            Some(Wake::Closed) => break,
            Some(Wake::Resize) => {
                let (w, h) = crossterm::terminal::size()?;
                vec![Event::Resize(w, h)]
            }
            Some(Wake::Detected((d, host))) => {
                app.set_local(&d);
                app.set_detected_host(host);
                terminal.draw(|f| ui::view(f, app))?;
                continue;
            }
            Some(Wake::Local(models)) => {
                app.add_local_models(models);
                terminal.draw(|f| ui::view(f, app))?;
                continue;
            }
            Some(Wake::Imported(wanted, found)) => {
                app.imported(&wanted, *found);
                terminal.draw(|f| ui::view(f, app))?;
                continue;
            }
        };
        if dispatch(app, &events) && !app.quit {
            terminal.draw(|f| ui::view(f, app))?;
        }
        if let Some(wanted) = app.take_import_request() {
            spawn_import(app, wanted, importer.clone());
        }
    }
    signals_handle.close();
    Ok(())
}

/// Elsewhere crossterm reads the console (its Windows reader gets whole key events).
#[cfg(not(unix))]
fn event_loop(terminal: &mut DefaultTerminal, app: &mut App, detect: bool) -> color_eyre::Result<()> {
    // Listed before the loop here (crossterm's reader has no channel to bring it in).
    app.load_local_models_now();
    let mut found = detect.then(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        spawn_detection(app, move |d| {
            let _ = tx.send(d);
        });
        rx
    });
    terminal.draw(|f| ui::view(f, app))?;
    while !app.quit {
        // While detection runs, wake every 50 ms to take its answer; after that, block:
        // nothing animates, so an idle planner uses no CPU.
        if let Some(rx) = &found {
            match rx.try_recv() {
                Ok((d, host)) => {
                    app.set_local(&d);
                    app.set_detected_host(host);
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
        if dispatch(app, std::slice::from_ref(&event)) && !app.quit {
            terminal.draw(|f| ui::view(f, app))?;
        }
        // Here the import is read at once (this loop has no channel to bring it in).
        if let Some(wanted) = app.take_import_request() {
            let found = crate::catalog::import::find_model(&app.catalog, &wanted, app.hub);
            app.imported(&wanted, found);
            terminal.draw(|f| ui::view(f, app))?;
        }
    }
    Ok(())
}
