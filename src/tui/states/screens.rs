//! The first screens: each pane and overlay of the planner, then the themes, at 80×24
//! and again at 160×48. Kept apart from the later features and the Chinese screens so
//! that no file of states grows past the line budget; `super::STATES` joins them in order.

use super::{
    State, eight_on_4090, explain_card, explain_llama_cpp, explain_segments, knob, llama_cpp_8b, seventy_fp8,
};
use crate::engine::{Method, Scenario, WeightPrecision};
use crate::lang::Lang;
use crate::tui::action::{Action, Pane};

pub(super) const SCREENS: &[State] = &[
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
];
