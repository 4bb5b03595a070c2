//! The family-specific shape rules: how each family's config.json fields (as described in
//! `catalog::families`) become an `Architecture`: widths, heads, norms, sliding windows,
//! experts, latent attention and state-space layers. The import (`super`) reads the file;
//! this holds what the fields mean.

use serde_json::Value;

use super::fields::Fields;
use crate::catalog::FileError;
use crate::catalog::families::{Family, KvHeads, Norm, NormsPerLayer, QkNorm, StateSpace, Switch};
use crate::engine::model::{Architecture, Mla, Moe, SlidingWindow, Ssm};

/// An unknown family read from its own config: the activation names the MLP
/// (`generic::mlp_from_activation`), `layer_norm_eps` a LayerNorm with bias, the widths
/// under every spelling; `generic::refine` reads the rest.
pub(super) fn generic_family(f: &Fields) -> Family {
    let layer_norm = (f.map.contains_key("layer_norm_eps") || f.map.contains_key("layer_norm_epsilon"))
        && !f.map.contains_key("rms_norm_eps");
    let bias = Switch::Key(&["use_bias", "bias"], false);
    let base = crate::catalog::families::LLAMA;
    Family {
        model_types: &[],
        mlp: super::generic::mlp_from_activation(f).0,
        norm: if layer_norm { Norm::Layer } else { Norm::Rms },
        tie_default: true,
        qkv_bias: bias,
        o_bias: bias,
        mlp_bias: bias,
        dense_width_keys: &[
            "intermediate_size",
            "ffn_hidden_size",
            "n_inner",
            "block_ff_dim",
            "d_ff",
            "ffn_dim",
        ],
        expert_width_keys: &["moe_intermediate_size", "expert_intermediate_size"],
        source: "the config's generic fields",
        ..base
    }
}

/// A switch read against the config: fixed, or the first written key, else the default.
fn switch(f: &Fields, s: Switch) -> bool {
    match s {
        Switch::No => false,
        Switch::Yes => true,
        Switch::Key(keys, default) => keys.iter().find_map(|k| f.bool(k)).unwrap_or(default),
    }
}

/// The network's shape from the config's fields and the family's description.
pub(super) fn architecture(
    f: &Fields,
    family: &Family,
    warnings: &mut Vec<String>,
) -> Result<Architecture, FileError> {
    let hidden = f.u64(&["hidden_size", "n_embd", "d_model"])?;
    let layers = f.u64(&["num_hidden_layers", "n_layers", "n_layer", "num_layers"])?;
    let ssm = state_space(f, family, hidden, layers)?;
    // A pure state-space model has no attention heads; one stands in (no layer uses it).
    let heads = match family.state_space {
        StateSpace::Mamba1 | StateSpace::Mamba2 => 1,
        _ => f.u64(&["num_attention_heads", "n_head", "n_heads", "num_heads"])?,
    };
    let vocab = f.u64(&["vocab_size", "padded_vocab_size"])?;
    let head_dim = match f.u64_opt(&["head_dim", "kv_channels"])? {
        _ if heads == 1 && ssm.is_some_and(|s| s.layers == layers) => hidden,
        Some(d) => d,
        None if hidden.is_multiple_of(heads) => hidden / heads,
        None => {
            return Err(f.error_at(
                "hidden_size",
                format!("hidden_size {hidden} is not a multiple of num_attention_heads {heads} and there is no head_dim"),
            ));
        }
    };
    let intermediate = if let Some(s) = ssm.filter(|s| !s.mlp && s.mlp_only_layers == 0) {
        // No MLP anywhere; the inner width stands in for the shape checks.
        s.inner
    } else if family.ffn_hidden_size {
        f.u64_opt(&["ffn_hidden_size"])?
            .unwrap_or(hidden.saturating_mul(4))
    } else {
        match f.u64_opt(family.dense_width_keys)? {
            Some(i) => i,
            // GPT-2 style configs leave it out on purpose: 4 × hidden.
            None if family.learned_positions => hidden.saturating_mul(4),
            None => {
                warnings.push("no intermediate_size: assumed 4 × hidden".into());
                hidden.saturating_mul(4)
            }
        }
    };
    let norms_per_layer = match family.norms_per_layer {
        NormsPerLayer::Fixed(n) => n,
        // Falcon's old layout shares one norm between parallel attention and MLP.
        NormsPerLayer::Falcon
            if f.bool("new_decoder_architecture") != Some(true)
                && f.bool("parallel_attn").unwrap_or(true) =>
        {
            1
        }
        NormsPerLayer::Falcon => 2,
    };
    let (qk_norm, qk_norm_full) = match family.qk_norm {
        QkNorm::No => (false, false),
        QkNorm::PerHead(s) => (switch(f, s), false),
        QkNorm::Full(s) => (switch(f, s), true),
    };
    Ok(Architecture {
        hidden,
        intermediate,
        layers,
        heads,
        kv_heads: kv_heads(f, family, heads)?,
        head_dim,
        vocab,
        tied_embeddings: f.bool("tie_word_embeddings").unwrap_or(family.tie_default),
        qkv_bias: switch(f, family.qkv_bias),
        o_bias: switch(f, family.o_bias),
        qk_norm,
        qk_norm_full,
        norms_per_layer,
        norm_bias: family.norm == Norm::Layer,
        norm_free: family.norm == Norm::Free,
        mlp: family.mlp,
        mlp_bias: switch(f, family.mlp_bias),
        attention_sinks: family.gpt_oss,
        sliding_window: sliding_window(f, family, layers)?,
        attention_16bit_in: None,
        edge_blocks_16bit: false,
        // An unknown family's experts are read under every spelling by `generic::refine`.
        moe: if family.model_types.is_empty() {
            None
        } else {
            moe(f, family, intermediate)?
        },
        mla: if family.mla { mla(f)? } else { None },
        active_excludes_embedding: family.gpt_oss,
        position_embeddings: if family.learned_positions {
            f.u64_opt(&["n_positions", "max_position_embeddings"])?
                .unwrap_or(0)
        } else {
            0
        },
        lm_head_bias: switch(f, family.lm_head_bias),
        ssm,
        q_gate: false,
    })
}

