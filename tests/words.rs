//! The smaller wrong words and figures of issue 21, each as a user met it: prices in the
//! chosen currency, the right phrase for the card count, sentences with no "none" inside,
//! saves that keep earlier saves, a plan file's unknown card, the closest options when
//! nothing fits, "cheapest" only for a priced option, llama.cpp's and Ollama's slots, no
//! "-0.0", and Chinese errors in Chinese.

mod common;

use vramfit::catalog::Catalog;
use vramfit::engine::verdict::rank::SortBy;
use vramfit::engine::{Method, Scenario, WeightPrecision, plan};
use vramfit::lang::Lang;
use vramfit::present::explain::explain_option;
use vramfit::tui::action::Action;
use vramfit::tui::app::{App, Overlay};
use vramfit::tui::states::fresh_app;

/// The language is one setting for the process: tests that draw or explain hold this.
static LANGUAGE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn in_lang<T>(lang: Lang, f: impl FnOnce() -> T) -> T {
    let _held = LANGUAGE.lock().unwrap_or_else(|e| e.into_inner());
    lang.make_current();
    let out = f();
    Lang::En.make_current();
    out
}

/// The explain lines of `card` × `count` for `sc` on `model`.
fn explain(model: &str, sc: &Scenario, card: &str, count: u32) -> Vec<String> {
    let catalog = Catalog::embedded().unwrap();
    let m = catalog.model(model).unwrap();
    let p = plan(m, &catalog.gpus, sc, true);
    let g = catalog.gpu_index(card).unwrap();
    let o = p
        .options
        .iter()
        .find(|o| o.gpu == g && o.count == count)
        .unwrap_or_else(|| panic!("no {count}× {card}"));
    explain_option(m, &catalog.gpus[g], o, &p, sc)
}

/// The screen as text, a wide character once (not followed by its continuation cell).
fn screen(app: &mut App, w: u16, h: u16) -> String {
    let buf = vramfit::tui::states::render(app, w, h);
    let mut text = String::new();
    for y in 0..h {
        let mut x = 0;
        while x < w {
            let s = buf[(x, y)].symbol();
            text.push_str(s);
            x += vramfit::text::width(s).max(1) as u16;
        }
        text.push('\n');
    }
    text
}

/// An empty folder of this test's own.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("words-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = common::vramfit().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn explain_prices_in_yuan_when_the_screen_does() {
    let mut sc = Scenario::seed_inference(WeightPrecision::Bf16).calibrated();
    sc.rent.display_currency = "CNY".into();
    for lang in [Lang::En, Lang::Zh] {
        let lines = in_lang(lang, || explain("llama-3.1-8b", &sc, "rtx-4090", 1));
        // The month's rent and the monthly price, both in yuan (here a yuan offer:
        // 1.24 CNY/hour × 720 h = ¥892.80).
        assert!(
            lines
                .iter()
                .any(|l| l.contains("720 h → ¥892.80") || l.contains("720 小时 → ¥892.80")),
            "{lang:?}: {lines:#?}"
        );
        assert!(
            lines.iter().any(|l| l.contains("¥893") && l.contains("¥1.24")),
            "{lines:#?}"
        );
        assert!(!lines.iter().any(|l| l.contains('$')), "{lang:?}: {lines:#?}");
    }
    // In dollars: a dollar offer, its month in dollars, no yuan sign anywhere.
    sc.rent.display_currency = "USD".into();
    let lines = in_lang(Lang::En, || explain("llama-3.1-8b", &sc, "rtx-4090", 1));
    assert!(
        lines.iter().any(|l| l.starts_with("rent: ") && l.contains("→ $")),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains('¥')), "{lines:#?}");
}

