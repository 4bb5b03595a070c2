//! Presets never leak: the planner's scenario after any sequence of key presses is the one
//! `plan` builds from the same flags (the framework, the method, and the knobs the user
//! turned). A value a preset set goes back when the preset goes; a value the user set stays.

use std::collections::HashMap;

use clap::Parser;
use proptest::prelude::*;
use vramfit::cli::{Cli, Command};
use vramfit::engine::runtimes::presets::Setting;
use vramfit::engine::workload::scenario::LoraTargets;
use vramfit::engine::{Choice, Framework, Method, Scenario, WeightPrecision};
use vramfit::tui::action::{Action, Pane};
use vramfit::tui::app::{App, Knob};
use vramfit::tui::states::fresh_app;

/// The scenario `vramfit plan --model <the app's model> FLAGS` plans, in the app's currency
/// (the CLI's default currency follows the language, which these tests do not set).
fn plan_with(app: &App, flags: &[String]) -> Scenario {
    let mut argv: Vec<String> = ["vramfit", "plan", "--model", &app.current_model().id]
        .iter()
        .map(|s| s.to_string())
        .collect();
    argv.extend(flags.iter().cloned());
    argv.extend(["--currency".into(), app.scenario.rent.display_currency.clone()]);
    let cli = Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    match cli.command {
        Some(Command::Plan(args)) => args.scenario().unwrap_or_else(|e| panic!("{argv:?}: {}", e.0)),
        _ => unreachable!("a plan command"),
    }
}

fn flags(pairs: &[(&str, &str)]) -> Vec<String> {
    pairs
        .iter()
        .flat_map(|(f, v)| [format!("--{f}"), v.to_string()])
        .collect()
}

/// Turn a workload row as a user does: focus the pane, move to the row, press → (or ←).
fn turn(app: &mut App, knob: Knob, up: bool) {
    app.update(Action::Focus(Pane::Workload));
    let row = app
        .knobs()
        .iter()
        .position(|k| *k == knob)
        .unwrap_or_else(|| panic!("{knob:?} is not shown for {:?}", app.scenario.method));
    app.update(Action::Home);
    for _ in 0..row {
        app.update(Action::Down);
    }
    assert_eq!(app.knobs()[app.knob], knob);
    app.update(if up { Action::Right } else { Action::Left });
}

/// Turn the Framework row until it shows `framework`.
fn framework_to(app: &mut App, framework: Framework) {
    for _ in 0..Framework::ALL.len() {
        if app.scenario.framework == framework {
            return;
        }
        turn(app, Knob::Framework, true);
    }
    assert_eq!(app.scenario.framework, framework);
}

/// Press `m` until the method is `method`.
fn method_to(app: &mut App, method: Method) {
    for _ in 0..Method::ALL.len() {
        if app.scenario.method == method {
            return;
        }
        app.update(Action::CycleMethod);
    }
    assert_eq!(app.scenario.method, method);
}

/// The plan's per-card total on the cheapest option, the number the bar and the title show.
fn total(app: &App, sc: &Scenario) -> f64 {
    vramfit::engine::plan(app.current_model(), &app.catalog.gpus, sc, true).total_bytes()
}

#[test]
fn ollama_then_generic_gives_back_the_context_and_batch() {
    let mut app = fresh_app("default");
    framework_to(&mut app, Framework::Ollama);
    assert_eq!((app.scenario.context, app.scenario.batch), (4096, 1));
    assert_eq!(app.scenario, plan_with(&app, &flags(&[("framework", "ollama")])));
    framework_to(&mut app, Framework::Generic);
    assert_eq!((app.scenario.context, app.scenario.batch), (8192, 1));
    assert_eq!(app.scenario, plan_with(&app, &[]));
    // A context the user set under Ollama is theirs: it stays when Ollama goes.
    framework_to(&mut app, Framework::Ollama);
    app.update(Action::ContextDown);
    assert_eq!(app.scenario.context, 2048);
    framework_to(&mut app, Framework::Generic);
    assert_eq!((app.scenario.context, app.scenario.batch), (2048, 1));
    assert_eq!(app.scenario, plan_with(&app, &flags(&[("context", "2048")])));
}

