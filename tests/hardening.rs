//! Bad input as a hostile user gives it: every case exits 2 with a message that names the
//! file, line and column (or the flag), prints nothing on stdout, writes nothing, and never
//! prints a wrong answer. One test per defect found by fuzzing the CLI.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

mod common;

/// A fresh, empty folder for one case: the working directory, config and data dirs.
struct Case {
    dir: PathBuf,
}

impl Case {
    fn new(name: &str) -> Case {
        let dir =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hardening-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("work")).unwrap();
        std::fs::create_dir_all(dir.join("in")).unwrap();
        Case { dir }
    }

    /// Write an input file (outside the working folder) and return its path.
    fn file(&self, name: &str, text: &str) -> String {
        let p = self.dir.join("in").join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }

    fn cmd(&self) -> Command {
        let mut c = common::vramfit();
        c.current_dir(self.dir.join("work"))
            .env("VRAMFIT_CONFIG", self.dir.join("config"))
            .env("VRAMFIT_DATA", self.dir.join("data"))
            .timeout(Duration::from_secs(60));
        c
    }

    /// Run, expect exit 2, empty stdout, nothing written; return stderr.
    fn fails(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            out.stdout.is_empty(),
            "{args:?} printed: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(!err.contains('\u{1b}'), "raw ESC on stderr: {err:?}");
        let written: Vec<_> = std::fs::read_dir(self.dir.join("work")).unwrap().collect();
        assert!(written.is_empty(), "{args:?} wrote into the working folder");
        assert!(!self.dir.join("data").exists() && !self.dir.join("config").exists());
        err
    }
}

fn config(fields: &str) -> String {
    format!(
        r#"{{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,
"vocab_size":128256{fields}}}"#
    )
}