#[test]
fn the_requirement_names_the_plan_on_one_card_only_when_there_is_one() {
    let one = Scenario {
        weights: WeightPrecision::Int4,
        ..Scenario::seed_inference(WeightPrecision::Int4).calibrated()
    };
    // Drawn for one card, judged on two: the one-card plan is the plan's own total.
    let lines = in_lang(Lang::En, || explain("llama-3.1-70b", &one, "rtx-4090", 2));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("on 2 cards (the plan on one card: 45.64 GB)")),
        "{lines:#?}"
    );
    // Drawn for two cards: 23.44 GB is each card's share, not the plan on one card.
    let two = Scenario { cards: 2, ..one };
    let lines = in_lang(Lang::En, || explain("llama-3.1-70b", &two, "rtx-4090", 2));
    let requirement = lines.iter().find(|l| l.starts_with("requirement")).unwrap();
    assert_eq!(
        requirement,
        "requirement (Inference, calibrated rules): 23.44 GB per card on 2 cards"
    );
    let zh = in_lang(Lang::Zh, || explain("llama-3.1-70b", &two, "rtx-4090", 2));
    assert!(zh.iter().any(|l| l.contains("每卡 23.44 GB，共 2 卡")), "{zh:#?}");
    assert!(!zh.iter().any(|l| l.contains("单卡放整个方案")), "{zh:#?}");
}

/// Llama 3.1 8B LoRA at 2,048 on one L4 fits but is tight at batch 1: no batch is
/// comfortable, so the overlay says how far the sequence may go and nothing about a batch.
#[test]
fn the_to_fit_overlay_never_prints_none_inside_a_sentence() {
    let open = |app: &mut App| {
        app.select_model("llama-3.1-8b");
        app.set_scenario(Scenario::seed_training(Method::Lora).calibrated());
        let l4 = app.catalog.gpu_index("l4").unwrap();
        app.pin(Some((l4, 1)));
        app.update(Action::ToFit);
        assert_eq!(app.overlay, Overlay::ToFit);
    };
    let text = in_lang(Lang::En, || {
        let mut app = fresh_app("default");
        open(&mut app);
        screen(&mut app, 120, 40)
    });
    assert!(
        text.contains("tight at this batch; comfortable only up to sequence 1,214"),
        "{text}"
    );
    assert!(!text.contains("none"), "{text}");
    let text = in_lang(Lang::Zh, || {
        let mut app = fresh_app("default");
        open(&mut app);
        screen(&mut app, 120, 40)
    });
    assert!(text.contains("不超过 1,214 才宽裕"), "{text}");
    assert!(!text.contains("批大小到 无"), "{text}");
}

#[test]
fn a_second_save_gets_a_new_name_and_keeps_the_first() {
    let dir = scratch("save");
    let mut app = fresh_app("default");
    app.data_dir = Some(dir.clone());
    vramfit::tui::handle(&mut app, Action::Save);
    vramfit::tui::handle(&mut app, Action::ContextUp);
    vramfit::tui::handle(&mut app, Action::Save);
    let plans = dir.join("plans");
    let first = plans.join("llama-3.1-70b-inference-bf16.toml");
    let second = plans.join("llama-3.1-70b-inference-bf16-2.toml");
    let (_, a, _) = vramfit::planfile::PlanFile::load(&first).unwrap();
    let (_, b, _) = vramfit::planfile::PlanFile::load(&second).unwrap();
    assert_eq!((a.context, b.context), (8192, 16384));
    assert!(
        app.status.as_deref().unwrap().contains("-2.toml"),
        "{:?}",
        app.status
    );
    // Nothing else is left behind (no temporary files).
    assert_eq!(std::fs::read_dir(&plans).unwrap().count(), 2);
    // Exports too: two presses of x, two SVGs with their Markdown.
    vramfit::tui::handle(&mut app, Action::Export);
    vramfit::tui::handle(&mut app, Action::Export);
    let exports = dir.join("exports");
    for name in [
        "llama-3.1-70b-inference-bf16.svg",
        "llama-3.1-70b-inference-bf16.md",
        "llama-3.1-70b-inference-bf16-2.svg",
        "llama-3.1-70b-inference-bf16-2.md",
    ] {
        assert!(exports.join(name).is_file(), "{name}");
    }
    assert_eq!(std::fs::read_dir(&exports).unwrap().count(), 4);
}

