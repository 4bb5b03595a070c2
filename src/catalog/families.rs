//! One description per model family the config.json importer knows: the structure a
//! family's modeling code builds that its config does not spell out (MLP of two or three
//! matrices, the norm, biases, tied embeddings by default, q/k norms), and which config keys
//! switch a part on or off. The importer reads shapes from the config and structure from
//! here; a new family is a new entry, not new code. Each entry names the modeling file the
//! layout was read from (transformers unless said).

use crate::engine::model::MlpKind;

/// The norm a family uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Norm {
    /// RMSNorm: a weight vector.
    Rms,
    /// LayerNorm: weight and bias.
    Layer,
    /// LayerNorm without parameters (OLMo 1).
    Free,
}

/// Whether a part has a bias (or a q/k norm, or a tied head): fixed, or the first of some
/// config keys that is written, else a default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    No,
    Yes,
    Key(&'static [&'static str], bool),
}

/// The q and k norms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QkNorm {
    No,
    /// One head_dim vector each (Qwen3, Gemma 3), or when the key says so.
    PerHead(Switch),
    /// Over the whole q and k projections (OLMo 2, OLMoE), or when the key says so.
    Full(Switch),
}

/// How many key/value heads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KvHeads {
    /// `num_key_value_heads` (or `num_kv_heads`), else the attention heads.
    Config,
    /// Multi-query unless `multi_query` is false (GPTBigCode; GPT-2 is the other way).
    MultiQuery(bool),
    /// Falcon: `num_kv_heads` under the new decoder architecture, else multi-query.
    Falcon,
    /// ChatGLM: `multi_query_group_num` when `multi_query_attention`.
    ChatGlm,
}

/// Norm modules per decoder layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NormsPerLayer {
    Fixed(u64),
    /// Falcon: one shared norm under the old parallel layout, else two.
    Falcon,
}

/// State-space layers and how the config writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateSpace {
    No,
    /// Mamba: every layer a Mamba-1 mixer (`state_size`, `expand`, `conv_kernel`,
    /// `time_step_rank`), no MLP.
    Mamba1,
    /// Mamba 2: `num_heads`, `n_groups` besides the above.
    Mamba2,
    /// Jamba: attention every `attn_layer_period` layers (from `attn_layer_offset`), Mamba-1
    /// mixers (`mamba_*` keys, with dt/B/C norms) elsewhere, an MLP or MoE in every layer.
    Jamba,
    /// Nemotron-H: each layer one sublayer, as `hybrid_override_pattern` writes them (`M` a
    /// Mamba 2 mixer of `mamba_num_heads` × `mamba_head_dim`, `*` attention, `-` an MLP).
    NemotronH,
}

#[derive(Debug, Clone, Copy)]
pub struct Family {
    pub model_types: &'static [&'static str],
    pub mlp: MlpKind,
    pub norm: Norm,
    pub norms_per_layer: NormsPerLayer,
    /// Embeddings tied unless `tie_word_embeddings` says otherwise (transformers' default is
    /// true; many families' configs override it).
    pub tie_default: bool,
    pub qkv_bias: Switch,
    pub o_bias: Switch,
    pub mlp_bias: Switch,
    pub qk_norm: QkNorm,
    pub lm_head_bias: Switch,
    pub kv_heads: KvHeads,
    /// Learned absolute positions (GPT-2 style), `n_positions` rows.
    pub learned_positions: bool,
    /// Every n-th layer attends globally when the config has a window and no layer list.
    pub global_every: u64,
    pub mla: bool,
    /// gpt-oss: attention sinks, router bias, active count without the embedding.
    pub gpt_oss: bool,
    /// Qwen2-MoE: one shared expert of `shared_expert_intermediate_size` with a gate.
    pub gated_shared_expert: bool,
    /// The MLP width is `ffn_hidden_size` (or 4 × hidden), never `intermediate_size`
    /// (Falcon, ChatGLM).
    pub ffn_hidden_size: bool,
    /// Where a dense MLP's width is written, first found wins.
    pub dense_width_keys: &'static [&'static str],
    /// Where one routed expert's width is written (else the dense width).
    pub expert_width_keys: &'static [&'static str],
    /// One shared expert of the routed experts' width in every MoE layer (Llama 4).
    pub shared_expert: bool,
    pub state_space: StateSpace,
    /// Where the layout was read.
    pub source: &'static str,
}

