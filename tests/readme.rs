//! The README's commands run as written: the install step, and every command under
//! "Questions and how to ask them" (each must exit 0 and print its answer).

use std::path::Path;
use std::process::Command;

fn readme() -> String {
    read("README.md")
}

fn read(file: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap()
}

/// The indented `vramfit …` lines of one README section.
fn commands(section: &str) -> Vec<Vec<String>> {
    commands_in(&readme(), section)
}

fn commands_in(text: &str, section: &str) -> Vec<Vec<String>> {
    let start = text
        .find(section)
        .unwrap_or_else(|| panic!("README lacks {section}"));
    let body = &text[start + section.len()..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    body.lines()
        .filter_map(|l| l.strip_prefix("    vramfit "))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn every_question_in_the_readme_runs() {
    let questions = commands("## Questions and how to ask them");
    assert!(questions.len() >= 5, "{questions:?}");
    for args in questions {
        let out = Command::new(env!("CARGO_BIN_EXE_vramfit"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("VRAMFIT_CONFIG", env!("CARGO_TARGET_TMPDIR"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "vramfit {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.lines().count() > 3,
            "vramfit {args:?} printed little:\n{text}"
        );
    }
}

#[test]
fn the_readme_install_step_installs_a_working_binary() {
    let text = readme();
    // Both install lines keep to the lock file (the command below is the first line's).
    assert!(
        text.contains("    cargo install --path . --locked "),
        "the install step changed"
    );
    assert!(
        text.contains("    cargo install --git <this repository's URL> --locked vramfit"),
        "the --git install line lacks --locked"
    );
    // The same command, into a temporary root, reusing this build's compiled dependencies.
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("install-{}", std::process::id()));
    let target = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("readme-install");
    let status = Command::new(env!("CARGO"))
        .args([
            "install", "--path", ".", "--debug", "--locked", "--quiet", "--root",
        ])
        .arg(&root)
        .arg("--target-dir")
        .arg(&target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success());
    let out = Command::new(root.join("bin").join("vramfit"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("vramfit "));
}

/// The Chinese README: its three commands run, the plans answer in Chinese, and every key its
/// table names is one the planner's key map binds.
#[test]
fn the_chinese_readme_commands_and_keys_are_real() {
    let text = read("README.zh-CN.md");
    let runs = commands_in(&text, "## 先试这三条命令");
    assert_eq!(runs.len(), 3, "{runs:?}");
    let framework = commands_in(&text, "## 按运行框架规划");
    assert_eq!(framework.len(), 1, "{framework:?}");
    let target = commands_in(&text, "## 按目标租卡");
    assert_eq!(target.len(), 1, "{target:?}");
    for args in runs.into_iter().chain(framework).chain(target) {
        let out = Command::new(env!("CARGO_BIN_EXE_vramfit"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("VRAMFIT_CONFIG", env!("CARGO_TARGET_TMPDIR"))
            .output()
            .unwrap();
        assert!(out.status.success(), "vramfit {args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        if args.iter().any(|a| a == "--users") {
            assert!(
                stdout.contains("达到目标的最便宜方案："),
                "vramfit {args:?}: {stdout}"
            );
        } else if args[0] == "plan" {
            assert!(
                stdout.contains("最便宜的可行方案："),
                "vramfit {args:?}: {stdout}"
            );
        }
    }
    let bound: Vec<&str> = vramfit::tui::keymap::BINDINGS
        .iter()
        .flat_map(|b| b.label.split_whitespace())
        .collect();
    let keys_section = &text[text.find("## 交互界面的按键").unwrap()..];
    let mut named = 0;
    for row in keys_section.lines().filter(|l| l.starts_with("| `")) {
        let first_cell = row.split('|').nth(1).unwrap();
        for key in first_cell.split('`').skip(1).step_by(2) {
            assert!(
                bound.contains(&key),
                "README.zh-CN.md names key {key:?}, not in the key map"
            );
            named += 1;
        }
    }
    assert!(named > 20, "{named} keys named");
}

/// What `vramfit ARGS` prints, in English, with the user's settings kept out.
fn output_of(args: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(args.split_whitespace())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("VRAMFIT_CONFIG", env!("CARGO_TARGET_TMPDIR"))
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "C.UTF-8")
        .output()
        .unwrap();
    assert!(out.status.success(), "vramfit {args}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Each block the README calls "Real output of `vramfit …`" is that: its lines are lines the
/// command prints, in the same order (a block may stop early or skip rows, never change one).
#[test]
fn every_output_block_in_the_readme_is_what_the_program_prints() {
    let text = readme();
    let lead = regex::Regex::new(r"Real output of `vramfit ([^`]+)`").unwrap();
    let mut blocks = 0;
    for m in lead.captures_iter(&text) {
        let args = &m[1];
        let after = &text[m.get(0).unwrap().end()..];
        let start = after.find("```\n").expect("a block follows") + 4;
        let block = &after[start..start + after[start..].find("```").unwrap()];
        let printed = output_of(args);
        let mut lines = printed.lines().map(str::trim_end);
        for want in block.lines().map(str::trim_end).filter(|l| !l.is_empty()) {
            assert!(
                lines.any(|l| l == want),
                "README quotes a line `vramfit {args}` does not print (in this order):\n{want}\n\nIt prints:\n{printed}"
            );
        }
        blocks += 1;
    }
    assert!(blocks >= 2, "{blocks} blocks");
}

/// The figures the README's prose quotes from the program, each with the command that
/// prints it.
const QUOTED: &[(&str, &[&str])] = &[
    (
        "fit --model llama-3.1-70b --weights int4 --gpu rtx-4090 --cards 2",
        &["now: no", "0.71 GB short", "q4_0 KV", "context ≤ 5,920"],
    ),
    (
        "fit --model llama-3.1-70b --weights fp8 --gpu h100-pcie",
        &[
            "1.61 GB short",
            "76.45 GB usable",
            "q4_0 KV",
            "context ≤ 5,504",
            "NF4 weights",
        ],
    ),
    (
        "plan --model llama-3.1-8b --framework vllm --users 40 --min-tps 15 --max-ttft 2",
        &[
            "Cheapest that meets the target: 2× GeForce RTX 4090, 2 replicas, 20 users each",
            "$496/month",
        ],
    ),
    (
        "plan --model llama-3.1-8b --method lora --train-tokens 2000000000 --deadline 110h",
        &["Cheapest that meets the target: 4× GeForce RTX 4090, done in 101.3 h for $70.27"],
    ),
    (
        "plan --model llama-3.1-70b --weights fp8",
        &[
            "4× GeForce RTX 4090",
            "$496",
            "Cheapest fit: 4× GeForce RTX 4090 at $496/month",
        ],
    ),
];

/// Every figure the README quotes in its questions and around its output blocks is one the
/// program prints now: each listed in `QUOTED` with its command, and each found there.
#[test]
fn every_figure_the_readme_quotes_is_what_the_program_prints() {
    let text = readme();
    for (args, figures) in QUOTED {
        let printed = output_of(args);
        for f in *figures {
            assert!(
                printed.contains(f),
                "`vramfit {args}` no longer prints {f:?}:\n{printed}"
            );
        }
    }
    // The prose that quotes output: the questions, and the paragraph before each output block.
    let questions = {
        let start = text.find("## Questions and how to ask them").unwrap();
        let body = &text[start..];
        &body[..body[3..].find("\n## ").unwrap()]
    };
    let mut prose = vec![questions.to_string()];
    for (at, _) in text.match_indices("Real output of `vramfit") {
        let end = at + text[at..].find("```").unwrap();
        prose.push(text[at..end].to_string());
    }
    // GB figures, grouped numbers, dollar amounts.
    let figure = regex::Regex::new(r"\$[\d,]+|\d+\.\d+ GB|\d{1,3}(?:,\d{3})+").unwrap();
    let all: Vec<&str> = QUOTED.iter().flat_map(|(_, f)| f.iter().copied()).collect();
    let mut seen = 0;
    for p in &prose {
        for m in figure.find_iter(p) {
            assert!(
                all.iter().any(|f| f.contains(m.as_str())),
                "the README quotes {:?} but no test checks it against the program (add it to QUOTED)",
                m.as_str()
            );
            seen += 1;
        }
    }
    assert!(seen >= 5, "{seen} figures");
}
