//! Workload: what the user asks. The `scenario` (model-independent knobs), the `choices` it
//! is made of (method, convention, optimizer, split…), each knob's one valid range
//! (`ranges`), the numbers it starts from (`defaults`), the runtime and release it is planned
//! for (`runtime`) and the serving target it must meet (`serving_target`). Imports basics,
//! model and hardware: nothing here computes memory or judges.

pub mod choices;
pub mod defaults;
pub mod ranges;
pub mod runtime;
pub mod runtime_checks;
pub mod scenario;
pub mod serving_target;
pub mod version;
