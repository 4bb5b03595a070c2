//! Basics: the units and number words every room prints with (bytes as GB, grouped
//! thousands), and `Choice`, the trait every set of options implements (its ids, labels and
//! steps). Imports no other room.

pub mod choice;
pub mod units;