/// The Release row steps through the releases where the rules change; the plan is the one
/// `--framework vllm@0.33` gives, the newest is plain `--framework vllm`, and another
/// framework starts again at its newest.
#[test]
fn the_release_row_plans_what_the_framework_at_that_release_plans() {
    let mut app = fresh_app("default");
    framework_to(&mut app, Framework::Vllm);
    assert_eq!(app.scenario.release, None);
    turn(&mut app, Knob::Release, false);
    assert_eq!(
        app.scenario,
        plan_with(&app, &flags(&[("framework", "vllm@0.33")]))
    );
    turn(&mut app, Knob::Release, false);
    turn(&mut app, Knob::Release, false);
    assert_eq!(
        app.scenario,
        plan_with(&app, &flags(&[("framework", "vllm@0.26")]))
    );
    // vLLM 0.26 takes 92 % of the card (0.20 on); 0.34 leaves it unset, 1.0 with its
    // extensible cache.
    assert_eq!(app.scenario.gpu_util, 0.92);
    for _ in 0..20 {
        turn(&mut app, Knob::Release, true);
    }
    assert_eq!(app.scenario, plan_with(&app, &flags(&[("framework", "vllm")])));
    turn(&mut app, Knob::Release, false);
    framework_to(&mut app, Framework::LlamaCpp);
    assert_eq!(app.scenario.release, None);
    turn(&mut app, Knob::Release, false);
    turn(&mut app, Knob::Release, false);
    assert_eq!(
        app.scenario,
        plan_with(&app, &flags(&[("framework", "llama.cpp@b7079")]))
    );
    // A release older than the row's first (a plan file's vllm@0.4) steps up to it, not down.
    framework_to(&mut app, Framework::Vllm);
    let mut sc = app.scenario.clone();
    sc.release = Some(vramfit::engine::workload::version::Version::Release(0, 4, 0));
    vramfit::engine::runtimes::settle::settle(
        &mut sc,
        &vramfit::engine::runtimes::settle::UserSet::default(),
    );
    app.set_scenario(sc);
    turn(&mut app, Knob::Release, false);
    assert_eq!(
        app.scenario.release,
        Some(vramfit::engine::workload::version::Version::Release(0, 4, 0))
    );
    turn(&mut app, Knob::Release, true);
    assert_eq!(
        app.scenario,
        plan_with(&app, &flags(&[("framework", "vllm@0.6")]))
    );
    // The generic rules have no release: no row.
    framework_to(&mut app, Framework::Generic);
    assert!(!app.knobs().contains(&Knob::Release));
}

/// A method the runtime cannot run falls back to the generic rules, and the runtime's release
/// goes with it (found by the key-sequence property test: llama.cpp at b7437, then a full
/// fine-tune, printed `--framework generic@b7437`, which `plan` refuses).
#[test]
fn a_method_change_to_the_generic_rules_leaves_the_release_behind() {
    let mut app = fresh_app("default");
    framework_to(&mut app, Framework::LlamaCpp);
    turn(&mut app, Knob::Release, false);
    assert!(app.scenario.release.is_some());
    while app.scenario.method != vramfit::engine::Method::Full {
        turn(&mut app, Knob::Method, true);
    }
    assert_eq!(app.scenario.framework, Framework::Generic);
    assert_eq!(app.scenario.release, None);
    assert_eq!(app.scenario, plan_with(&app, &flags(&[("method", "full")])));
}