#[test]
fn a_plan_file_naming_an_unknown_card_is_an_error_that_names_both() {
    let path = scratch("unknown-card").join("shared.toml");
    let sc = Scenario::seed_inference(WeightPrecision::Bf16).calibrated();
    vramfit::planfile::PlanFile::new("llama-3.1-8b", &sc, SortBy::Price, Some(("rtx-9999", 1)))
        .save(&path)
        .unwrap();
    let p = path.to_str().unwrap();
    let (code, _, err) = run(&["--no-detect", "--open", p]);
    assert_eq!(code, Some(2));
    assert!(err.contains("shared.toml") && err.contains("'rtx-9999'"), "{err}");
    assert!(err.contains("vramfit gpus"), "{err}");
    let (code, _, err) = run(&["--lang", "zh", "--no-detect", "--open", p]);
    assert_eq!(code, Some(2));
    assert!(err.contains("未知显卡 “rtx-9999”"), "{err}");
}

#[test]
fn plan_with_nothing_fitting_lists_the_closest_options_marked_no() {
    let (code, out, _) = run(&[
        "plan",
        "--model",
        "llama-3.1-405b",
        "--context",
        "1000000",
        "--batch",
        "64",
    ]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("(nothing fits: the 5 closest, none of them holds the plan)"),
        "{out}"
    );
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("  no ")).collect();
    assert_eq!(rows.len(), 5, "{out}");
    // Closest first: each row is further short than the one above.
    let short: Vec<f64> = rows
        .iter()
        .map(|r| {
            let words: Vec<&str> = r.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "GB").unwrap();
            words[at - 1].replace(',', "").parse::<f64>().unwrap()
        })
        .collect();
    assert!(short.windows(2).all(|w| w[0] >= w[1]), "{short:?}");
    assert!(out.contains("Nothing in the catalog holds this plan"), "{out}");
    // One card named: its closest count.
    let (_, out, _) = run(&["plan", "--model", "llama-3.1-405b", "--gpu", "rtx-4090"]);
    assert!(out.contains("  no     8× GeForce RTX 4090"), "{out}");
}

#[test]
fn cheapest_fit_names_only_a_priced_option() {
    // The GB200 has no offer in the catalog: it fits, but nothing priced does.
    let (_, out, _) = run(&["plan", "--model", "llama-3.1-8b", "--gpu", "gb200"]);
    assert!(
        out.contains(
            "No option that fits has a price in the catalog; NVIDIA GB200 (per GPU) holds the plan."
        ),
        "{out}"
    );
    assert!(!out.contains("Cheapest fit"), "{out}");
    // Ranked by fewest cards, an unpriced single card comes first; the cheapest fit line
    // still names a priced option, with its price.
    let (_, out, _) = run(&["plan", "--model", "llama-3.1-70b", "--sort", "cards"]);
    let line = out.lines().find(|l| l.starts_with("Cheapest fit")).unwrap();
    assert!(line.contains(" at $") && line.ends_with("/month"), "{line}");
    // The planner's title too.
    let text = in_lang(Lang::En, || {
        let mut app = fresh_app("default");
        app.select_model("llama-3.1-8b");
        app.catalog.gpus.retain(|g| g.id == "gb200" || g.id == "mi355x");
        app.set_scenario(app.scenario.clone());
        screen(&mut app, 120, 40)
    });
    assert!(
        text.lines().next().unwrap().contains("no priced option fits"),
        "{text}"
    );
}

