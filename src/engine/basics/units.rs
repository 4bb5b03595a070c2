//! Byte quantities. vramfit counts in decimal gigabytes (1 GB = 10⁹ B) as seed 003 and the
//! card makers do; GiB appear only where a tool reports them.

pub const GB: f64 = 1e9;
pub const GIB: f64 = 1_073_741_824.0;

thread_local! {
    /// Set while the judge's limit searches ask totals only: formulas are words for a
    /// reader, and a search over hundreds of breakdowns reads none of them. Numbers never
    /// depend on it (tests/one_judge.rs checks totals with and without).
    static TOTALS_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` with the formula text skipped (each formula comes back empty); the bytes are the
/// same.
pub fn totals_only<T>(f: impl FnOnce() -> T) -> T {
    let before = TOTALS_ONLY.with(|t| t.replace(true));
    let out = f();
    TOTALS_ONLY.with(|t| t.set(before));
    out
}

/// `format!` for formula text: an empty string while [`totals_only`] runs, so a limit
/// search that judges hundreds of points formats none of their words.
macro_rules! words {
    ($($arg:tt)*) => {
        if $crate::engine::basics::units::wants_words() {
            format!($($arg)*)
        } else {
            String::new()
        }
    };
}
pub(crate) use words;

/// Whether formula text is wanted now (see [`totals_only`]).
pub fn wants_words() -> bool {
    !TOTALS_ONLY.with(|t| t.get())
}

/// Bytes as decimal GB.
pub fn to_gb(bytes: f64) -> f64 {
    bytes / GB
}

/// Decimal GB as bytes.
pub fn gb(value: f64) -> f64 {
    value * GB
}

/// "17.07 GB", "0.13 GB", "1,288 GB": two decimals below 100 GB, one below 1000, none above.
pub fn format_gb(bytes: f64) -> String {
    if !wants_words() {
        return String::new();
    }
    let v = to_gb(bytes);
    let a = v.abs();
    if a >= 1000.0 {
        format!("{} GB", group_thousands(v.round() as i64))
    } else if a >= 100.0 {
        format!("{} GB", fixed(v, 1))
    } else {
        format!("{} GB", fixed(v, 2))
    }
}

/// A shortfall (`bytes` > 0 short) as "0.71 GB": one too small to show reads as the last
/// digit (0.01 GB), so "short" never sits beside 0.00.
pub fn format_shortfall(bytes: f64) -> String {
    format_gb(-bytes).trim_start_matches('-').to_string()
}

/// `v` with `decimals` digits, never "-0.0": a shortfall too small to show reads as one unit
/// of the last digit short (so a "no" never sits beside a zero), and nothing reads as −0.
pub fn fixed(v: f64, decimals: usize) -> String {
    let scale = 10f64.powi(decimals as i32);
    let mut r = (v * scale).round() / scale;
    if v < 0.0 && r == 0.0 {
        r = -1.0 / scale;
    }
    if r == 0.0 {
        // Also turns -0.0 into 0.0.
        r = 0.0;
    }
    format!("{r:.decimals$}")
}

/// A money amount in whole units with thousands separators: "$11,448".
pub fn format_usd(amount: f64) -> String {
    if amount.fract().abs() > 0.004 && amount < 100.0 {
        format!("${amount:.2}")
    } else {
        format!("${}", group_thousands(amount.round() as i64))
    }
}

/// A parameter count as "8.03B" / "494M".
pub fn format_params(n: u64) -> String {
    let v = n as f64;
    if v >= 1e9 {
        format!("{:.2}B", v / 1e9)
    } else {
        format!("{:.0}M", v / 1e6)
    }
}

pub fn group_thousands(n: i64) -> String {
    if !wants_words() {
        return String::new();
    }
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A limit as people write it: whole numbers without decimals ("16777216"), fractions as
/// they are ("0.05"), very large ones in powers of ten ("1e15").
pub fn plain_number(v: f64) -> String {
    // Whole numbers up to 2^53 are exact in an f64: written out, never as "1e15" or "….0".
    if v.fract() == 0.0 && v.abs() <= 9_007_199_254_740_992.0 {
        format!("{v:.0}")
    } else {
        // Debug is the shortest exact form: 0.5, 5e-324, 1e20, NaN.
        format!("{v:?}")
    }
}

/// A parameter count computed wide (u128) as u64: exact for every validated shape (under
/// the model's `MAX_PARAMS`); saturated for one that was never validated, never wrapped.
pub fn narrow(v: u128) -> u64 {
    u64::try_from(v).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_negative_zero_and_a_shortfall_never_reads_as_zero() {
        assert_eq!(fixed(-0.0, 1), "0.0");
        assert_eq!(fixed(0.04, 1), "0.0");
        assert_eq!(fixed(-0.04, 1), "-0.1");
        assert_eq!(fixed(-0.0004, 2), "-0.01");
        assert_eq!(fixed(-3.26, 1), "-3.3");
        assert_eq!(format_gb(-1e6), "-0.01 GB");
        assert_eq!(format_gb(-0.0), "0.00 GB");
        assert_eq!(format_shortfall(1e6), "0.01 GB");
        assert_eq!(format_shortfall(0.71e9), "0.71 GB");
    }

    #[test]
    fn formats_gb_at_the_seed_precision() {
        assert_eq!(format_gb(17_070_000_000.0), "17.07 GB");
        assert_eq!(format_gb(128.8e9), "128.8 GB");
        assert_eq!(format_gb(1_288e9), "1,288 GB");
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1000), "1,000");
        assert_eq!(group_thousands(-1234567), "-1,234,567");
        assert_eq!(format_usd(3643.2), "$3,643");
        assert_eq!(format_usd(2.2083), "$2.21");
    }
}
