//! An unknown family read from its own config.json, with no description: the layer pattern
//! (which layers attend, slide, or keep a fixed state instead), the experts under every
//! spelling real configs use, and every reading the config leaves open, so that the count's
//! stated range holds the truth. `super::shape` reads the dimensions; this refines them.

use serde_json::{Map, Value};

use super::fields::Fields;
use super::open::Open;
use crate::catalog::FileError;
use crate::engine::model::{Architecture, MlpKind};

/// Blocks of a config that nest the shape's keys (DBRX's `attn_config` and `ffn_config`);
/// the other nested objects describe something else (another tower, the quantization, RoPE).
fn nests_shape(key: &str) -> bool {
    key.ends_with("_config")
        && ![
            "text_config",
            "vision_config",
            "audio_config",
            "quantization_config",
            "speech_config",
        ]
        .contains(&key)
}

/// The config with its nested shape blocks' keys raised to the top (where the top does not
/// write them), so that every reading sees them; `None` when nothing is nested.
pub(super) fn flattened(map: &Map<String, Value>) -> Option<Map<String, Value>> {
    let blocks: Vec<&Map<String, Value>> = map
        .iter()
        .filter(|(k, _)| nests_shape(k))
        .filter_map(|(_, v)| v.as_object())
        .collect();
    if blocks.is_empty() {
        return None;
    }
    let mut out = map.clone();
    for block in blocks {
        for (k, v) in block {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Some(out)
}

/// Refine `arch` (read by the generic rules) with what an unknown family's config says, and
/// list what it leaves open.
pub(super) fn refine(f: &Fields, arch: &mut Architecture) -> Result<Open, FileError> {
    let mut open = Open {
        axes: Vec::new(),
        unknown_keys: Vec::new(),
        what: Vec::new(),
    };
    // A shape out of every range is refused by the shape check that follows, naming the key;
    // nothing here should size lists or products from it first.
    if arch.validate().is_err() {
        return Ok(open);
    }
    // KV heads inside a nested attention block (DBRX's `attn_config.kv_n_heads`).
    if !["num_key_value_heads", "num_kv_heads", "n_kv_heads", "kv_n_heads"]
        .iter()
        .any(|k| f.map.contains_key(*k))
        && let Some(Value::Object(block)) = f.map.get("attn_config").or_else(|| f.map.get("attention_config"))
        && let Some(kv) = ["kv_n_heads", "num_key_value_heads", "n_kv_heads"]
            .iter()
            .find_map(|k| block.get(*k).and_then(Value::as_u64))
    {
        arch.kv_heads = kv.clamp(1, arch.heads);
    }
    let q_gate = f.bool("attn_output_gate");
    arch.q_gate = q_gate == Some(true);
    mlp_readings(f, arch, &mut open);
    structure_readings(f, arch, &mut open);
    width_readings(f, arch, &mut open)?;
    super::layers::layers(f, arch, &mut open)?;
    // Hybrids of linear and full attention gate the attention's output from the query
    // projection (Qwen3-Next does without writing it): open there unless written.
    if q_gate.is_none() && arch.ssm.is_some() && arch.attention_layers() > 0 {
        open.axis(
            "a gate on the attention output",
            vec![Box::new(|a| a.q_gate = false), Box::new(|a| a.q_gate = true)],
        );
    }
    super::experts::experts(f, arch, &mut open)?;
    Ok(open)
}

/// The activation names the MLP: ReLU², GELU and ReLU are two matrices unless the config
/// says gated; SiLU, SwiGLU and GeGLU three. The second value says whether that settles it:
/// a gated flag, ReLU² and the GLU names do; GELU and ReLU also come gated (Gemma's GeGLU
/// writes `gelu_pytorch_tanh`), so the other reading stays in the bound; an activation it
/// does not know leaves both open (read as gated).
pub(super) fn mlp_from_activation(f: &Fields) -> (MlpKind, bool) {
    for key in [
        "block_use_swiglu",
        "use_glu",
        "gated_mlp",
        "use_gated_mlp",
        "mlp_gated",
        "glu",
    ] {
        if let Some(gated) = f.bool(key) {
            return (if gated { MlpKind::Gated } else { MlpKind::Plain }, true);
        }
    }
    let act = [
        "hidden_act",
        "mlp_hidden_act",
        "activation_function",
        "hidden_activation",
        "activation",
        "ffn_act_fn",
    ]
    .iter()
    // A string, or an object naming it (DBRX's `ffn_act_fn: {"name": "silu"}`).
    .find_map(|k| {
        f.str(k)
            .or_else(|| f.map.get(*k).and_then(|v| v.get("name")).and_then(Value::as_str))
    })
    .unwrap_or("")
    .to_ascii_lowercase();
    match act.as_str() {
        "silu" | "swish" | "swiglu" | "geglu" | "reglu" | "swigelu" => (MlpKind::Gated, true),
        "relu2" | "squared_relu" | "relu_squared" => (MlpKind::Plain, true),
        a if a.starts_with("gelu") || a == "relu" || a == "quick_gelu" => (MlpKind::Plain, false),
        _ => (MlpKind::Gated, false),
    }
}

fn mlp_readings(f: &Fields, arch: &mut Architecture, open: &mut Open) {
    let (kind, settled) = mlp_from_activation(f);
    arch.mlp = kind;
    if !settled {
        open.axis(
            "gated or plain MLP",
            vec![
                Box::new(|a| a.mlp = MlpKind::Gated),
                Box::new(|a| a.mlp = MlpKind::Plain),
            ],
        );
    }
}

/// Tied embeddings, biases, LayerNorm biases and q/k norms: read where written, else open.
fn structure_readings(f: &Fields, arch: &mut Architecture, open: &mut Open) {
    let tie = ["tie_word_embeddings", "tie_embedding", "tie_embeddings"]
        .iter()
        .find_map(|k| f.bool(k));
    match tie {
        Some(t) => arch.tied_embeddings = t,
        None => open.axis(
            "tied embeddings",
            vec![
                Box::new(|a| a.tied_embeddings = true),
                Box::new(|a| a.tied_embeddings = false),
            ],
        ),
    }
    let any = |keys: &[&str]| keys.iter().find_map(|k| f.bool(k));
    let qkv = any(&[
        "attention_bias",
        "qkv_bias",
        "use_qkv_bias",
        "add_qkv_bias",
        "use_bias",
        "bias",
    ]);
    let o = any(&[
        "attention_out_bias",
        "o_bias",
        "attention_bias",
        "use_bias",
        "bias",
    ]);
    let mlp = any(&["mlp_bias", "use_mlp_bias", "use_bias", "bias"]);
    arch.qkv_bias = qkv.unwrap_or(false);
    arch.o_bias = o.unwrap_or(false);
    arch.mlp_bias = mlp.unwrap_or(false);
    if qkv.is_none() || o.is_none() || mlp.is_none() {
        open.axis(
            "biases",
            vec![
                Box::new(|_| {}),
                Box::new(move |a| {
                    a.qkv_bias |= qkv.is_none();
                    a.o_bias |= o.is_none();
                    a.mlp_bias |= mlp.is_none();
                }),
            ],
        );
    }
    let norm_written = ["rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps"]
        .iter()
        .any(|k| f.map.contains_key(*k));
    if !norm_written {
        open.axis(
            "LayerNorm biases",
            vec![
                Box::new(|a| a.norm_bias = false),
                Box::new(|a| a.norm_bias = true),
            ],
        );
    }
    let qk = any(&[
        "use_qk_norm",
        "qk_norm",
        "qk_layernorm",
        "use_qk_layernorm",
        "attn_qk_norm",
    ]);
    match qk {
        Some(q) => arch.qk_norm = q,
        None => open.axis(
            "q/k norms",
            vec![Box::new(|a| a.qk_norm = false), Box::new(|a| a.qk_norm = true)],
        ),
    }
}

/// The MLP width as written, or rounded the Llama way (⌊2/3 · width⌋ × multiplier, up to a
/// multiple) where the config asks for an automatic adjustment: both readings stay open.
fn width_readings(f: &Fields, arch: &mut Architecture, open: &mut Open) -> Result<(), FileError> {
    let adjust = f
        .map
        .iter()
        .any(|(k, v)| k.contains("auto_adjust") && v.as_bool() == Some(true));
    if !adjust || arch.mlp != MlpKind::Gated {
        return Ok(());
    }
    let written = f
        .u64_opt(&["block_ff_dim", "intermediate_size", "ffn_hidden_size"])?
        .unwrap_or(arch.intermediate);
    let multiple = f
        .u64_opt(&["block_multiple_of", "multiple_of"])?
        .unwrap_or(1)
        .max(1);
    let multiplier = ["block_ffn_dim_multiplier", "ffn_dim_multiplier"]
        .iter()
        .find_map(|k| f.map.get(*k).and_then(Value::as_f64))
        .unwrap_or(1.0);
    let adjusted = ((written.saturating_mul(2) / 3) as f64 * multiplier) as u64;
    let adjusted = adjusted.div_ceil(multiple).saturating_mul(multiple);
    if adjusted == 0 {
        return Ok(());
    }
    arch.intermediate = adjusted;
    open.axis(
        "the MLP width as written or adjusted",
        vec![
            Box::new(move |a| a.intermediate = adjusted),
            Box::new(move |a| a.intermediate = written),
        ],
    );
    Ok(())
}
