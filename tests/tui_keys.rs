//! Key → action → scenario, with no terminal.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use vramfit::engine::{Method, WeightPrecision};
use vramfit::tui::action::{Action, Pane};
use vramfit::tui::app::{App, Knob, Overlay};
use vramfit::tui::keymap::{BINDINGS, action_for};
use vramfit::tui::states::fresh_app;

/// A key press as the planner's loop handles it: update, then any file work it asks for.
fn press(app: &mut App, code: KeyCode) -> bool {
    let key = KeyEvent::new(code, KeyModifiers::NONE);
    match action_for(&key, app.filtering) {
        Some(a) => vramfit::tui::handle(app, a),
        None => false,
    }
}

#[test]
fn keys_map_to_actions_in_both_styles() {
    let k = |c, m| action_for(&KeyEvent::new(c, m), false);
    assert_eq!(k(KeyCode::Char('q'), KeyModifiers::NONE), Some(Action::Quit));
    assert_eq!(k(KeyCode::Char('c'), KeyModifiers::CONTROL), Some(Action::Quit));
    assert_eq!(k(KeyCode::Char('j'), KeyModifiers::NONE), Some(Action::Down));
    assert_eq!(k(KeyCode::Down, KeyModifiers::NONE), Some(Action::Down));
    assert_eq!(k(KeyCode::Char('l'), KeyModifiers::NONE), Some(Action::Right));
    assert_eq!(k(KeyCode::Tab, KeyModifiers::NONE), Some(Action::NextPane));
    assert_eq!(k(KeyCode::Char('?'), KeyModifiers::SHIFT), Some(Action::Help));
    assert_eq!(k(KeyCode::F(5), KeyModifiers::NONE), None);
    // While filtering, letters are text.
    assert_eq!(
        action_for(&KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE), true),
        Some(Action::FilterChar('q'))
    );
}

#[test]
fn every_key_bound_action_is_documented_once() {
    // Each binding's words are in both message files (a missing one comes back as its key).
    for locale in ["en", "zh"] {
        let messages = vramfit::_rust_i18n_backend()
            .messages_for_locale(locale)
            .unwrap_or_default();
        let has = |key: String| messages.iter().any(|(k, v)| *k == key && !v.is_empty());
        for b in BINDINGS {
            assert!(!b.keys.is_empty(), "{}", b.label);
            assert!(has(format!("keys.{}.help", b.id)), "{locale}: {}", b.id);
            if b.hint.is_some() {
                assert!(has(format!("keys.{}.hint", b.id)), "{locale}: {}", b.id);
            }
        }
    }
    assert_eq!(BINDINGS[0].help(), "quit");
}

#[test]
fn right_on_a_knob_changes_the_scenario_and_the_plan() {
    let mut app = fresh_app("default");
    assert_eq!(app.focus, Pane::Workload);
    let kv_before = app.plan.breakdown.get(vramfit::engine::SegmentKind::KvCache);
    let before = app.plan.total_bytes();
    // Context row (below Method, Framework, Weights, KV): 8,192 → 16,384 doubles the KV cache.
    for _ in 0..4 {
        press(&mut app, KeyCode::Down);
    }
    assert_eq!(app.knobs()[app.knob], Knob::Context);
    assert!(press(&mut app, KeyCode::Right));
    assert_eq!(app.scenario.context, 16384);
    let kv = 327_680.0 * 8192.0;
    let kv_after = app.plan.breakdown.get(vramfit::engine::SegmentKind::KvCache);
    assert!((kv_after - kv_before - kv).abs() < 1.0);
    assert!(
        app.plan.total_bytes() > before + kv,
        "plus the allocator slack on it"
    );
    press(&mut app, KeyCode::Left);
    press(&mut app, KeyCode::Left);
    assert_eq!(app.scenario.context, 4096);
}

#[test]
fn one_key_changes_one_knob_from_anywhere() {
    let mut app = fresh_app("default");
    app.focus = Pane::Cards;
    press(&mut app, KeyCode::Char('p'));
    assert_eq!(app.scenario.weights, WeightPrecision::Fp16);
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(app.scenario.context, 16384);
    press(&mut app, KeyCode::Char('}'));
    assert_eq!(app.scenario.batch, 2);
    press(&mut app, KeyCode::Char('m'));
    assert_eq!(app.scenario.method, Method::Full);
}