/// The state-space layers a family's config describes.
fn state_space(f: &Fields, family: &Family, hidden: u64, layers: u64) -> Result<Option<Ssm>, FileError> {
    let rank = |key: &str| -> Result<u64, FileError> {
        // "auto" (or unset) is ceil(hidden / 16), as transformers computes it.
        match f.map.get(key) {
            Some(Value::Number(_)) => f.u64(&[key]),
            _ => Ok(hidden.div_ceil(16)),
        }
    };
    Ok(match family.state_space {
        StateSpace::No => None,
        StateSpace::Mamba1 | StateSpace::Mamba2 => {
            let inner = match f.u64_opt(&["intermediate_size"])? {
                Some(i) => i,
                None => hidden.saturating_mul(f.u64_opt(&["expand"])?.unwrap_or(2)),
            };
            let mamba2 = family.state_space == StateSpace::Mamba2;
            Some(Ssm {
                layers,
                inner,
                state: f.u64(&["state_size"])?,
                conv_kernel: f.u64_opt(&["conv_kernel"])?.unwrap_or(4),
                dt_rank: if mamba2 { 0 } else { rank("time_step_rank")? },
                heads: if mamba2 { f.u64(&["num_heads"])? } else { 0 },
                groups: if mamba2 {
                    f.u64_opt(&["n_groups"])?.unwrap_or(1)
                } else {
                    0
                },
                mlp: false,
                proj_bias: f.bool("use_bias").unwrap_or(false),
                conv_bias: f.bool("use_conv_bias").unwrap_or(true),
                inner_norms: false,
                mixer_params: None,
                mixer_state: None,
                mlp_only_layers: 0,
                kept_16bit: 0,
                ssm_state_bytes: 0,
            })
        }
        StateSpace::NemotronH => Some(nemotron_h(f, layers)?),
        StateSpace::Jamba => {
            let period = f.u64_opt(&["attn_layer_period"])?.unwrap_or(8).max(1);
            let offset = f.u64_opt(&["attn_layer_offset"])?.unwrap_or(4);
            // Layers offset, offset + period, … below `layers`.
            let attention = if layers > offset {
                (layers - 1 - offset) / period + 1
            } else {
                0
            };
            Some(Ssm {
                layers: layers - attention,
                inner: hidden.saturating_mul(f.u64_opt(&["mamba_expand"])?.unwrap_or(2)),
                state: f.u64_opt(&["mamba_d_state"])?.unwrap_or(16),
                conv_kernel: f.u64_opt(&["mamba_d_conv"])?.unwrap_or(4),
                dt_rank: rank("mamba_dt_rank")?,
                heads: 0,
                groups: 0,
                mlp: true,
                proj_bias: f.bool("mamba_proj_bias").unwrap_or(false),
                conv_bias: f.bool("mamba_conv_bias").unwrap_or(true),
                inner_norms: true,
                mixer_params: None,
                mixer_state: None,
                mlp_only_layers: 0,
                kept_16bit: 0,
                ssm_state_bytes: 0,
            })
        }
    })
}

