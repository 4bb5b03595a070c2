//! What a vision-language model's images cost in a plan: the encoder's resident bytes, a
//! request's image tokens, and their embeddings held until prefill. (`vision` describes the
//! encoder and stays a leaf; this module joins it to the model and the scenario.)

use super::model::Model;
use super::scenario::Scenario;
use super::vision::VISION_BYTES_PER_PARAM;

/// The image encoder's bytes: its parameters in 16 bits (0 for a text-only model).
pub fn vision_weight_bytes(model: &Model) -> f64 {
    model
        .vision
        .map_or(0.0, |v| v.params as f64 * VISION_BYTES_PER_PARAM)
}

/// The image tokens of one request: `images` × the tokens each becomes.
pub fn image_tokens(model: &Model, sc: &Scenario) -> u64 {
    model.vision.map_or(0, |v| {
        u64::from(sc.images) * u64::from(v.tokens_for(sc.image_side))
    })
}

/// The image embeddings the encoder hands the language model for the requests of one step:
/// image tokens × hidden × 2 B × batch, held until their prefill.
pub fn image_embedding_bytes(model: &Model, sc: &Scenario) -> f64 {
    image_tokens(model, sc) as f64 * model.arch.hidden as f64 * 2.0 * sc.batch.max(1) as f64
}
