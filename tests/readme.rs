//! The README, its Chinese twin and the user guide (`docs/README.md`, `docs/guide/*.md`) quote
//! the program; this file holds every quote to what the program prints now, so none can go
//! stale:
//!
//! - every indented `vramfit …` line runs and exits 0; in the prose after it (up to the next
//!   such block or heading), each backticked span holding a digit is printed verbatim by one
//!   of the block's commands (a flag-like span, starting with `-`, number by number), and each
//!   other number is printed too, or is part of the command;
//! - each fenced block led by "Real output of `vramfit …`" (实际输出) is lines the command
//!   prints, in order;
//! - every count (models, cards, MIG slices, memory cases, speed runs, …) is the one
//!   `vramfit models --json`, `vramfit gpus --json` or `vramfit accuracy` gives;
//! - the flag ranges, the keys of the READMEs' tables, the `detect` sample, the links and the
//!   READMEs' shape are checked against the program and the tree.
//!
//! Each distinct command runs once, all of them in parallel threads, before any check reads
//! them.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use regex::Regex;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A document and its text.
struct Doc {
    path: String,
    text: String,
}

/// README.md, README.zh-CN.md, docs/README.md and docs/guide/*.md.
fn docs() -> &'static [Doc] {
    static DOCS: OnceLock<Vec<Doc>> = OnceLock::new();
    DOCS.get_or_init(|| {
        let mut paths = vec![
            "README.md".to_string(),
            "README.zh-CN.md".to_string(),
            "docs/README.md".to_string(),
        ];
        let mut guide: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("docs/guide"))
            .expect("docs/guide")
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".md"))
            .map(|n| format!("docs/guide/{n}"))
            .collect();
        guide.sort();
        paths.extend(guide);
        paths
            .into_iter()
            .map(|path| Doc {
                text: std::fs::read_to_string(Path::new(ROOT).join(&path)).unwrap(),
                path,
            })
            .collect()
    })
}

fn doc(path: &str) -> &'static Doc {
    docs().iter().find(|d| d.path == path).unwrap()
}

/// The commands of one indented block (`    vramfit ARGS  # comment`) and the prose after it,
/// up to the next indented block or heading (fenced blocks in between are left out).
struct Passage {
    /// "file:line" of the block's first line.
    at: String,
    commands: Vec<String>,
    comments: Vec<String>,
    prose: String,
}

fn passages(doc: &Doc) -> Vec<Passage> {
    let mut out: Vec<Passage> = Vec::new();
    let mut in_fence = false;
    let mut in_block = false;
    // Whether prose now belongs to the last passage.
    let mut open = false;
    for (i, line) in doc.text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            in_block = false;
            continue;
        }
        if in_fence {
            continue;
        }
        if line.starts_with("    ") && !line.trim().is_empty() {
            if !in_block {
                in_block = true;
                open = false;
            }
            if let Some(rest) = line.strip_prefix("    vramfit ") {
                let (args, comment) = match rest.split_once(" #") {
                    Some((a, c)) => (a.trim(), c.trim()),
                    None => (rest.trim(), ""),
                };
                if !open {
                    out.push(Passage {
                        at: format!("{}:{}", doc.path, i + 1),
                        commands: Vec::new(),
                        comments: Vec::new(),
                        prose: String::new(),
                    });
                    open = true;
                }
                let p = out.last_mut().unwrap();
                p.commands.push(args.to_string());
                p.comments.push(comment.to_string());
            }
            continue;
        }
        in_block = false;
        if line.starts_with('#') {
            open = false;
            continue;
        }
        if open {
            let p = out.last_mut().unwrap();
            p.prose.push_str(line);
            p.prose.push('\n');
        }
    }
    out
}

/// Each "Real output of `vramfit ARGS`" and the fenced block after it.
fn output_blocks(doc: &Doc) -> Vec<(String, String)> {
    let lead = Regex::new(r"(?:Real output of|实际输出：?) `vramfit ([^`]+)`").unwrap();
    lead.captures_iter(&doc.text)
        .map(|m| {
            let after = &doc.text[m.get(0).unwrap().end()..];
            let start = after.find("```").expect("a fenced block follows");
            let start = start + after[start..].find('\n').unwrap() + 1;
            let block = &after[start..start + after[start..].find("```").unwrap()];
            (m[1].to_string(), block.to_string())
        })
        .collect()
}