/// Llama: the base most families differ from in a field or two (and the reading of an
/// unknown family).
pub const LLAMA: Family = Family {
    model_types: &["llama"],
    mlp: MlpKind::Gated,
    norm: Norm::Rms,
    norms_per_layer: NormsPerLayer::Fixed(2),
    tie_default: false,
    qkv_bias: Switch::Key(&["attention_bias"], false),
    o_bias: Switch::Key(&["attention_bias"], false),
    mlp_bias: Switch::Key(&["mlp_bias"], false),
    qk_norm: QkNorm::PerHead(Switch::Key(&["use_qk_norm"], false)),
    lm_head_bias: Switch::No,
    kv_heads: KvHeads::Config,
    learned_positions: false,
    global_every: 0,
    mla: false,
    gpt_oss: false,
    gated_shared_expert: false,
    ffn_hidden_size: false,
    dense_width_keys: &["intermediate_size", "ffn_hidden_size", "n_inner"],
    expert_width_keys: &["moe_intermediate_size"],
    shared_expert: false,
    state_space: StateSpace::No,
    source: "models/llama/modeling_llama.py",
};

/// A family that differs from Llama in a few fields.
const fn like_llama(model_types: &'static [&'static str], source: &'static str) -> Family {
    Family {
        model_types,
        source,
        ..LLAMA
    }
}

/// GPT-2 style: LayerNorm, biased projections, a GELU MLP of two matrices.
const GPT2: Family = Family {
    model_types: &["gpt2"],
    mlp: MlpKind::Plain,
    norm: Norm::Layer,
    tie_default: true,
    qkv_bias: Switch::Yes,
    o_bias: Switch::Yes,
    mlp_bias: Switch::Yes,
    qk_norm: QkNorm::No,
    kv_heads: KvHeads::MultiQuery(false),
    learned_positions: true,
    source: "models/gpt2/modeling_gpt2.py",
    ..LLAMA
};

