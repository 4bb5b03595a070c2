//! The arithmetic: pure functions over plain data. No terminal, no files, no arguments.
//!
//! Ten rooms, each a concern, standing in layers: a room may import only the rooms below it
//! (ARCHITECTURE.md's table, checked by `tests/house.rs`).
//!
//! ```text
//!  renting     what to rent for a serving target, and what would reach it
//!  verdict     the one judge, fit, limits, ranking, the plan, advice, rigs
//!  placement   what goes where on a machine: layers, experts, streamed weights
//!  speed       decode ceilings, expected speed, time to finish
//!  memory      the breakdown under both conventions, the KV cache, vLLM's pool
//!  runtimes    presets, settled knobs, each runtime's rules by release
//!  workload    what the user asks: the scenario, its choices and ranges
//!  hardware    cards, their offers and prices, slices, the host
//!  model       shapes, exact parameter counts, stored formats
//!  basics      units and number words, the `Choice` every option set implements
//! ```

pub mod basics;
pub mod hardware;
pub mod memory;
pub mod model;
pub mod placement;
pub mod renting;
pub mod runtimes;
pub mod speed;
pub mod verdict;
pub mod workload;

pub use basics::choice::Choice;
pub use hardware::gpu::Gpu;
pub use hardware::offers::Offer;
pub use memory::breakdown::{Breakdown, Segment, SegmentKind};
pub use model::precision::{KvPrecision, WeightPrecision};
pub use model::{Architecture, Model, ParamCount};
pub use verdict::fit::{FitOption, Verdict};
pub use verdict::plan::{Plan, plan};
pub use workload::runtime::Framework;
pub use workload::scenario::{Convention, Method, Scenario, TightRule};