/// Nemotron-H's mixers, read from `hybrid_override_pattern`: one character a layer, `M` a Mamba
/// 2 mixer, `*` attention, `-` an MLP (`E`, a MoE layer, is not read).
fn nemotron_h(f: &Fields, layers: u64) -> Result<Ssm, FileError> {
    let key = "hybrid_override_pattern";
    let pattern = f.str(key).ok_or_else(|| {
        f.error_at(
            key,
            "a Nemotron-H config needs its hybrid_override_pattern".into(),
        )
    })?;
    let count = |c: char| pattern.chars().filter(|&p| p == c).count() as u64;
    let (mamba, attention, mlp) = (count('M'), count('*'), count('-'));
    if mamba + attention + mlp != layers || pattern.chars().count() as u64 != layers {
        return Err(f.error_at(
            key,
            format!("{pattern:?}: {layers} layers of M (Mamba 2), * (attention) or - (MLP) expected"),
        ));
    }
    let heads = f.u64(&["mamba_num_heads"])?;
    Ok(Ssm {
        layers: mamba,
        inner: heads.saturating_mul(f.u64(&["mamba_head_dim"])?),
        state: f.u64(&["ssm_state_size"])?,
        conv_kernel: f.u64_opt(&["conv_kernel"])?.unwrap_or(4),
        dt_rank: 0,
        heads,
        groups: f.u64_opt(&["n_groups"])?.unwrap_or(1),
        mlp: false,
        proj_bias: f.bool("use_bias").unwrap_or(false),
        conv_bias: f.bool("use_conv_bias").unwrap_or(true),
        inner_norms: false,
        mixer_params: None,
        mixer_state: None,
        mlp_only_layers: mlp,
        kept_16bit: 0,
        // vLLM keeps the recurrent state in the config's `mamba_ssm_cache_dtype`; a config
        // without one is held at 16 bits here (vLLM's default for it changed across releases).
        ssm_state_bytes: match f.str("mamba_ssm_cache_dtype") {
            Some("float32") => 4,
            _ => 0,
        },
    })
}

/// Key/value heads as the family counts them.
fn kv_heads(f: &Fields, family: &Family, heads: u64) -> Result<u64, FileError> {
    Ok(match family.kv_heads {
        KvHeads::Config => f
            .u64_opt(&["num_key_value_heads", "num_kv_heads", "n_kv_heads", "kv_n_heads"])?
            .unwrap_or(heads),
        KvHeads::MultiQuery(default) => {
            if f.bool("multi_query").unwrap_or(default) {
                1
            } else {
                heads
            }
        }
        KvHeads::Falcon => {
            if f.bool("new_decoder_architecture") == Some(true) {
                f.u64_opt(&["num_kv_heads"])?.unwrap_or(heads)
            } else if f.bool("multi_query").unwrap_or(true) {
                1
            } else {
                heads
            }
        }
        KvHeads::ChatGlm => {
            if f.bool("multi_query_attention") == Some(true) {
                f.u64_opt(&["multi_query_group_num"])?.unwrap_or(heads)
            } else {
                heads
            }
        }
    })
}

/// DeepSeek's multi-head latent attention.
fn mla(f: &Fields) -> Result<Option<Mla>, FileError> {
    Ok(Some(Mla {
        q_lora_rank: f.u64_opt(&["q_lora_rank"])?.unwrap_or(0),
        kv_lora_rank: f.u64(&["kv_lora_rank"])?,
        qk_rope_head_dim: f.u64(&["qk_rope_head_dim"])?,
        qk_nope_head_dim: f.u64(&["qk_nope_head_dim"])?,
        v_head_dim: f.u64(&["v_head_dim"])?,
    }))
}

