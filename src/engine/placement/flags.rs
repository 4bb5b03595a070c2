//! The runtime's own command-line flags for a placement, as a user would type them.

use super::layers::LayerSplit;
use super::stream::GIB;
use crate::engine::workload::runtime::Framework;
use crate::engine::workload::scenario::Scenario;

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
        return format!("num_gpu {gpu_layers} num_ctx {}", sc.context);
    }
    let mut f = format!("-ngl {gpu_layers}");
    if weights.len() > 1 {
        // llama.cpp normalizes the proportions; whole GB read well.
        let parts: Vec<String> = weights
            .iter()
            .map(|b| format!("{}", (b / 1e9).round().max(1.0)))
            .collect();
        f += &format!(" -ts {}", parts.join(","));
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
    if sc.flash_attention {
        f += " -fa on";
    }
    f
}

/// vLLM (`vllm serve`) or SGLang (`python -m sglang.launch_server`).
pub fn streamed(sc: &Scenario, share: f64, count: u32, streamed: f64) -> String {
    let gib = (streamed / GIB).round() as u64;
    let mut f = String::new();
    let mut add = |s: String| {
        if !f.is_empty() {
            f.push(' ');
        }
        f += &s;
    };
    if sc.framework == Framework::Sglang {
        if count > 1 {
            add(format!("--tp {count}"));
        }
        add(format!("--context-length {}", sc.context));
        add(format!("--mem-fraction-static {share:.2}"));
    } else {
        if count > 1 {
            add(format!("--tensor-parallel-size {count}"));
        }
        add(format!("--max-model-len {}", sc.context));
        add(format!("--gpu-memory-utilization {share:.2}"));
    }
    if gib > 0 {
        add(format!("--cpu-offload-gb {gib}"));
    }
    f
}
