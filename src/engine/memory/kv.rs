//! The KV cache's size and its formula: shared by both conventions.

use crate::engine::basics::choice::Choice;
use crate::engine::basics::units::{format_gb, group_thousands};
use crate::engine::model::Model;
use crate::engine::workload::scenario::Scenario;

/// KV-cache bytes for `context` tokens × `batch` sequences: 2 × Σlayers(tokens held) ×
/// kv_heads × head_dim × bytes. Sliding-window layers hold at most the window; MLA caches
/// its latent. For a plain GQA/MHA model this is seed 003's
/// 2 × layers × kv_heads × head_dim × bytes × context × batch.
pub fn kv_cache_bytes(model: &Model, bytes_per_element: f64, context: u64, batch: u64) -> f64 {
    let layer_tokens = model.arch.kv_layer_tokens(context);
    let attention = layer_tokens as f64 * model.arch.kv_elements_per_token_per_layer() as f64;
    (attention + state_elements(model) as f64) * bytes_per_element * batch as f64
}

/// Cells llama.cpp gives one slot's sliding-window layer: the window plus one `n_ubatch`
/// pass, never more than the slot's context, padded to 256 where the release does
/// ([`crate::engine::runtimes::release::llama_cpp_swa_pad256`]).
pub fn llama_cpp_swa_cells(window: u64, context: u64, ubatch: u64, pad256: bool) -> u64 {
    let cells = context.min(window + ubatch);
    if pad256 { cells.div_ceil(256) * 256 } else { cells }
}

/// The cells llama.cpp (and Ollama, which runs it) gives one slot's sliding-window layer under
/// `sc`, and whether it pads them; `None` where the runtime holds the window as is.
fn ggml_sliding_cells(model: &Model, sc: &Scenario) -> Option<(u64, bool)> {
    let a = &model.arch;
    let w = a
        .sliding_window
        .filter(|_| sc.framework.is_ggml() && a.mla.is_none())?;
    let pad = sc
        .version()
        .is_some_and(|v| crate::engine::runtimes::release::llama_cpp_swa_pad256(sc.framework, v));
    Some((llama_cpp_swa_cells(w.window, sc.context, sc.ubatch, pad), pad))
}

/// The KV cache the runtime allocates for `sc`: llama.cpp and Ollama give a sliding-window
/// layer [`llama_cpp_swa_cells`] per slot; a paged engine holds the window.
pub fn runtime_cache_bytes(model: &Model, sc: &Scenario) -> f64 {
    let bpe = sc.kv.bytes_per_element();
    let a = &model.arch;
    if let Some(pool) = crate::engine::memory::vllm_pool::pool(model, sc) {
        return pool.cache_bytes(sc.context, sc.batch);
    }
    if crate::engine::memory::vllm_pool::sliding_held_in_full(model, sc) {
        let per_slot = (a.attention_layers() * sc.context) as f64
            * a.kv_elements_per_token_per_layer() as f64
            + state_elements(model) as f64;
        return per_slot * bpe * sc.batch as f64;
    }
    match ggml_sliding_cells(model, sc) {
        Some((cells, _)) => {
            let sliding = a.sliding_layers().min(a.attention_layers());
            let full = a.attention_layers() - sliding;
            let per_slot = (full * sc.context + sliding * cells) as f64
                * a.kv_elements_per_token_per_layer() as f64
                + state_elements(model) as f64;
            per_slot * bpe * sc.batch as f64
        }
        None => kv_cache_bytes(model, bpe, sc.context, sc.batch),
    }
}

/// The share of the KV cache one of the scenario's cards holds: tensor parallel splits the
/// KV heads over the cards (past one head per card they repeat), a layer split the layers.
pub fn card_share(model: &Model, sc: &Scenario) -> f64 {
    let a = &model.arch;
    let n = f64::from(sc.cards.max(1));
    match sc.split {
        // Layer split: each card caches only its own layers.
        crate::engine::workload::scenario::Split::Layer => 1.0 / n,
        // MLA's latent is not split by heads: every tensor-parallel card keeps all of it.
        crate::engine::workload::scenario::Split::Tensor if a.mla.is_some() => 1.0,
        crate::engine::workload::scenario::Split::Tensor => {
            (a.kv_heads as f64 / n).max(1.0) / a.kv_heads as f64
        }
    }
}

/// The "GPU KV cache size: N tokens" vLLM logs for `budget` bytes of KV cache on each of the
/// scenario's cards: its hybrid allocator's figure ([`crate::engine::memory::vllm_pool::Pool::capacity`]), or
/// for a model of one kind the whole blocks of 16 tokens the budget holds.
pub fn vllm_logged_tokens(model: &Model, sc: &Scenario, budget: f64) -> u64 {
    let share = card_share(model, sc);
    match crate::engine::memory::vllm_pool::pool(model, sc) {
        Some(p) => p.capacity(budget, share, sc).logged_tokens,
        None => {
            let a = &model.arch;
            let per_token = (a.attention_layers() * a.kv_elements_per_token_per_layer()) as f64
                * sc.kv.bytes_per_element()
                * share;
            kv_pool_tokens(
                budget,
                per_token,
                crate::engine::memory::vllm_pool::KV_BLOCK_TOKENS,
            )
        }
    }
}

/// A state-space model's state per sequence, over its state-space layers: it does not grow
/// with the context.
pub fn state_elements(model: &Model) -> u64 {
    model
        .arch
        .ssm
        .map_or(0, |s| s.layers.min(model.arch.layers) * s.state_elements())
}

