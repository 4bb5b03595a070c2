//! Closed sets of options (precisions, methods, conventions) share one interface, so the
//! CLI can parse them and the TUI can cycle through them without knowing each enum.

pub trait Choice: Copy + PartialEq + 'static {
    /// Every value, in the order a user steps through them.
    const ALL: &'static [Self];
    /// Stable machine name: CLI flag value, JSON field, file key.
    fn id(self) -> &'static str;
    /// Human label for tables and the TUI.
    fn label(self) -> &'static str;

    /// Old ids still accepted (files and scripts written before a rename).
    const ALIASES: &'static [(&'static str, Self)] = &[];

    fn from_id(id: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.id().eq_ignore_ascii_case(id))
            .or_else(|| {
                Self::ALIASES
                    .iter()
                    .find(|(alias, _)| alias.eq_ignore_ascii_case(id))
                    .map(|(_, v)| *v)
            })
    }

    fn position(self) -> usize {
        Self::ALL.iter().position(|v| *v == self).unwrap_or(0)
    }

    /// The next value, wrapping around.
    fn next(self) -> Self {
        Self::ALL[(self.position() + 1) % Self::ALL.len()]
    }

    /// The previous value, wrapping around.
    fn prev(self) -> Self {
        Self::ALL[(self.position() + Self::ALL.len() - 1) % Self::ALL.len()]
    }
}
