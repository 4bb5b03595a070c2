//! The screens of the later features: the quick rules, the training knobs, serving,
//! the cost ranking, A/B, combos, the to-fit list, this machine's cards and the size floor.
//! One group of `super::STATES`, in the order the screenshots list them.

use super::{State, knob, pin, seventy_fp8, to_fit, two_4090s_here};
use crate::engine::{Method, Scenario, WeightPrecision};
use crate::lang::Lang;
use crate::tui::action::{Action, Pane};

pub(super) const FEATURES: &[State] = &[
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
                offload: crate::engine::workload::scenario::Offload::Optimizer,
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
        name: "target-80x24",
        about: "rent to a target: 40 users of Llama 3.1 8B at 8k, 20 tokens/s each (t: the target rows)",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: target_forty_users,
    },
    State {
        name: "target-160x48",
        about: "the target's result in the cards pane: which options meet it, with how many replicas",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: target_forty_users,
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
            a.sort_by = crate::engine::verdict::rank::SortBy::Finish;
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
            a.sort_by = crate::engine::verdict::rank::SortBy::Finish;
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
        name: "import-80x24",
        about: "a model no list holds, typed in the models filter: Enter imports it",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            a.update(Action::StartFilter);
            for c in "acme/new-model-7b".chars() {
                a.update(Action::FilterChar(c));
            }
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
];

/// Llama 3.1 8B under vLLM for 40 users at 8,192 tokens and 20 tokens/s each, the cursor on
/// the target rows (as `t` leaves it) and the cards ranked by the cheapest that meets it.
fn target_forty_users(a: &mut crate::tui::app::App) {
    a.select_model("llama-3.1-8b");
    let mut sc = Scenario::seed_inference(WeightPrecision::Bf16).calibrated();
    crate::engine::Framework::Vllm.apply(&mut sc);
    sc.target = crate::engine::verdict::meets_target::Target {
        users: Some(40),
        min_tps: Some(20.0),
        max_ttft_s: None,
        deadline_h: None,
    };
    a.sort_by = crate::engine::verdict::rank::SortBy::Target;
    a.set_scenario(sc);
    a.update(Action::Target);
    a.knob += 1;
}