#[test]
fn unsloth_then_generic_gives_back_the_attention_targets() {
    let mut app = fresh_app("default");
    method_to(&mut app, Method::Lora);
    framework_to(&mut app, Framework::Unsloth);
    assert_eq!(app.scenario.lora_targets, LoraTargets::All);
    framework_to(&mut app, Framework::Generic);
    assert_eq!(app.scenario.lora_targets, LoraTargets::Attention);
    assert_eq!(app.scenario, plan_with(&app, &flags(&[("method", "lora")])));
}

#[test]
fn transformers_then_deepspeed_checkpoints_as_deepspeed_does() {
    let mut app = fresh_app("default");
    method_to(&mut app, Method::Full);
    framework_to(&mut app, Framework::Transformers);
    assert!(!app.scenario.checkpointing, "the HF Trainer's default");
    framework_to(&mut app, Framework::Deepspeed);
    assert!(app.scenario.checkpointing);
    let cli = plan_with(&app, &flags(&[("method", "full"), ("framework", "deepspeed")]));
    assert_eq!(app.scenario, cli);
    // The bar's total is the CLI's, to the byte.
    assert_eq!(app.plan.total_bytes(), total(&app, &cli));
    // Checkpointing the user turned off under Transformers stays off under DeepSpeed.
    framework_to(&mut app, Framework::Transformers);
    turn(&mut app, Knob::Checkpointing, true);
    turn(&mut app, Knob::Checkpointing, false);
    framework_to(&mut app, Framework::Deepspeed);
    assert!(!app.scenario.checkpointing);
    assert_eq!(
        app.scenario,
        plan_with(
            &app,
            &flags(&[
                ("method", "full"),
                ("framework", "deepspeed"),
                ("checkpointing", "off")
            ])
        )
    );
}

#[test]
fn four_presses_of_m_come_back_to_the_weights_and_context_the_user_set() {
    let mut app = fresh_app("default");
    // FP16 then back to BF16 on the Weights row; the context up to 16,384.
    app.update(Action::CycleWeights);
    turn(&mut app, Knob::Weights, false);
    app.update(Action::ContextUp);
    assert_eq!(
        (app.scenario.weights, app.scenario.context),
        (WeightPrecision::Bf16, 16384)
    );
    let mut seen = Vec::new();
    for _ in 0..4 {
        app.update(Action::CycleMethod);
        seen.push((app.scenario.method, app.scenario.weights, app.scenario.context));
    }
    use WeightPrecision::*;
    assert_eq!(
        seen,
        [
            (Method::Full, Bf16, 16384),
            (Method::Lora, Bf16, 16384),
            // QLoRA cannot take a BF16 base: its NF4 stands in, the user's BF16 waits.
            (Method::Qlora, Nf4, 16384),
            (Method::Inference, Bf16, 16384),
        ]
    );
    assert_eq!(
        app.scenario,
        plan_with(&app, &flags(&[("weights", "bf16"), ("context", "16384")]))
    );
    // Untouched, the context follows each method's default (2,048 to train, 8,192 to serve).
    let mut app = fresh_app("default");
    app.update(Action::CycleMethod);
    assert_eq!(app.scenario.context, 2048);
    for _ in 0..3 {
        app.update(Action::CycleMethod);
    }
    assert_eq!((app.scenario.weights, app.scenario.context), (Bf16, 8192));
}

/// What a key press does, for the property test.
#[derive(Debug, Clone, Copy)]
enum Press {
    /// A one-key action that works from any pane.
    Key(Action),
    /// A workload row turned (skipped when the row is not shown).
    Row(Knob, bool),
}

