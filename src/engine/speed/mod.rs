//! Speed: how fast an option can go. The bandwidth-bound decode ceiling (`decode`), the
//! serving roofline (`serving`: decode per stream and in aggregate, prefill, links), the
//! expected speed beside the ceilings (`expected`) and a training run's time to finish
//! (`time_to_finish`). Imports basics, model, hardware, workload, runtimes and memory.

pub mod decode;
pub mod expected;
pub mod serving;
pub mod time_to_finish;
