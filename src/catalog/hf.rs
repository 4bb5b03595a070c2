//! Import a Hugging Face `config.json` as a model.
//!
//! Known families map their fields exactly; an unknown `model_type` is read as a
//! Llama-style decoder from the generic fields, with a warning that says so.

use std::path::Path;

use serde_json::{Map, Value};

use super::FileError;
use super::families::{Family, KvHeads, Norm, NormsPerLayer, QkNorm, StateSpace, Switch};
use crate::engine::model::{Architecture, Mla, MlpKind, Model, Moe, SlidingWindow, Ssm};

pub use super::hfcache::{cache_dir, cached_models, cached_snapshot, load_cached};

/// Families whose tensor list the importer knows exactly (one description each in
/// [`super::families`]).
pub fn known_types() -> Vec<&'static str> {
    super::families::known_types()
}

/// Read `path`, a `config.json` or a folder holding one.
pub fn load(path: &Path) -> Result<Model, FileError> {
    let file = if path.is_dir() {
        path.join("config.json")
    } else {
        path.to_path_buf()
    };
    let shown = file.display().to_string();
    let source = crate::files::read_text(&file, crate::files::MAX_CONFIG_BYTES)
        .map_err(|e| FileError::new(&shown, e))?;
    let id = crate::text::clean_prefix(&model_id_for(&file), 80);
    let mut model = from_str(&shown, &source, &id)?;
    model.source_path = Some(path.display().to_string());
    // Beside the config, the checkpoint's headers give the exact count.
    if let Some(dir) = file.parent()
        && let Some(c) = super::checkpoint::read_safetensors_dir(dir)?
    {
        attach_checkpoint(&mut model, &c).map_err(|e| {
            // The folder's headers against the config's shape: name both.
            FileError::new(
                dir.display().to_string(),
                format!("{e} (against {})", crate::text::clean(&shown)),
            )
        })?;
    }
    Ok(model)
}

/// Take the checkpoint's exact parameter count (dense models) and say where it and the
/// config disagree; refuse a checkpoint far from the config's shape (a partial download, a
/// stub, another model's files).
fn attach_checkpoint(model: &mut Model, c: &super::checkpoint::Checkpoint) -> Result<(), String> {
    let from_config = model.params().total;
    super::checkpoint::check_against_shape(c, from_config)?;
    let a = &model.arch;
    let diff = c.params as i128 - from_config as i128;
    let why = if diff == (a.vocab * a.hidden) as i128 && a.tied_embeddings {
        " (the checkpoint stores lm_head apart from the tied embedding)".to_string()
    } else if diff != 0 {
        format!(" ({:+} against the config's shape)", diff)
    } else {
        " (the config's shape agrees)".to_string()
    };
    model.warnings.push(format!(
        "from the checkpoint's headers: {} parameters, {} of weights{why}",
        crate::engine::units::group_thousands(c.params as i64),
        c.summary()
    ));
    if model.arch.moe.is_none() && c.params > 0 {
        model.declared_params = Some(c.params);
    }
    model.checkpoint = c.weights();
    // The headers name the stored format, which becomes the default: no format to choose.
    if model.checkpoint.is_some() {
        model.warnings.retain(|w| !w.ends_with(CHOOSE_PRECISION));
    }
    Ok(())
}

/// Said of a quantized checkpoint whose headers are not at hand (the config alone).
const CHOOSE_PRECISION: &str = ": choose the matching weight precision";

/// The id an imported model gets: its folder's name, else the file stem.
fn model_id_for(file: &Path) -> String {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("config");
    if stem == "config" {
        file.parent()
            .and_then(|p| p.file_name())
            .and_then(|s| s.to_str())
            .unwrap_or("config")
            .to_string()
    } else {
        stem.to_string()
    }
}

struct Fields<'a> {
    file: &'a str,
    source: &'a str,
    map: &'a Map<String, Value>,
}

/// Byte offset of `"key":` in a JSON text (the first one), for error positions.
fn key_offset(source: &str, key: &str) -> Option<usize> {
    let quoted = format!("\"{key}\"");
    source
        .match_indices(&quoted)
        .find(|(i, _)| source[i + quoted.len()..].trim_start().starts_with(':'))
        .map(|(i, _)| i)
}

