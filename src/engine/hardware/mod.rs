//! Hardware: what a plan runs on. Cards (`gpu`: memory, bandwidth, links, software stack,
//! class), their offers and prices (`offers`), MIG slices (`slice`), Apple's unified-memory
//! rule (`apple`) and the host's RAM and platforms (`host`). Imports basics only.

pub mod apple;
pub mod gpu;
pub mod host;
pub mod offers;
pub mod slice;
