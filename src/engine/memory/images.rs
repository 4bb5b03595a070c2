//! What a vision-language model's images cost in a plan: the encoder's resident bytes, a
//! request's image tokens, and their embeddings held until prefill. (`vision` describes the
//! encoder and stays a leaf; this module joins it to the model and the scenario.)

use crate::engine::model::Model;
use crate::engine::model::vision::VISION_BYTES_PER_PARAM;
use crate::engine::workload::scenario::Scenario;

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

/// A request whose images take the whole context: nothing is left for the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImagesOverflow {
    pub images: u32,
    pub tokens_per_image: u32,
    pub context: u64,
    /// The most images per request that leave room for text (0 when even one does not).
    pub most_that_fit: u32,
}

impl ImagesOverflow {
    pub fn total_tokens(&self) -> u64 {
        u64::from(self.images) * u64::from(self.tokens_per_image)
    }
}

impl std::fmt::Display for ImagesOverflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} images × {} tokens = {} leave no room in a context of {} tokens",
            self.images,
            self.tokens_per_image,
            crate::engine::basics::units::group_thousands(self.total_tokens() as i64),
            crate::engine::basics::units::group_thousands(self.context as i64)
        )
    }
}

/// The one rule every path checks (the command line, plan files, the planner's Images and
/// Context rows, a model switch): a request's image tokens must leave at least one token of
/// the context for its text. A text model's images cost nothing and never overflow.
pub fn check_context(model: &Model, sc: &Scenario) -> Result<(), ImagesOverflow> {
    let Some(v) = model.vision else {
        return Ok(());
    };
    let per_image = v.tokens_for(sc.image_side);
    if image_tokens(model, sc) < sc.context {
        return Ok(());
    }
    let most_that_fit = if per_image == 0 {
        sc.images
    } else {
        (sc.context.saturating_sub(1) / u64::from(per_image)).min(u64::from(u32::MAX)) as u32
    };
    Err(ImagesOverflow {
        images: sc.images,
        tokens_per_image: per_image,
        context: sc.context,
        most_that_fit,
    })
}