#[test]
fn llama_cpp_and_ollama_show_their_fixed_slots() {
    let (_, out, _) = run(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--framework",
        "ollama@0.9",
        "--gpu",
        "rtx-4090",
    ]);
    let row = out.lines().find(|l| l.contains("GeForce RTX 4090")).unwrap();
    assert!(row.contains(" 2 slots"), "{row}");
    let (_, out, _) = run(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--framework",
        "llama.cpp",
        "--gpu",
        "rtx-4090",
    ]);
    let row = out.lines().find(|l| l.contains("GeForce RTX 4090")).unwrap();
    assert!(row.contains(" 1 slot"), "{row}");
    // The JSON says the same.
    let (_, json, _) = run(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--framework",
        "ollama@0.9",
        "--gpu",
        "rtx-4090",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["options"][0]["max_concurrent_sequences"], 2);
    // vLLM's paged pool: as many sequences as the budget holds.
    let (_, out, _) = run(&[
        "plan",
        "--model",
        "llama-3.1-8b",
        "--framework",
        "vllm",
        "--gpu",
        "rtx-4090",
    ]);
    let row = out.lines().find(|l| l.contains("GeForce RTX 4090")).unwrap();
    assert!(!row.contains("slot"), "{row}");
    // Explain says why.
    let mut sc = Scenario::seed_inference(WeightPrecision::Q4KM).calibrated();
    sc.release = Some(vramfit::engine::workload::version::Version::Release(0, 9, 0));
    vramfit::engine::Framework::Ollama.apply(&mut sc);
    let lines = in_lang(Lang::En, || explain("llama-3.1-8b", &sc, "rtx-4090", 1));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Ollama 0.9 serves 2 sequence(s) at once")
                && l.contains("OLLAMA_NUM_PARALLEL")),
        "{lines:#?}"
    );
}

#[test]
fn a_no_never_sits_beside_a_free_of_zero() {
    // One token past the longest context an RTX 4090 holds for Llama 3.1 8B: a shortfall
    // of a fraction of a megabyte, far below the last digit shown. It reads -0.1 in the
    // cards pane and 0.01 short at the bar's foot, never -0.0 or 0.00 short.
    let mut app = fresh_app("default");
    app.select_model("llama-3.1-8b");
    let g = app.catalog.gpu_index("rtx-4090").unwrap();
    let free_at = |app: &mut App, context: u64| {
        let mut sc = app.scenario.clone();
        sc.context = context;
        app.set_scenario(sc);
        app.find_option(g, 1).unwrap().free_bytes_per_card
    };
    let (mut fits, mut short) = (8192u64, 1_048_576u64);
    assert!(free_at(&mut app, fits) >= 0.0 && free_at(&mut app, short) < 0.0);
    while short - fits > 1 {
        let mid = (fits + short) / 2;
        if free_at(&mut app, mid) >= 0.0 {
            fits = mid;
        } else {
            short = mid;
        }
    }
    let free = free_at(&mut app, short);
    assert!(free < 0.0 && free > -5e6, "{free}");
    let o = app.find_option(g, 1).unwrap().clone();
    assert!(!o.verdict.is_fit(), "{o:?}");
    app.pin(Some((g, 1)));
    let text = in_lang(Lang::En, || screen(&mut app, 120, 40));
    assert!(!text.contains("-0.0"), "{text}");
    assert!(text.contains("0.01 short · ✗ no"), "{text}");
    assert!(!text.contains("0.00 short"), "{text}");
    let row = text
        .lines()
        .find(|l| l.contains("✗ no") && l.contains("GeForce RTX 4090"))
        .unwrap();
    assert!(row.contains(" -0.1 "), "{row}");
    // `vramfit fit` at that context: "0.01 GB short", not "0.00 GB short".
    let (_, out, _) = run(&[
        "fit",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        "rtx-4090",
        "--context",
        &short.to_string(),
    ]);
    assert!(out.contains(", 0.01 GB short"), "{out}");
}

