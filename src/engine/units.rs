//! Byte quantities. vramfit counts in decimal gigabytes (1 GB = 10⁹ B) as seed 003 and the
//! card makers do; GiB appear only where a tool reports them.

pub const GB: f64 = 1e9;
pub const GIB: f64 = 1_073_741_824.0;

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
    let v = to_gb(bytes);
    let a = v.abs();
    if a >= 1000.0 {
        format!("{} GB", group_thousands(v.round() as i64))
    } else if a >= 100.0 {
        format!("{v:.1} GB")
    } else {
        format!("{v:.2} GB")
    }
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
    if v.fract() == 0.0 && v.abs() < 1e12 {
        format!("{v:.0}")
    } else {
        // Debug is the shortest exact form: 0.5, 5e-324, 1e20, NaN.
        format!("{v:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
