//! The two languages: every message in both with the same placeholders, every key the code
//! asks for present, and the plan in Chinese with no English UI words left.

use std::collections::{BTreeMap, BTreeSet};

use assert_cmd::Command;

fn messages(locale: &str) -> BTreeMap<String, String> {
    vramfit::_rust_i18n_backend()
        .messages_for_locale(locale)
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn placeholders(text: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"%\{(\w+)\}").unwrap();
    re.captures_iter(text).map(|c| c[1].to_string()).collect()
}

#[test]
fn both_languages_have_every_key_with_the_same_placeholders() {
    let en = messages("en");
    let zh = messages("zh");
    assert!(en.len() > 50, "{} English messages", en.len());
    let en_keys: BTreeSet<_> = en.keys().collect();
    let zh_keys: BTreeSet<_> = zh.keys().collect();
    assert_eq!(
        en_keys.symmetric_difference(&zh_keys).collect::<Vec<_>>(),
        Vec::<&&String>::new(),
        "keys in one language only"
    );
    for (key, text) in &en {
        assert_eq!(
            placeholders(text),
            placeholders(&zh[key]),
            "placeholders of {key}"
        );
        assert!(!zh[key].is_empty(), "{key} is empty in Chinese");
    }
}

/// Every `tr!("key"…)` and `tr_in!(lang, "key"…)` in the source names a message that exists.
#[test]
fn every_key_the_code_asks_for_exists() {
    let en = messages("en");
    let re = regex::Regex::new(r#"tr(?:_in)?!\(\s*(?:\w+,\s*)?"([\w.]+)""#).unwrap();
    let mut asked = 0;
    let mut stack = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src"
    ))];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let source = std::fs::read_to_string(&path).unwrap();
                for c in re.captures_iter(&source) {
                    asked += 1;
                    assert!(
                        en.contains_key(&c[1]),
                        "{}: no message '{}'",
                        path.display(),
                        &c[1]
                    );
                }
            }
        }
    }
    assert!(asked > 70, "{asked} keys asked for");
}

mod common;
use common::vramfit_in as vramfit;

