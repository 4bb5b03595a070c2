//! A multimodal config's image encoder, counted from its `vision_config` (written out from
//! transformers' modeling files; the counts close on the published totals, see
//! docs/notes/vision-models.md):
//! - CLIP (`clip_vision_model`, LLaVA): a bias-free patch convolution, a class embedding,
//!   patches + 1 positions, a pre- and a post-LayerNorm, layers of biased q/k/v/o, two
//!   LayerNorms and a biased MLP; LLaVA's projector text ← 2 biased linears.
//! - SigLIP (`siglip_vision_model`, Gemma 3): a biased patch convolution, no class embedding,
//!   a post-LayerNorm; Gemma 3's projector a vision × text matrix and an RMSNorm.
//! - Qwen2.5-VL's ViT: a 3-D patch convolution (2 frames), blocks of RMSNorms, a biased qkv
//!   and proj and a biased gated MLP; the 2 × 2 patch merger.

use serde_json::{Map, Value};

use crate::engine::model::vision::Vision;

/// The encoder a config describes, with the text model's width; `Err` names a vision kind
/// that is not counted (the caller says so in a warning).
pub(super) fn vision_of(root: &Map<String, Value>, text_hidden: u64) -> Option<Result<Vision, String>> {
    let v = root.get("vision_config")?.as_object()?;
    let int = |k: &str| v.get(k).and_then(Value::as_u64);
    let kind = v.get("model_type").and_then(Value::as_str).unwrap_or("");
    let top = root.get("model_type").and_then(Value::as_str).unwrap_or("");
    let d = int("hidden_size")?;
    let (c, t) = (
        int("num_channels").or(int("in_channels")).unwrap_or(3),
        text_hidden,
    );
    // One ViT layer with biased attention and a biased two-matrix MLP, two LayerNorms.
    let vit_layer = |f: u64| 4 * d * d + 2 * d * f + 9 * d + f;
    let vision = match kind {
        "clip_vision_model" | "siglip_vision_model" => {
            let (f, layers) = (int("intermediate_size")?, int("num_hidden_layers")?);
            let (image, patch) = (int("image_size")?, int("patch_size")?.max(1));
            let patches = (image / patch) * (image / patch);
            let clip = kind == "clip_vision_model";
            let tower = if clip {
                c * patch * patch * d + d + (patches + 1) * d + 2 * d + layers * vit_layer(f) + 2 * d
            } else {
                c * patch * patch * d + d + patches * d + layers * vit_layer(f) + 2 * d
            };
            let (projector, tokens) = match top {
                // Gemma 3: the pooled patches into the text width, an RMSNorm before.
                "gemma3" => {
                    let tokens = root
                        .get("mm_tokens_per_image")
                        .and_then(Value::as_u64)
                        .unwrap_or(256);
                    (d * t + d, tokens)
                }
                // LLaVA's two-layer GELU projector, biased; the class token dropped.
                _ if clip => (d * t + t + t * t + t, patches),
                _ => return Some(Err(format!("a {kind} tower under model_type '{top}'"))),
            };
            Vision {
                params: tower + projector,
                tokens_per_image: Some(u32::try_from(tokens).ok()?),
                pixels_per_token: None,
                min_tokens: None,
                max_tokens: None,
            }
        }
        "qwen2_5_vl" => {
            let (f, depth) = (int("intermediate_size")?, int("depth")?);
            let (patch, temporal) = (int("patch_size")?, int("temporal_patch_size").unwrap_or(2));
            let merge = int("spatial_merge_size").unwrap_or(2);
            let out = int("out_hidden_size").unwrap_or(t);
            let embed = c * temporal * patch * patch * d;
            let block = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * (d * f + f) + (f * d + d);
            let wide = d * merge * merge;
            let merger = d + (wide * wide + wide) + (wide * out + out);
            Vision {
                params: embed + depth * block + merger,
                tokens_per_image: None,
                pixels_per_token: Some(u32::try_from(patch * merge).ok()?),
                // The processor's defaults: 3,136 to 12,845,056 pixels.
                min_tokens: Some(4),
                max_tokens: Some(16_384),
            }
        }
        other => return Some(Err(format!("a '{other}' vision tower"))),
    };
    Some(vision.check().map(|()| vision))
}

/// The file a Qwen-VL-style processor keeps its pixel bounds in, beside config.json.
pub(super) const PROCESSOR_FILE: &str = "preprocessor_config.json";

/// A dynamic-resolution encoder's token bounds from its processor's pixel bounds
/// (`min_pixels` / `max_pixels`, or `size.shortest_edge` / `size.longest_edge` as newer
/// transformers write them): one token per `pixels_per_token`² pixels. Returns what the
/// warning says, or why the file is not used (the defaults then stand).
pub(super) fn apply_processor_bounds(vision: &mut Vision, text: &str) -> Result<String, String> {
    let Some(p) = vision.pixels_per_token else {
        return Err("the encoder's tokens per image are fixed".into());
    };
    let root: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
    let get = |flat: &str, nested: &str| {
        root.get(flat)
            .or_else(|| root.get("size").and_then(|s| s.get(nested)))
            .and_then(Value::as_u64)
    };
    let (Some(min), Some(max)) = (
        get("min_pixels", "shortest_edge"),
        get("max_pixels", "longest_edge"),
    ) else {
        return Err("it gives no min_pixels and max_pixels".into());
    };
    // Past 2^32 pixels (a 65,536-pixel square) no processor resizes: a nonsense bound.
    if min == 0 || min > max || max > u64::from(u32::MAX) {
        return Err(format!("its pixel bounds {min}–{max} are not a range"));
    }
    let square = u64::from(p) * u64::from(p);
    let tokens = |pixels: u64| u32::try_from((pixels / square).max(1)).unwrap_or(u32::MAX);
    vision.min_tokens = Some(tokens(min));
    vision.max_tokens = Some(tokens(max));
    Ok(format!(
        "tokens per image from {PROCESSOR_FILE}: {}–{} ({}–{} pixels)",
        crate::engine::basics::units::group_thousands(i64::from(tokens(min))),
        crate::engine::basics::units::group_thousands(i64::from(tokens(max))),
        crate::engine::basics::units::group_thousands(min as i64),
        crate::engine::basics::units::group_thousands(max as i64)
    ))
}
