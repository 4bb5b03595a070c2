//! Vision-language models: the image encoder (vision tower and projector) a model carries
//! beside its language model, and the tokens each image becomes. The tower is kept in 16 bits
//! whatever the language model's format (llama.cpp's mmproj files are f16; vLLM does not
//! quantize the encoder), is frozen in a fine-tune, and an image's tokens are part of the
//! request's context, as vLLM's `max_model_len` and llama.cpp's `n_ctx` count them.

use serde::{Deserialize, Serialize};

/// Bytes per parameter of the image encoder as runtimes load it.
pub const VISION_BYTES_PER_PARAM: f64 = 2.0;
/// An image's side in pixels when the tokens depend on its size and none is given.
pub const DEFAULT_IMAGE_SIDE: u32 = 1024;

/// The image encoder of a vision-language model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vision {
    /// Vision tower plus projector, as the runtime loads them.
    pub params: u64,
    /// Tokens per image when fixed (LLaVA-1.5: 576; Gemma 3: 256).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_per_image: Option<u32>,
    /// When the tokens follow the image's size: one token per square of this many pixels a
    /// side (Qwen2-VL/2.5-VL: 28, patches of 14 merged 2 × 2), within `min_tokens..=max_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixels_per_token: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

impl Vision {
    /// The tokens one square image of `side` pixels becomes: fixed, or one per
    /// `pixels_per_token` square after rounding each side to a whole number of them (the
    /// processors' `smart_resize`), within the model's bounds.
    pub fn tokens_for(&self, side: u32) -> u32 {
        if let Some(t) = self.tokens_per_image {
            return t;
        }
        let p = self.pixels_per_token.unwrap_or(28).max(1);
        let per_side = ((f64::from(side) / f64::from(p)).round() as u32).max(1);
        let t = per_side.saturating_mul(per_side);
        t.clamp(self.min_tokens.unwrap_or(1), self.max_tokens.unwrap_or(u32::MAX))
    }

    /// Why the description is not one, if it is not.
    pub fn check(&self) -> Result<(), String> {
        if self.params == 0 || self.params > 100_000_000_000 {
            return Err("vision 'params' must be between 1 and 100 billion".into());
        }
        match (self.tokens_per_image, self.pixels_per_token) {
            (Some(t), None) if (1..=65_536).contains(&t) => Ok(()),
            (None, Some(p)) if (1..=1024).contains(&p) => Ok(()),
            _ => Err(
                "vision needs 'tokens_per_image' (1–65,536) or 'pixels_per_token' (1–1,024), not both".into(),
            ),
        }
    }
}
