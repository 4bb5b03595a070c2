//! Named screen states: the snapshot tests and `vramfit screenshots` draw the same ones.

mod chinese;
mod features;
mod machine;
mod screens;

use ratatui::buffer::Buffer;

use super::action::{Action, Pane};
use super::app::App;
use super::theme::Theme;
use super::ui;
use crate::catalog::Catalog;
use crate::engine::{Framework, Scenario, WeightPrecision};
use crate::lang::Lang;

/// One state: name, what it shows, size, theme, and how to get there from a fresh app.
#[derive(Clone, Copy)]
pub struct State {
    pub name: &'static str,
    pub about: &'static str,
    pub width: u16,
    pub height: u16,
    pub theme: &'static str,
    /// The language the screen is drawn in.
    pub lang: Lang,
    pub setup: fn(&mut App),
}

/// The workload row of a knob (rows shift as knobs are added).
fn knob(app: &App, k: crate::tui::knobs::Knob) -> usize {
    app.knobs().iter().position(|x| *x == k).unwrap_or(0)
}

fn pin(app: &mut App, gpu: &str, count: u32) {
    if let Some(g) = app.catalog.gpu_index(gpu) {
        app.pin(Some((g, count)));
    }
}

/// Two RTX 4090s found on this machine, one with 1.2 GB in use (what nvidia-smi reports).
fn two_4090s_here(app: &mut App) {
    let card = |index: u32, used_mib: u64| crate::detect::DetectedGpu {
        index,
        name: "NVIDIA GeForce RTX 4090".into(),
        memory_total_bytes: 24564 * 1_048_576,
        memory_used_bytes: used_mib * 1_048_576,
        gtt_total_bytes: 0,
        driver: Some("550.163.01".into()),
        gpu: Some("rtx-4090".into()),
        source: "nvidia-smi",
    };
    app.set_local(&crate::detect::Detection {
        gpus: vec![card(0, 1144), card(1, 0)],
        ..Default::default()
    });
}

/// Llama 3.1 8B in BF16 at 8k on one RTX 4090: tight under the calibrated rules.
fn eight_on_4090(app: &mut App) {
    app.select_model("llama-3.1-8b");
    pin(app, "rtx-4090", 1);
}

/// Serve `model` in `weights` under `framework`'s preset, pinned to one `gpu`.
pub(super) fn serve_on(
    app: &mut App,
    model: &str,
    weights: WeightPrecision,
    framework: Framework,
    gpu: &str,
) {
    app.select_model(model);
    let mut sc = Scenario::seed_inference(weights).calibrated();
    // The screen's currency stays (yuan on a Chinese screen).
    sc.rent.display_currency = app.scenario.rent.display_currency.clone();
    framework.apply(&mut sc);
    app.set_scenario(sc);
    pin(app, gpu, 1);
}

fn seventy_fp8(app: &mut App) {
    serve_on(
        app,
        "llama-3.1-70b",
        WeightPrecision::Fp8,
        Framework::Generic,
        "h100-pcie",
    );
}

/// 70B FP8 on one H100 PCIe, explain open on the memory bar: every segment's formula.
fn explain_segments(a: &mut App) {
    seventy_fp8(a);
    a.focus = Pane::Bar;
    a.update(Action::Explain);
}

/// 70B FP8 on one H100 PCIe, explain open on the card.
fn explain_card(a: &mut App) {
    seventy_fp8(a);
    a.focus = Pane::Cards;
    a.update(Action::Explain);
}

/// Llama 3.1 8B in Q4_K_M under llama.cpp's preset on one RTX 4090, the Framework row in
/// focus: n_ctx 4096, n_ubatch 512, f16 cache, no flash attention, the compute buffer.
fn llama_cpp_8b(a: &mut App) {
    serve_on(
        a,
        "llama-3.1-8b",
        WeightPrecision::Q4KM,
        Framework::LlamaCpp,
        "rtx-4090",
    );
    a.focus = Pane::Workload;
    a.knob = knob(a, crate::tui::knobs::Knob::Framework);
}

/// The same, explain open on the memory bar: the activations are llama.cpp's compute buffer.
fn explain_llama_cpp(a: &mut App) {
    llama_cpp_8b(a);
    a.focus = Pane::Bar;
    a.update(Action::Explain);
}

/// 70B FP8 on one H100 PCIe, the to-fit list open.
fn to_fit(a: &mut App) {
    seventy_fp8(a);
    a.update(Action::ToFit);
}

/// Every named state, in the order `vramfit screenshots` writes them: the first screens, the
/// later features, then the Chinese screens.
pub const STATES: &[State] = &join::<
    { screens::SCREENS.len() + features::FEATURES.len() + machine::MACHINE.len() + chinese::CHINESE.len() },
>([
    screens::SCREENS,
    features::FEATURES,
    machine::MACHINE,
    chinese::CHINESE,
]);

/// The groups one after the other, at compile time (a `const` slice cannot be built by
/// concatenation otherwise).
const fn join<const N: usize>(parts: [&[State]; 4]) -> [State; N] {
    let mut out = [parts[0][0]; N];
    let (mut p, mut at) = (0, 0);
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[at] = parts[p][i];
            at += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(at == N, "the groups fill the list exactly");
    out
}

/// A fresh app on the embedded catalog with a built-in theme.
pub fn fresh_app(theme: &str) -> App {
    let catalog = Catalog::embedded().expect("embedded catalog");
    App::new(
        catalog,
        Theme::embedded(theme).expect("embedded theme"),
        None,
        None,
    )
}

/// Draw an app into a test terminal of the given size.
pub fn render(app: &mut App, width: u16, height: u16) -> Buffer {
    ui::render_to_buffer(app, width, height)
}

/// The language is one setting for the whole process: a state's strings are made and drawn
/// while this is held, so two states in different languages never mix (tests run in threads).
static LANGUAGE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Draw a named state in its language; the language is English again afterwards.
pub fn render_state(state: &State) -> (App, Buffer) {
    let _held = LANGUAGE.lock().unwrap_or_else(|e| e.into_inner());
    state.lang.make_current();
    // Drawn on the catalog's date: an offer turning stale with the calendar must not change
    // the screenshots or their snapshots.
    crate::dates::pin_today(
        crate::catalog::embedded_updated()
            .map(|d| crate::dates::days_from_civil(i64::from(d.year), u32::from(d.month), u32::from(d.day))),
    );
    let mut app = fresh_app(state.theme);
    // A Chinese screen prices in yuan, as the planner does under `--lang zh`.
    app.scenario.rent.display_currency = state.lang.default_currency().into();
    (state.setup)(&mut app);
    let buf = render(&mut app, state.width, state.height);
    Lang::En.make_current();
    (app, buf)
}
