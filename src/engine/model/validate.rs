//! The one check catalogs and config.json imports share: every dimension in a range a real
//! network has, the whole shape under [`MAX_PARAMS`], and a message naming the field to
//! blame.

use crate::engine::model::Architecture;

/// The largest parameter count a shape may have (a thousand times the largest models):
/// beyond it the integer counts could overflow, and no such model exists.
pub const MAX_PARAMS: f64 = 1e15;

/// A shape the memory model cannot size, with the field to blame (as a catalog or
/// config.json names it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    pub field: &'static str,
    pub message: String,
}

fn in_range(field: &'static str, value: u64, lo: u64, hi: u64) -> Result<(), ShapeError> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(ShapeError {
            field,
            message: format!("'{field}' must be between {lo} and {hi}, got {value}"),
        })
    }
}

impl Architecture {
    /// Every dimension in a range a real network has, and the whole shape under
    /// [`MAX_PARAMS`]: a shape that passes has a positive, finite, exact parameter count
    /// and a positive KV cache. The one check catalogs and config.json imports share.
    pub fn validate(&self) -> Result<(), ShapeError> {
        in_range("hidden", self.hidden, 1, 1 << 20)?;
        in_range("intermediate", self.intermediate, 1, 1 << 24)?;
        in_range("layers", self.layers, 1, 10_000)?;
        in_range("heads", self.heads, 1, 1 << 16)?;
        in_range("kv_heads", self.kv_heads, 1, self.heads)?;
        in_range("head_dim", self.head_dim, 1, 1 << 16)?;
        in_range("vocab", self.vocab, 1, 1 << 24)?;
        in_range("norms_per_layer", self.norms_per_layer, 0, 16)?;
        in_range("position_embeddings", self.position_embeddings, 0, 1 << 24)?;
        if let Some(w) = &self.sliding_window {
            in_range("sliding_window", w.window, 1, 1 << 30)?;
            in_range("global_every", w.global_every, 0, self.layers.max(1))?;
        }
        if let Some(m) = &self.moe {
            in_range("experts", m.experts, 1, 1 << 16)?;
            in_range("active", m.active, 1, m.experts)?;
            in_range("shared", m.shared, 0, 1 << 10)?;
            in_range("expert_intermediate", m.expert_intermediate, 1, 1 << 24)?;
            if let Some(s) = m.shared_intermediate {
                in_range("shared_intermediate", s, 1, 1 << 24)?;
            }
            in_range("first_dense_layers", m.first_dense_layers, 0, self.layers)?;
        }
        if let Some(s) = &self.ssm {
            in_range("ssm_layers", s.layers, 0, self.layers)?;
            in_range(
                "ssm_mlp_only_layers",
                s.mlp_only_layers,
                0,
                self.layers - s.layers,
            )?;
            in_range("ssm_kept_16bit", s.kept_16bit, 0, s.layers)?;
            in_range("ssm_state_bytes", s.ssm_state_bytes, 0, 4)?;
            in_range("ssm_inner", s.inner, 1, 1 << 20)?;
            in_range("ssm_state", s.state, 1, 1 << 16)?;
            in_range("ssm_conv_kernel", s.conv_kernel, 1, 1 << 10)?;
            in_range("ssm_dt_rank", s.dt_rank, 0, 1 << 20)?;
            in_range("ssm_heads", s.heads, 0, 1 << 16)?;
            in_range("ssm_groups", s.groups, 0, 1 << 12)?;
        }
        if let Some(m) = &self.mla {
            in_range("q_lora_rank", m.q_lora_rank, 0, 1 << 20)?;
            in_range("kv_lora_rank", m.kv_lora_rank, 1, 1 << 20)?;
            in_range("qk_rope_head_dim", m.qk_rope_head_dim, 1, 1 << 16)?;
            in_range("qk_nope_head_dim", m.qk_nope_head_dim, 0, 1 << 16)?;
            in_range("v_head_dim", m.v_head_dim, 1, 1 << 16)?;
        }
        // The exact count, in 128 bits (it cannot overflow once every field is in range):
        // each part's real formula is bounded, MLA's q_lora × heads × head widths included.
        let (total, _) = self.param_count_wide();
        if total >= MAX_PARAMS as u128 {
            let part = if self.mla.is_some() {
                "multi-head latent attention (q_lora_rank × heads × (qk_nope + qk_rope), kv_lora_rank × heads × (qk_nope + v))"
            } else if self.moe.is_some() {
                "experts × expert width × hidden, per layer"
            } else if self.ssm.is_some() {
                "state-space layers"
            } else {
                "layers × (attention + MLP)"
            };
            return Err(ShapeError {
                field: "layers",
                message: format!(
                    "this shape has {:.2e} parameters, over the {MAX_PARAMS:.0e} a model can have (counted exactly: {part})",
                    total as f64
                ),
            });
        }
        Ok(())
    }
}
