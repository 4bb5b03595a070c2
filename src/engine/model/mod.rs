//! Model architectures: exact parameter counts and KV-cache bytes per token, computed
//! from the shapes a Hugging Face `config.json` carries.
//!
//! One counter serves every family: the differences between families are spelled out as
//! structural flags (biases, norms per layer, gated or plain MLP, MoE, MLA), so a new
//! family is new data, not new code.
//!
//! The model room: shapes and exact counts (here), the stored formats (`precision`, llama.cpp's
//! Q4_K_M mix in `gguf_mix`), state-space layers (`ssm`), vision encoders (`vision`) and the
//! rotary table a runtime builds (`rope`). Imports basics only.

pub mod gguf_mix;
pub mod precision;
pub mod rope;
pub mod ssm;
pub mod vision;

use serde::{Deserialize, Serialize};

/// Feed-forward block shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MlpKind {
    /// SwiGLU / GeGLU: gate, up and down projections (3 matrices).
    #[default]
    Gated,
    /// Classic two-matrix MLP (up, down), e.g. Falcon, GPT-2.
    Plain,
}

/// Multi-head latent attention (DeepSeek-V2/V3): the cache holds a compressed latent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mla {
    /// Rank of the query down-projection; 0 means queries are projected directly.
    #[serde(default)]
    pub q_lora_rank: u64,
    pub kv_lora_rank: u64,
    pub qk_rope_head_dim: u64,
    pub qk_nope_head_dim: u64,
    pub v_head_dim: u64,
}

/// Mixture of experts: every expert is resident, only `active` (+ shared) run per token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moe {
    pub experts: u64,
    pub active: u64,
    #[serde(default)]
    pub shared: u64,
    /// Intermediate width of one routed expert.
    pub expert_intermediate: u64,
    /// Intermediate width of the shared expert block (Qwen2-MoE); defaults to `expert_intermediate`.
    #[serde(default)]
    pub shared_intermediate: Option<u64>,
    /// Qwen2-MoE gates the shared expert with a learned H→1 projection.
    #[serde(default)]
    pub shared_expert_gate: bool,
    /// Leading layers that keep a dense MLP (DeepSeek's `first_k_dense_replace`).
    #[serde(default)]
    pub first_dense_layers: u64,
    /// Router has a bias (gpt-oss) or a score-correction bias (DeepSeek-V3): E extra params.
    #[serde(default)]
    pub router_bias: bool,
    /// Every n-th layer (after the leading dense ones) is a mixture of experts, the others
    /// dense (Llama 4 Maverick's `interleave_moe_layer_step` 2); 1 = every layer.
    #[serde(default = "one")]
    pub every: u64,
}

fn one() -> u64 {
    1
}

/// Which layers use a sliding attention window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlidingWindow {
    pub window: u64,
    /// Every `global_every`-th layer (1-based) attends globally; 0 = every layer slides.
    #[serde(default)]
    pub global_every: u64,
}

pub use crate::engine::model::ssm::Ssm;

/// How a model's rotary table is laid out, where it differs from one row per configured
/// position and one column per head dimension.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rope {
    /// `rope_scaling` of type "linear": the table covers `max_position × factor` rows
    /// (`linear_scaling_rope.py`, "the maximum length after applying the rope scaling").
    #[serde(default)]
    pub linear_factor: Option<f64>,
    /// M-RoPE (`mrope_section`: Qwen2-VL, Qwen2.5-VL): rows enlarged four times for video
    /// positions (`mrope.py`, `cache_max_position_num = max_position_embeddings * 4`).
    #[serde(default)]
    pub multimodal: bool,
    /// The sliding layers rotate with their own base (Gemma 3): a second, unscaled table.
    #[serde(default)]
    pub local_table: bool,
    /// Columns when only part of a head rotates (`partial_rotary_factor`); else the head
    /// width (MLA: the shared rotary key's width).
    #[serde(default)]
    pub rotary_dim: Option<u64>,
    /// No rotary positions at all (NoPE: Nemotron-H's and Jamba's attention layers, whose
    /// state-space layers carry the order).
    #[serde(default)]
    pub nope: bool,
}

