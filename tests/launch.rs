//! `plan --cmd '…'`: launch commands people posted, read back as plans (issue 40, item 7).
//! Each case is a command copied from the public source it cites, the `plan` flags it must
//! read as, and the card it ran on; the plan `--cmd` gives must be the plan those flags give,
//! and what the command sets that vramfit does not model must be named.

use vramfit::catalog::launch;

mod common;
use common::vramfit;

struct Case {
    cmd: &'static str,
    source: &'static str,
    /// What the command reads as (`launch::read`'s flags).
    reads_as: &'static [&'static str],
    /// The card(s) and anything the command cannot say (a model the catalog names otherwise).
    beside: &'static [&'static str],
    /// Words the notes must name: flags read but not modelled.
    noted: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        cmd: "llama-server -hf ggml-org/gpt-oss-120b-GGUF --ctx-size 0 --jinja --flash-attn --n-gpu-layers 99 --reasoning-format none --n-cpu-moe 3",
        source: "https://github.com/ggml-org/llama.cpp/pull/15077",
        reads_as: &[
            "--framework",
            "llama.cpp",
            "--model",
            "gpt-oss-120b-GGUF",
            "--flash-attention",
            "on",
            "--n-cpu-moe",
            "3",
        ],
        beside: &["--gpu", "2x rtx-5090", "--weights", "mxfp4", "--ram", "128"],
        noted: &[
            "--jinja",
            "--reasoning-format none",
            "-c 0",
            "no quantization tag",
        ],
    },
    Case {
        cmd: r#"./build/bin/llama-cli -m models/Meta-Llama-3-8B.Q4_0.gguf  --ctx-size 8192 --n_predict 50 --prompt "There are two persons named ram and krishna" -ngl 33"#,
        source: "https://github.com/ggml-org/llama.cpp/issues/9881",
        reads_as: &[
            "--framework",
            "llama.cpp",
            "--weights",
            "q4_0",
            "--model",
            "Meta-Llama-3-8B.Q4_0",
            "--gpu-layers",
            "33",
            "--context",
            "8192",
        ],
        beside: &["--gpu", "rtx-4070"],
        noted: &["--n_predict 50", "--prompt"],
    },
    Case {
        cmd: r#"./llama-server -m "gemma-3-27b-it-q4_0.gguf" --mmproj "mmproj-model-f16-27B.gguf" -ngl 200 -np 3 --threads-http 20 -fa -cb -sm 'none' -mg 1 -ub 2048 -b 4096 --threads 8 --port 8092 -c 0"#,
        source: "https://github.com/ggml-org/llama.cpp/issues/14719",
        reads_as: &[
            "--framework",
            "llama.cpp",
            "--weights",
            "q4_0",
            "--model",
            "gemma-3-27b-it-q4_0",
            "--flash-attention",
            "on",
            "--ubatch",
            "2048",
            "--batch",
            "3",
        ],
        beside: &["--gpu", "rtx-4090", "--context", "8192"],
        noted: &["--mmproj", "-sm none", "-mg 1", "-b 4096", "--port 8092", "-c 0"],
    },
    Case {
        cmd: "llama-server -m qwen35.gguf -ngl 99 --cpu-moe -c 4096",
        source: "https://dev.to/kenimo49/rtx-4070-qwen-35b-28x-speedup-from-one-llamacpp-flag-cpu-moe-569o",
        reads_as: &[
            "--framework",
            "llama.cpp",
            "--model",
            "qwen35",
            "--n-cpu-moe",
            "10000",
            "--context",
            "4096",
        ],
        // Qwen3.5-35B-A3B is not in the catalog: its sibling Qwen3-30B-A3B beside, as a user would.
        beside: &[
            "--gpu",
            "rtx-4070",
            "--model",
            "qwen3-30b-a3b",
            "--weights",
            "q4_k_m",
            "--ram",
            "64",
        ],
        noted: &[],
    },
    Case {
        cmd: r#"./build/bin/llama-cli -m ./models/qwen3-30b-a3b-q2_k.gguf -n 128 -ngl 15 --cache-type-k q8_0 --cache-type-v q4_0 -p "你好,请自我介绍""#,
        source: "https://inchinaxiaofeng.github.io/2026/02/06/万格-入职Task1-跑通llama-cpp中的qwen-3-30b-a3b-q4量化gguf版本-同理qwen3-80b-a3b-q4量化gguf版本llama-cpp",
        reads_as: &[
            "--framework",
            "llama.cpp",
            "--weights",
            "q2_k",
            "--model",
            "qwen3-30b-a3b-q2_k",
            "--gpu-layers",
            "15",
            "--kv",
            "q8_0",
        ],
        beside: &["--gpu", "rtx-4060", "--ram", "12", "--context", "4096"],
        noted: &["-ctk q8_0 -ctv q4_0", "-n 128", "-p"],
    },
    Case {
        cmd: "./server --host 192.168.4.6 -ngl 128 -m /mnt/models/llama2-70b-q6_K.bin -b 128 -ts 15.6/12",
        source: "https://github.com/ggml-org/llama.cpp/pull/4620",
        reads_as: &[
            "--framework",
            "llama.cpp",
            "--weights",
            "q6_k",
            "--model",
            "llama2-70b-q6_K",
            "--cards",
            "2",
        ],
        beside: &["--gpu", "v100-sxm2-32gb", "--context", "4096"],
        noted: &["--host 192.168.4.6", "-b 128", "-ts 15.6/12"],
    },
    Case {
        cmd: "vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct --tensor-parallel-size 1 --max-model-len 1024",
        source: "https://github.com/vllm-project/vllm/issues/6689",
        reads_as: &[
            "--framework",
            "vllm",
            "--model",
            "meta-llama/Meta-Llama-3.1-8B-Instruct",
            "--context",
            "1024",
        ],
        beside: &["--gpu", "l4"],
        noted: &[],
    },
    Case {
        cmd: "vllm serve meta-llama/Meta-Llama-3.1-405B-Instruct-FP8 --tensor-parallel-size 8 --max-model-len 4096",
        source: "https://github.com/vllm-project/vllm/issues/6689",
        reads_as: &[
            "--framework",
            "vllm",
            "--weights",
            "fp8",
            "--model",
            "meta-llama/Meta-Llama-3.1-405B-Instruct-FP8",
            "--context",
            "4096",
            "--cards",
            "8",
            "--split",
            "tensor",
        ],
        beside: &["--gpu", "a100-sxm"],
        noted: &[],
    },
    Case {
        cmd: "vllm serve Meta-Llama-3___1-405B-Instruct-AWQ-INT4 --port 8080 --host 0.0.0.0 --served-model-name llama-3.1-405b --trust-remote-code --max-model-len 8192 -q awq --tensor-parallel-size 8 --enable-chunked-prefill=false --disable-log-requests --disable-log-stats",
        source: "https://github.com/vllm-project/vllm/issues/6689",
        reads_as: &[
            "--framework",
            "vllm",
            "--weights",
            "int4",
            "--model",
            "Meta-Llama-3___1-405B-Instruct-AWQ-INT4",
            "--context",
            "8192",
            "--weights",
            "int4",
            "--cards",
            "8",
            "--split",
            "tensor",
        ],
        beside: &["--gpu", "rtx-a6000"],
        noted: &[
            "--port 8080",
            "--served-model-name",
            "--trust-remote-code",
            "--enable-chunked-prefill false",
            "--disable-log-stats",
        ],
    },
    Case {
        cmd: "vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
        source: "https://github.com/vllm-project/vllm/issues/7714",
        reads_as: &[
            "--framework",
            "vllm",
            "--model",
            "meta-llama/Meta-Llama-3.1-8B-Instruct",
            "--kv",
            "fp8",
        ],
        beside: &["--gpu", "a100-80gb-pcie"],
        noted: &[],
    },
    Case {
        cmd: "VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1 vllm serve /path/to/gpt-oss-20b --host 192.168.31.103 --port 8000 --served-model-name openai/gpt-oss-20b --tensor-parallel-size 1 --gpu-memory-utilization 0.9 --max-model-len 26384 --async-scheduling --uvicorn-log-level debug",
        source: "https://juejin.cn/post/7537505390113685546",
        reads_as: &[
            "--framework",
            "vllm",
            "--model",
            "gpt-oss-20b",
            "--gpu-util",
            "0.9",
            "--context",
            "26384",
        ],
        beside: &["--gpu", "rtx-4090", "--weights", "mxfp4"],
        noted: &[
            "VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1",
            "--async-scheduling",
            "--uvicorn-log-level debug",
        ],
    },
    Case {
        cmd: "vllm serve openai/gpt-oss-20b --async-scheduling",
        source: "https://docs.gpustack.ai/latest/performance-lab/gpt-oss-20b/h100",
        reads_as: &["--framework", "vllm", "--model", "openai/gpt-oss-20b"],
        beside: &["--gpu", "h100-sxm", "--weights", "mxfp4"],
        noted: &["--async-scheduling"],
    },
    Case {
        cmd: "vllm serve /app/model/Qwen_QwQ-32B-Q6_K.gguf --port 8002 --tensor-parallel-size 2 --gpu-memory-utilization 0.95 --max-model-len 32000 --cpu-offload-gb 5",
        source: "https://github.com/vllm-project/vllm/issues/14096",
        reads_as: &[
            "--framework",
            "vllm",
            "--weights",
            "q6_k",
            "--model",
            "Qwen_QwQ-32B-Q6_K",
            "--gpu-util",
            "0.95",
            "--context",
            "32000",
            "--cards",
            "2",
            "--split",
            "tensor",
        ],
        beside: &["--gpu", "rx-7900-xtx", "--weights", "int8"],
        noted: &["--cpu-offload-gb 5", "--port 8002"],
    },
    Case {
        cmd: "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-405B-FP8 --tp 8 --disable-radix --mem-frac 0.87",
        source: "https://github.com/sgl-project/sglang/issues/1362",
        reads_as: &[
            "--framework",
            "sglang",
            "--weights",
            "fp8",
            "--model",
            "meta-llama/Meta-Llama-3.1-405B-FP8",
            "--gpu-util",
            "0.87",
            "--cards",
            "8",
            "--split",
            "tensor",
        ],
        beside: &["--gpu", "h100-sxm"],
        noted: &["--disable-radix"],
    },
    Case {
        cmd: "python -m sglang.launch_server --model-path /mnt/llms/models/Qwen3-30B-A3B-awq/ --tp 1 --context-length 8000 --port 5001 --host 0.0.0.0",
        source: "https://github.com/casper-hansen/AutoAWQ/pull/751",
        reads_as: &[
            "--framework",
            "sglang",
            "--weights",
            "int4",
            "--model",
            "Qwen3-30B-A3B-awq",
            "--context",
            "8000",
        ],
        beside: &["--gpu", "rtx-4090"],
        noted: &["--port 5001", "--host 0.0.0.0"],
    },
    Case {
        cmd: "python3 -m sglang.launch_server --served-model-name ReSearch --model-path xxx/Models/Qwen/Qwen2.5-1.5B-Instruct --tp 4 --context-length 6000 --enable-metrics --dtype bfloat16 --host 127.0.0.1 --port 80 --trust-remote-code --disable-overlap --disable-radix-cache --disable-cuda-graph --mem-fraction-static 0.7",
        source: "https://github.com/Agent-RL/ReCall/issues/43",
        reads_as: &[
            "--framework",
            "sglang",
            "--model",
            "xxx/Models/Qwen/Qwen2.5-1.5B-Instruct",
            "--context",
            "6000",
            "--weights",
            "bf16",
            "--gpu-util",
            "0.7",
            "--cards",
            "4",
            "--split",
            "tensor",
        ],
        beside: &["--gpu", "a100-80gb-pcie"],
        noted: &[
            "--served-model-name ReSearch",
            "--disable-cuda-graph",
            "--disable-radix-cache",
        ],
    },
    Case {
        cmd: "OLLAMA_NUM_PARALLEL=64 ollama serve",
        source: "https://github.com/ollama/ollama/issues/5756",
        reads_as: &["--framework", "ollama", "--batch", "64"],
        beside: &[
            "--gpu",
            "a100-80gb-pcie",
            "--model",
            "llama-3-8b",
            "--weights",
            "q4_0",
            "--context",
            "2048",
        ],
        noted: &["names no model"],
    },
    Case {
        cmd: "OLLAMA_CONTEXT_LENGTH=8192 ollama serve",
        source: "https://github.com/ollama/ollama/pull/9545",
        reads_as: &["--framework", "ollama", "--context", "8192"],
        beside: &[
            "--gpu",
            "rtx-3090",
            "--model",
            "llama-3.1-8b",
            "--weights",
            "q4_k_m",
        ],
        noted: &[],
    },
    Case {
        cmd: "ollama run qwen3:30b-a3b",
        source: "https://smeltcore.com/recipes/qwen3-30b-a3b-rtx-3090-ti/",
        reads_as: &[
            "--framework",
            "ollama",
            "--weights",
            "q4_k_m",
            "--model",
            "qwen3-30b-a3b",
        ],
        beside: &["--gpu", "rtx-3090-ti"],
        noted: &["Ollama's usual Q4_K_M"],
    },
];

