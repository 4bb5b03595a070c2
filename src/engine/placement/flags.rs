//! The runtime's own command-line flags for a placement, as a user would type them.

use super::layers::LayerSplit;
use super::stream::GIB;
use crate::engine::model::precision::KvPrecision;
use crate::engine::workload::runtime::Framework;
use crate::engine::workload::scenario::{Scenario, Split};

/// llama.cpp's cache type for a KV format (`-ctk`/`-ctv`): `None` for its default, f16 (and
/// for FP8, which it has no cache type for: the judge refuses that plan).
fn llama_cpp_cache_type(kv: KvPrecision) -> Option<&'static str> {
    kv.llama_cpp_type().filter(|t| *t != "f16")
}

/// Ollama's server environment for the plan, to put before `ollama serve` (or `ollama run`):
/// the context of each request, the requests at once, the KV cache's type and flash
/// attention. The layers on the cards are Ollama's own choice (`num_gpu`), which the
/// placement predicts; setting them is no part of starting the plan.
fn ollama_environment(sc: &Scenario) -> String {
    let mut f = format!(
        "OLLAMA_CONTEXT_LENGTH={} OLLAMA_NUM_PARALLEL={}",
        sc.context,
        sc.batch.max(1)
    );
    if let Some(cache) = llama_cpp_cache_type(sc.kv) {
        f += &format!(" OLLAMA_KV_CACHE_TYPE={cache}");
    }
    f += if sc.flash_attention {
        " OLLAMA_FLASH_ATTENTION=1"
    } else {
        " OLLAMA_FLASH_ATTENTION=0"
    };
    f
}

/// vLLM's and SGLang's `--kv-cache-dtype` for a KV format: `None` for `auto` (the model's
/// 16-bit dtype) and for llama.cpp's block formats, which neither has.
fn serving_cache_type(framework: Framework, kv: KvPrecision) -> Option<&'static str> {
    match (framework, kv) {
        (Framework::Sglang, KvPrecision::Fp8) => Some("fp8_e5m2"),
        (Framework::Vllm, KvPrecision::Fp8) => Some("fp8"),
        _ => None,
    }
}

/// llama.cpp (`llama-server` / `llama-cli`) or Ollama (its `num_gpu` and `num_ctx`
/// options, in a Modelfile's PARAMETER lines or an API request's `options`).
pub fn layers(sc: &Scenario, split: &LayerSplit, n_layer: u64, experts: bool) -> String {
    layer_flags(
        sc,
        split.gpu_layers,
        &split.split,
        split.cpu_moe,
        n_layer,
        experts,
    )
}

/// [`layers`] from its parts: `-ngl`, the cards' split weights, `--n-cpu-moe`.
pub fn layer_flags(
    sc: &Scenario,
    gpu_layers: u64,
    weights: &[f64],
    cpu_moe: u64,
    n_layer: u64,
    experts: bool,
) -> String {
    let cells = sc.context.saturating_mul(sc.batch.max(1));
    if sc.framework == Framework::Ollama {
        return ollama_environment(sc);
    }
    let mut f = format!("-ngl {gpu_layers}");
    if weights.len() > 1 {
        // llama.cpp normalizes the proportions; whole GB read well. Its default split is by
        // layer; a tensor split is `-sm row`.
        let parts: Vec<String> = weights
            .iter()
            .map(|b| format!("{}", (b / 1e9).round().max(1.0)))
            .collect();
        let mode = if sc.split == Split::Tensor { "row" } else { "layer" };
        f += &format!(" -sm {mode} -ts {}", parts.join(","));
    }
    if experts && cpu_moe > 0 {
        if cpu_moe >= n_layer {
            f += " -ot exps=CPU";
        } else {
            f += &format!(" --n-cpu-moe {cpu_moe}");
        }
    }
    f += &format!(" -c {cells}");
    if sc.batch > 1 {
        f += &format!(" -np {}", sc.batch);
    }
    if let Some(cache) = llama_cpp_cache_type(sc.kv) {
        f += &format!(" -ctk {cache} -ctv {cache}");
    }
    if sc.flash_attention {
        f += " -fa on";
    }
    f
}

/// A memory share as the runtime is given it: the three places SGLang computes it to (0.704,
/// not 0.70, which would plan a different pool), without trailing zeros (0.9).
fn share_text(share: f64) -> String {
    let s = format!("{share:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// vLLM (`vllm serve`) or SGLang (`python -m sglang.launch_server`); nothing for a runtime
/// with no such flags (the generic rules, the trainers): another runtime's flags would not
/// start what was planned.
pub fn streamed(sc: &Scenario, share: f64, count: u32, streamed: f64) -> String {
    if !matches!(sc.framework, Framework::Vllm | Framework::Sglang) {
        return String::new();
    }
    let gib = (streamed / GIB).round() as u64;
    let mut f = String::new();
    let mut add = |s: String| {
        if !f.is_empty() {
            f.push(' ');
        }
        f += &s;
    };
    let pipeline = sc.split == Split::Layer;
    if sc.framework == Framework::Sglang {
        if count > 1 {
            add(format!("{} {count}", if pipeline { "--pp-size" } else { "--tp" }));
        }
        add(format!("--context-length {}", sc.context));
        add(format!("--mem-fraction-static {}", share_text(share)));
        if sc.batch_tokens_set {
            add(format!("--chunked-prefill-size {}", sc.max_batched_tokens));
        }
    } else {
        if count > 1 {
            let size = if pipeline {
                "--pipeline-parallel-size"
            } else {
                "--tensor-parallel-size"
            };
            add(format!("{size} {count}"));
        }
        add(format!("--max-model-len {}", sc.context));
        add(format!("--gpu-memory-utilization {}", share_text(share)));
        // What the user set is part of the plan; the card's own defaults need no flag.
        if sc.framework == Framework::Vllm && sc.num_seqs_set {
            add(format!("--max-num-seqs {}", sc.max_num_seqs));
        }
        if sc.framework == Framework::Vllm && sc.batch_tokens_set {
            add(format!("--max-num-batched-tokens {}", sc.max_batched_tokens));
        }
    }
    if let Some(cache) = serving_cache_type(sc.framework, sc.kv) {
        add(format!("--kv-cache-dtype {cache}"));
    }
    if gib > 0 {
        add(format!("--cpu-offload-gb {gib}"));
    }
    f
}
