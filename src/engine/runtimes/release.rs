//! What moved between a runtime's releases. Serving engines change how they allocate from
//! release to release; each rule that moved is a named function here that says from which
//! release on it holds, read from the engine's own code (docs/notes/runtime-rules.md names
//! the file and release of each). The presets and the memory rules ask it; which release a
//! plan is for is the workload's (`workload::version`).

use crate::engine::workload::runtime::Framework;
use crate::engine::workload::version::{Version, v};

// ---- vLLM ------------------------------------------------------------------------------

/// vLLM's V1 engine (the default from 0.8): chunked prefill always on, one profiling run of
/// `max_num_batched_tokens` tokens. Before it, V0 profiled a whole `max_model_len` prefill
/// when chunked prefill was off (its default up to 32K contexts).
pub fn vllm_v1(version: Version) -> bool {
    version >= v(0, 8, 0)
}

/// vLLM's default `gpu_memory_utilization`: 0.90 up to 0.19 (`CacheConfig`), 0.92 from 0.20
/// (`vllm/config/cache.py`: `Field(default=0.92, …)`), and from 0.34 unset, resolved to 1.0
/// with the extensible KV cache (`resolved_gpu_memory_utilization`).
pub fn vllm_default_util(version: Version) -> f64 {
    if version >= v(0, 34, 0) {
        1.0
    } else if version >= v(0, 20, 0) {
        0.92
    } else {
        0.9
    }
}

/// Where vLLM's CUDA graphs sit against its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphMemory {
    /// Captured after the KV cache is allocated, on top of `total × util` (≤ 0.19: the
    /// estimator of 0.18–0.19 is off by default).
    Outside,
    /// Estimated during profiling and taken out of the KV budget (0.20–0.33:
    /// `VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS` on by default).
    Estimated,
    /// Measured: the extensible KV cache is committed after capture (0.34).
    Measured,
}

pub fn vllm_graph_memory(version: Version) -> GraphMemory {
    if version >= v(0, 34, 0) {
        GraphMemory::Measured
    } else if version >= v(0, 20, 0) {
        GraphMemory::Estimated
    } else {
        GraphMemory::Outside
    }
}

/// vLLM 0.34's extensible KV cache sizes the pool from what is free after warm-up and graph
/// capture, keeping back `max(1 GiB, 0.75 × the transient peak)` and the transient peak
/// itself (`vllm/v1/worker/extensible_kv_cache.py`: `KV_CACHE_MARGIN_FLOOR_BYTES`,
/// `KV_CACHE_MARGIN_FRACTION`).
pub fn vllm_extensible_kv(version: Version) -> bool {
    version >= v(0, 34, 0)
}

/// The largest batch vLLM captures a CUDA graph for (`_set_cudagraph_sizes`): twice
/// `max_num_seqs`, at most 512 and at most `max_num_batched_tokens`.
pub fn vllm_graph_sizes(max_num_seqs: u64, max_batched_tokens: u64, version: Version) -> u64 {
    let top = (max_num_seqs * 2).min(512).min(max_batched_tokens);
    let mut n = [1u64, 2, 4].iter().filter(|&&s| s <= top).count() as u64;
    if version >= v(0, 12, 0) {
        // Step 8 below 256, step 16 from 256.
        if top >= 8 {
            n += (top.min(255) - 8) / 8 + 1;
        }
        if top >= 256 {
            n += (top - 256) / 16 + 1;
        }
    } else if top >= 8 {
        n += (top - 8) / 8 + 1;
    }
    n
}

/// Whether vLLM captures FULL graphs beside the piecewise ones (`FULL_AND_PIECEWISE`, the
/// default from 0.11): twice as many graphs, sharing one pool.
pub fn vllm_full_and_piecewise(version: Version) -> bool {
    version >= v(0, 11, 0)
}

/// vLLM V1's hybrid KV-cache allocator: a model with layers of several kinds (full and
/// sliding attention, attention and state-space) gets one block table per group of layers
/// drawing on one pool (`vllm/v1/core/kv_cache_utils.py`,
/// `_get_kv_cache_config_uniform_page_size`, present in 0.10.0, the oldest release read;
/// merged in the 0.9 series, first release unverified). Before it V1 kept such a model as
/// full attention only (PR #14097): a sliding layer held the whole context.
pub fn vllm_hybrid_allocator(version: Version) -> bool {
    version >= v(0, 10, 0)
}

