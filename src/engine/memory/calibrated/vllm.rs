//! vLLM's memory beyond weights, KV cache and its profiling peak, by release
//! (`engine::runtimes::release` says from which release each rule holds; docs/notes/runtime-rules.md
//! names the file of each):
//! - V0 (before 0.8) counted everything outside torch since start-up, the CUDA context
//!   included: the calibrated CUDA context stands for it;
//! - V1 takes its baseline after the CUDA context and the first NCCL communicator exist, so
//!   those sit in the `1 − gpu_memory_utilization` share, and only the non-torch memory that
//!   grows after it (NCCL and custom all-reduce buffers, attention workspaces) comes out of
//!   the budget;
//! - its CUDA graphs are captured after the KV cache up to 0.19 (outside the budget), are
//!   estimated and taken out of it from 0.20, and are measured before the cache is committed
//!   in 0.34, whose extensible cache also keeps back a margin of `max(1 GiB, 0.75 × the
//!   transient peak)`.

use super::CUDA_CONTEXT_BYTES;
use crate::engine::basics::units::format_gb;
use crate::engine::basics::units::words;
use crate::engine::memory::breakdown::{Part, Segment, SegmentKind};
use crate::engine::model::Model;
use crate::engine::runtimes::release::{self, GraphMemory};
use crate::engine::workload::scenario::{Scenario, Split};
use crate::engine::workload::version::Version;

const GIB: f64 = 1_073_741_824.0;

/// Non-torch memory V1 adds after its baseline on one card: 0.13–0.14 GiB measured with
/// vLLM 0.11 on an H100 for five models (llm-d-benchmark's empirical-vllm-memory-results).
pub const VLLM_NON_TORCH_ONE_CARD: f64 = 0.14 * GIB;
/// The same per card under tensor parallel, where NCCL's and the custom all-reduce's buffers
/// come on top: 0.54–0.55 GiB measured at TP 2 (the same runs).
pub const VLLM_NON_TORCH_TENSOR_PARALLEL: f64 = 0.55 * GIB;
/// CUDA graph memory per captured graph and per layer: fitted on two measured captures
/// (gpt-oss-20b 0.39 GiB, gpt-oss-120b 1.03 GiB; 134 graphs each, vLLM 0.11 on an H100),
/// whose per graph-layer costs were 0.12 and 0.22 MiB: their geometric mean. vLLM itself
/// measures two graphs and extrapolates (`profile_cudagraph_memory`); no closed form exists.
pub const VLLM_GRAPH_BYTES_PER_GRAPH_LAYER: f64 = 0.17 * 1_048_576.0;
/// vLLM 0.34's extensible KV cache keeps at least this free (`KV_CACHE_MARGIN_FLOOR_BYTES`)…
const EXTENSIBLE_MARGIN_FLOOR: f64 = GIB;
/// …or this share of the transient peak, whichever is more (`KV_CACHE_MARGIN_FRACTION`).
const EXTENSIBLE_MARGIN_FRACTION: f64 = 0.75;

/// The number of CUDA graphs vLLM captures: one per capture size, twice under
/// `FULL_AND_PIECEWISE` (0.11 on).
pub fn graph_count(sc: &Scenario, version: Version) -> u64 {
    let sizes = release::vllm_graph_sizes(sc.max_num_seqs, sc.max_batched_tokens, version);
    if release::vllm_full_and_piecewise(version) {
        2 * sizes
    } else {
        sizes
    }
}

/// The CUDA graphs' memory on one card (see [`VLLM_GRAPH_BYTES_PER_GRAPH_LAYER`]).
pub fn graph_bytes(model: &Model, sc: &Scenario, version: Version) -> f64 {
    graph_count(sc, version) as f64 * model.arch.layers as f64 * VLLM_GRAPH_BYTES_PER_GRAPH_LAYER
}

/// vLLM's overhead segment on one card: what its release takes out of the budget beside the
/// weights, the KV cache and the profiling peak `transient` (the activations segment).
pub fn overhead(model: &Model, sc: &Scenario, transient: f64, dequant: f64) -> Segment {
    let version = sc.version().unwrap_or(Version::Release(0, 34, 0));
    let mut parts = Vec::new();
    let mut words_of = Vec::new();
    if !release::vllm_v1(version) || release::vllm_extensible_kv(version) {
        // V0 counts it in its non-torch memory; 0.34 sizes the cache from what is free.
        parts.push(Part {
            name: "cuda_context",
            bytes: CUDA_CONTEXT_BYTES,
        });
        words_of.push(words!(
            "CUDA context + workspaces {}",
            format_gb(CUDA_CONTEXT_BYTES)
        ));
    }
    if release::vllm_v1(version) {
        let tensor_parallel = sc.cards > 1 && sc.split == Split::Tensor;
        let non_torch = if tensor_parallel {
            VLLM_NON_TORCH_TENSOR_PARALLEL
        } else {
            VLLM_NON_TORCH_ONE_CARD
        };
        parts.push(Part {
            name: "vllm_non_torch",
            bytes: non_torch,
        });
        words_of.push(words!(
            "non-torch memory after vLLM's baseline {}{}",
            format_gb(non_torch),
            if tensor_parallel {
                " (NCCL and all-reduce buffers under tensor parallel)"
            } else {
                ""
            }
        ));
    }
    match release::vllm_graph_memory(version) {
        GraphMemory::Outside => {}
        GraphMemory::Estimated | GraphMemory::Measured => {
            let graphs = graph_bytes(model, sc, version);
            parts.push(Part {
                name: "vllm_cuda_graphs",
                bytes: graphs,
            });
            words_of.push(words!(
                "CUDA graphs {} × {} layers × 0.17 MiB = {}",
                graph_count(sc, version),
                model.arch.layers,
                format_gb(graphs)
            ));
        }
    }
    if release::vllm_extensible_kv(version) {
        let margin = EXTENSIBLE_MARGIN_FLOOR.max(EXTENSIBLE_MARGIN_FRACTION * transient);
        parts.push(Part {
            name: "vllm_kv_margin",
            bytes: margin,
        });
        words_of.push(words!(
            "extensible KV cache margin max(1 GiB, 0.75 × peak) = {}",
            format_gb(margin)
        ));
    }
    if dequant > 0.0 {
        parts.push(Part {
            name: "dequantization_buffer",
            bytes: dequant,
        });
        words_of.push(words!("dequantization buffer {}", format_gb(dequant)));
    }
    let formula = if crate::engine::basics::units::wants_words() {
        words!("vLLM {version}: {}", words_of.join(" + "))
    } else {
        String::new()
    };
    Segment::from_parts(SegmentKind::Overhead, parts, formula)
}