#[test]
fn switching_to_qlora_picks_a_4bit_base_and_only_4bit_cycles() {
    let mut app = fresh_app("default");
    press(&mut app, KeyCode::Char('m'));
    press(&mut app, KeyCode::Char('m'));
    press(&mut app, KeyCode::Char('m'));
    assert_eq!(app.scenario.method, Method::Qlora);
    assert_eq!(app.scenario.weights, WeightPrecision::Nf4);
    let mut seen = vec![];
    for _ in 0..4 {
        press(&mut app, KeyCode::Char('p'));
        seen.push(app.scenario.weights);
    }
    use WeightPrecision::*;
    assert_eq!(seen, [Nf4Dq, Fp4, Int4, Nf4], "only the 4-bit bases, then around");
}

#[test]
fn enter_on_a_card_pins_the_bar_to_it() {
    let mut app = fresh_app("default");
    app.focus = Pane::Cards;
    let best = app.target().map(|o| (o.gpu, o.count));
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    let pinned = app.target().map(|o| (o.gpu, o.count));
    assert_ne!(pinned, best);
    assert_eq!(app.pinned, pinned);
    // The pin survives a change of scenario that re-sorts the table.
    press(&mut app, KeyCode::Char('p'));
    assert_eq!(app.target().map(|o| (o.gpu, o.count)), pinned);
    // Enter on the pinned card unpins it: the bar follows the cheapest fit again.
    let row = app
        .visible_cards()
        .iter()
        .position(|&i| Some((app.plan.options[i].gpu, app.plan.options[i].count)) == pinned)
        .unwrap();
    app.card_cursor = pinned;
    assert_eq!(app.card_cursor_row(), row);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.pinned, None);
    assert_eq!(
        app.target().map(|o| (o.gpu, o.count)),
        app.plan.best().map(|o| (o.gpu, o.count))
    );
}

#[test]
fn the_title_never_cuts_a_word_at_80_columns() {
    let mut app = fresh_app("default");
    app.select_model("llama-3.1-405b");
    let mut sc = app.scenario.clone();
    sc.context = 1_000_000;
    sc.batch = 256;
    sc.cards = 8;
    app.set_scenario(sc);
    let buf = vramfit::tui::states::render(&mut app, 80, 24);
    let title: String = (0..80).map(|x| buf[(x, 0)].symbol().to_string()).collect();
    // Each piece is whole or absent: the rules' name is dropped, never "calibrat".
    assert!(title.contains("1,000,000 tok × 256"), "{title}");
    assert!(
        !title.contains("calibrat") || title.contains("calibrated"),
        "{title}"
    );
    assert!(!title.trim_end().ends_with('·'), "{title}");
}

#[test]
fn filter_narrows_the_models_and_picks_the_first() {
    let mut app = fresh_app("default");
    press(&mut app, KeyCode::Char('/'));
    assert!(app.filtering && app.focus == Pane::Models);
    for c in "mixtral".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let visible = app.visible_models();
    // Mixtral 8x7B and 8x22B, their Instruct releases and Nous Hermes 2 Mixtral.
    assert_eq!(visible.len(), 5);
    assert!(app.current_model().id.contains("mixtral"));
    press(&mut app, KeyCode::Enter);
    assert!(!app.filtering);
    press(&mut app, KeyCode::Esc);
    assert!(app.filter.is_empty(), "Esc clears a kept filter");
    assert!(!app.quit);
    press(&mut app, KeyCode::Esc);
    assert!(!app.quit, "Esc never quits");
    // While typing, the first Esc stops and clears at once, as the hint says.
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Char('q'));
    assert_eq!(app.filter, "q");
    press(&mut app, KeyCode::Esc);
    assert!(!app.filtering && app.filter.is_empty() && !app.quit);
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit, "q quits");
}

#[test]
fn overlays_open_close_and_block_navigation() {
    let mut app = fresh_app("default");
    press(&mut app, KeyCode::Char('?'));
    assert_eq!(app.overlay, Overlay::Help);
    assert!(
        !press(&mut app, KeyCode::Tab),
        "Tab does nothing under an overlay"
    );
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.overlay, Overlay::None);
    app.focus = Pane::Cards;
    press(&mut app, KeyCode::Char('e'));
    assert!(matches!(app.overlay, Overlay::ExplainCard(..)));
    // Knob shortcuts still work, so the explanation follows the change live.
    press(&mut app, KeyCode::Char('p'));
    assert_eq!(app.scenario.weights, WeightPrecision::Fp16);
    press(&mut app, KeyCode::Char('e'));
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn a_key_that_changes_nothing_asks_for_no_redraw() {
    let mut app = fresh_app("default");
    app.focus = Pane::Models;
    assert!(
        !press(&mut app, KeyCode::Left),
        "left means nothing in the model list"
    );
    assert!(!press(&mut app, KeyCode::F(9)));
    app.focus = Pane::Workload;
    app.knob = 0;
    assert!(!press(&mut app, KeyCode::Up), "already at the first row");
}

