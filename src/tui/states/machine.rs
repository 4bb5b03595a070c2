//! The machine you have: a 70B spilling into RAM beside one RTX 4090, a rig of an RTX 4090
//! and an RTX 3090 planned together, and the cards whose usable memory is a rule of their
//! own (an M4 Pro's Metal limit, an H100 MIG slice, a Strix Halo's carve-out and GTT). One
//! group of `super::STATES`.

use super::{State, serve_on};
use crate::engine::hardware::host::{Host, platform};
use crate::engine::{Framework, WeightPrecision};
use crate::lang::Lang;
use crate::tui::action::{Action, Pane};
use crate::tui::app::App;

/// Llama 3.3 70B in Q4_K_M under llama.cpp on one RTX 4090, with 64 GB of DDR5-5600.
fn seventy_on_4090_with_ram(a: &mut App) {
    serve_on(
        a,
        "llama-3.3-70b",
        WeightPrecision::Q4KM,
        Framework::LlamaCpp,
        "rtx-4090",
    );
    let mut sc = a.scenario.clone();
    sc.host = platform("ddr5-5600-dual").map(|p| Host::new(64.0, None).on_platform(p));
    a.set_scenario(sc);
    a.focus = Pane::Bar;
}

/// The same model on an RTX 4090 and an RTX 3090 together (`+` on each in the cards pane),
/// at 16k context.
fn rig_4090_3090(a: &mut App) {
    seventy_on_4090_with_ram(a);
    let mut sc = a.scenario.clone();
    sc.context = 16_384;
    a.set_scenario(sc);
    a.pin(None);
    for id in ["rtx-4090", "rtx-3090"] {
        if let Some(g) = a.catalog.gpu_index(id) {
            a.card_cursor = Some((g, 1));
            a.update(Action::RigAdd);
        }
    }
    a.focus = Pane::Cards;
}

/// `model` in `weights` under `framework` on `gpu`, the card's explain open: its usable
/// memory and where that figure comes from.
fn explain_card_on(a: &mut App, model: &str, weights: WeightPrecision, framework: Framework, gpu: &str) {
    serve_on(a, model, weights, framework, gpu);
    a.focus = Pane::Cards;
    a.update(Action::Explain);
}

/// Mistral Small 24B in Q4_K_M under llama.cpp on a 24 GB M4 Pro at Metal's default limit.
fn m4_pro_default_limit(a: &mut App) {
    explain_card_on(
        a,
        "mistral-small-24b",
        WeightPrecision::Q4KM,
        Framework::LlamaCpp,
        "m4-pro-24gb",
    );
}

/// Llama 3.1 8B in BF16 served by vLLM on an H100's 3g.40gb MIG slice.
fn h100_mig_slice(a: &mut App) {
    explain_card_on(
        a,
        "llama-3.1-8b",
        WeightPrecision::Bf16,
        Framework::Vllm,
        "h100-sxm-mig-3g.40gb",
    );
}

/// Llama 3.3 70B in Q4_K_M under llama.cpp on a 128 GB Strix Halo: the 512 MB carve-out
/// plus the GTT Linux lends by default.
fn strix_halo(a: &mut App) {
    explain_card_on(
        a,
        "llama-3.3-70b",
        WeightPrecision::Q4KM,
        Framework::LlamaCpp,
        "strix-halo-128gb",
    );
}

pub(super) const MACHINE: &[State] = &[
    State {
        name: "m4-pro-160x48",
        about: "a 24B Q4_K_M on a 24 GB M4 Pro under llama.cpp, held to Metal's default working set",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: m4_pro_default_limit,
    },
    State {
        name: "mig-slice-160x48",
        about: "an 8B in BF16 served by vLLM on an H100's 3g.40gb MIG slice: its 39.5 GiB and half the card's bandwidth",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: h100_mig_slice,
    },
    State {
        name: "strix-halo-160x48",
        about: "a 70B Q4_K_M on a 128 GB Strix Halo: the 512 MB carve-out plus the GTT Linux lends",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: strix_halo,
    },
    State {
        name: "ram-offload-80x24",
        about: "a 70B Q4_K_M on one RTX 4090 and 64 GB of RAM: 43 of 81 layers on the card, a bar per device",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: seventy_on_4090_with_ram,
    },
    State {
        name: "ram-offload-160x48",
        about: "the same on a wide screen, explain open: each device's bytes, the decode time by part, the flags",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: |a| {
            seventy_on_4090_with_ram(a);
            a.update(Action::Explain);
        },
    },
    State {
        name: "mixed-rig-80x24",
        about: "an RTX 4090 and an RTX 3090 planned together: split by layer in proportion to their memory",
        width: 80,
        height: 24,
        theme: "default",
        lang: Lang::En,
        setup: rig_4090_3090,
    },
    State {
        name: "mixed-rig-160x48",
        about: "the same rig on a wide screen",
        width: 160,
        height: 48,
        theme: "default",
        lang: Lang::En,
        setup: rig_4090_3090,
    },
];
