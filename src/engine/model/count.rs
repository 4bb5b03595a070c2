//! Exact parameter counts and KV-cache bytes per token of an [`Architecture`], from its
//! shapes: one counter for every family, whose differences are structural flags (biases,
//! norms per layer, gated or plain MLP, MoE, MLA, state-space layers).

use crate::engine::basics::units::narrow;
use crate::engine::model::{Architecture, MlpKind, ParamCount, SlidingWindow};

impl Architecture {
    pub fn norm_params(&self) -> u64 {
        narrow(self.norm_params_wide())
    }

    fn norm_params_wide(&self) -> u128 {
        let h = u128::from(self.hidden);
        if self.norm_free {
            0
        } else if self.norm_bias {
            2 * h
        } else {
            h
        }
    }

    /// Parameters of one attention block.
    pub fn attention_params(&self) -> u64 {
        narrow(self.attention_params_wide())
    }

    /// The counts below are computed in 128 bits: every field is at most 2^24 once
    /// validated and no term multiplies more than five of them, so nothing overflows and
    /// [`Architecture::validate`] bounds the real formula of each part (MLA, MoE, state
    /// space), not an estimate of it.
    fn attention_params_wide(&self) -> u128 {
        let w = u128::from;
        let (h, heads) = (w(self.hidden), w(self.heads));
        if let Some(mla) = &self.mla {
            let (q_lora, kv_lora) = (w(mla.q_lora_rank), w(mla.kv_lora_rank));
            let (rope, nope, v) = (
                w(mla.qk_rope_head_dim),
                w(mla.qk_nope_head_dim),
                w(mla.v_head_dim),
            );
            let q_head = nope + rope;
            let q = if q_lora > 0 {
                h * q_lora + q_lora + q_lora * heads * q_head
            } else {
                h * heads * q_head
            };
            let kv_a = h * (kv_lora + rope) + kv_lora;
            let kv_b = kv_lora * heads * (nope + v);
            let o = heads * v * h;
            return q + kv_a + kv_b + o;
        }
        let head_dim = w(self.head_dim);
        let q_width = heads * head_dim;
        let kv_width = w(self.kv_heads) * head_dim;
        let mut n = h * q_width + 2 * h * kv_width + q_width * h;
        if self.qkv_bias {
            n += q_width + 2 * kv_width;
        }
        if self.q_gate {
            n += h * q_width + if self.qkv_bias { q_width } else { 0 };
        }
        if self.o_bias {
            n += h;
        }
        if self.qk_norm && self.qk_norm_full {
            n += q_width + kv_width;
        } else if self.qk_norm {
            n += 2 * head_dim;
        }
        if self.attention_sinks {
            n += heads;
        }
        n
    }

    /// Parameters of one MLP of the given intermediate width.
    pub fn mlp_params(&self, intermediate: u64) -> u64 {
        narrow(self.mlp_params_wide(intermediate))
    }

    fn mlp_params_wide(&self, intermediate: u64) -> u128 {
        let (h, i) = (u128::from(self.hidden), u128::from(intermediate));
        match self.mlp {
            MlpKind::Gated => 3 * h * i + if self.mlp_bias { 2 * i + h } else { 0 },
            MlpKind::Plain => 2 * h * i + if self.mlp_bias { i + h } else { 0 },
        }
    }

    /// Number of layers whose feed-forward is a mixture of experts: after the leading dense
    /// layers, every `every`-th (layers every−1, 2·every−1, … as Llama 4 places them).
    pub fn moe_layers(&self) -> u64 {
        match &self.moe {
            Some(moe) => self.layers.saturating_sub(moe.first_dense_layers) / moe.every.max(1),
            None => 0,
        }
    }

    /// Number of layers with a dense feed-forward.
    pub fn dense_layers(&self) -> u64 {
        self.layers - self.moe_layers()
    }

    /// Layers that attend (the others are state-space mixers).
    pub fn attention_layers(&self) -> u64 {
        let other = self.ssm.map_or(0, |s| s.layers.saturating_add(s.mlp_only_layers));
        self.layers - other.min(self.layers)
    }

    /// Layers with a feed-forward block (a Mamba's layers have none).
    fn mlp_layers(&self) -> u64 {
        match self.ssm {
            Some(s) if s.mlp_only_layers > 0 => s.mlp_only_layers,
            Some(s) if !s.mlp => self.attention_layers(),
            _ => self.layers,
        }
    }

    /// Exact parameter count: total resident, and active per token.
    pub fn param_count(&self) -> ParamCount {
        let (total, active) = self.param_count_wide();
        ParamCount {
            total: narrow(total),
            active: narrow(active),
        }
    }

