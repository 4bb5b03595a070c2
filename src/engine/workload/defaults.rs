//! Defaults several parts share: the calibrated rules size activations with them, the
//! scenario starts from them and the runtimes' presets restate them. A leaf (it imports
//! nothing of the engine), so that none of those parts depends on another for a number.

/// Tokens a serving engine prefills at once unless told (vLLM's default chunk;
/// `--max-batched-tokens` sets it).
pub const PREFILL_CHUNK_TOKENS: u64 = 8192;

/// vLLM's `max_num_seqs` default (SchedulerConfig; `vllm serve` below 70 GiB).
pub const VLLM_MAX_NUM_SEQS: u64 = 256;
/// `vllm serve`'s `max_num_batched_tokens` below 70 GiB (`get_batch_defaults`); larger cards
/// get more (`card_defaults::vllm_serve_batch`).
pub const VLLM_SERVE_TOKENS: u64 = 2048;
/// SGLang's `chunked_prefill_size` in its preset without a card (each card reads its own,
/// `release::sglang_defaults`).
pub const SGLANG_CHUNK_TOKENS: u64 = 8192;
/// llama.cpp's `n_ubatch` default (common.h); Ollama's NumBatch is the same.
pub const LLAMA_CPP_UBATCH: u64 = 512;

/// DeepSpeed's `reduce_bucket_size` (and `allgather_bucket_size`) default, in elements.
pub const DS_REDUCE_BUCKET: u64 = 500_000_000;
/// DeepSpeed's `stage3_prefetch_bucket_size` default, in elements.
pub const DS_PREFETCH_BUCKET: u64 = 50_000_000;

/// SGLang's default static memory fraction by tensor-parallel size (server_args.py).
pub fn sglang_fraction(cards: u32) -> f64 {
    match cards {
        16.. => 0.79,
        8.. => 0.81,
        4.. => 0.85,
        2.. => 0.87,
        _ => 0.88,
    }
}