fn stdout(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Latin words that may stay in Chinese text: units, format and framework names, config keys
/// and flags, and the words of the catalog's own card and model names.
fn allowed_words() -> BTreeSet<String> {
    let fixed = "GB GiB B/token token FP16 BF16 FP8 NF4 KV CUDA PCIe Gen Gen3 Gen4 logits head_dim \
                 gpu_memory_utilization max_position_embeddings MLP FlashAttention AdamW ZeRO LoRA \
                 QLoRA RoPE PEFT fp32 bf16 all-reduce vramfit fit gpu ID all NVLink NVSwitch NVLink/NVSwitch GB/s Gb/s t/s Gen5 ZeRO-3 \
                 d_in d_out RoCE Infinity Fabric INT4 g128 q8_0 q4_0";
    let mut words: BTreeSet<String> = fixed.split_whitespace().map(str::to_lowercase).collect();
    let catalog = vramfit::catalog::Catalog::embedded().unwrap();
    let names = catalog
        .gpus
        .iter()
        .map(|g| g.name.clone())
        .chain(catalog.models.iter().flat_map(|m| [m.name.clone(), m.id.clone()]));
    for name in names {
        for w in latin_words(&name) {
            words.insert(w.to_lowercase());
        }
    }
    words
}

fn latin_words(text: &str) -> Vec<String> {
    let re = regex::Regex::new(r"[A-Za-z][A-Za-z0-9_\-/]*[A-Za-z0-9]").unwrap();
    re.find_iter(text).map(|m| m.as_str().to_string()).collect()
}

fn english_left(text: &str) -> Vec<String> {
    let allowed = allowed_words();
    let mut left: Vec<String> = latin_words(text)
        .into_iter()
        .filter(|w| !allowed.contains(&w.to_lowercase()))
        // ids and flags are written with hyphens and dots (llama-3.1-8b, --all)
        .filter(|w| w.len() > 1)
        .collect();
    left.sort();
    left.dedup();
    left
}

#[test]
fn the_plan_in_chinese_has_no_english_ui_words() {
    let text = stdout(vramfit("zh_CN.UTF-8").args(["plan", "--model", "llama-3.1-8b"]));
    assert!(text.contains("推理"), "{text}");
    assert!(
        text.contains("最便宜的可行方案：GeForce RTX 4090，¥893/月"),
        "{text}"
    );
    assert_eq!(english_left(&text), Vec::<String>::new(), "{text}");
    // A fine-tune over two cards: the training formulas and notes too.
    let text = stdout(vramfit("zh_CN.UTF-8").args([
        "plan",
        "--model",
        "llama-3.1-70b",
        "--method",
        "qlora",
        "--cards",
        "2",
        "--all",
    ]));
    assert!(text.contains("可训练参数"), "{text}");
    assert_eq!(english_left(&text), Vec::<String>::new(), "{text}");
}

/// `vramfit fit` in Chinese: the advice's words translated, its flags left as typed, and the
/// JSON's change labels and notes still English.
#[test]
fn the_advice_in_chinese() {
    let args = [
        "fit",
        "--model",
        "llama-3.1-70b",
        "--weights",
        "int4",
        "--gpu",
        "rtx-4090",
        "--cards",
        "2",
    ];
    let text = stdout(vramfit("zh_CN.UTF-8").args(args));
    assert!(
        text.contains("现在：放不下 —— 每卡需要 23.44 GB，可用 22.73 GB，差 0.71 GB"),
        "{text}"
    );
    assert!(text.contains("上下文 ≤ 5,920"), "{text}");
    // Flags are what the user types: `--kv q4_0` stays as it is.
    let flags = regex::Regex::new(r"--[a-z-]+ \S+").unwrap();
    assert!(text.contains("--kv q4_0"), "{text}");
    let words = flags.replace_all(&text, "");
    assert_eq!(english_left(&words), Vec::<String>::new(), "{text}");
    let json = stdout(vramfit("zh_CN.UTF-8").args(args).arg("--json"));
    assert!(json.contains("\"change\": \"context ≤ 5,920\""), "{json}");
    assert!(json.contains("\"note\": \"shorter context\""), "{json}");
}

#[test]
fn the_flag_beats_the_locale_and_chinese_prices_in_yuan() {
    let en = stdout(vramfit("zh_CN.UTF-8").args(["--lang", "en", "plan", "--model", "llama-3.1-8b"]));
    assert!(
        en.contains("Cheapest fit: GeForce RTX 4090 at $124/month"),
        "{en}"
    );
    let zh = stdout(vramfit("C").args(["--lang", "zh", "plan", "--model", "llama-3.1-8b"]));
    assert!(zh.contains("¥/月"), "{zh}");
    let usd = stdout(vramfit("zh_CN.UTF-8").args(["plan", "--model", "llama-3.1-8b", "--currency", "USD"]));
    assert!(usd.contains("$/月") && usd.contains("$124/月"), "{usd}");
    // LC_ALL outranks LANG.
    let all = stdout(
        vramfit("C")
            .env("LC_ALL", "zh_CN.UTF-8")
            .args(["plan", "--model", "llama-3.1-8b"]),
    );
    assert!(all.contains("判定"), "{all}");
    // JSON stays English in any language.
    let json = stdout(vramfit("zh_CN.UTF-8").args(["plan", "--model", "llama-3.1-8b", "--json"]));
    assert!(json.contains("\"verdict\": \"tight\""), "{json}");
}

#[test]
fn the_settings_file_names_the_language() {
    let dir = std::env::temp_dir().join(format!("vramfit-lang-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "lang = \"zh\"\n").unwrap();
    let text = stdout(
        vramfit("C")
            .env("VRAMFIT_CONFIG", &dir)
            .args(["plan", "--model", "llama-3.1-8b"]),
    );
    assert!(text.contains("判定"), "{text}");
    std::fs::write(dir.join("config.toml"), "lang = \"fr\"\n").unwrap();
    let out = vramfit("C")
        .env("VRAMFIT_CONFIG", &dir)
        .args(["plan", "--model", "llama-3.1-8b"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("config.toml:1:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Chinese table keeps its columns: each row's price ends where the header's does.
#[test]
fn chinese_columns_line_up_in_display_width() {
    let text = stdout(vramfit("zh_CN.UTF-8").args(["plan", "--model", "llama-3.1-8b"]));
    let end_of = |line: &str, needle: &str| {
        line.find(needle)
            .map(|i| vramfit::text::width(&line[..i + needle.len()]))
    };
    let header = text.lines().find(|l| l.contains("判定")).unwrap();
    let column = end_of(header, "¥/月").unwrap();
    let price = regex::Regex::new(r"¥[\d,]+").unwrap();
    let mut rows = 0;
    for line in text
        .lines()
        .filter(|l| l.starts_with("  可用") || l.starts_with("  紧张"))
    {
        // Rows without a price ("无报价") end the column with a word of the same width rule.
        if let Some(m) = price.find(line) {
            assert_eq!(vramfit::text::width(&line[..m.end()]), column, "{line}");
            rows += 1;
        }
    }
    assert!(rows > 10);
}

/// Every command and flag has its Chinese help line, and the file names nothing that is gone.
#[test]
fn the_help_in_chinese_covers_every_flag() {
    use clap::CommandFactory;
    let text = vramfit::cli::help::HelpText::chinese().expect("i18n/help.zh.toml parses");
    let mut used = BTreeSet::new();
    fn walk(
        cmd: &clap::Command,
        path: &str,
        text: &vramfit::cli::help::HelpText,
        used: &mut BTreeSet<String>,
    ) {
        if path != "vramfit help" {
            assert!(text.commands.contains_key(path), "no Chinese about for '{path}'");
        }
        for a in cmd.get_arguments() {
            let id = a.get_id().as_str();
            let own = format!("{}.{id}", cmd.get_name());
            let key = if text.args.contains_key(&own) {
                own
            } else {
                id.to_string()
            };
            assert!(text.args.contains_key(&key), "no Chinese help for {path} --{id}");
            used.insert(key);
        }
        for s in cmd.get_subcommands() {
            walk(s, &format!("{path} {}", s.get_name()), text, used);
        }
    }
    walk(&vramfit::cli::Cli::command(), "vramfit", &text, &mut used);
    for key in text.args.keys() {
        assert!(
            used.contains(key),
            "i18n/help.zh.toml names '{key}', which no command has"
        );
    }
    let help = stdout(vramfit("zh_CN.UTF-8").args(["plan", "--help"]));
    assert!(
        help.contains("用法：vramfit plan") && help.contains("显示帮助"),
        "{help}"
    );
    assert!(help.contains("每批的序列数"), "{help}");
    assert!(
        help.contains("［默认：inference］［可选值：inference, full, lora, qlora］"),
        "{help}"
    );
    assert!(
        !help.contains("[default") && !help.contains("possible values"),
        "{help}"
    );
    let en = stdout(vramfit("C").args(["plan", "--help"]));
    assert!(
        en.contains("Sequences per batch") && en.contains("Usage:"),
        "{en}"
    );
}

/// Errors in Chinese: ours and clap's, with the same exit status; English unchanged.
#[test]
fn errors_in_chinese() {
    let run = |locale: &str, args: &[&str]| {
        let out = vramfit(locale).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run("zh_CN.UTF-8", &["plan", "--model", "nope"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.starts_with("错误：未知模型 “nope”。"), "{err}");
    let (code, err) = run(
        "zh_CN.UTF-8",
        &["plan", "--model", "llama-3.1-8b", "--batch", "0"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--batch 必须在 1 到 1048576 个序列 之间，实际是 0"),
        "{err}"
    );
    assert!(err.contains("更多信息请用 “--help”。"), "{err}");
    let (code, err) = run("zh_CN.UTF-8", &["plan", "--model", "llama-3.1-8b", "--bogus"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("无法识别的参数 “--bogus”"), "{err}");
    let (_, err) = run("C", &["plan", "--model", "nope"]);
    assert!(err.starts_with("error: unknown model 'nope'."), "{err}");
}