/// From 0.18 a group holds as many layers as the most numerous kind when no kind has 1.5
/// times the layers of another (gpt-oss-20b with an EAGLE drafter: 13 + 13, not 12 + 24);
/// before, always as many as the least numerous kind.
pub fn vllm_groups_of_max(version: Version) -> bool {
    version >= v(0, 18, 0)
}

/// The logged "GPU KV cache size: N tokens": `num_blocks ÷ groups × block_size` up to 0.20,
/// `int(max_concurrency × max_model_len)` from 0.21 (`_report_kv_cache_config`).
pub fn vllm_logged_tokens_from_concurrency(version: Version) -> bool {
    version >= v(0, 21, 0)
}

/// Prefill batches a sliding-window group reserves for when vLLM reports its concurrency:
/// one `max_num_batched_tokens` up to 0.25, `max_in_flight_tokens` (two batches: async
/// scheduling on by default, one pipeline stage) from 0.26.
pub fn vllm_in_flight_batches(version: Version) -> u64 {
    if version >= v(0, 26, 0) { 2 } else { 1 }
}

// ---- llama.cpp -------------------------------------------------------------------------

/// llama-server's slots: with `-np` unset it runs 4 slots sharing one unified KV cache of
/// `n_ctx` cells (`n_parallel = -1` → 4, `kv_unified = true`, PR #16736; reported at build
/// b7079, 2025-11-16); before, one slot.
pub fn llama_cpp_auto_slots(version: Version) -> bool {
    version >= Version::Build(7079)
}

/// `-c` unset means the model's training context (`n_ctx = 0`), with `--fit` on by default
/// keeping 1 GiB free per device (PR #16653, on by default from about b7437, December 2025);
/// before, 4,096 cells and no fitting.
pub fn llama_cpp_fit(version: Version) -> bool {
    version >= Version::Build(7437)
}

/// Free memory `--fit` leaves on each device (`fit_params_target`, 1 GiB each).
pub const LLAMA_CPP_FIT_MARGIN: f64 = 1_073_741_824.0;
/// The smallest context `--fit` shrinks to (`fit_params_min_ctx`).
pub const LLAMA_CPP_FIT_MIN_CTX: u64 = 4096;

// ---- Ollama ----------------------------------------------------------------------------

/// Ollama's default `num_ctx`: 2,048 up to 0.6.6, 4,096 from 0.6.7 (`envconfig`
/// `ContextLength` default), and from 0.15.5 by the total VRAM of all cards less
/// `OLLAMA_GPU_OVERHEAD` (`server/routes.go`): 262,144 from 47 GiB, 32,768 from 23 GiB,
/// else 4,096 — never past the model's training context.
pub fn ollama_default_context(version: Version, total_vram_bytes: f64) -> u64 {
    const GIB: f64 = 1_073_741_824.0;
    if version >= v(0, 15, 5) {
        if total_vram_bytes >= 47.0 * GIB {
            262_144
        } else if total_vram_bytes >= 23.0 * GIB {
            32_768
        } else {
            4096
        }
    } else if version >= v(0, 6, 7) {
        4096
    } else {
        2048
    }
}

/// Ollama's default `OLLAMA_NUM_PARALLEL`: 1 from 0.9.7 (#11330); before, automatic (2
/// where memory allowed).
pub fn ollama_default_parallel(version: Version) -> u64 {
    if version >= v(0, 9, 7) { 1 } else { 2 }
}

/// What Ollama sets aside on each card before placing anything (`ml/device.go`
/// `MinimumMemory`: 457 MiB, 512 MiB on Metal).
pub fn ollama_reserve_bytes(metal: bool) -> f64 {
    (if metal { 512.0 } else { 457.0 }) * 1_048_576.0
}

/// From 0.30 Ollama runs upstream llama-server (#16031) and leaves placement to its `--fit`.
pub fn ollama_runs_llama_server(version: Version) -> bool {
    version >= v(0, 30, 0)
}

