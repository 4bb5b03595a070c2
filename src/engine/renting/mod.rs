//! Renting to a target: the cheapest option that meets a serving target or a deadline
//! (`cheapest_meeting`), and what would reach the target or reach it for less (`reach`).
//! The top room: it plans over the catalog through `verdict`.

pub mod reach;
