//! The screens drawn in Chinese (`Lang::Zh`, prices in yuan): the last group of
//! `super::STATES`, kept together so the snapshot tests of the Chinese UI find them in one place.

use super::{State, explain_card, explain_llama_cpp, explain_segments, llama_cpp_8b, to_fit};
use crate::engine::{Method, Scenario};
use crate::lang::Lang;
use crate::tui::action::{Action, Pane};

pub(super) const CHINESE: &[State] = &[
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