/// Everything the memory model needs to know about a network's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Architecture {
    pub hidden: u64,
    pub intermediate: u64,
    pub layers: u64,
    pub heads: u64,
    pub kv_heads: u64,
    /// Attention head width; `hidden / heads` when the config does not say.
    pub head_dim: u64,
    pub vocab: u64,
    pub tied_embeddings: bool,
    pub qkv_bias: bool,
    pub o_bias: bool,
    /// RMSNorm over head_dim on q and k (Qwen3, Gemma 3).
    pub qk_norm: bool,
    /// Norm modules per decoder layer (2 for Llama, 4 for Gemma 2/3, 1 for Command R).
    pub norms_per_layer: u64,
    /// LayerNorm with a bias vector (Falcon) instead of weight-only RMSNorm.
    pub norm_bias: bool,
    pub mlp: MlpKind,
    pub mlp_bias: bool,
    /// One learned attention sink per head per layer (gpt-oss).
    pub attention_sinks: bool,
    pub sliding_window: Option<SlidingWindow>,
    /// The published checkpoint in this quantized format keeps the attention projections in
    /// 16-bit (gpt-oss's MXFP4 quantizes only the experts; Meta's Llama 3.1 405B FP8 leaves
    /// attention in BF16): the weights in that format count them at 2 bytes.
    #[serde(skip)]
    pub attention_16bit_in: Option<crate::engine::model::precision::WeightPrecision>,
    /// In that format the first and last blocks stay 16-bit whole, their MLPs too (Meta's
    /// Llama 3.1 405B FP8: the Llama 3 paper, §6.2, "we do not perform quantization in the
    /// first and last Transformer layers").
    #[serde(skip)]
    pub edge_blocks_16bit: bool,
    pub moe: Option<Moe>,
    pub mla: Option<Mla>,
    /// Count the active parameters without the input embedding (OpenAI's gpt-oss convention).
    pub active_excludes_embedding: bool,
    /// Rows of a learned absolute position embedding (GPT-2, GPTBigCode); 0 for RoPE models.
    pub position_embeddings: u64,
    /// The output projection has a bias (Phi-1/2): vocab extra parameters.
    #[serde(default)]
    pub lm_head_bias: bool,
    /// The q and k norms span the whole projection (heads × head_dim and kv_heads ×
    /// head_dim: OLMo 2, OLMoE) rather than one head_dim vector each.
    #[serde(default)]
    pub qk_norm_full: bool,
    /// LayerNorms without weights (OLMo 1's non-parametric norm): no parameters.
    #[serde(default)]
    pub norm_free: bool,
    /// State-space layers (Mamba and hybrids).
    #[serde(default)]
    pub ssm: Option<Ssm>,
    /// The query projection also gives a gate per output channel (Qwen3-Next's
    /// `attn_output_gate`): heads × head_dim × hidden more per attention layer.
    #[serde(default)]
    pub q_gate: bool,
}

/// Total and per-token active parameter counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ParamCount {
    pub total: u64,
    pub active: u64,
}

use crate::engine::basics::units::narrow;

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
    fn param_count_wide(&self) -> (u128, u128) {
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

/// A catalog entry or an imported `config.json`: an architecture with a name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Model {
    pub id: String,
    pub name: String,
    pub family: String,
    pub hf_repo: Option<String>,
    /// `max_position_embeddings`: the longest context the checkpoint is configured for.
    pub max_context: u64,
    pub arch: Architecture,
    /// A parameter count stated rather than derived (seed 003's reference sizes).
    pub declared_params: Option<u64>,
    /// What an import had to guess; shown wherever the model is.
    pub warnings: Vec<String>,
    /// The config.json an imported model came from (saved plans point back to it).
    pub source_path: Option<String>,
    /// The weights as the checkpoint stores them, read from its headers.
    #[serde(skip)]
    pub checkpoint: Option<CheckpointWeights>,
    /// Where the true count may lie when the structure was guessed (an unknown family): the
    /// smallest and largest count over what the config does not state.
    #[serde(skip)]
    pub params_range: Option<(u64, u64)>,
    /// An unknown family's config keys that bear on the shape and were not understood
    /// (each widened `params_range` where it could change the count).
    #[serde(skip)]
    pub unknown_keys: Vec<String>,
    /// A vision-language model's image encoder (`None`: text only).
    #[serde(skip)]
    pub vision: Option<crate::engine::model::vision::Vision>,
    /// Where the rotary position table differs from one row per position, one column per
    /// head dimension (vLLM holds it on every card: [`crate::engine::model::rope`]).
    #[serde(skip)]
    pub rope: Rope,
}

/// A checkpoint's own weights: its format (the storage type holding most bytes) and bytes.
/// Planned in that format, the weights segment is the file's bytes, not an estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointWeights {
    pub format: crate::engine::model::precision::WeightPrecision,
    pub bytes: f64,
    /// "4.92 GB: Q4_K 4.21 GB, Q6_K 0.63 GB, F32 0.08 GB".
    pub summary: String,
}

impl Model {
    /// An unknown family's stated error: how far, as a share of the count, the farther end
    /// of `params_range` lies from it (rounded to 0.01 %); `None` for a described family.
    pub fn params_error_bound(&self) -> Option<f64> {
        let (lo, hi) = self.params_range?;
        let total = self.params().total.max(1) as f64;
        let worst = (lo as f64 / total - 1.0)
            .abs()
            .max((hi as f64 / total - 1.0).abs());
        Some((worst * 1e4).round() / 1e4)
    }

    /// Total and active parameters: the declared count when there is one, else the
    /// count derived from the architecture.
    pub fn params(&self) -> ParamCount {
        match self.declared_params {
            Some(n) => ParamCount { total: n, active: n },
            None => self.arch.param_count(),
        }
    }

    /// KV-cache bytes for one token at full attention: 2 (K and V) × layers × kv_heads ×
    /// head_dim × bytes per element (MLA: the latent width instead of 2 × kv_heads × head_dim).
    pub fn kv_bytes_per_token(&self, bytes_per_element: f64) -> f64 {
        (self.arch.attention_layers() * self.arch.kv_elements_per_token_per_layer()) as f64
            * bytes_per_element
    }

    pub fn is_moe(&self) -> bool {
        self.arch.moe.is_some()
    }
}

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
