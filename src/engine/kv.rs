//! The KV cache's size and its formula: shared by both conventions.

use super::choice::Choice;
use super::model::Model;
use super::scenario::Scenario;
use super::units::{format_gb, group_thousands};

/// KV-cache bytes for `context` tokens × `batch` sequences: 2 × Σlayers(tokens held) ×
/// kv_heads × head_dim × bytes. Sliding-window layers hold at most the window; MLA caches
/// its latent. For a plain GQA/MHA model this is seed 003's
/// 2 × layers × kv_heads × head_dim × bytes × context × batch.
pub fn kv_cache_bytes(model: &Model, bytes_per_element: f64, context: u64, batch: u64) -> f64 {
    let layer_tokens = model.arch.kv_layer_tokens(context);
    layer_tokens as f64
        * model.arch.kv_elements_per_token_per_layer() as f64
        * bytes_per_element
        * batch as f64
}

pub fn kv_formula(model: &Model, bytes_per_element: f64, scenario: &Scenario, bytes: f64) -> String {
    let a = &model.arch;
    let per_layer = match &a.mla {
        Some(m) => format!("(latent {} + rope {})", m.kv_lora_rank, m.qk_rope_head_dim),
        None => format!("2 × {} kv heads × {} head_dim", a.kv_heads, a.head_dim),
    };
    let tokens = match a.sliding_window {
        Some(w) if w.window < scenario.context => format!(
            "({} full layers × {} + {} sliding layers × window {})",
            a.layers - a.sliding_layers(),
            group_thousands(scenario.context as i64),
            a.sliding_layers(),
            w.window
        ),
        _ => format!(
            "{} layers × {} tokens",
            a.layers,
            group_thousands(scenario.context as i64)
        ),
    };
    format!(
        "{per_layer} × {tokens} × {bytes_per_element} B ({}) × batch {} = {}",
        scenario.kv.label(),
        scenario.batch,
        format_gb(bytes)
    )
}
