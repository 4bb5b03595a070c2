//! Speed of the planner: one key press → recompute → render into a 160×48 buffer; the
//! bytes a slider step writes to the terminal; start-up to the first frame.

use std::hint::black_box;
use std::io::Write;
use std::sync::{Arc, Mutex};

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::backend::{CrosstermBackend, TestBackend};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use vramfit::catalog::Catalog;
use vramfit::tui::action::{Action, Pane};
use vramfit::tui::app::App;
use vramfit::tui::states::fresh_app;
use vramfit::tui::ui;

/// The planner on a catalog of 196 models (the embedded ones and three renamed copies of
/// them, read from TOML as a user's catalog is): the budget holds with the catalog tripled.
fn app_with_many_models() -> App {
    let mut catalog = Catalog::embedded().expect("embedded catalog");
    for copy in 1..=3 {
        let text = vramfit::catalog::EMBEDDED_MODELS.replace("\nid = \"", &format!("\nid = \"copy{copy}-"));
        catalog.merge_str("copies.toml", &text).expect("the copies parse");
    }
    assert!(catalog.models.len() >= 150);
    App::new(
        catalog,
        vramfit::tui::theme::Theme::embedded("default").expect("embedded theme"),
        None,
        None,
    )
}

/// A writer that counts what the terminal backend sends.
#[derive(Clone, Default)]
struct Counter(Arc<Mutex<usize>>);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        *self.0.lock().unwrap() += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The Context row (rows shift as knobs are added).
fn context_row(app: &vramfit::tui::app::App) -> usize {
    app.knobs()
        .iter()
        .position(|k| *k == vramfit::tui::knobs::Knob::Context)
        .expect("a Context row")
}

fn bytes_per_slider_step(width: u16, height: u16) -> usize {
    let counter = Counter::default();
    let backend = CrosstermBackend::new(counter.clone());
    let options = TerminalOptions {
        viewport: Viewport::Fixed(Rect::new(0, 0, width, height)),
    };
    let mut terminal = Terminal::with_options(backend, options).unwrap();
    let mut app = fresh_app("default");
    app.focus = Pane::Workload;
    app.knob = context_row(&app);
    terminal.draw(|f| ui::view(f, &mut app)).unwrap();
    let before = *counter.0.lock().unwrap();
    app.update(Action::Right);
    terminal.draw(|f| ui::view(f, &mut app)).unwrap();
    *counter.0.lock().unwrap() - before
}

fn bench_tui(c: &mut Criterion) {
    for (w, h) in [(80, 24), (160, 48)] {
        println!(
            "bytes written for one context slider step at {w}x{h}: {}",
            bytes_per_slider_step(w, h)
        );
    }

    // Drawn through the backend the planner uses (crossterm), into a sink: the diff and the
    // escape sequences of what changed, as a terminal receives them.
    let options = TerminalOptions {
        viewport: Viewport::Fixed(Rect::new(0, 0, 160, 48)),
    };
    let mut terminal = Terminal::with_options(CrosstermBackend::new(std::io::sink()), options).unwrap();
    let mut app = app_with_many_models();
    app.focus = Pane::Workload;
    app.knob = context_row(&app);
    let mut up = true;
    c.bench_function("key press -> recompute -> render 160x48", |b| {
        b.iter(|| {
            // Alternate so every iteration really changes the scenario.
            up = !up;
            app.update(if up { Action::Right } else { Action::Left });
            terminal.draw(|f| ui::view(f, &mut app)).unwrap();
        })
    });

    // The same in Chinese: every label is a message lookup and widths are display widths.
    vramfit::lang::Lang::Zh.make_current();
    c.bench_function("key press -> recompute -> render 160x48 (zh)", |b| {
        b.iter(|| {
            up = !up;
            app.update(if up { Action::Right } else { Action::Left });
            terminal.draw(|f| ui::view(f, &mut app)).unwrap();
        })
    });
    vramfit::lang::Lang::En.make_current();

    c.bench_function(
        "start-up to first frame (catalog + theme + plan + render 80x24)",
        |b| {
            b.iter(|| {
                let mut app = fresh_app("default");
                let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
                t.draw(|f| ui::view(f, &mut app)).unwrap();
                black_box(t.backend().buffer().area)
            })
        },
    );
    c.bench_function(
        "start-up to first frame with 196 models (catalog + plan + render 160x48)",
        |b| {
            b.iter(|| {
                let mut app = app_with_many_models();
                let mut t = Terminal::new(TestBackend::new(160, 48)).unwrap();
                t.draw(|f| ui::view(f, &mut app)).unwrap();
                black_box(t.backend().buffer().area)
            })
        },
    );
}

criterion_group!(benches, bench_tui);
criterion_main!(benches);
