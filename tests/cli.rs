//! The binary as a script sees it: output, JSON contract, exit codes, bad input.

use predicates::prelude::*;
use serde_json::Value;

mod common;
use common::vramfit;

fn fixture(p: &str) -> String {
    format!("{}/tests/fixtures/{p}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn plan_json_has_the_contract_fields() {
    let out = vramfit()
        .args([
            "plan",
            "--model",
            "seed-70b",
            "--weights",
            "fp8",
            "--convention",
            "seed",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"]["id"], "seed-70b");
    assert_eq!(v["model"]["params"], 70_000_000_000u64);
    assert_eq!(v["model"]["active_params"], 70_000_000_000u64);
    assert_eq!(v["model"]["kv_bytes_per_token"], 327_680);
    // `seed` is the old name of the quick rules, still accepted.
    assert_eq!(v["convention"], "quick");
    // 70e9 + 327,680 × 8,192 + 2e9
    assert_eq!(
        v["total_bytes"],
        70_000_000_000u64 + 2_684_354_560 + 2_000_000_000
    );
    let names: Vec<&str> = v["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["weights", "kv_cache", "overhead"]);
    let sum: u64 = v["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(sum, v["total_bytes"].as_u64().unwrap());
    let first = &v["options"][0];
    for key in [
        "gpu",
        "name",
        "count",
        "verdict",
        "free_bytes",
        "price_usd_month",
        "decode_tokens_per_s",
    ] {
        assert!(first.get(key).is_some(), "missing {key}");
    }
    // Fitting first, cheapest first, single cards and combos together: `cheapest` is the
    // first option and no fitting option has a lower monthly price.
    let options = v["options"].as_array().unwrap();
    let cheapest = &v["cheapest"];
    assert_eq!(cheapest["gpu"], first["gpu"]);
    assert_eq!(cheapest["count"], first["count"]);
    assert_eq!(first["verdict"], "fits");
    let lowest = options
        .iter()
        .filter(|o| o["verdict"] != "no")
        .filter_map(|o| o["price_usd_month"].as_f64())
        .fold(f64::INFINITY, f64::min);
    assert_eq!(cheapest["price_usd_month"].as_f64().unwrap(), lowest);
    // The guide's own pick, the H100 PCIe at $1,490, fits with 80 − 74.68 GB left.
    let h100 = options
        .iter()
        .find(|o| o["gpu"] == "h100-pcie" && o["count"] == 1)
        .unwrap();
    assert_eq!(h100["verdict"], "fits");
    assert_eq!(h100["price_usd_month"], 1490.0);
    assert_eq!(h100["free_bytes"], 80_000_000_000i64 - 74_684_354_560);
}

#[test]
fn plan_with_gpu_restricts_to_that_card_and_its_combos() {
    let out = vramfit()
        .args([
            "plan",
            "--model",
            "seed-405b",
            "--weights",
            "int4",
            "--gpu",
            "a40",
            "--json",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let opts = v["options"].as_array().unwrap();
    assert_eq!(opts.len(), 4);
    assert!(opts.iter().all(|o| o["gpu"] == "a40"));
    assert_eq!(opts[0]["count"], 8);
    assert_eq!(opts[0]["price_usd_month"], 1728.0);
}

#[test]
fn plan_text_shows_breakdown_and_pick() {
    vramfit()
        .args([
            "plan",
            "--model",
            "seed-7b",
            "--convention",
            "seed",
            "--provider",
            "GPU Rent Hub",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("weights         14.00 GB"))
        .stdout(predicate::str::contains("total           17.07 GB"))
        .stdout(predicate::str::contains("Cheapest fit: RTX A5000 at $190/month"));
}

#[test]
fn plan_accepts_a_config_json_path() {
    vramfit()
        .args(["plan", "--model", &fixture("hf/unknown-arch"), "--json"])
        .assert()
        .success()
        .stderr(predicate::str::contains("warning: unknown model_type 'fancy'"));
}

#[test]
fn table_reproduces_the_seed_lookup() {
    vramfit()
        .arg("table")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Inference FP8           75 GB  NVIDIA H100 PCIe 80GB $1,490",
        ))
        .stdout(predicate::str::contains("4.85 nodes of 8× AMD Instinct MI300X"));
    let out = vramfit().args(["table", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 30);
}

#[test]
fn models_and_gpus_list_the_catalog() {
    let out = vramfit().args(["models", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.as_array().unwrap().len() >= 45);
    let out = vramfit().args(["gpus", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let gpus = v.as_array().unwrap();
    assert!(gpus.len() >= 35);
    let h100 = gpus.iter().find(|g| g["id"] == "h100-sxm").unwrap();
    assert_eq!(h100["bandwidth_gbs"], 3350.0);
    assert_eq!(h100["price_usd_month"], 1690.0);
    vramfit()
        .arg("gpus")
        .assert()
        .success()
        .stdout(predicate::str::contains("b200").and(predicate::str::contains("2+ only")));
}

#[test]
fn unknown_model_suggests_names_and_exits_2() {
    vramfit()
        .args(["plan", "--model", "lama-3.1-8b"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "unknown model 'lama-3.1-8b'. Did you mean: llama-3.1-8b",
        ));
}

#[test]
fn unknown_gpu_suggests_names_and_exits_2() {
    vramfit()
        .args(["plan", "--model", "seed-7b", "--gpu", "4090"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unknown gpu '4090'. Did you mean: rtx-4090",
        ));
}

#[test]
fn nonsense_numbers_exit_2() {
    for args in [
        ["--context", "0"],
        ["--batch", "0"],
        ["--context", "99999999999"],
        ["--batch", "-3"],
        ["--lora-rank", "0"],
        ["--margin", "-1"],
        ["--weights", "int3"],
    ] {
        vramfit()
            .args(["plan", "--model", "seed-7b"])
            .args(args)
            .assert()
            .code(2)
            .stdout("");
    }
}

#[test]
fn impossible_combinations_exit_2_with_the_fix() {
    vramfit()
        .args([
            "plan",
            "--model",
            "seed-7b",
            "--method",
            "full",
            "--weights",
            "int4",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("use --weights bf16, fp16 or fp32"));
}

#[test]
fn malformed_json_config_exits_2_with_location() {
    vramfit()
        .args(["plan", "--model", &fixture("hf/malformed")])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "malformed/config.json:5:3: invalid JSON",
        ));
}

#[test]
fn bad_catalog_files_exit_2_with_file_line_column() {
    let cases = [
        ("invalid/syntax.toml", "syntax.toml:1:"),
        (
            "invalid/gpu-bad-type.toml",
            "gpu-bad-type.toml:4:13: invalid type: string \"lots\"",
        ),
        (
            "invalid/offer-unknown-gpu.toml",
            "offer-unknown-gpu.toml:2:1: offer for unknown gpu 'no-such-card'",
        ),
        (
            "invalid/gpu-zero-memory.toml",
            "gpu-zero-memory.toml:6:1: gpu 'zero': 'memory_gb' must be a number between 0.1 and 100000, got 0",
        ),
        (
            "invalid/model-head-dim.toml",
            "model-head-dim.toml:6:1: model 'odd': hidden 4000 is not a multiple of heads 48; give head_dim",
        ),
        (
            "invalid/offer-currency.toml",
            "offer-currency.toml:5:1: offer for 'rtx-4090': currency 'EUR' has no exchange rate",
        ),
        (
            "invalid/model-unknown-field.toml",
            "model-unknown-field.toml:13:1: unknown field `wingspan`",
        ),
    ];
    for (file, message) in cases {
        vramfit()
            .args(["--catalog", &fixture(file), "models"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(message));
    }
    vramfit()
        .args(["--catalog", "/no/such/file.toml", "models"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no such catalog file"));
}

#[test]
fn a_user_catalog_adds_a_card() {
    let dir = tempdir_with(
        "extra.toml",
        "[[gpu]]\nid = \"my-card\"\nname = \"My card\"\nvendor = \"X\"\narchitecture = \"X\"\n\
         memory_gb = 40\nmemory_type = \"HBM\"\nbandwidth_gbs = 1000\nfp8 = false\nlink = \"pcie\"\n\
         stack = \"cuda\"\nyear = 2024\n\n[[offer]]\ngpu = \"my-card\"\nprovider = \"Me\"\nprice = 0.1\n\
         currency = \"USD\"\nper = \"hour\"\n",
    );
    let out = vramfit()
        .args([
            "--catalog",
            dir.to_str().unwrap(),
            "plan",
            "--model",
            "seed-7b",
            "--gpu",
            "my-card",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["options"][0]["price_usd_month"], 72.0, "$0.10/h × 720 h");
}

fn tempdir_with(name: &str, content: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "files-{}-{}",
        std::process::id(),
        name.replace('.', "-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), content).unwrap();
    dir
}

#[test]
fn a_bad_theme_is_reported_before_the_screen_opens() {
    let dir = tempdir_with(
        "broken.toml",
        "extends = \"default\"\ntitle = { fg = \"mauve-ish\" }\n",
    );
    vramfit()
        .args(["--theme", dir.join("broken.toml").to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("broken.toml:2:16"));
    vramfit()
        .args(["--theme", "solarized"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown theme 'solarized'"));
}

#[test]
fn an_unknown_start_model_is_reported_before_the_screen_opens() {
    vramfit()
        .args(["--model", "llama-9"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown model 'llama-9'"));
}

#[test]
fn screenshots_are_written_as_svg() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("shots-{}", std::process::id()));
    vramfit()
        .args(["screenshots", dir.to_str().unwrap()])
        .assert()
        .success();
    let svg = std::fs::read_to_string(dir.join("tight-80x24.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("tight"),
        "{}",
        &svg[..200]
    );
}

#[test]
fn the_planner_without_a_terminal_says_so() {
    vramfit()
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the planner needs an interactive terminal",
        ))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn a_context_beyond_the_model_maximum_is_warned_not_refused() {
    let out = vramfit()
        .args(["plan", "--model", "phi-3-mini", "--context", "32768", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .contains("beyond Phi-3 mini 4k's configured maximum of 4,096")
    );
}

#[test]
fn an_unknown_provider_exits_2_naming_the_known_ones() {
    vramfit()
        .args(["plan", "--model", "llama-3.1-8b", "--provider", "nosuchcloud"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("unknown provider 'nosuchcloud'"))
        .stderr(predicate::str::contains("RunPod"))
        .stderr(predicate::str::contains("Vast.ai"));
}

#[test]
fn a_spot_only_provider_prices_its_cards_marked_spot() {
    let out = vramfit()
        .args([
            "plan",
            "--model",
            "llama-3.1-8b",
            "--provider",
            "runpod",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let priced: Vec<&Value> = v["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["price_usd_month"].is_number())
        .collect();
    assert!(!priced.is_empty(), "RunPod's spot offers price its cards");
    for o in &priced {
        assert_eq!(o["offer"]["provider"], "RunPod");
        assert_eq!(o["offer"]["kind"], "spot");
    }
    vramfit()
        .args(["plan", "--model", "llama-3.1-8b", "--provider", "RunPod"])
        .assert()
        .success()
        .stdout(predicate::str::contains(" spot"));
}

#[test]
fn the_old_convention_name_is_still_accepted() {
    for name in ["seed", "quick"] {
        let out = vramfit()
            .args(["plan", "--model", "seed-7b", "--convention", name, "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["convention"], "quick");
    }
}

#[test]
fn fit_json_has_the_contract_fields() {
    let out = vramfit()
        .args([
            "fit",
            "--model",
            "llama-3.1-70b",
            "--weights",
            "fp8",
            "--gpu",
            "h100-pcie",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["target"]["gpu"], "h100-pcie");
    assert_eq!(v["target"]["count"], 1);
    assert_eq!(v["target"]["verdict"], "no");
    assert_eq!(v["max_context"], 5504);
    assert!(v["max_batch"].is_null(), "not even batch 1 fits at 8k");
    let first = &v["suggestions"][0];
    for key in [
        "change",
        "flags",
        "verdict",
        "free_bytes_per_card",
        "decode_tokens_per_s",
        "price_usd_month",
        "host_bytes",
        "note",
    ] {
        assert!(first.get(key).is_some(), "missing {key}");
    }
    let context = v["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["change"] == "context ≤ 5,504")
        .unwrap();
    assert_eq!(context["flags"], serde_json::json!(["--context", "5504"]));
    // The flags, appended to the plan's own, give the promised verdict.
    let out = vramfit()
        .args([
            "plan",
            "--model",
            "llama-3.1-70b",
            "--weights",
            "fp8",
            "--gpu",
            "h100-pcie",
            "--context",
            "8192",
        ])
        .args(["--context", "5504", "--no-combos", "--json"])
        .output()
        .unwrap();
    let p: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(p["options"][0]["verdict"], context["verdict"]);
    // Unknown card: exit 2.
    vramfit()
        .args(["fit", "--model", "llama-3.1-8b", "--gpu", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown gpu 'nope'"));
}

#[test]
fn a_four_line_card_and_a_short_model_load_and_plan() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mine-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.toml");
    std::fs::write(
        &file,
        "[[gpu]]\nid = \"my-card\"\nname = \"My Card 48GB\"\nmemory_gb = 48\nbandwidth_gbs = 864\n\n\
         [[model]]\nid = \"tiny\"\nname = \"Tiny 1B\"\nhidden = 2048\nintermediate = 8192\nlayers = 16\nheads = 32\nvocab = 32000\n",
    )
    .unwrap();
    let out = vramfit()
        .args([
            "--catalog",
            file.to_str().unwrap(),
            "plan",
            "--model",
            "tiny",
            "--gpu",
            "my-card",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["options"][0]["gpu"], "my-card");
    assert_eq!(v["options"][0]["verdict"], "fits");
    assert_eq!(v["options"][0]["capacity_bytes"], 48_000_000_000u64);
    // Without a price: no price; bandwidth known: a decode ceiling.
    assert!(v["options"][0]["price_usd_month"].is_null());
    assert!(v["options"][0]["decode_tokens_per_s"].as_f64().unwrap() > 0.0);
    // kv_heads defaults to heads (multi-head attention): 2 × 32 × 64 × 16 layers × 2 B.
    assert_eq!(v["model"]["kv_bytes_per_token"], 2 * 32 * 64 * 16 * 2);
}

/// `fit` prices its suggestions in the currency asked for, as `plan` does.
#[test]
fn fit_prices_in_the_display_currency() {
    let args = ["fit", "--model", "llama-3.1-70b", "--gpu", "rtx-4090"];
    let out = vramfit().args(args).args(["--currency", "CNY"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // One 4090 rents for $124 a month: ¥893 at 7.2 yuan per dollar; eight for ¥7,142.
    assert!(text.contains("¥893 → ¥7,142/month"), "{text}");
    assert!(!text.contains('$'), "{text}");
    let out = vramfit().args(args).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("$124 → $992/month"));
}

/// `plan --json` for Llama 3.1 8B with `args`, and its activations segment.
fn activations_of(args: &[&str]) -> (Value, Value) {
    let out = vramfit()
        .args(["plan", "--model", "llama-3.1-8b", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let segment = common::segment(&v, "activations").clone();
    (v, segment)
}

/// The bytes of one part of a segment.
fn part(segment: &Value, name: &str) -> u64 {
    segment["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap()["bytes"]
        .as_u64()
        .unwrap()
}

/// `--activation-offload on`: a LoRA of Llama 3.1 8B at 2,048 tokens with checkpointing keeps
/// each layer's 16-bit input (2 · 4,096 · 2,048 = 16,777,216 B) until backward; offloading moves
/// all but two of the 32 to host memory (30 × 16,777,216 = 503,316,480 B), and the card keeps
/// two inputs and the layer being recomputed (200,960 B a token × 2,048).
#[test]
fn activation_offload_moves_all_but_two_layers_to_host() {
    let input = 2 * 4096 * 2048u64;
    let recomputed = 200_960 * 2048u64;
    let (off, segment) = activations_of(&["--method", "lora", "--activation-offload", "off"]);
    assert_eq!(part(&segment, "layers"), 32 * input + recomputed);
    assert_eq!(off["host_bytes"], 0);
    let (on, segment) = activations_of(&["--method", "lora", "--activation-offload", "on"]);
    assert_eq!(part(&segment, "layers"), 2 * input + recomputed);
    assert_eq!(on["host_bytes"], 30 * input);
    assert_eq!(on["scenario"]["activation_offload"], true);
}

/// `--checkpointing selective`: torchtitan's op-level policy saves, per layer and token, the
/// input (h), q (wq) and v (wv) — every other matmul — the attention output (q) with its fp32
/// log-sum-exp (4 × heads), and the MLP's first (w1, I) and last (w2, h) matmul outputs. For
/// Llama 3.1 8B: 2 × (4096 + 4096 + 1024 + 14,336 + 4096 + 4096) + 4 × 32 = 63,616 B, against
/// 8,192 B (the input alone) under full checkpointing; one layer is recomputed either way.
#[test]
fn selective_checkpointing_saves_what_torchtitans_policy_saves() {
    let layers = |mode: &str| {
        part(
            &activations_of(&["--method", "full", "--checkpointing", mode]).1,
            "layers",
        )
    };
    let tokens = 2048u64;
    let recomputed = 200_832 * tokens;
    let selective = 2 * (4096 + 4096 + 1024 + 14_336 + 4096 + 4096) + 4 * 32;
    assert_eq!(selective, 63_616);
    assert_eq!(layers("selective"), 32 * selective * tokens + recomputed);
    assert_eq!(layers("on"), 32 * 2 * 4096 * tokens + recomputed);
    assert_eq!(layers("full"), layers("on"), "full is another name for on");
}

/// `--compile on`: torch.compile's partitioner recomputes pointwise ops, so a Llama 3.1 8B
/// layer saves per token: norms 2 × 4·h, attention 2·h + 2·2·q + 2·2·kv, the gated MLP
/// 2·h + 2·2·I (gate and up, not silu and the product), flash attention's 4 × heads:
/// 32,768 + 28,672 + 65,536 + 128 = 127,104 B (200,832 B uncompiled).
#[test]
fn compile_recomputes_pointwise_ops() {
    let formula = |compile: &str| {
        activations_of(&["--method", "full", "--compile", compile]).1["formula"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (h, q, kv, i) = (4096u64, 4096u64, 1024u64, 14_336u64);
    let compiled = 2 * 4 * h + (2 * h + 2 * 2 * q + 2 * 2 * kv) + (2 * h + 2 * 2 * i) + 4 * 32;
    assert_eq!(compiled, 127_104);
    assert!(
        formula("on").contains("per layer per token 127104 B"),
        "{}",
        formula("on")
    );
    assert!(
        formula("off").contains("per layer per token 200832 B"),
        "{}",
        formula("off")
    );
}

/// At the knobs' edges (16M tokens × a batch of 1M) a plan needs more than 2^64 bytes: the
/// JSON carries the true figure the text shows (27,507,310,991 GB), as a float past 2^64,
/// not a saturated u64 (18446744073709551615) or i64 (−9223372036854775808).
#[test]
fn json_bytes_past_u64_are_the_true_values() {
    let args = [
        "--model",
        "llama-3.1-8b",
        "--method",
        "qlora",
        "--gpu",
        "a100-vgpu-1-20",
        "--context",
        "16777216",
        "--batch",
        "1048576",
    ];
    let run = |cmd: &str, json: bool| {
        let mut c = vramfit();
        c.arg(cmd).args(args);
        if json {
            c.arg("--json");
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run("plan", false);
    assert!(text.contains("  total        27,507,310,991 GB"), "{text}");
    let plan = run("plan", true);
    assert!(
        plan.contains("\"total_bytes\": 2.7507310990900904e+19,"),
        "{plan}"
    );
    assert!(
        plan.contains("\"free_bytes_per_card\": -2.7507310987142808e+19,"),
        "{plan}"
    );
    // Below 2^64 a byte count stays an integer.
    assert!(plan.contains("\"bytes\": 18050427306500947968"), "{plan}");
    let fit = run("fit", true);
    assert!(
        fit.contains("\"free_bytes_per_card\": -2.7507310987142808e+19"),
        "{fit}"
    );
    for out in [&plan, &fit] {
        assert!(!out.contains("18446744073709551615"));
        assert!(!out.contains("9223372036854775807"));
        assert!(!out.contains("9223372036854775808"));
        assert!(!out.contains("_bytes\": null"), "a byte count printed as null");
        let v: Value = serde_json::from_str(out).unwrap();
        assert!(v.is_object());
    }
    let v: Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(v["total_bytes"].as_f64(), Some(27_507_310_990_900_903_936.0));
}
