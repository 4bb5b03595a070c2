//! The rotary position table a vLLM load holds on each card.
//!
//! vLLM precomputes cos and sin for every position when the model is built
//! (`vllm/model_executor/layers/rotary_embedding/base.py`: `_compute_cos_sin_cache`, then
//! `cache.to(dtype)` and `register_buffer`), on the card and in the model's dtype, so
//! "Model loading took" counts it beside the weights. `get_rope` keeps one table per distinct
//! setting (`_ROPE_DICT`): a model holds one, or two where its sliding layers use their own
//! base (Gemma 3's `rope_local_base_freq`). The table is not split by tensor parallelism:
//! every card holds all of it.

use crate::engine::basics::units::{format_gb, group_thousands, words};
use crate::engine::model::Model;
pub use crate::engine::model::Rope;

/// Bytes of one table entry: the model's 16-bit dtype.
const ENTRY_BYTES: f64 = 2.0;

/// The table's rows and columns, all tables together; `None` for a model without rotary
/// positions (learned absolute positions, NoPE attention, a state-space model with no
/// attention).
pub fn table_shape(model: &Model) -> Option<(u64, u64)> {
    let a = &model.arch;
    if model.rope.nope || a.position_embeddings > 0 || a.attention_layers() == 0 {
        return None;
    }
    let rope = model.rope;
    let columns = rope.rotary_dim.unwrap_or(match &a.mla {
        Some(mla) => mla.qk_rope_head_dim,
        None => a.head_dim,
    });
    let positions = model.max_context;
    let main = if rope.multimodal {
        positions.saturating_mul(4)
    } else {
        match rope.linear_factor {
            // vLLM's arange over max_len = max_position × factor.
            Some(f) if f > 1.0 => (positions as f64 * f).ceil() as u64,
            _ => positions,
        }
    };
    let local = if rope.local_table { positions } else { 0 };
    Some((main.saturating_add(local), columns))
}

/// Bytes of vLLM's rotary table(s) on each card.
pub fn vllm_table_bytes(model: &Model) -> f64 {
    table_shape(model).map_or(0.0, |(rows, columns)| rows as f64 * columns as f64 * ENTRY_BYTES)
}

/// " + rotary table 131,072 positions × 128 × 2 B = 0.03 GB" for the weights' formula.
pub fn vllm_table_words(model: &Model) -> String {
    let Some((rows, columns)) = table_shape(model) else {
        return String::new();
    };
    if !crate::engine::basics::units::wants_words() {
        return String::new();
    }
    let how = match (
        model.rope.multimodal,
        model.rope.linear_factor,
        model.rope.local_table,
    ) {
        (true, _, _) => words!(" (M-RoPE: 4 × {})", group_thousands(model.max_context as i64)),
        (false, Some(f), true) if f > 1.0 => words!(
            " ({} × {f} scaled + {} local)",
            group_thousands(model.max_context as i64),
            group_thousands(model.max_context as i64)
        ),
        (false, Some(f), false) if f > 1.0 => {
            words!(" ({} × {f} scaled)", group_thousands(model.max_context as i64))
        }
        (false, _, true) => words!(" (global and local tables)"),
        _ => String::new(),
    };
    words!(
        " + vLLM's rotary table {} positions{how} × {columns} × 2 B = {} on each card",
        group_thousands(rows as i64),
        format_gb(rows as f64 * columns as f64 * ENTRY_BYTES)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str) -> Model {
        crate::catalog::Catalog::embedded()
            .unwrap()
            .model(id)
            .unwrap()
            .clone()
    }

    const MIB: f64 = 1024.0 * 1024.0;

    #[test]
    fn one_plain_table_for_llama() {
        // 131,072 positions × 128 columns × 2 B = 32 MiB.
        let m = model("llama-3.1-8b");
        assert_eq!(table_shape(&m), Some((131_072, 128)));
        assert_eq!(vllm_table_bytes(&m), 32.0 * MIB);
    }

    #[test]
    fn gemma_3_scaled_global_and_plain_local() {
        // Global: 131,072 × 8 rows, local: 131,072 rows, 256 columns, 2 B: 512 + 64 MiB.
        let m = model("gemma-3-4b-vision");
        assert_eq!(table_shape(&m), Some((131_072 * 9, 256)));
        assert_eq!(vllm_table_bytes(&m), 576.0 * MIB);
    }

    #[test]
    fn m_rope_holds_four_times_the_positions() {
        // 128,000 × 4 rows × 128 columns × 2 B = 131,072,000 B.
        let m = model("qwen2.5-vl-7b");
        assert_eq!(vllm_table_bytes(&m), 131_072_000.0);
    }

    #[test]
    fn no_table_without_rotary_positions() {
        // Nemotron-H's attention takes no positions (NoPE).
        assert_eq!(vllm_table_bytes(&model("nemotron-3-nano-4b")), 0.0);
        let mut m = model("llama-3.1-8b");
        m.arch.position_embeddings = 1024;
        assert_eq!(vllm_table_bytes(&m), 0.0);
    }
}
