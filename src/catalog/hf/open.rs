//! What an unknown family's config leaves open: one reading per alternative, axis by axis.
//! A leaf the readers (`generic`, `layers`, `experts`) all fill.

use crate::engine::model::Architecture;

/// One reading of something the config leaves open, applied to a copy of the estimate.
pub(super) type Reading = Box<dyn Fn(&mut Architecture)>;

/// What the refinement found: the alternatives to the estimate, axis by axis (the bound is
/// the count's range over every combination), and the keys it could not use.
pub(super) struct Open {
    pub(super) axes: Vec<Vec<Reading>>,
    pub(super) unknown_keys: Vec<String>,
    /// What each axis is, for the warning ("gated or plain MLP", …).
    pub(super) what: Vec<&'static str>,
}

impl Open {
    pub(super) fn axis(&mut self, what: &'static str, readings: Vec<Reading>) {
        self.axes.push(readings);
        self.what.push(what);
    }
}
