//! The printed command line is the test of the plan (issue 40, item 8): for each option a
//! plan prints flags for, the launch command made of them (`llama-server -m MODEL FLAGS`,
//! `vllm serve MODEL FLAGS`, `python -m sglang.launch_server --model-path MODEL FLAGS`,
//! `FLAGS ollama run MODEL:QUANT`), read
//! back by `plan --cmd` on the same card, gives the same plan: verdict, free memory per card,
//! context, KV format, split, cards and sequences.
//!
//! The scenarios are a grid over models (dense, MoE, gpt-oss), runtimes, KV formats, cards,
//! splits, contexts and batches; `ROUND_TRIP_ALL=1` walks all of it, else every fifth.

use serde_json::Value;

mod common;
use common::{json_of, option};

const MODELS: &[(&str, &str)] = &[
    ("llama-3.1-8b", "Llama-3.1-8B-Instruct"),
    ("qwen3-30b-a3b", "Qwen3-30B-A3B"),
    ("llama-3.1-70b", "Llama-3.1-70B-Instruct"),
    ("gpt-oss-20b", "gpt-oss-20b"),
];

/// The launch command a user types for `flags` under `runtime`, with the model as its
/// publisher names it (a GGUF file for the ggml runtimes).
fn command(runtime: &str, published: &str, weights: &str, flags: &str) -> String {
    match runtime {
        "llama.cpp" => format!(
            "llama-server -m {published}-{}.gguf {flags}",
            weights.to_uppercase()
        ),
        "vllm" => format!("vllm serve {published} {flags}"),
        "sglang" => format!("python -m sglang.launch_server --model-path {published} {flags}"),
        // Ollama's flags are its server's environment; the tag names the quantization.
        "ollama" => format!("{flags} ollama run {published}:{weights}"),
        other => unreachable!("{other}"),
    }
}

/// What must agree between an option and its command's plan.
fn facts(plan: &Value, o: &Value) -> Vec<(String, Value)> {
    let s = &plan["scenario"];
    let mut f: Vec<(String, Value)> = [
        "verdict",
        "free_bytes_per_card",
        "context",
        "split",
        "count",
        "max_concurrent_sequences",
    ]
    .iter()
    .map(|k| (k.to_string(), o[*k].clone()))
    .collect();
    for k in ["kv", "weights", "batch", "framework"] {
        f.push((format!("scenario.{k}"), s[k].clone()));
    }
    f
}

#[test]
fn every_printed_command_plans_what_printed_it() {
    let all = std::env::var("ROUND_TRIP_ALL").is_ok();
    let mut checked = 0;
    let mut disagree = Vec::new();
    let mut k = 0;
    for (id, published) in MODELS {
        for runtime in ["llama.cpp", "ollama", "vllm", "sglang"] {
            let ggml = runtime == "llama.cpp" || runtime == "ollama";
            let weights = match (*id, ggml) {
                ("gpt-oss-20b", _) => "mxfp4",
                (_, true) => "q4_k_m",
                (_, false) => "bf16",
            };
            let kvs: &[&str] = if ggml { &["fp16", "q8_0"] } else { &["fp16", "fp8"] };
            for kv in kvs {
                for (gpu, cards) in [
                    ("rtx-4090", 1),
                    ("rtx-4090", 2),
                    ("h100-sxm", 1),
                    ("a100-80gb-pcie", 4),
                ] {
                    for split in ["tensor", "layer"] {
                        // Ollama splits by layer only (a tensor split is refused).
                        if runtime == "ollama" && split == "tensor" {
                            continue;
                        }
                        for context in ["4096", "32768"] {
                            k += 1;
                            if !all && k % 5 != 0 {
                                continue;
                            }
                            let cards_text = cards.to_string();
                            let base = [
                                "plan",
                                "-m",
                                id,
                                "--framework",
                                runtime,
                                "--weights",
                                weights,
                                "--kv",
                                kv,
                                "--gpu",
                                gpu,
                                "--cards",
                                &cards_text,
                                "--split",
                                split,
                                "--context",
                                context,
                                "--json",
                            ];
                            let plan = json_of(&base);
                            let o = option(&plan, gpu, cards as u64);
                            let Some(flags) = o["runtime_flags"].as_str().filter(|f| !f.is_empty()) else {
                                continue;
                            };
                            let cmd = command(runtime, published, weights, flags);
                            let again = json_of(&["plan", "--cmd", &cmd, "--gpu", gpu, "--json"]);
                            let a = option(&again, gpu, cards as u64);
                            let (want, got) = (facts(&plan, o), facts(&again, a));
                            if want != got {
                                let differ: Vec<String> = want
                                    .iter()
                                    .zip(&got)
                                    .filter(|(w, g)| w != g)
                                    .map(|(w, g)| format!("{}: {} → {}", w.0, w.1, g.1))
                                    .collect();
                                disagree.push(format!(
                                    "{}\n  printed: {cmd}\n  {}",
                                    base[..16].join(" "),
                                    differ.join("; ")
                                ));
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    eprintln!("{checked} printed commands, {} planned otherwise", disagree.len());
    assert!(checked >= 10, "only {checked} options printed flags");
    assert!(
        disagree.is_empty(),
        "{} of {checked} printed commands plan otherwise:\n{}",
        disagree.len(),
        disagree.join("\n")
    );
}
