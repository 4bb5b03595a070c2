//! Rendered screens: every named state at its size as an insta snapshot (the same states
//! `vramfit screenshots` draws), plus checks of what must be on screen.

use ratatui::buffer::Buffer;
use ratatui::style::Color;
mod common;

use vramfit::lang::Lang;
use vramfit::tui::states::{STATES, fresh_app, render, render_state};

fn text(buf: &Buffer) -> String {
    let a = buf.area;
    (0..a.height)
        .map(|y| {
            (0..a.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_named_state_matches_its_snapshot() {
    // The Chinese states have their own test binary (tests/tui_zh.rs).
    for state in STATES.iter().filter(|s| s.lang == Lang::En) {
        let (_, buf) = render_state(state);
        insta::assert_snapshot!(state.name, text(&buf));
    }
}

fn screen(name: &str) -> String {
    let state = STATES.iter().find(|s| s.name == name).unwrap();
    text(&render_state(state).1)
}

#[test]
fn the_tight_state_says_tight_with_the_seed_figure() {
    let s = screen("tight-80x24");
    assert!(s.contains("! tight"), "{s}");
    assert!(s.contains("Memory vs GeForce RTX 4090"), "{s}");
    // The quick rules on the same 70B FP8 plan: tight with 4.76 GB left on 80 GB.
    let s = screen("seed-rules-80x24");
    assert!(
        s.contains("75.24 / 80.00 GB per card · 4.76 free · ! tight"),
        "{s}"
    );
}

#[test]
fn the_overflow_state_shows_how_much_is_missing() {
    let s = screen("overflow-80x24");
    // Calibrated: 72.66 GB of weights (16-bit embeddings) + KV + activations + overhead
    // against 90 % of what CUDA can allocate on an H100 PCIe (81,008 MiB).
    assert!(s.contains("78.05 / 76.45 GB per card · 1.61 short · ✗ no"), "{s}");
    assert!(s.contains("over by 1.61 GB"), "{s}");
}

#[test]
fn explain_shows_formulas_with_numbers() {
    let s = screen("explain-80x24");
    assert!(
        s.contains("68,451,041,280 quantized params × 8.000 bits (FP8)"),
        "{s}"
    );
    assert!(s.contains("quick rules: 70.55 GB"), "{s}");
    assert!(!s.contains("-0.00"), "{s}");
    let s = screen("explain-card-160x48");
    assert!(s.contains("usable: 76.45 GB (90 % for the serving engine"), "{s}");
    assert!(
        s.contains("capacity: 1 × 84.94 GB (what CUDA can allocate)"),
        "{s}"
    );
    assert!(
        s.contains("memory: marketed \"80 GB\", nvidia-smi reports 81,559 MiB; CUDA can allocate 84.94 GB"),
        "{s}"
    );
    let s = screen("explain-rules-160x48");
    assert!(s.contains("adapter = "), "{s}");
    assert!(s.contains("quick rules:"), "{s}");
}

#[test]
fn help_lists_keys_from_the_key_map() {
    let s = screen("help-80x24");
    for b in vramfit::tui::keymap::BINDINGS
        .iter()
        .filter(|b| b.scope == vramfit::tui::keymap::Scope::Everywhere)
        .take(12)
    {
        assert!(s.contains(b.label), "help lacks {}", b.label);
    }
}

#[test]
fn too_small_says_so() {
    let s = screen("too-small-50x15");
    assert!(s.contains("terminal too small: 50×15"), "{s}");
}

#[test]
fn mono_theme_sets_no_colour_anywhere() {
    for name in ["mono-80x24", "mono-160x48"] {
        let state = STATES.iter().find(|s| s.name == name).unwrap();
        let (_, buf) = render_state(state);
        for cell in buf.content() {
            assert_eq!(
                (cell.fg, cell.bg),
                (Color::Reset, Color::Reset),
                "a coloured cell in {name}: {cell:?}"
            );
        }
    }
}

#[test]
fn every_main_state_exists_at_both_sizes() {
    for base in [
        "inference",
        "tight",
        "overflow",
        "full",
        "lora",
        "qlora",
        "explain",
        "help",
        "mono",
    ] {
        for size in ["80x24", "160x48"] {
            let name = format!("{base}-{size}");
            assert!(STATES.iter().any(|s| s.name == name), "no state {name}");
        }
    }
}

#[test]
fn every_segment_has_its_own_glyph_on_screen() {
    let s = screen("qlora-160x48");
    for glyph in ["█", "▒", "░", "▚", "▞", "▪"] {
        assert!(s.contains(glyph), "missing {glyph}");
    }
}

#[test]
fn resizing_reflows_without_losing_state() {
    let mut app = fresh_app("default");
    app.update(vramfit::tui::action::Action::CycleWeights);
    let small = text(&render(&mut app, 80, 24));
    let big = text(&render(&mut app, 200, 60));
    assert!(small.contains("Inference FP16") && big.contains("Inference FP16"));
    assert!(big.lines().next().unwrap().chars().count() > 150);
}

#[test]
fn the_hint_and_the_to_fit_list_show_the_exact_limit() {
    // 70B FP8 on one H100 PCIe: 1.61 GB short; the KV cache shrinks to fit at 5,504 tokens.
    let s = screen("overflow-80x24");
    assert!(s.contains("fits with: q4_0 KV · context ≤ 5,504"), "{s}");
    let s = screen("tofit-80x24");
    assert!(s.contains("longest context at batch 1: 5,504"), "{s}");
    assert!(s.contains("▶ q4_0 KV  ! tight"), "{s}");
    let s = screen("tofit-160x48");
    assert!(s.contains("▶ context ≤ 5,504  ! tight  0.00 GB free"), "{s}");
    assert!(s.contains("4× GeForce RTX 4090  ✓ fits  2.63 GB free"), "{s}");
    // When it fits, the same line gives the headroom.
    let s = screen("tight-80x24");
    assert!(s.contains("headroom: context ≤ "), "{s}");
}

/// The Framework row and explain under llama.cpp: the preset's values are on screen with
/// their sources, and the activations the bar draws are the compute buffer explain derives.
#[test]
fn the_framework_row_and_explain_name_the_runtime_and_its_buffer() {
    let s = screen("framework-80x24");
    assert!(s.contains("Framework  ◀ llama.cpp ▶"), "{s}");
    assert!(s.contains("Context      4,096"), "{s}");
    assert!(s.contains("▒ activations 0.31"), "{s}");
    let s = screen("explain-framework-160x48");
    assert!(s.contains("llama.cpp b10453 preset"), "{s}");
    assert!(s.contains("--ubatch 512 · common.h: n_ubatch = 512"), "{s}");
    assert!(s.contains("▒ activations = 0.31 GB"), "{s}");
    assert!(
        s.contains("llama.cpp compute buffer (ggml graph reserve for n_ubatch 512 over 4,096 cells)"),
        "{s}"
    );
    assert!(s.contains("▒ activations         0.31 GB"), "{s}");
}

/// One expected speed on every view: llama.cpp with Q4_K_M on an RTX 4090 (the framework
/// state) shows "≈N ≤M" in the cards pane; the command line's JSON for the same plan gives
/// the same N and M, and explain names the class and its runs.
#[test]
fn the_expected_speed_is_one_figure_in_the_pane_the_json_and_explain() {
    let s = screen("framework-80x24");
    let row = s.lines().find(|l| l.contains("fits  GeForce RTX 4090")).unwrap();
    let cell = row.split_whitespace().find(|w| w.starts_with('≈')).expect(row);
    let shown: f64 = cell.trim_start_matches('≈').parse().unwrap();
    let out = common::vramfit()
        .args([
            "plan",
            "-m",
            "llama-3.1-8b",
            "--framework",
            "llama.cpp",
            "--weights",
            "q4_k_m",
            "--context",
            "4096",
            "--gpu",
            "rtx-4090",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &v["options"][0];
    let expected = o["expected_decode_tokens_per_s"].as_f64().unwrap();
    assert_eq!(shown, expected.round(), "{row} vs {o}");
    assert_eq!(o["speed_class"]["name"], "ggml · gddr · k-quant");
    let [lo, hi] = [0, 1].map(|i| o["expected_decode_band"][i].as_f64().unwrap());
    assert!(lo < expected && expected < hi);
    assert!(expected < o["decode_tokens_per_s"].as_f64().unwrap());
    // Explain, on the state's own plan, says where the figure comes from.
    let state = STATES.iter().find(|s| s.name == "framework-80x24").unwrap();
    let (app, _) = render_state(state);
    let g = app.catalog.gpu_index("rtx-4090").unwrap();
    let option = app
        .plan
        .options
        .iter()
        .find(|o| o.gpu == g && o.count == 1)
        .unwrap();
    let lines = vramfit::present::explain::explain_option(
        app.current_model(),
        &app.catalog.gpus[g],
        option,
        &app.plan,
        &app.scenario,
    );
    let line = lines.iter().find(|l| l.contains("expected decode:")).unwrap();
    let said: f64 = line
        .split("≈ ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!((said - expected).abs() < 0.06, "{line} vs {expected}");
    assert!(
        line.contains("the ggml · gddr · k-quant class, 12 measured runs"),
        "{line}"
    );
}