/// What one command did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Everything it printed (a warning goes to stderr and is quoted too).
    fn text(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// An empty folder under the test's temporary directory.
fn empty_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("readme-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `vramfit ARGS` with the user's settings, caches, data and locale kept out.
fn vramfit(args: &str, home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vramfit"));
    // Split as a shell would: a quoted `--cmd '…'` is one argument.
    c.args(shell_words::split(args).expect("a README command splits as a shell would"))
        .current_dir(ROOT)
        .env("VRAMFIT_CONFIG", home.join("config"))
        .env("VRAMFIT_DATA", home.join("data"))
        .env("VRAMFIT_CACHE", home.join("cache"))
        .env("HF_HUB_CACHE", home.join("hf"))
        .env_remove("HF_HOME")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env_remove("LANGUAGE")
        .env("LANG", "C.UTF-8");
    c
}

/// A value over the largest of each range the guide states: the flag and its arguments.
fn range_commands() -> Vec<(String, String, String, String)> {
    let text = &doc("docs/guide/cli.md").text;
    let start = text
        .find("### Bad input")
        .expect("cli.md has a Bad input section");
    let section = &text[start..];
    let section = &section[..section[4..].find("\n#").map_or(section.len(), |e| e + 4)];
    let range = Regex::new(r"((?:`--[a-z-]+`/?)+) (\d+(?:[.,]\d+)*)–(\d+(?:[.,]\d+)*)").unwrap();
    let flag = Regex::new(r"`(--[a-z-]+)`").unwrap();
    let mut out = Vec::new();
    for m in range.captures_iter(section) {
        let (lo, hi) = (m[2].replace(',', ""), m[3].replace(',', ""));
        let over = hi.parse::<f64>().unwrap() * 2.0;
        for f in flag.captures_iter(&m[1]) {
            let args = format!("plan --model llama-3.1-8b {} {over}", &f[1]);
            out.push((args, f[1].to_string(), lo.clone(), hi.clone()));
        }
    }
    out
}

/// Every command the documents show and the checks need, each run once, in parallel.
fn runs() -> &'static HashMap<String, Run> {
    static RUNS: OnceLock<HashMap<String, Run>> = OnceLock::new();
    RUNS.get_or_init(|| {
        let mut all = BTreeSet::new();
        for d in docs() {
            for p in passages(d) {
                all.extend(p.commands);
            }
            all.extend(output_blocks(d).into_iter().map(|(a, _)| a));
        }
        for fixed in ["models --json", "gpus --json", "accuracy"] {
            all.insert(fixed.to_string());
        }
        all.extend(range_commands().into_iter().map(|(a, ..)| a));
        let all: Vec<String> = all.into_iter().collect();
        for args in &all {
            let words: Vec<&str> = args.split_whitespace().collect();
            // Quotes only around one `--cmd` (a launch command is one argument).
            let unquoted = match args.split_once(" --cmd '") {
                Some((before, rest)) => format!(
                    "{before} {}",
                    rest.split_once('\'').map_or("", |(_, after)| after)
                ),
                None => args.clone(),
            };
            assert!(
                !words.is_empty()
                    && !unquoted.contains(['>', '<', '|', '~', '$', '"', '\''])
                    && !words.iter().any(|w| {
                        ["detect", "screenshots", "man", "--here", "--hub", "--open"].contains(w)
                    }),
                "`vramfit {args}` is shown as a command the tests run: it must need no GPU, \
                 network, shell or file of the reader's (put it in a fenced example instead)"
            );
        }
        let home = empty_dir("home");
        let next = AtomicUsize::new(0);
        let threads = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .clamp(2, 8);
        let mut results: Vec<(String, Run)> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(args) = all.get(i) else { break };
                            let out = vramfit(args, &home).output().unwrap();
                            done.push((
                                args.clone(),
                                Run {
                                    code: out.status.code(),
                                    stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                                    stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
                                },
                            ));
                        }
                        done
                    })
                })
                .collect();
            workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
        });
        results.sort_by(|a, b| a.0.cmp(&b.0));
        results.into_iter().collect()
    })
}

fn run(args: &str) -> &'static Run {
    runs()
        .get(args)
        .unwrap_or_else(|| panic!("`vramfit {args}` was not run"))
}

