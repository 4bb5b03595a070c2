//! Calendar days for the offers' `seen` dates: parsing `YYYY-MM-DD`, today from the clock,
//! and whether a price is stale. Days are counted from 1970-01-01 (UTC), so two dates
//! subtract to a number of days; the conversions are Howard Hinnant's civil-date algorithms,
//! exact over the proleptic Gregorian calendar, so no date crate is needed.

use std::sync::atomic::{AtomicI64, Ordering};

/// A price seen more than this many days before today is stale.
pub const STALE_AFTER_DAYS: i64 = 365;

/// Days since 1970-01-01 of a civil date (month 1–12, day 1–31; not checked here).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `YYYY-MM-DD` as a day count, `None` unless it is a real date (2026-02-30 is not) between
/// the years 1990 and 2100, the years a price list can describe.
pub fn parse_day(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || !digits(0..4) || !digits(5..7) || !digits(8..10) {
        return None;
    }
    let year: i64 = text[0..4].parse().ok()?;
    let month: u32 = text[5..7].parse().ok()?;
    let day: u32 = text[8..10].parse().ok()?;
    if !(1990..=2100).contains(&year) || !(1..=12).contains(&month) || day == 0 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    // A day past the month's end rolls into the next month: the round trip tells.
    (civil_from_days(days) == (year, month, day)).then_some(days)
}

/// A day count as `YYYY-MM-DD`.
pub fn format_day(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Whether a price seen on `seen` is stale on `today`: more than a year old. An offer with
/// no date, or one that does not parse, is not called stale (nothing says it is old).
pub fn is_stale(seen: Option<&str>, today: i64) -> bool {
    seen.and_then(parse_day)
        .is_some_and(|s| today - s > STALE_AFTER_DAYS)
}

/// No pinned day.
const UNPINNED: i64 = i64::MIN;

static PINNED: AtomicI64 = AtomicI64::new(UNPINNED);

/// Fix "today" for the whole process: the screenshots and their snapshots are drawn on one
/// day, so that a price turning stale with the calendar does not change them.
pub fn pin_today(day: Option<i64>) {
    PINNED.store(day.unwrap_or(UNPINNED), Ordering::Relaxed);
}

/// Today (UTC) as a day count: the pinned day, else `VRAMFIT_TODAY` (`YYYY-MM-DD`, for
/// reproducible output and tests), else the system clock.
pub fn today() -> i64 {
    let pinned = PINNED.load(Ordering::Relaxed);
    if pinned != UNPINNED {
        return pinned;
    }
    if let Some(day) = std::env::var("VRAMFIT_TODAY").ok().as_deref().and_then(parse_day) {
        return day;
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (secs / 86_400) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(format_day(days_from_civil(2024, 2, 29)), "2024-02-29");
        for d in -1000..40_000 {
            let (y, m, day) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, day), d);
        }
    }

    #[test]
    fn only_real_dates_parse() {
        assert_eq!(parse_day("2026-09-01"), Some(days_from_civil(2026, 9, 1)));
        assert_eq!(
            parse_day("2024-02-29").map(format_day).as_deref(),
            Some("2024-02-29")
        );
        for bad in [
            "2025-02-29",
            "2026-13-01",
            "2026-04-31",
            "2026-9-1",
            "26-09-01",
            "2026/09/01",
            "",
            "1989-12-31",
        ] {
            assert_eq!(parse_day(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_price_over_a_year_old_is_stale() {
        let today = parse_day("2026-12-06").unwrap();
        assert!(!is_stale(Some("2026-09-01"), today));
        assert!(!is_stale(Some("2025-12-06"), today), "exactly 365 days");
        assert!(is_stale(Some("2025-12-05"), today));
        assert!(is_stale(Some("2025-06-01"), today));
        assert!(!is_stale(None, today));
        assert!(!is_stale(Some("soon"), today));
    }
}