/// The config.json keys a shape field comes from (the catalog's name → Hugging Face's).
pub(super) fn config_keys(field: &str) -> &'static [&'static str] {
    match field {
        "hidden" => &["hidden_size", "n_embd", "d_model"],
        "intermediate" => &["intermediate_size", "ffn_hidden_size", "n_inner"],
        "layers" => &["num_hidden_layers", "n_layers", "n_layer", "num_layers"],
        "heads" => &["num_attention_heads", "n_head", "n_heads", "num_heads"],
        "kv_heads" => &["num_key_value_heads", "num_kv_heads", "n_kv_heads", "kv_n_heads"],
        "head_dim" => &["head_dim"],
        "vocab" => &["vocab_size"],
        "position_embeddings" => &["n_positions", "max_position_embeddings"],
        "sliding_window" => &["sliding_window"],
        "global_every" => &["sliding_window_pattern", "layer_types"],
        "experts" => &super::experts::EXPERT_KEYS,
        "ssm_inner" => &["intermediate_size", "expand", "mamba_expand"],
        "ssm_state" => &["state_size", "mamba_d_state"],
        "ssm_conv_kernel" => &["conv_kernel", "mamba_d_conv"],
        "ssm_dt_rank" => &["time_step_rank", "mamba_dt_rank"],
        "ssm_heads" => &["num_heads"],
        "ssm_groups" => &["n_groups"],
        "ssm_layers" => &["attn_layer_period", "attn_layer_offset"],
        "active" => &["num_experts_per_tok", "experts_per_token"],
        "shared" => &["n_shared_experts"],
        "expert_intermediate" => &["moe_intermediate_size"],
        "shared_intermediate" => &["shared_expert_intermediate_size"],
        "first_dense_layers" => &["first_k_dense_replace"],
        "q_lora_rank" => &["q_lora_rank"],
        "kv_lora_rank" => &["kv_lora_rank"],
        "qk_rope_head_dim" => &["qk_rope_head_dim"],
        "qk_nope_head_dim" => &["qk_nope_head_dim"],
        "v_head_dim" => &["v_head_dim"],
        _ => &["num_hidden_layers"],
    }
}

fn sliding_window(f: &Fields, family: &Family, layers: u64) -> Result<Option<SlidingWindow>, FileError> {
    if f.bool("use_sliding_window") == Some(false) {
        return Ok(None);
    }
    let Some(window) = f.u64_opt(&["sliding_window"])? else {
        return Ok(None);
    };
    // Which layers slide: `layer_types` when given, else the family's fixed pattern.
    if let Some(Value::Array(types)) = f.map.get("layer_types") {
        let is_full = |i: u64| {
            types
                .get(i as usize)
                .is_some_and(|t| t.as_str() == Some("full_attention"))
        };
        // One pass over the layers (a list of millions must not cost a quadratic check).
        let Some(first_full) = (0..layers.min(types.len() as u64)).find(|&i| is_full(i)) else {
            return Ok(Some(SlidingWindow {
                window,
                global_every: 0,
            }));
        };
        let every = first_full + 1;
        let periodic = (0..layers).all(|i| is_full(i) == (i + 1).is_multiple_of(every));
        if periodic {
            return Ok(Some(SlidingWindow {
                window,
                global_every: every,
            }));
        }
    }
    let global_every = match family.global_every {
        0 => 0,
        every => f.u64_opt(&["sliding_window_pattern"])?.unwrap_or(every),
    };
    Ok(Some(SlidingWindow { window, global_every }))
}

fn moe(f: &Fields, family: &Family, intermediate: u64) -> Result<Option<Moe>, FileError> {
    let experts = f.u64_opt(&["num_local_experts", "num_experts", "n_routed_experts"])?;
    let Some(experts) = experts.filter(|e| *e > 1) else {
        return Ok(None);
    };
    let active = f.u64(&["num_experts_per_tok", "experts_per_token"])?;
    if active > experts {
        return Err(f.error_at(
            f.written(&["num_experts_per_tok", "experts_per_token"]),
            format!("num_experts_per_tok ({active}) is larger than the number of experts ({experts})"),
        ));
    }
    let expert_intermediate = f.u64_opt(family.expert_width_keys)?.unwrap_or(intermediate);
    let (shared, shared_intermediate, shared_expert_gate) = if family.gated_shared_expert {
        match f.u64_opt(&["shared_expert_intermediate_size"])? {
            Some(s) if s > 0 => (1, Some(s), true),
            _ => (0, None, false),
        }
    } else {
        let default = u64::from(family.shared_expert);
        (f.u64_opt(&["n_shared_experts"])?.unwrap_or(default), None, false)
    };
    Ok(Some(Moe {
        experts,
        active,
        shared,
        expert_intermediate,
        shared_intermediate,
        shared_expert_gate,
        first_dense_layers: f.u64_opt(&["first_k_dense_replace"])?.unwrap_or(0),
        router_bias: family.gpt_oss || f.str("topk_method") == Some("noaux_tc"),
        every: f
            .u64_opt(&["interleave_moe_layer_step", "expert_layer_period"])?
            .unwrap_or(1)
            .max(1),
    }))
}