#[test]
fn bar_pane_moves_between_segments() {
    let mut app = fresh_app("default");
    app.focus = Pane::Bar;
    press(&mut app, KeyCode::Right);
    assert_eq!(app.segment, 1);
    press(&mut app, KeyCode::Left);
    press(&mut app, KeyCode::Left);
    assert_eq!(app.segment, app.bar_segments().len() - 1, "wraps around");
}

#[test]
fn mouse_click_focuses_and_selects() {
    let mut app = fresh_app("default");
    app.mouse = true;
    vramfit::tui::states::render(&mut app, 80, 24);
    // Row 2 of the model pane (y = 2 + 1 border).
    app.update(Action::Click(3, 4));
    assert_eq!(app.focus, Pane::Models);
    assert_eq!(app.model_cursor, app.model);
    app.update(Action::ScrollDown(60, 20));
    assert_eq!(app.focus, Pane::Cards);
    // The models pane heads each family: a click on a heading selects nothing, a click on
    // the model under it selects that model.
    let mut app = fresh_app("default");
    app.mouse = true;
    vramfit::tui::states::render(&mut app, 160, 48);
    let rows = app.model_rows();
    // The first heading on screen (the list opens scrolled to the selected model).
    let heading = app.model_offset
        + rows[app.model_offset..]
            .iter()
            .position(|r| matches!(r, vramfit::tui::app::ModelRow::Family(_)))
            .unwrap();
    let vramfit::tui::app::ModelRow::Model(under) = rows[heading + 1] else {
        panic!("a heading is followed by its first model")
    };
    let before = app.model;
    let offset = app.model_offset;
    let y = |row: usize| (row - offset + 2) as u16;
    app.update(Action::Click(3, y(heading)));
    assert_eq!(app.model, before);
    app.update(Action::Click(3, y(heading + 1)));
    assert_eq!(app.model, under);
}

#[test]
fn pin_a_compare_save_and_export() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("data-{}", std::process::id()));
    let mut app = fresh_app("default");
    app.data_dir = Some(dir.clone());
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.overlay, Overlay::None, "nothing pinned yet");
    assert!(app.status.as_deref().unwrap().contains("a pins"));
    press(&mut app, KeyCode::Char('a'));
    press(&mut app, KeyCode::Char('p'));
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.overlay, Overlay::Compare);
    let screen = vramfit::tui::states::render(&mut app, 160, 48);
    let text: String = screen.content().iter().map(|c| c.symbol()).collect();
    assert!(text.contains("A (pinned)") && text.contains("B (now)"));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('w'));
    let saved = dir.join("plans/llama-3.1-70b-inference-fp16.toml");
    assert!(saved.is_file(), "{:?}", app.status);
    let (_, scenario, _) = vramfit::planfile::PlanFile::load(&saved).unwrap();
    assert_eq!(scenario, app.scenario);
    press(&mut app, KeyCode::Char('x'));
    assert!(
        dir.join("exports/llama-3.1-70b-inference-fp16.svg").is_file(),
        "{:?}",
        app.status
    );
    assert!(dir.join("exports/llama-3.1-70b-inference-fp16.md").is_file());
}

#[test]
fn every_knob_is_reachable_for_its_method() {
    use vramfit::engine::Method as M;
    use vramfit::tui::app::Knob::*;
    let training = [
        TrainTokens,
        Epochs,
        Utilization,
        Hours,
        Currency,
        Rank,
        Optimizer,
        Zero,
        Offload,
    ];
    for method in [M::Full, M::Lora, M::Qlora] {
        let knobs = Knob::for_method(method);
        for k in training {
            assert!(knobs.contains(&k), "{method:?} lacks {k:?}");
        }
    }
    let serving = Knob::for_method(M::Inference);
    for k in [Kv, Prompt, Split, GpuUtil, Cards, Hours, Currency, Rank] {
        assert!(serving.contains(&k), "inference lacks {k:?}");
    }
    // Walk every row of a LoRA plan with the keys and change each one.
    let mut app = fresh_app("default");
    app.update(Action::CycleMethod);
    app.update(Action::CycleMethod);
    assert_eq!(app.scenario.method, M::Lora);
    app.focus = Pane::Workload;
    let rows = app.knobs().len();
    for _ in 0..rows {
        let before = (app.scenario.clone(), app.sort_by);
        press(&mut app, KeyCode::Right);
        assert_ne!(
            (app.scenario.clone(), app.sort_by),
            before,
            "row {} changed nothing",
            app.knob
        );
        press(&mut app, KeyCode::Down);
    }
}