/// Whether `hay` holds `quote` where a number it starts or ends with is not part of a longer
/// one (`0.71 GB` is not found in `10.71 GB`, nor `22` in `122`).
fn has_number(hay: &str, quote: &str) -> bool {
    let digit_first = quote.starts_with(|c: char| c.is_ascii_digit());
    let digit_last = quote.ends_with(|c: char| c.is_ascii_digit());
    hay.match_indices(quote).any(|(i, _)| {
        let mut b = hay[..i].chars().rev();
        let mut a = hay[i + quote.len()..].chars();
        let digit_before = match b.next() {
            Some(c) if c.is_ascii_digit() => true,
            Some('.' | ',') => b.next().is_some_and(|c| c.is_ascii_digit()),
            _ => false,
        };
        let digit_after = match a.next() {
            Some(c) if c.is_ascii_digit() => true,
            Some('.' | ',') => a.next().is_some_and(|c| c.is_ascii_digit()),
            _ => false,
        };
        !((digit_first && digit_before) || (digit_last && digit_after))
    })
}

/// Whether a number the prose gives is one the command was given: written in it, or the
/// leading digits of one of its numbers ("2 B tokens" for `--train-tokens 2000000000`).
fn given(commands: &[String], n: &str) -> bool {
    let plain = n.replace(',', "");
    commands.iter().any(|c| {
        has_number(c, n)
            || c.split_whitespace()
                .any(|w| w.chars().all(|ch| ch.is_ascii_digit()) && w.starts_with(&plain))
    })
}

fn numbers(text: &str) -> Vec<String> {
    let number = Regex::new(r"\d+(?:[.,]\d+)*").unwrap();
    number.find_iter(text).map(|m| m.as_str().to_string()).collect()
}

/// The prose a check reads: link targets, images and HTML comments taken out.
fn readable(text: &str) -> String {
    let image = Regex::new(r"!\[[^\]]*\]\([^)]*\)").unwrap();
    let target = Regex::new(r"\]\([^)]*\)").unwrap();
    let comment = Regex::new(r"(?s)<!--.*?-->").unwrap();
    let text = comment.replace_all(text, "");
    let text = image.replace_all(&text, "");
    target.replace_all(&text, "]").into_owned()
}

/// A count the documents state, how they write it, and what the program gives.
struct CountRule {
    what: &'static str,
    pattern: Regex,
    /// Matches below this are not this count ("2 cards" is a combo, not the catalog).
    at_least: u64,
    value: u64,
}

fn count_rules() -> &'static [CountRule] {
    static RULES: OnceLock<Vec<CountRule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let json = |args: &str| -> serde_json::Value {
            serde_json::from_str(&run(args).stdout).unwrap_or_else(|e| panic!("`vramfit {args}`: {e}"))
        };
        let models = json("models --json");
        let models = models.as_array().unwrap();
        let sizes = models
            .iter()
            .filter(|m| m["id"].as_str().unwrap().starts_with("seed-"))
            .count() as u64;
        let gpus = json("gpus --json");
        let gpus = gpus.as_array().unwrap();
        let mig = gpus
            .iter()
            .filter(|g| g["id"].as_str().unwrap().contains("-mig-"))
            .count() as u64;
        let offers = |g: &serde_json::Value| g["offers"].as_array().cloned().unwrap_or_default();
        let rent_hub = gpus
            .iter()
            .filter(|g| offers(g).iter().any(|o| o["provider"] == "GPU Rent Hub"))
            .count() as u64;
        let hourly_cny_providers = |ids: &[&str]| -> u64 {
            gpus.iter()
                .filter(|g| ids.contains(&g["id"].as_str().unwrap()))
                .flat_map(offers)
                .filter(|o| o["currency"] == "CNY" && o["per"] == "hour")
                .map(|o| o["provider"].as_str().unwrap().to_string())
                .collect::<BTreeSet<_>>()
                .len() as u64
        };
        let rtx4090 = hourly_cny_providers(&["rtx-4090"]);
        let a100 = hourly_cny_providers(&["a100-80gb-pcie", "a100-sxm"]);
        assert_eq!(
            rtx4090, a100,
            "the RTX 4090 and A100 80GB tables no longer have as many providers"
        );
        let accuracy = &run("accuracy").stdout;
        let grab = |from: &str, pattern: &str| -> u64 {
            let at = accuracy
                .find(from)
                .unwrap_or_else(|| panic!("`vramfit accuracy` lacks {from:?}"));
            let m = Regex::new(pattern).unwrap();
            m.captures(&accuracy[at..])
                .unwrap_or_else(|| panic!("`vramfit accuracy` lacks {pattern:?} after {from:?}"))[1]
                .parse()
                .unwrap()
        };
        let rule = |what, pattern: &str, at_least, value| CountRule {
            what,
            pattern: Regex::new(pattern).unwrap(),
            at_least,
            value,
        };
        vec![
            rule(
                "catalog models (`vramfit models --json`, less the guide's sizes)",
                r"\b(\d[\d,]*)\s+(?:catalog\s+)?models\b",
                0,
                models.len() as u64 - sizes,
            ),
            rule(
                "catalog models",
                r"(\d[\d,]*)\s+个模型",
                0,
                models.len() as u64 - sizes,
            ),
            rule(
                "the guide's sizes (`seed-*` models)",
                r"\b(\d+)\s+sizes\b",
                0,
                sizes,
            ),
            rule(
                "cards (`vramfit gpus --json`)",
                r"(?:^|[^/\w])(\d[\d,]*)\s+cards\b",
                17,
                gpus.len() as u64,
            ),
            rule("cards", r"(\d[\d,]*)\s+张卡", 17, gpus.len() as u64),
            rule("MIG slices", r"\b(\d+)\s+MIG\s+slices", 0, mig),
            rule(
                "cards on the GPU Rent Hub price list",
                r"Rent\s+Hub\s+price\s+list\s+\((\d+)\s+cards",
                0,
                rent_hub,
            ),
            rule(
                "providers of hourly CNY prices",
                r"from\s+(\d+)\s+providers\s+each",
                0,
                rtx4090,
            ),
            rule(
                "memory cases (`vramfit accuracy`)",
                r"\b(\d+)\s+memory\s+cases",
                0,
                grab("Memory cases", r"Memory cases: (\d+)"),
            ),
            rule(
                "decode runs",
                r"\b(\d+)\s+decode\s+runs",
                0,
                grab("### Decode\n", r"\| all \| (\d+) \|"),
            ),
            rule(
                "prefill runs",
                r"\b(\d+)\s+prefill\s+runs",
                0,
                grab("### Prefill\n", r"\| all \| (\d+) \|"),
            ),
            rule(
                "serving KV budgets",
                r"\b(\d+)\s+budgets",
                0,
                grab("Serving engines", r"over (\d+) budgets"),
            ),
            rule(
                "runs of the offload class",
                r"\b(\d+)\s+llama\.cpp\s+and\s+ik_llama\.cpp\s+runs",
                0,
                grab("| decode | offload · ggml |", r"\| offload · ggml \| (\d+) \|"),
            ),
        ]
    })
}