/// Bad input under `--lang zh`: every message reaches a Chinese reader in Chinese (flags,
/// ids and values stay as typed), and the flag is named as it is spelled.
#[test]
fn chinese_errors_are_chinese_and_name_the_flags_right() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--train-tokens", "0"],
            "--train-tokens 必须在 1 到 1000000000000000 token 之间",
        ),
        (&["--sort", "finish"], "--sort finish 需要 --train-tokens N"),
        (
            &["--method", "qlora", "--weights", "bf16"],
            "QLoRA 把冻结的基座量化到 4 位，不能用 BF16",
        ),
        (
            &["--method", "lora", "--weights", "int4"],
            "（4 位基座请用 --method qlora）",
        ),
        (
            &["--method", "full", "--weights", "int4"],
            "全参微调用 16 位或 32 位权重训练",
        ),
        (
            &["--method", "full", "--framework", "vllm"],
            "vLLM 只做推理服务，不做微调",
        ),
        (&["--framework", "deepspeed"], "DeepSpeed 用于微调，不做推理服务"),
        (
            &["--method", "full", "--weights", "q4_k_m"],
            "Q4_K_M 是 llama.cpp 的推理格式",
        ),
        (&["--reduce-bucket-size", "0"], "100000000000 个元素 之间"),
        (&["--max-batched-tokens", "0"], "--max-batched-tokens 必须在"),
    ];
    let english = [
        "needs",
        "trains in",
        "serves models",
        "is for fine-tuning",
        "inference format",
        "must be",
        "elements",
        "pick one",
    ];
    for (flags, expected) in cases {
        let mut args = vec!["--lang", "zh", "plan", "--model", "llama-3.1-8b"];
        args.extend_from_slice(flags);
        let (code, _, err) = run(&args);
        assert_eq!(code, Some(2), "{flags:?}");
        assert!(err.contains(expected), "{flags:?}: {err}");
        for w in english {
            assert!(!err.contains(w), "{flags:?}: English {w:?} left in {err}");
        }
        assert!(
            !err.contains("--train-token ") && !err.contains("--train-token<"),
            "{err}"
        );
    }
    // A plan file's bad values.
    let dir = scratch("zh-plan-file");
    let sc = Scenario::seed_inference(WeightPrecision::Bf16).calibrated();
    let good = vramfit::planfile::PlanFile::new("llama-3.1-8b", &sc, SortBy::Price, None).to_toml();
    for (from, to, expected) in [
        (
            "weights = \"bf16\"",
            "weights = \"bf17\"",
            "weights = \"bf17\" 不是以下之一：",
        ),
        (
            "flash-attention = true",
            "flash-attention = \"yes\"",
            "应为布尔值（true 或 false）",
        ),
        ("method = \"inference\"", "method = 3", "应为字符串"),
    ] {
        assert!(good.contains(from), "{good}");
        let path = dir.join("bad.toml");
        std::fs::write(&path, good.replace(from, to)).unwrap();
        let (code, _, err) = run(&["--lang", "zh", "--no-detect", "--open", path.to_str().unwrap()]);
        assert_eq!(code, Some(2));
        assert!(err.contains(expected), "{err}");
        assert!(
            !err.contains("is not one of") && !err.contains("expected a"),
            "{err}"
        );
    }
    // The parsers' own words: a broken config.json, a broken catalog file.
    for (name, body, expected) in [
        ("model.json", "{\"a\" 1}", "JSON 无效：应为 `:`"),
        ("model.json", "{", "JSON 无效：对象没写完文件就结束了"),
        ("cards.toml", "a = 1 b = 2", "多余的键或值，应为换行或 `#`"),
        ("cards.toml", "a = {b = 1", "内联表没有闭合，应为 `}`"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        let p = path.to_str().unwrap();
        let args: Vec<&str> = if name.ends_with(".json") {
            vec!["--lang", "zh", "plan", "--model", p]
        } else {
            vec!["--lang", "zh", "--catalog", p, "gpus"]
        };
        let (code, _, err) = run(&args);
        assert_eq!(code, Some(2), "{body}");
        assert!(err.contains(expected), "{body}: {err}");
        assert!(!err.contains("expected") && !err.contains("EOF"), "{err}");
    }
}