#[test]
fn a_plan_for_an_imported_model_saves_its_path() {
    let path = format!("{}/tests/fixtures/hf/unknown-arch", env!("CARGO_MANIFEST_DIR"));
    let model = vramfit::catalog::hf::load(std::path::Path::new(&path)).unwrap();
    let catalog = vramfit::catalog::Catalog::embedded().unwrap();
    let theme = vramfit::tui::theme::Theme::embedded("default").unwrap();
    let mut app = App::new(catalog, theme, Some(model), None);
    assert_eq!(
        app.current_model().id,
        "unknown-arch",
        "the imported model comes first"
    );
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("imported-{}", std::process::id()));
    app.data_dir = Some(dir.clone());
    press(&mut app, KeyCode::Char('w'));
    let saved = dir.join("plans/unknown-arch-inference-bf16.toml");
    let (file, _, _) = vramfit::planfile::PlanFile::load(&saved).unwrap();
    assert_eq!(file.model, path);
}

#[test]
fn every_planner_step_lies_in_the_knobs_one_range() {
    use vramfit::engine::workload::scenario::ranges;
    use vramfit::tui::app::*;
    let whole = |steps: &[u64], r: vramfit::engine::workload::scenario::Range| {
        for s in steps.iter().filter(|s| **s > 0) {
            assert!(r.check(*s as f64).is_ok(), "{} step {s}", r.flag);
        }
    };
    whole(CONTEXT_STEPS, ranges::CONTEXT);
    whole(CONTEXT_STEPS, ranges::PROMPT);
    whole(BATCH_STEPS, ranges::BATCH);
    whole(RANK_STEPS, ranges::LORA_RANK);
    whole(CARD_STEPS, ranges::CARDS);
    whole(HOUR_STEPS, ranges::HOURS);
    whole(EPOCH_STEPS, ranges::EPOCHS);
    whole(TRAIN_TOKEN_STEPS, ranges::TRAIN_TOKENS);
    for u in UTILIZATION_STEPS {
        assert!(ranges::UTILIZATION.check(*u as f64 / 100.0).is_ok());
    }
    for u in GPU_UTIL_STEPS {
        assert!(ranges::GPU_UTIL.check(*u).is_ok());
    }
    // Stepping down from the bottom of a range stays in it.
    let mut app = fresh_app("default");
    let mut sc = app.scenario.clone();
    sc.method = Method::Lora;
    sc.rent.hours = 1.0;
    sc.rent.utilization = 0.01;
    sc.rent.train_tokens = Some(1_000_000);
    app.set_scenario(sc);
    for _ in 0..3 {
        app.change(Knob::Hours, false);
        app.change(Knob::Utilization, false);
    }
    assert!(app.scenario.check().is_ok(), "{:?}", app.scenario.check());
    assert_eq!(app.knob_value(Knob::Hours), "1 h (an hour)");
    assert_eq!(app.knob_value(Knob::Utilization), "1 % of peak");
}

#[test]
fn f_lists_what_would_fit_enter_applies_and_u_undoes() {
    let mut app = fresh_app("default");
    let mut sc = app.scenario.clone();
    sc.weights = WeightPrecision::Fp8;
    app.set_scenario(sc);
    let h100 = app.catalog.gpu_index("h100-pcie").unwrap();
    app.pin(Some((h100, 1)));
    assert!(!app.target().unwrap().verdict.is_fit());
    press(&mut app, KeyCode::Char('f'));
    assert_eq!(app.overlay, Overlay::ToFit);
    // The second change: the exact longest context.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.scenario.context, 5_504);
    assert_eq!(
        app.pinned,
        Some((h100, 1)),
        "the bar stays on the card being fitted"
    );
    assert!(app.target().unwrap().verdict.is_fit());
    assert!(
        app.status
            .as_deref()
            .unwrap()
            .contains("applied: context ≤ 5,504")
    );
    press(&mut app, KeyCode::Char('u'));
    assert_eq!(app.scenario.context, 8_192);
    assert!(!app.target().unwrap().verdict.is_fit());
}

