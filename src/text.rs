//! Strings that came from a file or the command line, made safe to show: no control
//! characters reach a terminal, Markdown or SVG (an ESC could retitle the terminal or
//! garble the screen), and a bad value is echoed as a short prefix, not megabytes.

use std::borrow::Cow;

/// Whether `c` would act on a terminal instead of printing: C0 and C1 controls and DEL.
pub fn is_control(c: char) -> bool {
    c.is_control()
}

/// `s` with every control character written as a visible escape (`\u{1b}`).
pub fn clean(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_control(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// At most `max_chars` characters of `s`, cleaned, with "…" when cut.
pub fn clean_prefix(s: &str, max_chars: usize) -> String {
    let mut cut: String = s.chars().take(max_chars).collect();
    if s.chars().nth(max_chars).is_some() {
        cut.push('…');
    }
    clean(&cut).into_owned()
}

/// Columns a string takes on a terminal: CJK characters take two.
pub fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// Left-aligned in `cols` terminal columns (`{:<n}` counts characters, which puts Chinese
/// columns out of line).
pub fn pad(s: &str, cols: usize) -> String {
    let w = width(s);
    format!("{s}{}", " ".repeat(cols.saturating_sub(w)))
}

/// At most `cols` terminal columns, cut between characters (never through a wide one),
/// with "…" where something was cut.
pub fn truncate(s: &str, cols: usize) -> String {
    if width(s) <= cols {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > cols {
            break;
        }
        out.push(c);
        used += w;
    }
    if cols > 0 {
        out.push('…');
    }
    out
}

/// Right-aligned in `cols` terminal columns.
pub fn pad_left(s: &str, cols: usize) -> String {
    let w = width(s);
    format!("{}{s}", " ".repeat(cols.saturating_sub(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_visible_escapes() {
        assert_eq!(clean("llama"), "llama");
        assert_eq!(clean("a\u{1b}]0;pwned\u{7}b"), "a\\u{1b}]0;pwned\\u{7}b");
        assert_eq!(clean("x\ny\u{9b}"), "x\\u{a}y\\u{9b}");
    }

    #[test]
    fn prefixes_are_short_and_marked() {
        assert_eq!(clean_prefix("abcdef", 3), "abc…");
        assert_eq!(clean_prefix("abc", 3), "abc");
        assert_eq!(clean_prefix("\u{1b}bc", 2), "\\u{1b}b…");
    }
}