pub const FAMILIES: &[Family] = &[
    Family {
        qk_norm: QkNorm::PerHead(Switch::Yes),
        ..like_llama(&["qwen3", "qwen3_moe"], "models/qwen3/modeling_qwen3.py")
    },
    like_llama(&["llama", "mistral", "mixtral"], "models/llama/modeling_llama.py"),
    Family {
        qkv_bias: Switch::Yes,
        // Qwen2-VL and Qwen2.5-VL: the same language model beside their vision tower
        // (catalog::hf::vision counts the tower).
        ..like_llama(
            &["qwen2", "qwen2_vl", "qwen2_5_vl"],
            "models/qwen2/modeling_qwen2.py",
        )
    },
    Family {
        qkv_bias: Switch::Yes,
        gated_shared_expert: true,
        ..like_llama(&["qwen2_moe"], "models/qwen2_moe/modeling_qwen2_moe.py")
    },
    Family {
        tie_default: true,
        ..like_llama(&["gemma"], "models/gemma/modeling_gemma.py")
    },
    Family {
        tie_default: true,
        norms_per_layer: NormsPerLayer::Fixed(4),
        global_every: 2,
        ..like_llama(&["gemma2"], "models/gemma2/modeling_gemma2.py")
    },
    Family {
        tie_default: true,
        norms_per_layer: NormsPerLayer::Fixed(4),
        qk_norm: QkNorm::PerHead(Switch::Yes),
        global_every: 6,
        ..like_llama(&["gemma3", "gemma3_text"], "models/gemma3/modeling_gemma3.py")
    },
    like_llama(&["phi3"], "models/phi3/modeling_phi3.py"),
    Family {
        mla: true,
        ..like_llama(
            &["deepseek_v3", "deepseek_v2"],
            "models/deepseek_v3/modeling_deepseek_v3.py",
        )
    },
    Family {
        mlp_bias: Switch::Yes,
        qkv_bias: Switch::Key(&["attention_bias"], true),
        o_bias: Switch::Key(&["attention_bias"], true),
        global_every: 2,
        gpt_oss: true,
        ..like_llama(&["gpt_oss"], "models/gpt_oss/modeling_gpt_oss.py")
    },
    Family {
        mlp: MlpKind::Plain,
        norm: Norm::Layer,
        norms_per_layer: NormsPerLayer::Falcon,
        tie_default: true,
        qkv_bias: Switch::Key(&["bias"], false),
        o_bias: Switch::Key(&["bias"], false),
        kv_heads: KvHeads::Falcon,
        ffn_hidden_size: true,
        ..like_llama(&["falcon"], "models/falcon/modeling_falcon.py")
    },
    // Cohere: one weight-only LayerNorm a layer (attention and MLP in parallel).
    Family {
        norms_per_layer: NormsPerLayer::Fixed(1),
        tie_default: true,
        ..like_llama(&["cohere"], "models/cohere/modeling_cohere.py")
    },
    Family {
        kv_heads: KvHeads::MultiQuery(true),
        source: "models/gpt_bigcode/modeling_gpt_bigcode.py",
        model_types: &["gpt_bigcode"],
        ..GPT2
    },
    GPT2,
    Family {
        norms_per_layer: NormsPerLayer::Fixed(1),
        learned_positions: false,
        kv_heads: KvHeads::Config,
        lm_head_bias: Switch::Yes,
        tie_default: false,
        source: "models/phi/modeling_phi.py",
        model_types: &["phi"],
        ..GPT2
    },
    Family {
        learned_positions: false,
        kv_heads: KvHeads::Config,
        tie_default: false,
        source: "models/gpt_neox/modeling_gpt_neox.py",
        model_types: &["gpt_neox"],
        ..GPT2
    },
    // StarCoder2: LayerNorms, a GELU MLP of two matrices (c_fc, c_proj), every projection
    // biased when `use_bias` (the published configs say true).
    Family {
        mlp: MlpKind::Plain,
        norm: Norm::Layer,
        tie_default: true,
        qkv_bias: Switch::Key(&["use_bias"], true),
        o_bias: Switch::Key(&["use_bias"], true),
        mlp_bias: Switch::Key(&["use_bias"], true),
        ..like_llama(&["starcoder2"], "models/starcoder2/modeling_starcoder2.py")
    },
    // PhiMoE (Phi-3.5-MoE): LayerNorms, biased attention, Mixtral-style experts, a biased
    // lm_head.
    Family {
        norm: Norm::Layer,
        qkv_bias: Switch::Key(&["attention_bias"], false),
        o_bias: Switch::Key(&["attention_bias"], false),
        lm_head_bias: Switch::Key(&["lm_head_bias"], false),
        ..like_llama(&["phimoe"], "models/phimoe/modeling_phimoe.py")
    },
    // OLMo 1: LayerNorms without weights.
    Family {
        norm: Norm::Free,
        ..like_llama(&["olmo"], "models/olmo/modeling_olmo.py")
    },
    // OLMo 2 and OLMoE: RMSNorm over the whole q and k projections.
    Family {
        qk_norm: QkNorm::Full(Switch::Yes),
        ..like_llama(
            &["olmo2", "olmoe"],
            "models/olmo2/modeling_olmo2.py, models/olmoe/modeling_olmoe.py",
        )
    },
    // Llama's layout under other names (their multipliers and scales are not parameters;
    // Baichuan's W_pack is q, k and v fused, its NormHead an lm_head's size).
    like_llama(
        &["granite", "granitemoe", "exaone", "minicpm", "baichuan"],
        "models/granite, models/granitemoe (transformers); exaone, minicpm, baichuan (remote code)",
    ),
    // InternLM2: `bias` covers the fused wqkv and wo.
    Family {
        qkv_bias: Switch::Key(&["bias"], false),
        o_bias: Switch::Key(&["bias"], false),
        ..like_llama(&["internlm2"], "modeling_internlm2.py (remote code)")
    },
    // InternLM3: `qkv_bias` for q, k, v and `bias` for o.
    Family {
        qkv_bias: Switch::Key(&["qkv_bias"], false),
        o_bias: Switch::Key(&["bias"], false),
        ..like_llama(&["internlm3"], "modeling_internlm3.py (remote code)")
    },
    // GLM-4 (`glm`): biased q, k, v; GLM-4-0414 (`glm4`) adds a norm after attention and
    // after the MLP.
    Family {
        qkv_bias: Switch::Key(&["attention_bias"], true),
        o_bias: Switch::No,
        ..like_llama(&["glm"], "models/glm/modeling_glm.py")
    },
    Family {
        qkv_bias: Switch::Key(&["attention_bias"], true),
        o_bias: Switch::No,
        norms_per_layer: NormsPerLayer::Fixed(4),
        ..like_llama(&["glm4"], "models/glm4/modeling_glm4.py")
    },
    // ChatGLM 2/3 (remote code): fused QKV with bias, grouped KV heads, SwiGLU of
    // 2 × ffn_hidden_size, RMSNorm, an untied output layer.
    Family {
        qkv_bias: Switch::Key(&["add_qkv_bias"], true),
        o_bias: Switch::Key(&["add_bias_linear"], false),
        mlp_bias: Switch::Key(&["add_bias_linear"], false),
        kv_heads: KvHeads::ChatGlm,
        ffn_hidden_size: true,
        ..like_llama(&["chatglm"], "modeling_chatglm.py (THUDM, remote code)")
    },
    // Llama 4 (the text model): MoE layers of routed experts of `intermediate_size` plus one
    // shared expert, dense layers of `intermediate_size_mlp` (every layer but each
    // `interleave_moe_layer_step`-th), q/k L2 norms without weights.
    Family {
        dense_width_keys: &["intermediate_size_mlp", "intermediate_size"],
        expert_width_keys: &["intermediate_size"],
        shared_expert: true,
        qk_norm: QkNorm::No,
        ..like_llama(&["llama4", "llama4_text"], "models/llama4/modeling_llama4.py")
    },
    // Mamba and Mamba 2: one RMSNorm and one mixer a layer, tied embeddings.
    Family {
        norms_per_layer: NormsPerLayer::Fixed(1),
        tie_default: true,
        state_space: StateSpace::Mamba1,
        ..like_llama(&["mamba", "falcon_mamba"], "models/mamba/modeling_mamba.py")
    },
    Family {
        norms_per_layer: NormsPerLayer::Fixed(1),
        tie_default: true,
        state_space: StateSpace::Mamba2,
        ..like_llama(&["mamba2"], "models/mamba2/modeling_mamba2.py")
    },
    Family {
        state_space: StateSpace::Jamba,
        ..like_llama(&["jamba"], "models/jamba/modeling_jamba.py")
    },
    // Nemotron-H: one RMSNorm a layer, a two-matrix ReLU² MLP, an untied lm_head.
    Family {
        norms_per_layer: NormsPerLayer::Fixed(1),
        mlp: MlpKind::Plain,
        state_space: StateSpace::NemotronH,
        ..like_llama(&["nemotron_h"], "models/nemotron_h/modeling_nemotron_h.py")
    },
    // StableLM 2: LayerNorms, q/k/v biased when `use_qkv_bias`, per-head q/k LayerNorms
    // (weights only) when `qk_layernorm`.
    Family {
        norm: Norm::Layer,
        qkv_bias: Switch::Key(&["use_qkv_bias"], false),
        o_bias: Switch::No,
        qk_norm: QkNorm::Full(Switch::Key(&["qk_layernorm"], false)),
        ..like_llama(&["stablelm"], "models/stablelm/modeling_stablelm.py")
    },
];

/// The family of a `model_type`, if the importer knows it.
pub fn family(model_type: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.model_types.contains(&model_type))
}

/// Every model_type the importer knows.
pub fn known_types() -> Vec<&'static str> {
    FAMILIES
        .iter()
        .flat_map(|f| f.model_types.iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model_type in two entries would leave the second unreachable.
    #[test]
    fn every_model_type_has_one_entry() {
        let mut types = known_types();
        let n = types.len();
        types.sort();
        types.dedup();
        assert_eq!(types.len(), n, "a model_type named twice");
        assert!(n >= 40, "{n} model types");
        assert!(FAMILIES.iter().all(|f| !f.source.is_empty()));
    }
}
