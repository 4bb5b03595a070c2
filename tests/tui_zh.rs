//! The planner in Chinese: every `zh-` state as an insta snapshot, nothing cut at a pane's
//! edge, the words translated. (Its own test binary: the language is one setting for the
//! whole process, and the English screens are drawn in tests/tui_render.rs.)

use ratatui::buffer::Buffer;
use vramfit::lang::Lang;
use vramfit::tui::states::{STATES, State, render_state};

/// The screen as a terminal shows it: a wide character covers the cell after it.
fn text(buf: &Buffer) -> String {
    let a = buf.area;
    (0..a.height)
        .map(|y| {
            let mut line = String::new();
            let mut x = 0;
            while x < a.width {
                let symbol = buf[(x, y)].symbol();
                line.push_str(symbol);
                x += (vramfit::text::width(symbol) as u16).max(1);
            }
            line.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn chinese_states() -> Vec<&'static State> {
    STATES.iter().filter(|s| s.lang == Lang::Zh).collect()
}

fn screen(name: &str) -> String {
    let state = STATES.iter().find(|s| s.name == name).unwrap();
    text(&render_state(state).1)
}

#[test]
fn every_chinese_state_matches_its_snapshot() {
    let states = chinese_states();
    for size in ["80x24", "160x48"] {
        assert!(
            states.iter().filter(|s| s.name.ends_with(size)).count() >= 4,
            "Chinese states at {size}"
        );
    }
    for state in states {
        let (_, buf) = render_state(state);
        insta::assert_snapshot!(state.name, text(&buf));
    }
}

/// The Chinese messages' fixed words: each message split at its placeholders, the pieces of
/// at least three characters with a Chinese character in them.
fn chinese_pieces() -> Vec<String> {
    let split = regex::Regex::new(r"%\{\w+\}").unwrap();
    let mut pieces: Vec<String> = vramfit::_rust_i18n_backend()
        .messages_for_locale("zh")
        .unwrap_or_default()
        .into_iter()
        .flat_map(|(_, v)| split.split(&v).map(|p| p.trim().to_string()).collect::<Vec<_>>())
        .filter(|p| p.chars().count() >= 3 && p.chars().any(|c| vramfit::text::width(&c.to_string()) == 2))
        .collect();
    pieces.sort();
    pieces.dedup();
    pieces
}

/// Text a pane or the screen's edge cut off: a message's beginning that runs into a border
/// (or the end of the line) where the whole message is not on the line.
fn cut_text(screen: &str, pieces: &[String]) -> Vec<String> {
    let whole: std::collections::BTreeSet<String> = vramfit::_rust_i18n_backend()
        .messages_for_locale("zh")
        .unwrap_or_default()
        .into_iter()
        .map(|(_, v)| v.into_owned())
        .collect();
    let mut cut = Vec::new();
    for line in screen.lines() {
        for piece in pieces {
            if line.contains(piece.as_str()) {
                continue;
            }
            let chars: Vec<char> = piece.chars().collect();
            let ideograph = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
            for n in 2..chars.len() {
                // A cut through a word: between two ideographs, where the beginning is not
                // a message of its own ("显存" is a title; "显存条" goes on).
                if !(ideograph(chars[n - 1]) && ideograph(chars[n])) {
                    continue;
                }
                let prefix: String = chars[..n].iter().collect();
                if pieces.contains(&prefix) || whole.contains(&prefix) {
                    continue;
                }
                let at_edge =
                    |rest: &str| rest.is_empty() || rest.starts_with(['│', '┃', '║', '┐', '┘', '┓', '┛']);
                if line
                    .match_indices(prefix.as_str())
                    .any(|(i, _)| at_edge(&line[i + prefix.len()..]))
                {
                    cut.push(format!("{prefix}… (of {piece}) in: {line}"));
                }
            }
        }
    }
    cut
}

#[test]
fn no_chinese_text_is_cut_at_a_pane_edge() {
    let pieces = chinese_pieces();
    assert!(pieces.len() > 100, "{} pieces", pieces.len());
    for state in chinese_states() {
        let screen = text(&render_state(state).1);
        assert_eq!(cut_text(&screen, &pieces), Vec::<String>::new(), "{}", state.name);
    }
    // The check finds a cut where there is one.
    let cut = "│ 目录里没有能放下这个│";
    assert!(!cut_text(cut, &pieces).is_empty());
}

/// Latin words a Chinese screen may keep: units, precisions, key names, formats, the names
/// of cards, models, links and tools.
fn allowed_words() -> std::collections::BTreeSet<String> {
    let fixed = "GB GiB MiB B/token token t/s h vramfit BF16 FP16 FP8 FP32 NF4 NF4+DQ INT4 g128 INT8 \
                 MXFP4 FP4 KV LoRA QLoRA AdamW ZeRO FlashAttn CE TP PCIe PCIe3 PCIe4 PCIe5 NVLink IF RoCE \
                 q Ctrl-C Esc Tab Shift-Tab PgUp PgDn Home End Enter Backspace TOML SVG Markdown \
                 VRAMFIT_DATA --open FILE q4_0 q8_0 fp8 nf4 mxfp4 int4 fp4 nf4-dq --kv --weights \
                 --context --cards --gpu --batch rtx-4090 k j h l g G m p v a b w x r c e f u A B s M GB/s o fp32 bf16 token/s \
                 llama cpp vLLM SGLang Ollama DeepSpeed FSDP torchtune torchtitan Unsloth HF Transformers Q4_K_M \
                 --ram -ngl -ts -ot exps=CPU --n-cpu-moe -c -np -fa on num_gpu num_ctx --cpu-offload-gb \
                 --gpu-memory-utilization --max-model-len --tensor-parallel-size --tp --context-length \
                 --mem-fraction-static";
    let mut words: std::collections::BTreeSet<String> =
        fixed.split_whitespace().map(str::to_string).collect();
    let catalog = vramfit::catalog::Catalog::embedded().unwrap();
    let names = catalog
        .gpus
        .iter()
        .map(|g| g.name.clone())
        .chain(catalog.models.iter().map(|m| m.name.clone()))
        // The models pane heads each family with its name (a proper name, like the models').
        .chain(catalog.models.iter().map(|m| m.family.clone()));
    for name in names {
        for w in latin_words(&name) {
            words.insert(w);
        }
    }
    words
}

fn latin_words(text: &str) -> Vec<String> {
    let re = regex::Regex::new(r"-{0,2}[A-Za-z][A-Za-z0-9_\-/+]*").unwrap();
    re.find_iter(text).map(|m| m.as_str().to_string()).collect()
}

#[test]
fn chinese_screens_have_no_english_ui_words() {
    let allowed = allowed_words();
    // Explain quotes formulas with config keys (head_dim, gpu_memory_utilization); the
    // plan's formulas are checked in tests/i18n.rs.
    for state in chinese_states()
        .into_iter()
        .filter(|s| !s.name.contains("explain"))
    {
        let screen = text(&render_state(state).1);
        let mut left: Vec<String> = latin_words(&screen)
            .into_iter()
            // A name an overlay covers shows its beginning only ("Mistra").
            .filter(|w| !allowed.iter().any(|a| a.starts_with(w.as_str())))
            // A llama.cpp build ("b10453") is a version, not a word.
            .filter(|w| !(w.starts_with('b') && w.len() > 1 && w[1..].bytes().all(|b| b.is_ascii_digit())))
            .collect();
        left.sort();
        left.dedup();
        assert_eq!(left, Vec::<String>::new(), "{}:\n{screen}", state.name);
    }
}

#[test]
fn the_chinese_start_screen_in_words() {
    let s = screen("zh-inference-80x24");
    for words in [
        "模型",
        "工作负载",
        "显存",
        "显卡",
        "方法",
        "推理",
        "✓ 可用",
        "¥/月",
        "? 帮助",
        "每卡剩余",
    ] {
        assert!(s.contains(words), "{words}:\n{s}");
    }
    let big = screen("zh-inference-160x48");
    assert!(big.contains("最便宜：4× A40 ¥6,359/月"), "{big}");
}
