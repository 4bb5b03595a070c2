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

pub mod count;
pub mod gguf_mix;
pub mod precision;
pub mod rope;
pub mod ssm;
pub mod validate;
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
    /// The format the model is published in where that is not 16-bit (gpt-oss ships only in
    /// MXFP4): a plan's default weights, as a checkpoint's own format is.
    #[serde(skip)]
    pub published_format: Option<crate::engine::model::precision::WeightPrecision>,
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
    /// The format a plan starts from when the user names none: the checkpoint's own (read
    /// from its headers), else the one the model is published in.
    pub fn default_format(&self) -> Option<crate::engine::model::precision::WeightPrecision> {
        self.checkpoint
            .as_ref()
            .map(|c| c.format)
            .or(self.published_format)
    }
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

pub use validate::{MAX_PARAMS, ShapeError};