/// Detection that failed (a tool that cannot reach the driver, a card no real card is):
/// nothing is planned on this machine's cards, and the status bar says why.
#[test]
fn a_failed_detection_is_said_in_the_status_bar() {
    let mut app = fresh_app("default");
    let cards = app.catalog.gpus.len();
    app.set_local(&vramfit::detect::Detection {
        failures: vec!["nvidia-smi failed (exit status: 9): NVIDIA-SMI has failed".into()],
        ..Default::default()
    });
    assert_eq!(app.catalog.gpus.len(), cards);
    assert!(app.local.is_none());
    assert_eq!(
        app.status.as_deref(),
        Some(
            "this machine's cards are not planned: nvidia-smi failed (exit status: 9): NVIDIA-SMI has failed"
        )
    );
    // No card and no failure: nothing to say.
    let mut app = fresh_app("default");
    app.set_local(&vramfit::detect::Detection::default());
    assert!(app.status.is_none() && app.local.is_none());
}

/// The machine you have, by keys: `+` on two cards makes a rig the bar is drawn against,
/// and the planner's rig option is the one `plan --gpu a,b` gives; the RAM row gives the
/// plan a host, and the card that then holds it says "+ RAM" as `plan --ram` does.
#[test]
fn a_rig_and_ram_by_keys_agree_with_plan() {
    let mut app = fresh_app("default");
    app.select_model("llama-3.3-70b");
    let mut sc = app.scenario.clone();
    sc.weights = WeightPrecision::Q4KM;
    vramfit::engine::Framework::LlamaCpp.apply(&mut sc);
    sc.weights = WeightPrecision::Q4KM;
    app.set_scenario(sc.clone());
    let (g4090, g3090) = (
        app.catalog.gpu_index("rtx-4090").unwrap(),
        app.catalog.gpu_index("rtx-3090").unwrap(),
    );
    for g in [g4090, g3090] {
        app.card_cursor = Some((g, 1));
        press(&mut app, KeyCode::Char('+'));
    }
    assert_eq!(app.rig, vec![(g4090, 1), (g3090, 1)]);
    let target = app.target().unwrap().clone();
    assert_eq!(target.rig, app.rig, "the bar is drawn against the rig");
    let planned = vramfit::engine::verdict::rig::plan_rig(
        app.current_model(),
        &app.catalog.gpus,
        &app.rig,
        &app.scenario,
    );
    assert_eq!(target.placement, planned.options[0].placement);
    assert_eq!(target.verdict, planned.options[0].verdict);
    assert_eq!(target.limits, planned.options[0].limits);
    app.card_cursor = Some((g3090, 1));
    press(&mut app, KeyCode::Char('-'));
    assert_eq!(app.rig, vec![(g4090, 1)]);
    press(&mut app, KeyCode::Char('-'));
    assert!(app.rig.is_empty());

    // The RAM row: 64 GB, and the 4090 now holds the plan with layers in RAM.
    app.focus = Pane::Workload;
    app.knob = app.knobs().iter().position(|k| *k == Knob::Ram).unwrap();
    for _ in 0..5 {
        press(&mut app, KeyCode::Right);
    }
    assert_eq!(app.scenario.host.as_ref().map(|h| h.ram_bytes), Some(64e9));
    let on_4090 = app.find_option(g4090, 1).unwrap();
    assert!(on_4090.spills() && on_4090.verdict.is_fit());
    let p = vramfit::engine::plan(app.current_model(), &app.catalog.gpus, &app.scenario, true);
    let same = p.options.iter().find(|o| o.gpu == g4090 && o.count == 1).unwrap();
    assert_eq!(on_4090.placement, same.placement);
    assert_eq!(on_4090.limits, same.limits);
}

/// A box with an RTX 4090 and an RTX 3090: the planner plans the two kinds together as a
/// rig (each on its own memory), not as one mean card.
#[test]
fn mixed_cards_found_here_are_planned_as_a_rig() {
    let mut app = fresh_app("default");
    app.select_model("llama-3.3-70b");
    let card = |index: u32, name: &str, mib: u64, id: &str| vramfit::detect::DetectedGpu {
        index,
        name: name.into(),
        memory_total_bytes: mib * 1_048_576,
        memory_used_bytes: 0,
        gtt_total_bytes: 0,
        driver: None,
        gpu: Some(id.into()),
        source: "nvidia-smi",
    };
    app.set_local(&vramfit::detect::Detection {
        gpus: vec![
            card(0, "NVIDIA GeForce RTX 4090", 24564, "rtx-4090"),
            card(1, "NVIDIA GeForce RTX 3090", 24576, "rtx-3090"),
        ],
        ..Default::default()
    });
    assert_eq!(app.rig.len(), 2, "two kinds, one card each");
    let target = app.target().unwrap();
    assert_eq!(target.rig, app.rig);
    let placed = target.placement.as_ref().unwrap();
    let gpus: Vec<&str> = placed.devices.iter().map(|d| d.device.as_str()).collect();
    assert_eq!(gpus, ["rtx-4090", "rtx-3090"]);
}
