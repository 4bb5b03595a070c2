//! The memory room: scenario → memory breakdown. This file dispatches between the two
//! conventions, siblings beneath it that never import it: `quick` (the GPU Rent Hub guide's
//! rules) and `calibrated` (activations, training, serving as runtimes allocate). Both fill
//! `breakdown`'s types and share `kv`; `vllm_pool` is vLLM's hybrid KV allocator and `images`
//! a vision model's image tokens. Imports basics, model, hardware, workload and runtimes.

pub mod breakdown;
pub mod calibrated;
pub mod images;
pub mod kv;
pub mod quick;
pub mod vllm_pool;

pub use crate::engine::memory::breakdown::{Breakdown, Part, Segment, SegmentKind, whole_bytes};
pub use crate::engine::memory::kv::{kv_cache_bytes, kv_formula};
use crate::engine::model::Model;
use crate::engine::workload::scenario::{Convention, Scenario};

/// Compute the breakdown of `scenario` on `model`. The scenario must be valid.
pub fn breakdown(model: &Model, scenario: &Scenario) -> Breakdown {
    match scenario.convention {
        Convention::Seed => crate::engine::memory::quick::breakdown(model, scenario),
        Convention::Calibrated => crate::engine::memory::calibrated::breakdown(model, scenario),
    }
}
