//! Runtimes: what each runtime does with a workload. Its presets (`presets`: named knob
//! values, each with its source), the one function that settles each knob (`settle`: the
//! method's default, the preset, what the user set), the rules that moved between releases
//! (`release`) and where MXFP4 experts land per kernel (`mxfp4`). Imports basics, model,
//! hardware and workload; the memory a runtime adds is computed in `memory`.

pub mod mxfp4;
pub mod presets;
pub mod release;
pub mod setting;
pub mod settle;
