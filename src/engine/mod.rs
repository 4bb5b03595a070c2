//! The arithmetic: pure functions over plain data. No terminal, no files, no arguments.

pub mod advise;
pub mod breakdown;
pub mod calibrated;
pub mod choice;
pub mod decode;
pub mod defaults;
pub mod fit;
pub mod framework;
pub mod gpu;
pub mod judge;
pub mod kv;
pub mod lookup;
pub mod memory;
pub mod model;
pub mod plan;
pub mod precision;
pub mod quick;
pub mod ranges;
pub mod rank;
pub mod renting;
pub mod runtime;
pub mod scenario;
pub mod serving;
pub mod settle;
pub mod units;
pub mod verdict;
pub mod workload;

pub use breakdown::{Breakdown, Segment, SegmentKind};
pub use choice::Choice;
pub use fit::{FitOption, Verdict};
pub use framework::Framework;
pub use gpu::{Gpu, Offer};
pub use model::{Architecture, Model, ParamCount};
pub use plan::{Plan, plan};
pub use precision::{KvPrecision, WeightPrecision};
pub use scenario::{Convention, Method, Scenario, TightRule};