#[test]
fn every_command_shown_runs() {
    let mut shown = 0;
    for d in docs() {
        for p in passages(d) {
            for args in &p.commands {
                let r = run(args);
                assert!(
                    r.code == Some(0) && !r.stdout.trim().is_empty(),
                    "{}: `vramfit {args}` exited {:?}:\n{}",
                    p.at,
                    r.code,
                    r.stderr
                );
                shown += 1;
            }
        }
    }
    assert!(shown >= 40, "{shown} commands shown");
}

/// The figures each passage quotes are what its commands print.
#[test]
fn every_figure_the_docs_quote_is_what_the_program_prints() {
    let span = Regex::new(r"`([^`]+)`").unwrap();
    let counted: Vec<&Regex> = count_rules().iter().map(|r| &r.pattern).collect();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for d in docs() {
        for p in passages(d) {
            let printed: String = p.commands.iter().map(|c| run(c).text()).collect();
            let found = |n: &str| has_number(&printed, n) || given(&p.commands, n);
            let prose = readable(&format!("{}\n{}", p.prose, p.comments.join("\n")));
            for s in span.captures_iter(&prose) {
                let s = &s[1];
                if !s.chars().any(|c| c.is_ascii_digit()) {
                    continue;
                }
                checked += 1;
                if s.starts_with('-') {
                    for n in numbers(s) {
                        if !found(&n) {
                            wrong.push(format!("{}: {n} (in `{s}`)", p.at));
                        }
                    }
                } else if !has_number(&printed, s)
                    && !p
                        .commands
                        .iter()
                        .any(|c| has_number(c, s.trim_start_matches("vramfit ")))
                {
                    wrong.push(format!("{}: `{s}`", p.at));
                }
            }
            let mut bare = span.replace_all(&prose, " ").into_owned();
            for c in &counted {
                bare = c.replace_all(&bare, " ").into_owned();
            }
            for n in numbers(&bare) {
                checked += 1;
                if !found(&n) {
                    wrong.push(format!("{}: {n}", p.at));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the docs quote figures their commands do not print (the command is the indented \
         `vramfit` line above the text):\n{}",
        wrong.join("\n")
    );
    assert!(checked >= 200, "{checked} figures checked");
}

/// Each block the docs call "Real output of `vramfit …`" is that: its lines are lines the
/// command prints, in the same order (a block may stop early or skip rows, never change one).
#[test]
fn every_output_block_is_what_the_program_prints() {
    let mut blocks = 0;
    for d in docs() {
        for (args, block) in output_blocks(d) {
            let r = run(&args);
            assert_eq!(r.code, Some(0), "{}: `vramfit {args}`: {}", d.path, r.stderr);
            let mut lines = r.stdout.lines().map(str::trim_end);
            for want in block.lines().map(str::trim_end).filter(|l| !l.is_empty()) {
                assert!(
                    lines.any(|l| l == want),
                    "{} quotes a line `vramfit {args}` does not print (in this order):\n{want}\n\nIt prints:\n{}",
                    d.path,
                    r.stdout
                );
            }
            blocks += 1;
        }
    }
    assert!(blocks >= 2, "{blocks} blocks");
}

/// Every count of models, cards, slices, providers, memory cases and speed runs the docs
/// state is the program's.
#[test]
fn every_count_the_docs_state_is_the_programs() {
    let mut wrong = Vec::new();
    for rule in count_rules() {
        let mut seen = 0;
        for d in docs() {
            for m in rule.pattern.captures_iter(&d.text) {
                let n: u64 = m[1].replace(',', "").parse().unwrap();
                if n < rule.at_least {
                    continue;
                }
                seen += 1;
                if n != rule.value {
                    wrong.push(format!(
                        "{}: {:?} says {n} {}, the program has {}",
                        d.path, &m[0], rule.what, rule.value
                    ));
                }
            }
        }
        assert!(
            seen > 0,
            "no document states the count of {} any more: drop its rule",
            rule.what
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The README says it up front, in both languages.
    let opening: String = doc("README.md").text.chars().take(600).collect();
    assert!(
        opening.contains(" models and "),
        "the README's opening lost its counts"
    );
}

/// The ranges the CLI guide lists are the ones the flags enforce.
#[test]
fn the_flag_ranges_are_the_programs() {
    let ranges = range_commands();
    assert!(ranges.len() >= 12, "{} ranges", ranges.len());
    for (args, flag, lo, hi) in ranges {
        let r = run(&args);
        let want = format!("{flag} must be between {lo} and {hi}");
        assert!(
            r.code == Some(2) && r.stderr.contains(&want),
            "`vramfit {args}` should refuse with {want:?}; it said ({:?}):\n{}",
            r.code,
            r.stderr
        );
    }
}

/// The `detect` sample in the CLI guide is what `vramfit detect` prints on the machine it
/// describes (a fake nvidia-smi reporting two RTX 4090s).
#[test]
fn the_detect_sample_is_what_detect_prints() {
    use std::os::unix::fs::PermissionsExt;
    let text = &doc("docs/guide/cli.md").text;
    let lead = "`vramfit detect` prints what this machine's tools report.";
    let at = text.find(lead).expect("cli.md shows `vramfit detect`");
    assert!(text[at..].contains("24,564 MiB each and 1,144 MiB in use on the first"));
    let after = &text[at..];
    let start = after.find("```\n").unwrap() + 4;
    let block = &after[start..start + after[start..].find("```").unwrap()];
    let tools = empty_dir("detect");
    let smi = tools.join("nvidia-smi");
    std::fs::write(
        &smi,
        "#!/bin/sh\necho '0, NVIDIA GeForce RTX 4090, 24564, 1144, 550.163.01, 00000000:01:00.0'\n\
         echo '1, NVIDIA GeForce RTX 4090, 24564, 0, 550.163.01, 00000000:02:00.0'\n",
    )
    .unwrap();
    std::fs::set_permissions(&smi, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = vramfit("detect", &tools).env("PATH", &tools).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8_lossy(&out.stdout);
    let mut lines = printed.lines().map(str::trim_end);
    for want in block.lines().map(str::trim_end).filter(|l| !l.is_empty()) {
        assert!(
            lines.any(|l| l == want),
            "cli.md's detect sample:\n{want}\n\nvramfit detect prints:\n{printed}"
        );
    }
}

/// Both READMEs: under 200 lines, install in two commands (the second is the one `.ci/run`
/// runs), then the questions, then the keys; and the Chinese one asks the same questions.
#[test]
fn the_readmes_are_short_and_lead_with_the_questions() {
    let ci = std::fs::read_to_string(Path::new(ROOT).join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test"),
        ".ci/run no longer runs `cargo test`"
    );
    for (path, sections) in [
        (
            "README.md",
            [
                "## Install",
                "## Questions and how to ask them",
                "## The planner's keys",
            ],
        ),
        (
            "README.zh-CN.md",
            ["## 安装", "## 问题与对应的命令", "## 交互界面的按键"],
        ),
    ] {
        let text = &doc(path).text;
        let lines = text.lines().count();
        assert!(lines < 200, "{path} has {lines} lines");
        let at: Vec<usize> = sections
            .iter()
            .map(|s| text.find(s).unwrap_or_else(|| panic!("{path} lacks {s}")))
            .collect();
        assert!(
            at.windows(2).all(|w| w[0] < w[1]),
            "{path}: {sections:?} out of order"
        );
        let install = &text[at[0]..at[1]];
        let commands: Vec<&str> = install
            .lines()
            .filter_map(|l| l.strip_prefix("    "))
            .map(|l| l.split('#').next().unwrap().trim())
            .collect();
        assert_eq!(
            commands,
            ["cargo run --release", "cargo test"],
            "{path}'s install step"
        );
    }
    let questions = |path: &str| -> BTreeSet<String> {
        passages(doc(path))
            .into_iter()
            .flat_map(|p| p.commands)
            .map(|c| c.replace(" --lang zh", ""))
            .collect()
    };
    let en = questions("README.md");
    assert!(en.len() >= 12, "{en:?}");
    assert_eq!(
        en,
        questions("README.zh-CN.md"),
        "the two READMEs ask different questions"
    );
    assert!(
        questions("README.zh-CN.md").len()
            == passages(doc("README.zh-CN.md"))
                .iter()
                .map(|p| p.commands.len())
                .sum::<usize>()
            && passages(doc("README.zh-CN.md"))
                .iter()
                .flat_map(|p| &p.commands)
                .all(|c| c.ends_with(" --lang zh")),
        "every command in the Chinese README answers in Chinese"
    );
}

/// The keys the READMEs' tables name are keys the planner's key map binds.
#[test]
fn the_readmes_keys_are_bound() {
    let bound: Vec<&str> = vramfit::tui::keymap::BINDINGS
        .iter()
        .flat_map(|b| b.label.split_whitespace())
        .collect();
    for (path, section) in [
        ("README.md", "## The planner's keys"),
        ("README.zh-CN.md", "## 交互界面的按键"),
    ] {
        let text = &doc(path).text;
        let keys = &text[text.find(section).unwrap()..];
        let mut named = 0;
        for row in keys.lines().filter(|l| l.starts_with("| `")) {
            let first_cell = row.split('|').nth(1).unwrap();
            for key in first_cell.split('`').skip(1).step_by(2) {
                assert!(
                    bound.contains(&key),
                    "{path} names key {key:?}, not in the key map"
                );
                named += 1;
            }
        }
        assert!(named > 30, "{path}: {named} keys named");
    }
}

/// GitHub's anchor for a heading.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every relative link (and anchor) in the documents points at something that exists.
#[test]
fn every_link_in_the_docs_resolves() {
    let link = Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut broken = Vec::new();
    for d in docs() {
        let dir = Path::new(ROOT).join(&d.path).parent().unwrap().to_path_buf();
        for m in link.captures_iter(&d.text) {
            let target = &m[1];
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                Path::new(ROOT).join(&d.path)
            } else {
                dir.join(file)
            };
            if !path.exists() {
                broken.push(format!("{}: {target}", d.path));
                continue;
            }
            if !anchor.is_empty() && path.extension().is_some_and(|e| e == "md") {
                let text = std::fs::read_to_string(&path).unwrap();
                let mut in_fence = false;
                let found = text.lines().any(|l| {
                    if l.trim_start().starts_with("```") {
                        in_fence = !in_fence;
                    }
                    !in_fence && l.starts_with('#') && slug(l.trim_start_matches('#')) == anchor
                });
                if !found {
                    broken.push(format!("{}: {target} (no such heading)", d.path));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The install guide keeps to the lock file, and the lock file is one `--locked` accepts.
#[test]
fn the_install_step_keeps_to_the_lock_file() {
    let text = &doc("docs/guide/install.md").text;
    assert!(
        text.contains("\ncargo install --path . --locked "),
        "the install step changed"
    );
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--locked", "--offline", "--depth", "0", "--quiet"])
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "Cargo.lock is out of date, so `cargo install --locked` fails: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let version = run("--version");
    assert!(version.stdout.starts_with("vramfit "), "{}", version.stdout);
}