impl Fields<'_> {
    /// An error at `key`'s position in the file (or the file's when it is not written).
    fn error_at(&self, key: &str, message: String) -> FileError {
        // A key that is not written is missing from the object that starts the file.
        let at = key_offset(self.source, key).unwrap_or_else(|| self.source.find('{').unwrap_or(0));
        FileError::at_offset(self.file, self.source, at, message)
    }

    /// The first of `keys` the file writes (for positions), else the first.
    fn written<'k>(&self, keys: &[&'k str]) -> &'k str {
        keys.iter()
            .copied()
            .find(|k| self.map.contains_key(*k))
            .unwrap_or(keys[0])
    }

    fn u64_opt(&self, keys: &[&str]) -> Result<Option<u64>, FileError> {
        for key in keys {
            match self.map.get(*key) {
                None | Some(Value::Null) => continue,
                Some(v) => {
                    return v.as_u64().map(Some).ok_or_else(|| {
                        let shown = crate::text::clean_prefix(&v.to_string(), 40);
                        self.error_at(
                            key,
                            format!("'{key}' must be a non-negative integer, got {shown}"),
                        )
                    });
                }
            }
        }
        Ok(None)
    }

    fn u64(&self, keys: &[&str]) -> Result<u64, FileError> {
        match self.u64_opt(keys)? {
            Some(0) => {
                let key = self.written(keys);
                Err(self.error_at(key, format!("'{key}' must be positive")))
            }
            Some(v) => Ok(v),
            None => Err(self.error_at(
                keys[0],
                format!(
                    "missing '{}': the memory model needs it to size the network",
                    keys[0]
                ),
            )),
        }
    }

    fn bool(&self, key: &str) -> Option<bool> {
        self.map.get(key).and_then(Value::as_bool)
    }

    fn str(&self, key: &str) -> Option<&str> {
        self.map.get(key).and_then(Value::as_str)
    }
}

/// Parse a `config.json` text.
pub fn from_str(file: &str, source: &str, id: &str) -> Result<Model, FileError> {
    let root_map = parse_object(file, source)?;
    // Multimodal Gemma 3 keeps the language model in `text_config`.
    let map = match root_map.get("text_config") {
        Some(Value::Object(text)) => text,
        _ => &root_map,
    };
    let f = Fields { file, source, map };
    // Text from the file reaches terminals, Markdown and SVG: no control characters.
    let model_type = crate::text::clean_prefix(
        f.str("model_type")
            .or_else(|| root_map.get("model_type").and_then(Value::as_str))
            .unwrap_or(""),
        64,
    );
    let mut warnings = Vec::new();
    let family = super::families::family(&model_type);
    let known = family.is_some();
    if !known {
        warnings.push(format!(
            "unknown model_type '{}': parameters estimated as a Llama-style decoder from the generic fields",
            if model_type.is_empty() {
                "(none)"
            } else {
                &model_type
            }
        ));
    }
    let family = family.copied().unwrap_or_else(|| generic_family(&f));
    let arch = architecture(&f, &family, &mut warnings)?;
    let state_space_only = arch.ssm.is_some_and(|s| s.layers == arch.layers);
    if arch.ssm.is_some() {
        warnings.push(
            "state-space layers keep a fixed state per sequence instead of a KV cache; their activations are estimated as for a decoder layer of the same widths".into(),
        );
    }
    let max_context = match f.u64_opt(&CONTEXT_KEYS)? {
        Some(c) => c,
        // A recurrent state has no position limit.
        None if state_space_only => 1 << 20,
        None => {
            warnings.push("no max_position_embeddings: assumed 2048".into());
            2048
        }
    };
    if let Some(q) = root_map
        .get("quantization_config")
        .and_then(|q| q.get("quant_method"))
        .and_then(Value::as_str)
    {
        warnings.push(format!(
            "checkpoint ships {}-quantized weights{CHOOSE_PRECISION}",
            crate::text::clean_prefix(q, 32)
        ));
    }
    let name = root_map
        .get("_name_or_path")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or(id);
    let model = Model {
        id: id.to_string(),
        name: crate::text::clean_prefix(name, 80),
        family: if model_type.is_empty() {
            "imported".into()
        } else {
            format!("imported ({model_type})")
        },
        hf_repo: None,
        max_context,
        arch,
        declared_params: None,
        warnings,
        source_path: None,
        checkpoint: None,
        params_range: None,
    };
    check(&f, &model)?;
    let mut model = model;
    if !known {
        attach_structure_bound(&mut model, &f);
    }
    Ok(model)
}

/// An unknown family's structure is read from generic fields; what the config does not state
/// (gated or plain MLP, tied embeddings unless written, biases) may be either way. The count
/// over every such choice gives the range the true count lies in, stated beside the estimate.
fn attach_structure_bound(model: &mut Model, f: &Fields) {
    let tie_fixed = f.bool("tie_word_embeddings").is_some();
    let mut counts = Vec::new();
    for mlp in [MlpKind::Gated, MlpKind::Plain] {
        for tied in [true, false] {
            if tie_fixed && tied != model.arch.tied_embeddings {
                continue;
            }
            for biased in [false, true] {
                let mut arch = model.arch.clone();
                arch.mlp = mlp;
                arch.tied_embeddings = tied;
                arch.qkv_bias = biased;
                arch.o_bias = biased;
                arch.mlp_bias = biased;
                arch.norm_bias = biased;
                let variant = Model {
                    arch,
                    ..model.clone()
                };
                counts.push(variant.params().total);
            }
        }
    }
    let estimate = model.params().total;
    let (lo, hi) = (
        counts.iter().copied().min().unwrap_or(estimate),
        counts.iter().copied().max().unwrap_or(estimate),
    );
    model.params_range = Some((lo, hi));
    let pct = |v: u64| (v as f64 / estimate.max(1) as f64 - 1.0) * 100.0;
    model.warnings.push(format!(
        "the structure the config does not state (gated or plain MLP, tied embeddings, biases) puts the true count between {} and {} ({:+.0} % to {:+.0} % of the estimate)",
        crate::engine::units::format_params(lo),
        crate::engine::units::format_params(hi),
        pct(lo),
        pct(hi)
    ));
}