#[test]
fn each_posted_command_reads_as_its_plan_flags() {
    for c in CASES {
        let l = launch::read(c.cmd).unwrap_or_else(|e| panic!("{} ({}): {e}", c.cmd, c.source));
        assert_eq!(l.flags, c.reads_as, "{} ({})", c.cmd, c.source);
        let notes = l.notes.join("\n");
        for n in c.noted {
            assert!(
                notes.contains(n),
                "{}: the notes do not name {n}:\n{notes}",
                c.source
            );
        }
    }
}

/// `plan --cmd …` plans exactly what the flags it reads as plan: the same JSON.
#[test]
fn plan_with_a_posted_command_is_the_plan_of_its_flags() {
    let json = |args: Vec<&str>| {
        let out = vramfit().args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    for c in CASES {
        let mut with_cmd = vec!["plan", "--cmd", c.cmd];
        with_cmd.extend(c.beside);
        with_cmd.push("--json");
        let (planned, notes) = json(with_cmd);
        let mut typed = vec!["plan"];
        typed.extend(c.reads_as);
        typed.extend(c.beside);
        typed.push("--json");
        let (expected, _) = json(typed);
        assert_eq!(planned, expected, "{} ({})", c.cmd, c.source);
        assert!(notes.contains("note: --cmd read as: "), "{notes}");
        assert!(
            planned["options"].as_array().is_some_and(|o| !o.is_empty()),
            "{}",
            c.source
        );
    }
}

/// A flag given beside `--cmd` wins over the command's own.
#[test]
fn a_flag_beside_the_command_wins() {
    let out = vramfit()
        .args([
            "plan",
            "--cmd",
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096",
            "--context",
            "16384",
            "--gpu",
            "h100-sxm",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["scenario"]["context"], 16384);
    assert_eq!(plan["scenario"]["framework"], "vllm");
    assert_eq!(plan["model"]["id"], "llama-3.1-8b");
}

/// Commands that are not launch commands, or that say something vramfit cannot size, are a
/// clear error and exit 2 (the posted while-loop around `ollama serve`, a docker run).
#[test]
fn a_command_that_is_no_launch_command_is_a_clear_error() {
    for (cmd, says) in [
        (
            r#"while true; do   OLLAMA_KEEP_ALIVE="-1"   OLLAMA_MODELS=/usr/share/ollama/.ollama/models OLLAMA_FLASH_ATTENTION=1  OLLAMA_HOST=0.0.0.0:11434   ollama serve;    echo "ollama crashed, restarting in 2 seconds...";   sleep 2; done"#,
            "'while' is no launch command",
        ),
        (
            "docker run -e OLLAMA_FLASH_ATTENTION=1 ollama/ollama",
            "'docker' is no launch command",
        ),
        ("vllm bench --model x", "`vllm` without `serve`"),
        ("llama-server -c 4096", "names no model"),
        (
            "llama-server -m x.gguf -ctk q5_1 -ctv q5_1",
            "cache type vramfit has no size for",
        ),
        ("vllm serve x --quantization hqq", "--quantization hqq"),
        ("vllm serve 'unclosed", "cannot split the command"),
    ] {
        let out = vramfit()
            .args(["plan", "--cmd", cmd, "--gpu", "h100-sxm"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{cmd}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// vLLM reads `32k` as thousands and `32K` as 1,024s; so does `--cmd`.
#[test]
fn lengths_read_as_vllm_reads_them() {
    for (len, context) in [("32k", "32000"), ("32K", "32768"), ("8192", "8192")] {
        let l = launch::read(&format!("vllm serve m --max-model-len {len}")).unwrap();
        let at = l.flags.iter().position(|f| f == "--context").unwrap();
        assert_eq!(l.flags[at + 1], context, "{len}");
    }
}

/// Published names nobody listed above find their catalog models: a GGUF file with a release
/// version the catalog's id leaves out, an AWQ repository, an Ollama QAT tag.
#[test]
fn published_names_find_their_catalog_models() {
    for (cmd, gpu, model, weights) in [
        (
            "llama-server -m mixtral-8x7b-instruct-v0.1.Q5_K_M.gguf -c 16384 -ngl 20 -ts 1,1",
            "rtx-3090",
            "mixtral-8x7b",
            "q5_k_m",
        ),
        (
            "vllm serve Qwen/Qwen2.5-32B-Instruct-AWQ --quantization awq_marlin --max-model-len 16384 -tp 2",
            "rtx-4090",
            "qwen2.5-32b",
            "int4",
        ),
        (
            "OLLAMA_NUM_PARALLEL=2 OLLAMA_KV_CACHE_TYPE=q8_0 ollama run gemma3:12b-it-qat",
            "rtx-4070",
            "gemma-3-12b",
            "q4_k_m",
        ),
    ] {
        let out = vramfit()
            .args(["plan", "--cmd", cmd, "--gpu", gpu, "--json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(plan["model"]["id"], model, "{cmd}");
        assert_eq!(plan["scenario"]["weights"], weights, "{cmd}");
    }
}
