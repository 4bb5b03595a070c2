//! Scenario → memory breakdown: the dispatcher between the two conventions, which are
//! siblings beneath it (`quick` and `calibrated`) and never import it.

pub use super::breakdown::{Breakdown, Part, Segment, SegmentKind, whole_bytes};
pub use super::kv::{kv_cache_bytes, kv_formula};
use super::model::Model;
use super::scenario::{Convention, Scenario};

/// Compute the breakdown of `scenario` on `model`. The scenario must be valid.
pub fn breakdown(model: &Model, scenario: &Scenario) -> Breakdown {
    match scenario.convention {
        Convention::Seed => super::quick::breakdown(model, scenario),
        Convention::Calibrated => super::calibrated::breakdown(model, scenario),
    }
}