/// llama.cpp pads each slot's sliding-window cache to 256 cells after taking the window plus
/// one `n_ubatch` pass (`llama-kv-cache-iswa.cpp`: `GGML_PAD(std::min(size_base, n_swa *
/// (unified ? n_seq_max : 1) + n_ubatch), 256)`), as logs from late 2025 on show (gpt-oss:
/// 768 cells for 128 + 512 under llama.cpp's Metal build, 1,280 for 128 + 1,024 under Ollama
/// 0.30.2's llama-server); the tree of August 2025 padded before taking the minimum, which
/// differs only when the context is shorter than the window plus the pass.
pub fn llama_cpp_swa_pad256(framework: Framework, _version: Version) -> bool {
    framework.is_ggml()
}

// ---- SGLang ----------------------------------------------------------------------------

/// SGLang's per-card defaults (`server_args.py`; `arg_groups/memory_hook.py` from 0.5.16):
/// `chunked_prefill_size` by the card's memory, and `mem_fraction_static` = (memory −
/// reserve) ÷ memory, rounded to 3 places. Up to 0.5.2 the reserve is a table by memory and
/// tensor-parallel size; from 0.5.3 it is 512 MiB + 1.5 × max(chunk, 2,048) + 128 MiB per
/// rank + 2 × the decode CUDA-graph batch, plus 8 MiB per prefill graph from 0.5.10 (1.5 GiB
/// with MLA), never under 10 GiB on cards over 60 GiB. `memory_mib` is the card's total.
pub fn sglang_defaults(version: Version, memory_mib: f64, tp: u32, mla: bool) -> (f64, u64) {
    let gib = |x: f64| x * 1024.0;
    let tp = f64::from(tp.max(1));
    if version < v(0, 5, 3) {
        let (reserve, chunk) = if memory_mib < gib(35.0) {
            (gib(2.8 + tp / 10.0), 2048)
        } else if memory_mib < gib(90.0) {
            (gib(9.5 + tp / 2.0), 8192)
        } else if memory_mib < gib(160.0) {
            (gib(12.0 + tp / 2.0), 8192)
        } else {
            (gib(32.0), 16_384)
        };
        return (fraction(memory_mib, reserve), chunk);
    }
    let wide = tp >= 4.0;
    let (chunk, graph_bs): (u64, f64) = if memory_mib < gib(20.0) {
        (2048, 8.0)
    } else if memory_mib < gib(35.0) {
        if version >= v(0, 5, 23) {
            (4096, if wide { 160.0 } else { 48.0 })
        } else if version >= v(0, 5, 8) {
            (2048, if wide { 80.0 } else { 24.0 })
        } else {
            (2048, if wide { 80.0 } else { 16.0 })
        }
    } else if memory_mib < gib(60.0) {
        (4096, if wide { 160.0 } else { 32.0 })
    } else if memory_mib < gib(160.0) {
        (8192, if wide { 512.0 } else { 256.0 })
    } else {
        (16_384, 512.0)
    };
    let mut reserve = 512.0 + 1.5 * (chunk.max(2048) as f64) + tp * 128.0 + 2.0 * graph_bs;
    if version >= v(0, 5, 10) {
        reserve += if mla {
            1536.0
        } else {
            8.0 * sglang_prefill_graphs(chunk) as f64
        };
    }
    if memory_mib > gib(60.0) {
        reserve = reserve.max(gib(10.0));
    }
    (fraction(memory_mib, reserve), chunk)
}

fn fraction(memory_mib: f64, reserve_mib: f64) -> f64 {
    (((memory_mib - reserve_mib) / memory_mib) * 1000.0).round() / 1000.0
}

/// SGLang's prefill CUDA graphs up to `max` tokens: 4–32 by 4, 48–256 by 16, 288–512 by 32,
/// 576–1,024 by 64, 1,280–4,096 by 256, then by 512 (`_generate_piecewise_cuda_graph_tokens`).
pub fn sglang_prefill_graphs(max: u64) -> u64 {
    let steps: [(u64, u64, u64); 6] = [
        (4, 32, 4),
        (48, 256, 16),
        (288, 512, 32),
        (576, 1024, 64),
        (1280, 4096, 256),
        (4608, u64::MAX, 512),
    ];
    steps
        .iter()
        .map(|&(lo, hi, step)| {
            let top = hi.min(max);
            if top < lo { 0 } else { (top - lo) / step + 1 }
        })
        .sum()
}
