//! The workload pane's target rows: concurrent users, each user's decode speed, the time to
//! the first token (serving), and a fine-tune's deadline. Off is a step of each; turning
//! the first one on ranks the cards by the cheapest that meets the target, and turning the
//! last one off ranks them by price again.

use crate::engine::Scenario;
use crate::engine::basics::units::group_thousands;
use crate::engine::verdict::rank::SortBy;
use crate::tr;

/// Concurrent users (0: off).
pub const USER_STEPS: &[u64] = &[
    0, 1, 2, 4, 8, 10, 16, 20, 32, 40, 50, 64, 100, 128, 200, 256, 500, 1000,
];
/// Decode tokens/s each user must get (0: off).
pub const TPS_STEPS: &[u64] = &[0, 5, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100];
/// Seconds to the first token, in tenths (0: off).
pub const TTFT_TENTHS: &[u64] = &[0, 2, 5, 10, 20, 30, 50, 100, 300];
/// Hours a fine-tune may take (0: off).
pub const DEADLINE_STEPS: &[u64] = &[0, 6, 12, 24, 48, 72, 120, 168, 336, 720];
/// The data set a deadline is set against when none is given: a billion tokens.
const DEFAULT_TRAIN_TOKENS: u64 = 1_000_000_000;

use super::knob_steps::step;

/// The target's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    Users,
    MinTps,
    MaxTtft,
    Deadline,
}

/// One step of a target row; the ranking follows the target being set or not.
pub fn turn(which: Row, sc: &mut Scenario, sort_by: &mut SortBy, up: bool) {
    let was_set = sc.target.is_set();
    let t = &mut sc.target;
    match which {
        Row::Users => {
            let v = step(USER_STEPS, t.users.unwrap_or(0), up);
            t.users = (v > 0).then_some(v);
        }
        Row::MinTps => {
            let v = step(TPS_STEPS, t.min_tps.map_or(0, |v| v.round() as u64), up);
            t.min_tps = (v > 0).then_some(v as f64);
        }
        Row::MaxTtft => {
            let v = step(
                TTFT_TENTHS,
                t.max_ttft_s.map_or(0, |v| (v * 10.0).round() as u64),
                up,
            );
            t.max_ttft_s = (v > 0).then_some(v as f64 / 10.0);
        }
        Row::Deadline => {
            let v = step(DEADLINE_STEPS, t.deadline_h.map_or(0, |v| v.round() as u64), up);
            t.deadline_h = (v > 0).then_some(v as f64);
            // A deadline needs a data set to finish.
            if t.deadline_h.is_some() && sc.rent.train_tokens.is_none() {
                sc.rent.train_tokens = Some(DEFAULT_TRAIN_TOKENS);
            }
        }
    }
    match (was_set, sc.target.is_set()) {
        (false, true) if *sort_by == SortBy::Price => *sort_by = SortBy::Target,
        (true, false) if *sort_by == SortBy::Target => *sort_by = SortBy::Price,
        _ => {}
    }
}

fn off() -> String {
    tr!("tui.target_off")
}

/// The Users row's text: "40 at once", or off.
pub fn users_text(sc: &Scenario) -> String {
    sc.target
        .users
        .map_or_else(off, |u| tr!("tui.target_users", n = group_thousands(u as i64)))
}

/// The Speed row's text: "20 t/s each", or off.
pub fn min_tps_text(sc: &Scenario) -> String {
    let plain = crate::engine::basics::units::plain_number;
    sc.target
        .min_tps
        .map_or_else(off, |v| tr!("tui.target_tps", tps = plain(v)))
}

/// The TTFT row's text: "2 s", or off.
pub fn max_ttft_text(sc: &Scenario) -> String {
    let plain = crate::engine::basics::units::plain_number;
    sc.target
        .max_ttft_s
        .map_or_else(off, |v| tr!("tui.target_ttft", secs = plain(v)))
}

/// The Deadline row's text: "72 h", or off.
pub fn deadline_text(sc: &Scenario) -> String {
    let plain = crate::engine::basics::units::plain_number;
    sc.target
        .deadline_h
        .map_or_else(off, |v| tr!("tui.target_hours", hours = plain(v)))
}