fn presses() -> impl Strategy<Value = Press> {
    let keys = prop::sample::select(vec![
        Action::CycleMethod,
        Action::CycleWeights,
        Action::CycleKv,
        Action::ContextUp,
        Action::ContextDown,
        Action::BatchUp,
        Action::BatchDown,
    ]);
    let rows = prop::sample::select(vec![
        Knob::Framework,
        Knob::Framework,
        Knob::Framework,
        Knob::Release,
        Knob::Weights,
        Knob::Kv,
        Knob::LoraTargets,
        Knob::Optimizer,
        Knob::Precision,
        Knob::Checkpointing,
        Knob::ActivationOffload,
        Knob::FlashAttention,
        Knob::FusedCe,
        Knob::Zero,
        Knob::Cards,
        Knob::Split,
        Knob::MaxBatchedTokens,
        Knob::MaxNumSeqs,
        Knob::Ubatch,
        Knob::GpuUtil,
    ]);
    prop_oneof![
        keys.prop_map(Press::Key),
        (rows, any::<bool>()).prop_map(|(k, up)| Press::Row(k, up)),
    ]
}

/// The row a one-key action turns.
fn row_of(action: Action) -> Option<Knob> {
    match action {
        Action::CycleWeights => Some(Knob::Weights),
        Action::CycleKv => Some(Knob::Kv),
        Action::ContextUp | Action::ContextDown => Some(Knob::Context),
        Action::BatchUp | Action::BatchDown => Some(Knob::Batch),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn any_key_sequence_plans_what_the_same_flags_plan(seq in prop::collection::vec(presses(), 1..14)) {
        let mut app = fresh_app("default");
        // The value each knob had right after the user last turned it.
        let mut chosen: HashMap<&'static str, Setting> = HashMap::new();
        for p in seq {
            let knob = match p {
                Press::Key(a) => {
                    app.update(a);
                    row_of(a)
                }
                Press::Row(k, up) => {
                    if !app.knobs().contains(&k) {
                        continue;
                    }
                    turn(&mut app, k, up);
                    Some(k)
                }
            };
            if let Some(s) = knob.and_then(|k| k.setting(&app.scenario)) {
                chosen.insert(s.flag(), s);
            }
        }
        let sc = &app.scenario;
        // A value the user set stays (a weight format the method cannot use waits).
        for s in chosen.values() {
            let now = Setting::all_of(sc).into_iter().find(|n| n.same_knob(*s)).unwrap();
            if let Setting::Weights(w) = s {
                let mut trial = sc.clone();
                trial.weights = *w;
                if trial.check_combination().is_err() {
                    prop_assert_eq!(sc.weights, sc.method.default_weights());
                    continue;
                }
            }
            // A KV format the runtime has no cache for waits too (bf16 chosen, then Ollama).
            if let Setting::Kv(k) = s
                && !sc.framework.has_kv(*k)
            {
                prop_assert!(sc.framework.has_kv(sc.kv), "{:?} under {:?}", sc.kv, sc.framework);
                continue;
            }
            // Flash attention off waits under llama.cpp's block-quantized cache.
            if *s == Setting::FlashAttention(false)
                && sc.framework.is_ggml()
                && matches!(sc.kv, vramfit::engine::KvPrecision::Q8_0 | vramfit::engine::KvPrecision::Q4_0)
            {
                prop_assert!(sc.flash_attention);
                continue;
            }
            // And a split it cannot make (a tensor split, then Ollama).
            if let Setting::Split(split) = s
                && !sc.framework.has_split(*split)
            {
                prop_assert!(sc.framework.has_split(sc.split), "{:?} under {:?}", sc.split, sc.framework);
                continue;
            }
            prop_assert_eq!(now, *s);
        }
        // The same flags give the same scenario: every value nobody set is plan's default.
        let mut args = flags(&[
            ("method", sc.method.id()),
            (
                "framework",
                &vramfit::engine::workload::version::runtime_id(sc.framework, sc.release),
            ),
            ("cards", &sc.cards.to_string()),
        ]);
        for flag in chosen.keys() {
            let now = Setting::all_of(sc).into_iter().find(|n| n.flag() == *flag).unwrap();
            args.extend([format!("--{flag}"), now.value()]);
        }
        let cli = plan_with(&app, &args);
        prop_assert_eq!(&app.scenario, &cli, "flags {:?}", args);
    }
}
