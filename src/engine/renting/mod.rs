//! Renting to a target: the cheapest option that meets a serving target or a deadline
//! (`cheapest_meeting`), and what would reach the target or reach it for less (`reach`).
//! The top room: it plans over the catalog through `verdict`.

pub mod reach;

use crate::engine::verdict::fit::FitOption;

/// The cheapest option that meets the target (replicas counted), fewer cards on a tie.
pub fn cheapest_meeting(options: &[FitOption]) -> Option<&FitOption> {
    options
        .iter()
        .filter(|o| o.target.is_some_and(|c| c.meets && c.cost().is_some()))
        .min_by(|a, b| {
            let (ca, cb) = (a.target.unwrap(), b.target.unwrap());
            ca.cost()
                .unwrap_or(f64::INFINITY)
                .total_cmp(&cb.cost().unwrap_or(f64::INFINITY))
                .then_with(|| (a.count * ca.replicas).cmp(&(b.count * cb.replicas)))
        })
}
