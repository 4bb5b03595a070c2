//! Import a Hugging Face `config.json` as a model.
//!
//! Known families map their fields exactly; an unknown `model_type` is read from the
//! config's own keys (`generic`: its layer pattern, experts and activation), with the range
//! its count may lie in and a warning that says so. Reading the file's values is in
//! `fields`, what they mean for each family's shape in `shape`; `layers` and `experts` read
//! an unknown family's layout, `open` holds the readings its bound is taken over.

mod experts;
mod fields;
mod generic;
mod layers;
mod open;
mod shape;
mod vision;

use std::path::Path;

use serde_json::Value;

use self::fields::{Fields, parse_object};
use self::shape::{architecture, config_keys, generic_family};
use super::FileError;
use crate::engine::model::Model;

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
    // A dynamic-resolution encoder's processor bounds its tokens per image.
    if let Some(v) = model.vision.as_mut()
        && v.pixels_per_token.is_some()
        && let Some(dir) = file.parent()
    {
        let processor = dir.join(vision::PROCESSOR_FILE);
        if processor.is_file() {
            let said = crate::files::read_text(&processor, crate::files::MAX_CONFIG_BYTES)
                .and_then(|text| vision::apply_processor_bounds(v, &text))
                .unwrap_or_else(|why| {
                    format!(
                        "{} is not used ({why}): the processor's default tokens per image stand",
                        vision::PROCESSOR_FILE
                    )
                });
            model.warnings.push(said);
        }
    }
    // Beside the config, the checkpoint's headers give the exact count.
    if let Some(dir) = file.parent()
        && let Some(c) = super::safetensors::read_safetensors_dir(dir)?
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
        crate::engine::basics::units::group_thousands(c.params as i64),
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
            "unknown model_type '{}': read from the config's own keys, with no description of the family",
            if model_type.is_empty() {
                "(none)"
            } else {
                &model_type
            }
        ));
    }
    // An unknown family's nested shape blocks are read as if written at the top.
    let raised = if known { None } else { generic::flattened(map) };
    let f = match &raised {
        Some(map) => Fields { file, source, map },
        None => f,
    };
    let family = family.copied().unwrap_or_else(|| generic_family(&f));
    let mut arch = architecture(&f, &family, &mut warnings)?;
    // An unknown family: its layer pattern, experts and what it leaves open, from its keys.
    let open = if known {
        None
    } else {
        Some(generic::refine(&f, &mut arch)?)
    };
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
        unknown_keys: Vec::new(),
        published_format: None,
        vision: None,
        rope: rope_of(map, &root_map, &model_type),
    };
    check(&f, &model)?;
    let mut model = model;
    // A multimodal config's image encoder, beside the language model it counts.
    match vision::vision_of(&root_map, model.arch.hidden) {
        Some(Ok(v)) => model.vision = Some(v),
        Some(Err(kind)) => model.warnings.push(format!(
            "{kind} is not counted: the plan holds the language model alone"
        )),
        None => {}
    }
    if let Some(open) = open {
        attach_structure_bound(&mut model, open);
    }
    Ok(model)
}

/// How the rotary table differs from one row per position (vLLM builds it on every card):
/// linear scaling, M-RoPE, Gemma 3's local table, a partial rotary width, or none at all.
fn rope_of(
    text: &serde_json::Map<String, Value>,
    root: &serde_json::Map<String, Value>,
    model_type: &str,
) -> crate::engine::model::Rope {
    let get = |k: &str| text.get(k).or_else(|| root.get(k));
    let scaling = get("rope_scaling").or_else(|| get("rope_parameters"));
    let kind = scaling
        .and_then(|r| r.get("rope_type").or_else(|| r.get("type")))
        .and_then(Value::as_str);
    let factor = scaling.and_then(|r| r.get("factor")).and_then(Value::as_f64);
    let head_dim = get("head_dim").and_then(Value::as_u64);
    let partial = get("partial_rotary_factor").and_then(Value::as_f64);
    crate::engine::model::Rope {
        linear_factor: factor.filter(|f| kind == Some("linear") && *f > 1.0 && *f <= 1024.0),
        multimodal: scaling.is_some_and(|r| r.get("mrope_section").is_some()),
        local_table: get("rope_local_base_freq").is_some(),
        rotary_dim: head_dim
            .zip(partial.filter(|p| *p > 0.0 && *p < 1.0))
            .map(|(h, p)| (h as f64 * p) as u64),
        // Nemotron-H and Jamba attend without positions; Granite 4.0-H says so in its config.
        nope: matches!(model_type, "nemotron_h" | "jamba")
            || get("position_embedding_type").and_then(Value::as_str) == Some("nope"),
    }
}

/// An unknown family's structure is read from generic fields; what the config does not
/// settle (gated or plain MLP, tied embeddings unless written, biases, q/k norms, what a
/// non-attention layer holds, keys about experts it cannot read) may be either way. The count
/// over every combination of readings gives the range the true count lies in, stated beside
/// the estimate.
fn attach_structure_bound(model: &mut Model, open: open::Open) {
    let estimate = model.params().total;
    let mut variants = vec![model.arch.clone()];
    for axis in &open.axes {
        variants = variants
            .iter()
            .flat_map(|arch| {
                axis.iter().map(move |reading| {
                    let mut a = arch.clone();
                    reading(&mut a);
                    a
                })
            })
            .collect();
    }
    let counts = variants
        .iter()
        .filter(|a| a.validate().is_ok())
        .map(|a| a.param_count().total);
    let (lo, hi) = counts.fold((estimate, estimate), |(lo, hi), c| (lo.min(c), hi.max(c)));
    model.params_range = Some((lo, hi));
    let pct = |v: u64| (v as f64 / estimate.max(1) as f64 - 1.0) * 100.0;
    model.warnings.push(format!(
        "what the config leaves open ({}) puts the true count between {} and {} ({:+.0} % to {:+.0} % of the estimate)",
        if open.what.is_empty() {
            "nothing".to_string()
        } else {
            open.what.join(", ")
        },
        crate::engine::basics::units::format_params(lo),
        crate::engine::basics::units::format_params(hi),
        pct(lo),
        pct(hi)
    ));
    if !open.unknown_keys.is_empty() {
        model.warnings.push(format!(
            "config keys it could not read: {}",
            open.unknown_keys.join(", ")
        ));
    }
    model.unknown_keys = open.unknown_keys;
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
const CONTEXT_KEYS: [&str; 5] = [
    "max_position_embeddings",
    "n_positions",
    "seq_length",
    "max_seq_len",
    "model_max_length",
];