    /// Total and active counts in 128 bits (see [`Architecture::attention_params_wide`]).
    pub(super) fn param_count_wide(&self) -> (u128, u128) {
        let w = u128::from;
        let h = w(self.hidden);
        let vocab = w(self.vocab);
        let embedding = vocab * h + w(self.position_embeddings) * h;
        let lm_head =
            if self.tied_embeddings { 0 } else { vocab * h } + if self.lm_head_bias { vocab } else { 0 };
        let final_norm = self.norm_params_wide();
        // Every layer's mixer (attention or state space) and norms.
        let mixers = w(self.attention_layers()) * self.attention_params_wide()
            + self
                .ssm
                .map_or(0, |s| w(s.layers.min(self.layers)) * s.params_wide(self.hidden))
            + w(self.layers) * w(self.norms_per_layer) * self.norm_params_wide();
        let fixed = embedding + lm_head + final_norm + mixers;

        let Some(moe) = &self.moe else {
            let total = fixed + w(self.mlp_layers()) * self.mlp_params_wide(self.intermediate);
            return (total, total);
        };

        let moe_layers = w(self.moe_layers());
        let dense_layers = w(self.dense_layers());
        let experts = w(moe.experts);
        let router = experts * h + if moe.router_bias { experts } else { 0 };
        let expert = self.mlp_params_wide(moe.expert_intermediate);
        let shared = w(moe.shared)
            * self.mlp_params_wide(moe.shared_intermediate.unwrap_or(moe.expert_intermediate))
            + if moe.shared_expert_gate { h } else { 0 };
        let common =
            fixed + dense_layers * self.mlp_params_wide(self.intermediate) + moe_layers * (router + shared);
        let total = common + moe_layers * experts * expert;
        let active_embedding = if self.active_excludes_embedding {
            0
        } else {
            embedding
        };
        let active = common - embedding + active_embedding + moe_layers * w(moe.active) * expert;
        (total, active)
    }

    /// Parameters that stay 16-bit when the linear layers are quantized: embeddings,
    /// lm_head, norms and MoE routers.
    pub fn unquantized_params(&self) -> u64 {
        self.unquantized_params_in(None)
    }

    /// [`Architecture::unquantized_params`] in `format`: with the attention projections when
    /// the published checkpoint in that format keeps them 16-bit.
    pub fn unquantized_params_in(
        &self,
        format: Option<crate::engine::model::precision::WeightPrecision>,
    ) -> u64 {
        let attention = match (format, self.attention_16bit_in) {
            (Some(f), Some(kept)) if f == kept => {
                let edges = if self.edge_blocks_16bit && self.moe.is_none() {
                    2 * self.mlp_params(self.intermediate)
                } else {
                    0
                };
                let mixers = self
                    .ssm
                    .map_or(0, |s| s.kept_16bit.min(s.layers) * s.params(self.hidden));
                self.attention_layers() * self.attention_params() + edges + mixers
            }
            _ => 0,
        };
        attention + self.unquantized_core()
    }

    fn unquantized_core(&self) -> u64 {
        let embeddings = self.vocab * self.hidden * if self.tied_embeddings { 1 } else { 2 }
            + self.position_embeddings * self.hidden;
        let norms = (self.layers * self.norms_per_layer + 1) * self.norm_params();
        let routers = self
            .moe
            .as_ref()
            .map_or(0, |m| self.moe_layers() * m.experts * self.hidden);
        embeddings + norms + routers
    }

    /// Width of the query projection output (heads × head_dim, or MLA's q head width).
    pub fn q_width(&self) -> u64 {
        match &self.mla {
            Some(m) => self.heads * (m.qk_nope_head_dim + m.qk_rope_head_dim),
            None => self.heads * self.head_dim,
        }
    }

    /// Width of the key (and value) projection output.
    pub fn kv_width(&self) -> u64 {
        match &self.mla {
            Some(m) => m.kv_lora_rank + m.qk_rope_head_dim,
            None => self.kv_heads * self.head_dim,
        }
    }

    /// Elements of the largest quantizable linear weight (what a dequantize-on-the-fly
    /// kernel expands at once); lm_head stays 16-bit and is not counted.
    pub fn largest_linear(&self) -> u64 {
        let mlp = self
            .intermediate
            .max(self.moe.as_ref().map_or(0, |m| m.expert_intermediate));
        (self.hidden * mlp).max(self.hidden * self.q_width())
    }

    /// Elements cached per token per layer for keys and values together (full attention).
    pub fn kv_elements_per_token_per_layer(&self) -> u64 {
        match &self.mla {
            // The latent and the shared rotary key are cached once, not per head.
            Some(mla) => mla.kv_lora_rank + mla.qk_rope_head_dim,
            None => 2 * self.kv_heads * self.head_dim,
        }
    }

    /// Number of layers that attend over a sliding window rather than the whole context.
    pub fn sliding_layers(&self) -> u64 {
        match self.sliding_window {
            None => 0,
            Some(SlidingWindow { global_every: 0, .. }) => self.layers,
            Some(SlidingWindow { global_every, .. }) => self.layers - self.layers / global_every,
        }
    }

    /// Token positions held in the KV cache summed over the attention layers, for a context
    /// of `context` tokens: sliding-window layers hold at most the window.
    pub fn kv_layer_tokens(&self, context: u64) -> u64 {
        let sliding = self.sliding_layers().min(self.attention_layers());
        let full = self.attention_layers() - sliding;
        let window = self.sliding_window.map_or(context, |w| w.window.min(context));
        full * context + sliding * window
    }
}