/// The file as a JSON object, or where it is not one.
fn parse_object(file: &str, source: &str) -> Result<Map<String, Value>, FileError> {
    let root: Value = serde_json::from_str(source).map_err(|e| FileError {
        file: file.to_string(),
        line: Some(e.line()),
        column: Some(e.column()),
        message: format!("invalid JSON: {e}")
            .split(" at line")
            .next()
            .unwrap_or("invalid JSON")
            .to_string(),
    })?;
    match root {
        Value::Object(map) => Ok(map),
        _ => Err(FileError::at_offset(
            file,
            source,
            0,
            "a config.json must be a JSON object",
        )),
    }
}

/// The shape check every model passes, with the config.json key to blame.
fn check(f: &Fields, model: &Model) -> Result<(), FileError> {
    if let Err(e) = model.arch.validate() {
        let key = f.written(config_keys(e.field));
        let message = e
            .message
            .replacen(&format!("'{}'", e.field), &format!("'{key}'"), 1);
        return Err(f.error_at(key, message));
    }
    if !(1..=1 << 30).contains(&model.max_context) {
        let key = f.written(&CONTEXT_KEYS);
        return Err(f.error_at(key, format!("'{key}' must be between 1 and {}", 1u64 << 30)));
    }
    Ok(())
}

/// Where the configured context length may be written.
const CONTEXT_KEYS: [&str; 4] = [
    "max_position_embeddings",
    "n_positions",
    "seq_length",
    "model_max_length",
];

/// An unknown family read from its own config: a GELU/ReLU activation means a plain
/// two-matrix MLP, `layer_norm_eps` a LayerNorm with bias, `use_bias`/`bias` biases;
/// transformers ties embeddings by default.
fn generic_family(f: &Fields) -> Family {
    let act = f
        .str("hidden_act")
        .or_else(|| f.str("activation_function"))
        .unwrap_or("silu");
    let layer_norm = (f.map.contains_key("layer_norm_eps") || f.map.contains_key("layer_norm_epsilon"))
        && !f.map.contains_key("rms_norm_eps");
    let bias = Switch::Key(&["use_bias", "bias"], false);
    let base = super::families::LLAMA;
    Family {
        model_types: &[],
        mlp: if act.starts_with("gelu") || act == "relu" {
            MlpKind::Plain
        } else {
            MlpKind::Gated
        },
        norm: if layer_norm { Norm::Layer } else { Norm::Rms },
        tie_default: true,
        qkv_bias: bias,
        o_bias: bias,
        mlp_bias: bias,
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
fn architecture(f: &Fields, family: &Family, warnings: &mut Vec<String>) -> Result<Architecture, FileError> {
    let hidden = f.u64(&["hidden_size", "n_embd", "d_model"])?;
    let layers = f.u64(&["num_hidden_layers", "n_layer", "num_layers"])?;
    let ssm = state_space(f, family, hidden, layers)?;
    // A pure state-space model has no attention heads; one stands in (no layer uses it).
    let heads = match family.state_space {
        StateSpace::Mamba1 | StateSpace::Mamba2 => 1,
        _ => f.u64(&["num_attention_heads", "n_head"])?,
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
    let intermediate = if let Some(s) = ssm.filter(|s| !s.mlp) {
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
        moe: moe(f, family, intermediate)?,
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
            })
        }
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
            })
        }
    })
}

/// Key/value heads as the family counts them.
fn kv_heads(f: &Fields, family: &Family, heads: u64) -> Result<u64, FileError> {
    Ok(match family.kv_heads {
        KvHeads::Config => f
            .u64_opt(&["num_key_value_heads", "num_kv_heads"])?
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
fn config_keys(field: &str) -> &'static [&'static str] {
    match field {
        "hidden" => &["hidden_size", "n_embd", "d_model"],
        "intermediate" => &["intermediate_size", "ffn_hidden_size", "n_inner"],
        "layers" => &["num_hidden_layers", "n_layer", "num_layers"],
        "heads" => &["num_attention_heads", "n_head"],
        "kv_heads" => &["num_key_value_heads", "num_kv_heads"],
        "head_dim" => &["head_dim"],
        "vocab" => &["vocab_size"],
        "position_embeddings" => &["n_positions", "max_position_embeddings"],
        "sliding_window" => &["sliding_window"],
        "global_every" => &["sliding_window_pattern", "layer_types"],
        "experts" => &["num_local_experts", "num_experts", "n_routed_experts"],
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
