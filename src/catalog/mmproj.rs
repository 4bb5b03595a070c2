//! A GGUF `mmproj` file (llama.cpp's image encoder, `general.architecture = "clip"`) read into
//! the vision encoder of a model: its parameters from the tensor headers, its tokens per
//! image from the keys llama.cpp's clip loader reads (`clip.vision.image_size`,
//! `clip.vision.patch_size`, `clip.projector_type`, the merge factors).

use std::path::Path;

use super::FileError;
use super::gguf::read_gguf;
use crate::engine::model::vision::Vision;

/// llama.cpp's own bounds on a Qwen2/2.5/3-VL image's tokens (clip.cpp `set_limit_image_tokens`).
const QWEN_VL_TOKENS: (u32, u32) = (8, 4096);

/// The image encoder an mmproj file holds, or why the file is not one.
pub fn mmproj_vision(path: &Path) -> Result<Vision, FileError> {
    let g = read_gguf(path)?;
    let shown = path.display().to_string();
    if g.text("general.architecture") != Some("clip") {
        return Err(FileError::new(
            shown,
            "not an mmproj file: general.architecture is not \"clip\"",
        ));
    }
    let side = g.int("clip.vision.image_size");
    let patch = g.int("clip.vision.patch_size").filter(|p| *p > 0);
    let (Some(side), Some(patch)) = (side, patch) else {
        return Err(FileError::new(
            shown,
            "an mmproj file without clip.vision.image_size and clip.vision.patch_size",
        ));
    };
    let projector = g
        .text("clip.projector_type")
        .or_else(|| g.text("clip.vision.projector_type"))
        .unwrap_or("mlp");
    let patches = (side / patch).saturating_mul(side / patch);
    let whole = |n: u64| u32::try_from(n.max(1)).unwrap_or(u32::MAX);
    let mut vision = Vision {
        params: g.checkpoint.params,
        tokens_per_image: None,
        pixels_per_token: None,
        min_tokens: None,
        max_tokens: None,
    };
    if projector.starts_with("qwen") {
        // One token per patch × merge square (2 × 2 by default), within llama.cpp's bounds.
        let merge = g.int("clip.vision.spatial_merge_size").unwrap_or(2).max(1);
        vision.pixels_per_token = Some(whole(patch * merge));
        (vision.min_tokens, vision.max_tokens) = (Some(QWEN_VL_TOKENS.0), Some(QWEN_VL_TOKENS.1));
    } else if projector == "gemma3" {
        // The patches pooled n_merge × n_merge (4 by default): 4,096 → 256.
        let merge = g.int("clip.vision.projector.scale_factor").unwrap_or(4).max(1);
        vision.tokens_per_image = Some(whole(patches / (merge * merge)));
    } else {
        vision.tokens_per_image = Some(whole(patches));
    }
    vision
        .check()
        .map_err(|m| FileError::new(path.display().to_string(), m))?;
    Ok(vision)
}
