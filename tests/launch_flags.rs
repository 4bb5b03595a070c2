//! The flags a plan prints (`runtime_flags`, the text's `run with:`) start what was planned:
//! each knob that changes what the runtime allocates is in them, in the runtime's own words
//! (issue 40, defect 1). Each test names the knob it checks.

mod common;
use common::json_of;

/// The flags of the first option of `plan ARGS --json`.
fn flags_of(args: &[&str]) -> String {
    let mut all = vec!["plan"];
    all.extend_from_slice(args);
    all.push("--json");
    let plan = json_of(&all);
    plan["options"][0]["runtime_flags"]
        .as_str()
        .unwrap_or_else(|| panic!("{args:?}: no runtime_flags in {}", plan["options"][0]))
        .to_string()
}

#[test]
fn llama_cpp_flags_carry_a_quantized_kv_cache() {
    let f = flags_of(&[
        "-m",
        "llama-3.1-8b",
        "--framework",
        "llama.cpp",
        "--kv",
        "q8_0",
        "--gpu",
        "rtx-4090",
        "--context",
        "8192",
    ]);
    assert!(f.contains("-ctk q8_0 -ctv q8_0"), "{f}");
    let f = flags_of(&[
        "-m",
        "llama-3.1-8b",
        "--framework",
        "llama.cpp",
        "--kv",
        "q4_0",
        "--gpu",
        "rtx-4090",
        "--context",
        "8192",
    ]);
    assert!(f.contains("-ctk q4_0 -ctv q4_0"), "{f}");
    // f16 is llama.cpp's default: no flag.
    let f = flags_of(&[
        "-m",
        "llama-3.1-8b",
        "--framework",
        "llama.cpp",
        "--gpu",
        "rtx-4090",
        "--context",
        "8192",
    ]);
    assert!(!f.contains("-ctk"), "{f}");
}

#[test]
fn vllm_and_sglang_flags_carry_an_fp8_kv_cache() {
    let f = flags_of(&[
        "-m",
        "llama-3.1-8b",
        "--framework",
        "vllm",
        "--kv",
        "fp8",
        "--gpu",
        "h100-sxm",
    ]);
    assert!(f.contains("--kv-cache-dtype fp8"), "{f}");
    let f = flags_of(&[
        "-m",
        "llama-3.1-8b",
        "--framework",
        "sglang",
        "--kv",
        "fp8",
        "--gpu",
        "h100-sxm",
    ]);
    assert!(f.contains("--kv-cache-dtype fp8_e5m2"), "{f}");
    let f = flags_of(&["-m", "llama-3.1-8b", "--framework", "vllm", "--gpu", "h100-sxm"]);
    assert!(!f.contains("--kv-cache-dtype"), "{f}");
}

#[test]
fn a_split_prints_the_runtimes_own_split_mode() {
    // llama.cpp splits by layer unless told `-sm row`.
    let f = flags_of(&[
        "-m",
        "llama-3.1-70b",
        "--weights",
        "q4_k_m",
        "--framework",
        "llama.cpp",
        "--gpu",
        "rtx-4090",
        "--cards",
        "2",
        "--context",
        "4096",
        "--split",
        "tensor",
    ]);
    assert!(f.contains("-sm row"), "{f}");
    let f = flags_of(&[
        "-m",
        "llama-3.1-70b",
        "--weights",
        "q4_k_m",
        "--framework",
        "llama.cpp",
        "--gpu",
        "rtx-4090",
        "--cards",
        "2",
        "--context",
        "4096",
        "--split",
        "layer",
    ]);
    assert!(f.contains("-sm layer"), "{f}");
    // vLLM and SGLang: a layer split is a pipeline, not a tensor-parallel group.
    let f = flags_of(&[
        "-m",
        "llama-3.1-8b",
        "--framework",
        "vllm",
        "--gpu",
        "rtx-4090",
        "--cards",
        "2",
        "--split",
        "layer",
    ]);
    assert!(
        f.contains("--pipeline-parallel-size 2") && !f.contains("--tensor-parallel-size"),
        "{f}"
    );
    let f = flags_of(&[
        "-m",
        "llama-3.1-8b",
        "--framework",
        "vllm",
        "--gpu",
        "rtx-4090",
        "--cards",
        "2",
        "--split",
        "tensor",
    ]);
    assert!(
        f.contains("--tensor-parallel-size 2") && !f.contains("--pipeline"),
        "{f}"
    );
    let f = flags_of(&[
        "-m",
        "llama-3.1-8b",
        "--framework",
        "sglang",
        "--gpu",
        "rtx-4090",
        "--cards",
        "2",
        "--split",
        "layer",
    ]);
    assert!(f.contains("--pp-size 2") && !f.contains("--tp "), "{f}");
}