pub fn kv_formula(model: &Model, bytes_per_element: f64, scenario: &Scenario, bytes: f64) -> String {
    if !crate::engine::basics::units::wants_words() {
        return String::new();
    }
    if let Some(pool) = crate::engine::memory::vllm_pool::pool(model, scenario) {
        return pool_formula(model, &pool, scenario, bytes);
    }
    let a = &model.arch;
    let per_layer = match &a.mla {
        Some(m) => format!("(latent {} + rope {})", m.kv_lora_rank, m.qk_rope_head_dim),
        None => format!("2 × {} kv heads × {} head_dim", a.kv_heads, a.head_dim),
    };
    let ggml = ggml_sliding_cells(model, scenario);
    let tokens = match a.sliding_window {
        Some(w) if let Some((cells, pad)) = ggml => {
            format!(
                "({} full layers × {} + {} sliding layers × {} cells: window {} + n_ubatch {}{})",
                a.attention_layers() - a.sliding_layers().min(a.attention_layers()),
                group_thousands(scenario.context as i64),
                a.sliding_layers(),
                group_thousands(cells as i64),
                w.window,
                scenario.ubatch,
                if pad { ", padded to 256" } else { "" }
            )
        }
        Some(_) if crate::engine::memory::vllm_pool::sliding_held_in_full(model, scenario) => format!(
            "{} layers × {} tokens (vLLM before 0.10 holds its sliding layers in full)",
            a.attention_layers(),
            group_thousands(scenario.context as i64)
        ),
        Some(w) if w.window < scenario.context => format!(
            "({} full layers × {} + {} sliding layers × window {})",
            a.attention_layers() - a.sliding_layers().min(a.attention_layers()),
            group_thousands(scenario.context as i64),
            a.sliding_layers(),
            w.window
        ),
        _ => format!(
            "{} layers × {} tokens",
            a.attention_layers(),
            group_thousands(scenario.context as i64)
        ),
    };
    // The state-space layers' state, written once for both shapes of the formula.
    let state = a.ssm.map(|s| match s.mixer_state {
        // A mixer read from an unknown family's config: its state as counted there.
        Some(state) => format!(
            "{} fixed-state layers × state {}",
            s.layers.min(a.layers),
            group_thousands(state as i64)
        ),
        None => format!(
            "{} state-space layers × state {} (conv {} × {} + {} × d_state {})",
            s.layers.min(a.layers),
            group_thousands(s.state_elements() as i64),
            s.conv_channels(),
            s.conv_kernel.saturating_sub(1),
            s.inner,
            s.state
        ),
    });
    let cached = match state {
        // No attention at all: the state alone, whatever the context.
        Some(state) if a.attention_layers() == 0 => format!("{state}, the same at any context,"),
        // Parentheses only where a state is added to the attention layers' cache.
        Some(state) => format!("({per_layer} × {tokens} + {state} per sequence)"),
        None => format!("{per_layer} × {tokens}"),
    };
    format!(
        "{cached} × {bytes_per_element} B ({}) × batch {} = {}",
        scenario.kv.label(),
        scenario.batch,
        format_gb(bytes)
    )
}

/// The formula of vLLM's hybrid allocator: the groups, the blocks a sequence holds in each,
/// the bytes of a block.
fn pool_formula(
    model: &Model,
    pool: &crate::engine::memory::vllm_pool::Pool,
    sc: &Scenario,
    bytes: f64,
) -> String {
    let a = &model.arch;
    let mut held = Vec::new();
    if pool.full_groups > 0 {
        held.push(format!(
            "{} full × {}",
            pool.full_groups,
            group_thousands(sc.context.div_ceil(pool.block) as i64)
        ));
    }
    if pool.sliding_groups > 0 {
        held.push(format!(
            "{} sliding × {} (window {})",
            pool.sliding_groups,
            group_thousands(pool.sliding_blocks(sc.context) as i64),
            group_thousands(pool.window as i64)
        ));
    }
    if pool.state_groups > 0 {
        held.push(format!(
            "{} state × 1 (state {} B padded to the page)",
            pool.state_groups,
            group_thousands(pool.state_page_bytes as i64)
        ));
    }
    format!(
        "vLLM's hybrid allocator: {} groups of {} layers share one pool of {}-token blocks; a sequence holds {} blocks ({}) × {} layers × page {} B ({} tokens × 2 × {} kv heads × {} head_dim × {} B ({})) × batch {} = {}",
        pool.groups(),
        pool.group_size,
        pool.block,
        group_thousands(pool.blocks_per_sequence(sc.context) as i64),
        held.join(" + "),
        pool.group_size,
        group_thousands(pool.page_bytes as i64),
        pool.block,
        a.kv_heads,
        a.head_dim,
        sc.kv.bytes_per_element(),
        sc.kv.label(),
        sc.batch,
        format_gb(bytes)
    )
}

/// Tokens whose KV fits in `budget_bytes` (what a card has left after weights,
/// activations and overhead), in whole blocks of `block` tokens: the pool a paged engine
/// allocates (block 16), or plain tokens under the quick rules (block 1).
pub fn kv_pool_tokens(budget_bytes: f64, kv_bytes_per_token: f64, block: u64) -> u64 {
    if budget_bytes <= 0.0 || kv_bytes_per_token <= 0.0 {
        return 0;
    }
    let raw = (budget_bytes / kv_bytes_per_token).floor() as u64;
    raw / block.max(1) * block.max(1)
}
