//! vLLM's and SGLang's placement: tensor parallel over equal shares (the smallest card
//! bounds every card's share), and `--cpu-offload-gb X`: X GiB of each card's weights stay
//! in pinned host memory and are copied to the card on every forward pass
//! (vllm/model_executor/models/utils.py, `maybe_offload_to_cpu`: "the space in GiB to
//! offload to CPU, per GPU"; SGLang takes the same flag).

use super::DeviceBytes;
use crate::engine::memory::breakdown::{Breakdown, SegmentKind};

/// A GiB, the unit of `--cpu-offload-gb`.
pub const GIB: f64 = 1_073_741_824.0;

/// What each card streams from host memory so that `need` fits in `usable`: whole GiB,
/// at most the card's weights (`None`: even all its weights in RAM would not be enough).
pub fn offload_per_card(per_card: &Breakdown, usable: f64) -> Option<f64> {
    let short = per_card.total() - usable;
    if short <= 0.0 {
        return Some(0.0);
    }
    let gib = (short / GIB).ceil() * GIB;
    (gib <= per_card.get(SegmentKind::Weights)).then_some(gib)
}

/// One card's bytes by part once `streamed` bytes of its weights live in RAM.
pub fn card_bytes(per_card: &Breakdown, streamed: f64) -> DeviceBytes {
    DeviceBytes {
        weights: per_card.get(SegmentKind::Weights) - streamed,
        kv_cache: per_card.get(SegmentKind::KvCache),
        activations: per_card.get(SegmentKind::Activations),
        overhead: per_card.get(SegmentKind::Overhead)
            + per_card.get(SegmentKind::Gradients)
            + per_card.get(SegmentKind::Optimizer)
            + per_card.get(SegmentKind::Adapter),
    }
}
