//! Named screen states: the snapshot tests and `vramfit screenshots` draw the same ones.

use ratatui::buffer::Buffer;

use super::action::{Action, Pane};
use super::app::App;
use super::theme::Theme;
use super::ui;
use crate::catalog::Catalog;
use crate::engine::{Framework, Method, Scenario, WeightPrecision};
use crate::lang::Lang;

/// One state: name, what it shows, size, theme, and how to get there from a fresh app.
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
fn serve_on(app: &mut App, model: &str, weights: WeightPrecision, framework: Framework, gpu: &str) {
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

pub const STATES: &[State] = &[
    State {
        name: "framework-80x24",
        about: "the Framework row on llama.cpp: its preset's n_ctx, n_ubatch, f16 cache and no flash attention",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: llama_cpp_8b,
    },
    State {
        name: "explain-framework-160x48",
        about: "explain under llama.cpp: the activations are its compute buffer, with the rule that sizes it",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: explain_llama_cpp,
    },
    State {
        name: "inference-80x24",
        about: "Llama 3.1 70B BF16 inference at 8k: the start screen",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |_| {},
    },
    State {
        name: "inference-160x48",
        about: "the start screen on a large terminal",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |_| {},
    },
    State {
        name: "tight-80x24",
        about: "Llama 3.1 8B BF16 at 8k on one RTX 4090: tight",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            eight_on_4090(a);
            a.focus = Pane::Cards;
        },
    },
    State {
        name: "overflow-80x24",
        about: "70B FP8 at 8k on one H100 PCIe: does not fit under the calibrated rules",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            seventy_fp8(a);

            a.focus = Pane::Bar;
        },
    },
    State {
        name: "overflow-160x48",
        about: "the same overflow on a large terminal",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            seventy_fp8(a);
        },
    },
    State {
        name: "full-80x24",
        about: "Llama 3.1 8B full fine-tune: combos only",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("llama-3.1-8b");
            a.set_scenario(Scenario::seed_training(Method::Full).calibrated());
        },
    },
    State {
        name: "lora-80x24",
        about: "Qwen3 14B LoRA, rank 16",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("qwen3-14b");
            a.set_scenario(Scenario::seed_training(Method::Lora).calibrated());
            a.focus = Pane::Workload;
            a.knob = knob(a, crate::tui::knobs::Knob::LoraRank);
        },
    },
    State {
        name: "qlora-160x48",
        about: "Llama 3.1 70B QLoRA with every combo listed",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.set_scenario(Scenario::seed_training(Method::Qlora).calibrated());
            a.all_combos = true;
            a.focus = Pane::Cards;
        },
    },
    State {
        name: "explain-80x24",
        about: "explain: every segment's formula with the numbers",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: explain_segments,
    },
    State {
        name: "explain-card-160x48",
        about: "explain a card: capacity, verdict rule, price, decode ceiling",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: explain_card,
    },
    State {
        name: "help-80x24",
        about: "help: every key, from the key map",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.update(Action::Help);
        },
    },
    State {
        name: "filter-80x24",
        about: "typing a model filter",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.update(Action::StartFilter);
            for c in "qwen3".chars() {
                a.update(Action::FilterChar(c));
            }
        },
    },
    State {
        name: "mono-80x24",
        about: "the monochrome theme (NO_COLOR)",
        width: 80,
        height: 24,
        theme: "mono",
        lang: Lang::En,
        setup: seventy_fp8,
    },
    State {
        name: "light-160x48",
        about: "the light theme",
        width: 160,
        height: 48,
        theme: "light",
        lang: Lang::En,
        setup: seventy_fp8,
    },
    State {
        name: "high-contrast-160x48",
        about: "the high-contrast theme for projectors",
        width: 160,
        height: 48,
        theme: "high-contrast",
        lang: Lang::En,
        setup: seventy_fp8,
    },
    State {
        name: "tight-160x48",
        about: "Llama 3.1 8B BF16 at 8k on one RTX 4090, large terminal",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            eight_on_4090(a);
            a.focus = Pane::Cards;
        },
    },
    State {
        name: "full-160x48",
        about: "Llama 3.1 8B full fine-tune on a large terminal",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("llama-3.1-8b");
            a.set_scenario(Scenario::seed_training(Method::Full).calibrated());
        },
    },
    State {
        name: "lora-160x48",
        about: "Qwen3 14B LoRA on a large terminal",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("qwen3-14b");
            a.set_scenario(Scenario::seed_training(Method::Lora).calibrated());
        },
    },
    State {
        name: "qlora-80x24",
        about: "Llama 3.1 70B QLoRA: single cards and combos ranked together by price",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.set_scenario(Scenario::seed_training(Method::Qlora).calibrated());
        },
    },
    State {
        name: "explain-160x48",
        about: "explain the memory on a large terminal",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("qwen3-14b");
            a.set_scenario(Scenario::seed_training(Method::Lora).calibrated());
            a.focus = Pane::Bar;
            a.segment = 1;
            a.update(Action::Explain);
        },
    },
    State {
        name: "explain-card-80x24",
        about: "explain a card at 80x24",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: explain_card,
    },
    State {
        name: "help-160x48",
        about: "help on a large terminal",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.update(Action::Help);
        },
    },
    State {
        name: "mono-160x48",
        about: "the monochrome theme on a large terminal",
        width: 160,
        height: 48,
        theme: "mono",
        lang: Lang::En,
        setup: |a| {
            seventy_fp8(a);
            a.set_scenario(Scenario {
                context: 32768,
                ..Scenario::seed_inference(WeightPrecision::Fp8).calibrated()
            });
        },
    },
    State {
        name: "seed-rules-80x24",
        about: "the same tight plan under the quick rules (r switches)",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            seventy_fp8(a);
            a.update(Action::ToggleConvention);
            a.focus = Pane::Cards;
        },
    },
    State {
        name: "explain-rules-160x48",
        about: "explain a QLoRA plan: calibrated vs the quick rules, segment by segment",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("llama-3.1-8b");
            a.set_scenario(Scenario::seed_training(Method::Qlora).calibrated());
            a.update(Action::Explain);
        },
    },
    State {
        name: "training-knobs-160x48",
        about: "full fine-tune of a 70B over 8 cards with ZeRO-3 and optimizer offload",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.set_scenario(Scenario {
                cards: 8,
                offload: crate::engine::scenario::Offload::Optimizer,
                ..Scenario::seed_training(Method::Full).calibrated()
            });
            a.focus = Pane::Workload;
            a.knob = knob(a, crate::tui::knobs::Knob::Offload);
        },
    },
    State {
        name: "serving-160x48",
        about: "serving 70B FP8 at 8k to 32 users: KV budget in sequences, roofline, splits",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.set_scenario(Scenario {
                batch: 32,
                ..Scenario::seed_inference(WeightPrecision::Fp8).calibrated()
            });
            a.focus = Pane::Cards;
        },
    },
    State {
        name: "serving-split-80x24",
        about: "explain a 4-card tensor-parallel combo over PCIe: capacity, link cost, warning",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.set_scenario(Scenario {
                batch: 32,
                ..Scenario::seed_inference(WeightPrecision::Fp8).calibrated()
            });
            pin(a, "l40s", 4);
            a.focus = Pane::Cards;
            a.update(Action::Explain);
        },
    },
    State {
        name: "cost-ranking-160x48",
        about: "Llama 3.1 8B LoRA over 1 B tokens, cards ranked by cost to finish",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("llama-3.1-8b");
            let mut sc = Scenario::seed_training(Method::Lora).calibrated();
            sc.rent.train_tokens = Some(1_000_000_000);
            a.sort_by = crate::engine::rank::SortBy::Finish;
            a.set_scenario(sc);
            a.focus = Pane::Cards;
        },
    },
    State {
        name: "cost-ranking-80x24",
        about: "the cost-to-finish ranking at 80x24, prices in yuan",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("llama-3.1-8b");
            let mut sc = Scenario::seed_training(Method::Qlora).calibrated();
            sc.rent.train_tokens = Some(100_000_000);
            sc.rent.display_currency = "CNY".into();
            a.sort_by = crate::engine::rank::SortBy::Finish;
            a.set_scenario(sc);
            a.focus = Pane::Cards;
        },
    },
    State {
        name: "ab-160x48",
        about: "A/B: 70B in BF16 (pinned as A) against FP8 at twice the context",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.update(Action::PinA);
            a.update(Action::CycleWeights);
            a.update(Action::CycleWeights);
            a.update(Action::ContextUp);
            a.update(Action::Compare);
        },
    },
    State {
        name: "ab-80x24",
        about: "A/B at 80x24",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.update(Action::PinA);
            a.update(Action::CycleMethod);
            a.update(Action::Compare);
        },
    },
    State {
        name: "combos-405b-80x24",
        about: "Llama 3.1 405B BF16: the cheapest fit is a combo; the bar shows one card of it",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("llama-3.1-405b");
        },
    },
    State {
        name: "combos-405b-160x48",
        about: "the 405B combo plan on a large terminal: bar, breakdown and table per card",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("llama-3.1-405b");
        },
    },
    State {
        name: "nothing-fits-80x24",
        about: "405B at 128k × 64 sequences: nothing in the catalog holds it; the closest is drawn",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("llama-3.1-405b");
            let mut sc = Scenario::seed_inference(WeightPrecision::Bf16).calibrated();
            sc.context = 131_072;
            sc.batch = 64;
            a.set_scenario(sc);
            a.focus = Pane::Cards;
        },
    },
    State {
        name: "pinned-80x24",
        about: "70B BF16 pinned to 2× H100 SXM (Enter on it again follows the cheapest)",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            pin(a, "h100-sxm", 2);
            a.focus = Pane::Cards;
        },
    },
    State {
        name: "tofit-80x24",
        about: "70B FP8 on one H100 PCIe: what would make it fit (f), exact context limit first",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: to_fit,
    },
    State {
        name: "tofit-160x48",
        about: "the to-fit list on a large terminal, the second change selected",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            seventy_fp8(a);
            a.update(Action::ToFit);
            a.update(Action::Down);
        },
    },
    State {
        name: "this-machine-80x24",
        about: "on a box with two RTX 4090s (one 1.2 GB busy): this machine heads the cards",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.select_model("qwen3-14b");
            two_4090s_here(a);
            a.focus = Pane::Cards;
        },
    },
    State {
        name: "too-small-50x15",
        about: "below the minimum size",
        width: 50,
        height: 15,
        theme: "default",
        lang: Lang::En,
        setup: |_| {},
    },
    State {
        name: "zh-inference-80x24",
        about: "中文: the start screen in Chinese (prices in yuan)",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::Zh,
        setup: |_| {},
    },
    State {
        name: "zh-inference-160x48",
        about: "中文: the start screen on a large terminal",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::Zh,
        setup: |_| {},
    },
    State {
        name: "zh-qlora-80x24",
        about: "中文: QLoRA of a 70B, the training knobs",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::Zh,
        setup: |a| {
            let mut sc = Scenario::seed_training(Method::Qlora).calibrated();
            sc.rent.display_currency = a.scenario.rent.display_currency.clone();
            a.set_scenario(sc);
            a.focus = Pane::Workload;
        },
    },
    State {
        name: "zh-training-160x48",
        about: "中文: a LoRA fine-tune with every training knob and the time to finish",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::Zh,
        setup: |a| {
            a.select_model("llama-3.1-8b");
            a.update(Action::CycleMethod);
            a.update(Action::CycleMethod);
            let mut sc = a.scenario.clone();
            sc.rent.train_tokens = Some(100_000_000);
            a.set_scenario(sc);
        },
    },
    State {
        name: "zh-framework-80x24",
        about: "中文: the Framework row on llama.cpp",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::Zh,
        setup: llama_cpp_8b,
    },
    State {
        name: "zh-explain-framework-160x48",
        about: "中文: explain under llama.cpp, the preset's sources and the compute buffer",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::Zh,
        setup: explain_llama_cpp,
    },
    State {
        name: "zh-explain-80x24",
        about: "中文: explain, every segment's formula",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::Zh,
        setup: explain_segments,
    },
    State {
        name: "zh-explain-card-160x48",
        about: "中文: explain a card",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::Zh,
        setup: explain_card,
    },
    State {
        name: "zh-help-80x24",
        about: "中文: help",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::Zh,
        setup: |a| {
            a.update(Action::Help);
        },
    },
    State {
        name: "zh-tofit-160x48",
        about: "中文: what would make it fit",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::Zh,
        setup: to_fit,
    },
    State {
        name: "zh-ab-80x24",
        about: "中文: A/B comparison",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::Zh,
        setup: |a| {
            a.update(Action::PinA);
            a.update(Action::CycleWeights);
            a.update(Action::CycleWeights);
            a.update(Action::Compare);
        },
    },
    State {
        name: "zh-nothing-fits-160x48",
        about: "中文: nothing fits, the closest first",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::Zh,
        setup: |a| {
            a.select_model("llama-3.1-405b");
            let mut sc = a.scenario.clone();
            sc.context = 131_072;
            sc.batch = 64;
            a.set_scenario(sc);
        },
    },
];

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
    let mut app = fresh_app(state.theme);
    // A Chinese screen prices in yuan, as the planner does under `--lang zh`.
    app.scenario.rent.display_currency = state.lang.default_currency().into();
    (state.setup)(&mut app);
    let buf = render(&mut app, state.width, state.height);
    Lang::En.make_current();
    (app, buf)
}