#[test]
fn batch_limits_the_user_set_are_in_the_vllm_flags() {
    let f = flags_of(&[
        "-m",
        "llama-3.1-8b",
        "--framework",
        "vllm",
        "--gpu",
        "h100-sxm",
        "--max-num-seqs",
        "64",
        "--max-batched-tokens",
        "8192",
    ]);
    assert!(
        f.contains("--max-num-seqs 64") && f.contains("--max-num-batched-tokens 8192"),
        "{f}"
    );
    // Left to the card, they need no flag.
    let f = flags_of(&["-m", "llama-3.1-8b", "--framework", "vllm", "--gpu", "h100-sxm"]);
    assert!(!f.contains("--max-num-seqs"), "{f}");
}

/// The generic rules are no runtime: their plans print no runtime's flags (they printed
/// vLLM's), and the advice that puts weights in RAM names no flags.
#[test]
fn the_generic_rules_print_no_runtimes_flags() {
    let plan = json_of(&[
        "plan",
        "-m",
        "llama-3.1-70b",
        "--weights",
        "fp8",
        "--gpu",
        "h100-pcie",
        "--ram",
        "64",
        "--json",
    ]);
    for o in plan["options"].as_array().unwrap() {
        let flags = o["runtime_flags"].as_str().unwrap_or("");
        assert!(
            !flags.contains("--gpu-memory-utilization") && !flags.contains("-ngl"),
            "{flags}"
        );
    }
    let out = common::vramfit()
        .args([
            "fit",
            "-m",
            "llama-3.1-70b",
            "--weights",
            "fp8",
            "--gpu",
            "h100-pcie",
            "--ram",
            "64",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("--max-model-len") && !text.contains("()"),
        "{text}"
    );
}

/// Ollama's flags are its server's environment (they printed `num_gpu 29 num_ctx 32768`,
/// neither a command nor a Modelfile), and it splits by layer only.
#[test]
fn ollama_prints_its_environment_and_refuses_a_tensor_split() {
    let f = flags_of(&[
        "-m",
        "llama-3.1-70b",
        "--weights",
        "q4_k_m",
        "--framework",
        "ollama",
        "--gpu",
        "rtx-4090",
        "--ram",
        "64",
        "--kv",
        "q8_0",
        "--context",
        "8192",
    ]);
    assert_eq!(
        f,
        "OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_NUM_PARALLEL=1 OLLAMA_KV_CACHE_TYPE=q8_0 OLLAMA_FLASH_ATTENTION=1",
        "{f}"
    );
    let out = common::vramfit()
        .args([
            "plan",
            "-m",
            "llama-3.1-8b",
            "--framework",
            "ollama",
            "--split",
            "tensor",
            "--gpu",
            "rtx-4090",
            "--cards",
            "2",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("by layer only"));
}

/// A dense model has no experts to move: `--n-cpu-moe` moves nothing and is not printed.
#[test]
fn a_dense_model_prints_no_n_cpu_moe() {
    let f = flags_of(&[
        "-m",
        "llama-3.1-8b",
        "--framework",
        "llama.cpp",
        "--gpu",
        "rtx-4060",
        "--ram",
        "32",
        "--n-cpu-moe",
        "10",
        "--context",
        "32768",
        "--no-combos",
    ]);
    assert!(!f.contains("--n-cpu-moe"), "{f}");
}

/// `fit` advises one kind of card: a rig (which `plan` takes) gets a clear word and the
/// command that judges it, in both languages, never "unknown gpu".
#[test]
fn fit_names_the_command_for_a_rig() {
    for (lang, says) in [
        ("en", "plan --gpu \"rtx-4090,rtx-3090\""),
        ("zh", "混合显卡的组合请用"),
    ] {
        let out = common::vramfit()
            .args([
                "--lang",
                lang,
                "fit",
                "-m",
                "llama-3.3-70b",
                "--gpu",
                "rtx-4090,rtx-3090",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says) && !err.contains("unknown gpu"), "{err}");
    }
}