// 1. Impossible shapes: no NaN, no zero bytes, no "fits".
#[test]
fn impossible_shapes_are_rejected_with_the_field_and_its_position() {
    let c = Case::new("shapes");
    for (fields, key, line) in [
        (r#","num_key_value_heads":0"#, "num_key_value_heads", 2),
        (r#","head_dim":0"#, "head_dim", 2),
        (r#","sliding_window":0"#, "sliding_window", 2),
        (r#","num_key_value_heads":64"#, "num_key_value_heads", 2),
    ] {
        let path = c.file(&format!("{key}-{line}.json"), &config(fields));
        let err = c.fails(&["plan", "--model", &path]);
        assert!(err.contains(&format!("'{key}'")), "{err}");
        assert!(err.contains(&format!(".json:{line}:")), "no line:column: {err}");
    }
    // A catalog model with a declared count of zero.
    let toml = r#"[[model]]
id = "zero"
name = "Zero"
family = "F"
max_context = 4096
hidden = 4096
intermediate = 11008
layers = 32
heads = 32
kv_heads = 8
vocab = 32000
tied_embeddings = false
declared_params = 0
"#;
    let path = c.file("zero.toml", toml);
    let err = c.fails(&["--catalog", &path, "plan", "--model", "zero"]);
    assert!(
        err.contains("zero.toml:13:1: model 'zero': 'declared_params' must be between 1"),
        "{err}"
    );
}

// 2. Counts that would overflow an integer.
#[test]
fn shapes_whose_counts_overflow_are_rejected_naming_the_field() {
    let c = Case::new("overflow");
    for (fields, key) in [
        (r#","num_hidden_layers":4611686018427387904"#, "num_hidden_layers"),
        (r#","hidden_size":9223372036854775808"#, "hidden_size"),
        (r#","vocab_size":4611686018427387904"#, "vocab_size"),
    ] {
        // The later key wins in serde_json's map: the override is the one read.
        let text = config(fields);
        let path = c.file(&format!("{key}.json"), &text);
        let err = c.fails(&["plan", "--model", &path]);
        assert!(err.contains(&format!("'{key}' must be between")), "{key}: {err}");
    }
    // Every dimension in range, but together over 10^15 parameters.
    let path = c.file(
        "huge.json",
        &config(r#","num_hidden_layers":10000,"hidden_size":1048576,"intermediate_size":16777216"#),
    );
    let err = c.fails(&["plan", "--model", &path]);
    assert!(err.contains("parameters, over the 1e15"), "{err}");
}

// Every MLA dimension in range, the estimate under 10^15, yet the real formula's
// q_lora_rank × heads × (nope + rope) runs to 10^19 (issue 22, repros 20 and 20b: it printed
// "-2,161,684,848,527,208,077 params", or wrapped to a small count that "fit").
#[test]
fn an_mla_count_that_overflows_is_refused_by_its_real_formula() {
    let c = Case::new("mla");
    for (layers, total) in [(10_000, "9.01e19"), (2048, "1.84e19")] {
        let text = format!(
            r#"{{"model_type":"deepseek_v3","hidden_size":1,"num_hidden_layers":{layers},"num_attention_heads":65536,
"num_key_value_heads":1,"head_dim":1,"vocab_size":1,"intermediate_size":1,"max_position_embeddings":4096,
"q_lora_rank":1048576,"kv_lora_rank":1,"qk_rope_head_dim":65536,"qk_nope_head_dim":65536,"v_head_dim":1}}"#
        );
        let path = c.file(&format!("mla-{layers}/config.json"), &text);
        let err = c.fails(&["plan", "--model", &path]);
        // Pointed at the file and the key to blame (num_hidden_layers, on line 1).
        assert!(err.contains("config.json:1:45:"), "{err}");
        assert!(
            err.contains(&format!("this shape has {total} parameters, over the 1e15"))
                && err.contains("multi-head latent attention"),
            "{err}"
        );
    }
}

fn gpu_entry(extra: &str) -> String {
    format!(
        r#"[[gpu]]
id = "bad"
name = "Bad"
vendor = "X"
architecture = "X"
memory_gb = 80
memory_type = "X"
bandwidth_gbs = 1000
fp8 = false
link = "pcie"
stack = "cuda"
year = 2024
{extra}"#
    )
}

// 3. Every number of a catalog, with file:line:column and the field.
#[test]
fn catalog_numbers_must_be_finite_and_in_range() {
    let c = Case::new("catalog");
    let cases = [
        (
            gpu_entry("").replace("memory_gb = 80", "memory_gb = nan"),
            6,
            "memory_gb",
        ),
        (
            gpu_entry("").replace("memory_gb = 80", "memory_gb = inf"),
            6,
            "memory_gb",
        ),
        (
            gpu_entry("").replace("bandwidth_gbs = 1000", "bandwidth_gbs = nan"),
            8,
            "bandwidth_gbs",
        ),
        (gpu_entry("bf16_tflops = -5\n"), 13, "bf16_tflops"),
        (gpu_entry("link_gbs = -1\n"), 13, "link_gbs"),
    ];
    for (i, (text, line, field)) in cases.iter().enumerate() {
        let path = c.file(&format!("gpu{i}.toml"), text);
        let err = c.fails(&["--catalog", &path, "gpus"]);
        assert!(
            err.contains(&format!("gpu{i}.toml:{line}:1: gpu 'bad': '{field}'")),
            "{err}"
        );
    }
    let offer = |extra: &str| {
        format!(
            "[[offer]]\ngpu = \"RTX-4090\"\nprovider = \"X\"\nprice = 100\ncurrency = \"USD\"\nper = \"month\"\n{extra}"
        )
    };
    for (i, (extra, field)) in [
        ("discounts = [{ cards = 2, discount = 1.5 }]\n", "discount"),
        ("discounts = [{ cards = 2, discount = nan }]\n", "discount"),
        ("price_max = -3\n", "price_max"),
    ]
    .iter()
    .enumerate()
    {
        let path = c.file(&format!("offer{i}.toml"), &offer(extra));
        let err = c.fails(&["--catalog", &path, "gpus"]);
        assert!(err.contains(&format!("offer{i}.toml:7:")), "{err}");
        assert!(
            err.contains(&format!("'{field}' must be a number between")),
            "{err}"
        );
    }
    // An offer's gpu id matches whatever its case, as --gpu does.
    let path = c.file("case.toml", &offer(""));
    c.cmd().args(["--catalog", &path, "gpus"]).assert().success();
    // A duplicate id inside one file.
    let twice = format!("{}\n{}", gpu_entry(""), gpu_entry(""));
    let path = c.file("twice.toml", &twice);
    let err = c.fails(&["--catalog", &path, "gpus"]);
    assert!(
        err.contains("twice.toml:15:6: gpu id 'bad' appears twice in this file"),
        "{err}"
    );
}

// 4. One range per knob for the CLI and plan files.
#[test]
fn knob_values_out_of_range_name_the_flag_and_the_range() {
    let c = Case::new("ranges");
    for (args, message) in [
        (
            vec![
                "--method",
                "lora",
                "--train-tokens",
                "1000",
                "--utilization",
                "5e-324",
            ],
            "--utilization must be between 0.01 and 1",
        ),
        (
            vec!["--network-gbps", "5e-324"],
            "--network-gbps must be between 1 and 100000",
        ),
        (
            vec!["--usd-cny", "1e-300"],
            "--usd-cny must be between 0.1 and 100",
        ),
        (
            vec!["--hours", "0.5"],
            "--hours must be between 1 and 87600 hours, got 0.5",
        ),
        (
            vec!["--context", "-1"],
            "--context must be between 1 and 16777216 tokens, got -1",
        ),
        (vec!["--gpu-util", "nan"], "--gpu-util must be between 0.05 and 1"),
        (vec!["--margin", "inf"], "--margin must be between 0 and 10"),
    ] {
        let mut all = vec!["plan", "--model", "llama-3.1-8b"];
        all.extend(args);
        let err = c.fails(&all);
        assert!(err.contains(message), "{err}");
    }
}

#[test]
fn plan_file_values_out_of_range_point_at_their_line() {
    let c = Case::new("planfile");
    let good = vramfit::planfile::PlanFile::new(
        "llama-3.1-8b",
        &vramfit::engine::Scenario::seed_inference(vramfit::engine::WeightPrecision::Bf16).calibrated(),
        vramfit::engine::verdict::rank::SortBy::Price,
        None,
    )
    .to_toml();
    for (key, bad, message) in [
        (
            "utilization",
            "utilization = 0.004",
            "--utilization must be between 0.01 and 1",
        ),
        ("hours", "hours = 0.5", "--hours must be between 1 and 87600"),
        ("gpu-util", "gpu-util = nan", "--gpu-util must be between"),
    ] {
        let line = good
            .lines()
            .position(|l| l.starts_with(&format!("{key} =")))
            .unwrap()
            + 1;
        let text: String = good
            .lines()
            .map(|l| {
                if l.starts_with(&format!("{key} =")) {
                    bad
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let path = c.file(&format!("{key}.toml"), &text);
        let err = c.fails(&["--open", &path]);
        assert!(err.contains(&format!("{key}.toml:{line}:1: {message}")), "{err}");
    }
}

// 5. Themes name a built-in or a theme in the themes folder, never a path.
#[test]
fn a_theme_cannot_extend_a_path() {
    let c = Case::new("extends");
    for target in ["/tmp/x", "../../..", "default/../../x"] {
        let path = c.file("t.toml", &format!("extends = \"{target}\"\n"));
        let err = c.fails(&["--theme", &path]);
        assert!(
            err.contains("t.toml:1:1: extends names a built-in theme"),
            "{err}"
        );
    }
}

#[test]
fn screenshots_say_where_they_write() {
    let c = Case::new("shots");
    let out = c.cmd().args(["screenshots"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap();
    let expected = c.dir.join("work").join("screenshots");
    assert!(first.contains(&expected.display().to_string()), "{first}");
}

// 6. Control characters from files never reach the terminal, Markdown or SVG.
#[test]
fn control_characters_in_a_config_are_escaped_everywhere() {
    let c = Case::new("controls");
    let text = config(r#","model_type":"evil\u001b]0;pwned\u0007","_name_or_path":"x\u001b[2J""#);
    let path = c.file("evil.json", &text);
    for extra in [&[][..], &["--markdown"][..], &["--json"][..]] {
        let mut args = vec!["plan", "--model", &path];
        args.extend(extra);
        let out = c.cmd().args(&args).output().unwrap();
        assert!(out.status.success());
        for stream in [&out.stdout, &out.stderr] {
            assert!(!stream.contains(&0x1b), "raw ESC in {extra:?}");
            assert!(!stream.contains(&0x07), "raw BEL in {extra:?}");
        }
    }
}

#[test]
fn theme_symbols_are_one_printable_cell() {
    let c = Case::new("symbols");
    for (section, symbol) in [
        ("weights", "\\u001b"),
        ("weights", "\\n"),
        ("kv_cache", "\\r"),
        ("free", "\\u0007"),
        ("free", "ab"),
        ("free", "中"),
    ] {
        let path = c.file(
            "s.toml",
            &format!("extends = \"default\"\n[bar.{section}]\nsymbol = \"{symbol}\"\n"),
        );
        let err = c.fails(&["--theme", &path]);
        assert!(
            err.contains(&format!(
                "s.toml:2:6: bar.{section}.symbol must be one printable character"
            )),
            "{err}"
        );
    }
}

// 7. Devices and pipes are not read.
#[test]
#[cfg(unix)]
fn devices_and_pipes_are_refused_at_once() {
    let c = Case::new("pipes");
    let fifo = c.dir.join("in").join("pipe.toml");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let folder = c.dir.join("in").join("folder");
    std::fs::create_dir_all(&folder).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(folder.join("x.toml"))
            .status()
            .unwrap()
            .success()
    );
    let fifo = fifo.display().to_string();
    let folder = folder.display().to_string();
    for args in [
        vec!["plan", "--model", "/dev/zero"],
        vec!["plan", "--model", fifo.as_str()],
        vec!["--catalog", "/dev/zero", "gpus"],
        vec!["--catalog", fifo.as_str(), "gpus"],
        vec!["--catalog", folder.as_str(), "gpus"],
        vec!["--open", fifo.as_str()],
        vec!["--theme", fifo.as_str()],
    ] {
        let err = c.fails(&args);
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
    let big = c.file("big.json", &" ".repeat(5 << 20));
    let err = c.fails(&["plan", "--model", &big]);
    assert!(err.contains("too large (at most 4 MB)"), "{err}");
    // A catalog may be larger (10,000 cards with sources), but not without bound.
    let huge = c.file("huge.toml", &" ".repeat(33 << 20));
    let err = c.fails(&["--catalog", &huge, "gpus"]);
    assert!(err.contains("too large (at most 32 MB)"), "{err}");
}

// 8. No quadratic work, and a short echo of a bad value.
#[test]
fn long_layer_lists_and_long_ids_are_handled_in_linear_time() {
    let c = Case::new("linear");
    let types = vec!["\"sliding_attention\""; 150_000].join(",");
    let text = format!(
        r#"{{"model_type":"gpt_oss","hidden_size":2880,"num_hidden_layers":150000,"num_attention_heads":64,
"num_key_value_heads":8,"head_dim":64,"vocab_size":201088,"sliding_window":128,"layer_types":[{types}]}}"#
    );
    let path = c.file("long.json", &text);
    let started = std::time::Instant::now();
    let err = c.fails(&["plan", "--model", &path]);
    assert!(
        err.contains("'num_hidden_layers' must be between 1 and 10000"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
    // A 131,000-character card id against a 10,000-card catalog.
    let cards: String = (0..10_000)
        .map(|i| gpu_entry("").replace("\"bad\"", &format!("\"card-{i}\"")))
        .collect();
    let catalog = c.file("many.toml", &cards);
    let wanted = "x".repeat(131_000);
    let started = std::time::Instant::now();
    let err = c.fails(&[
        "--catalog",
        &catalog,
        "plan",
        "--model",
        "llama-3.1-8b",
        "--gpu",
        &wanted,
    ]);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(err.len() < 400, "the error echoes {} bytes", err.len());
    assert!(err.contains("unknown gpu 'xxxxxxxx"), "{err}");
}

// 9. Value errors in a config.json carry line and column.
#[test]
fn config_json_value_errors_have_line_and_column() {
    let c = Case::new("positions");
    let text = "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 0,\n  \"num_hidden_layers\": 32,\n  \"num_attention_heads\": 32,\n  \"vocab_size\": 32000\n}\n";
    let path = c.file("cfg.json", text);
    let err = c.fails(&["plan", "--model", &path]);
    assert!(
        err.contains("cfg.json:3:3: 'hidden_size' must be positive"),
        "{err}"
    );
    let text = text.replace("\"hidden_size\": 0", "\"hidden_size\": \"big\"");
    let path = c.file("cfg2.json", &text);
    let err = c.fails(&["plan", "--model", &path]);
    assert!(
        err.contains("cfg2.json:3:3: 'hidden_size' must be a non-negative integer"),
        "{err}"
    );
}
