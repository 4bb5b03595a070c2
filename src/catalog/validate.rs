//! Every number a catalog file gives, checked against what real cards and offers have, and
//! errors pointed at the field's line and column.

use super::FileError;
use crate::engine::hardware::gpu::Gpu;
use crate::engine::hardware::offers::Offer;

/// Point a value error at `field = …` inside the entry whose id is `id` (at the id when
/// the field is not written there).
pub(super) fn locate_field(file: &str, source: &str, id: &str, field: &str, message: String) -> FileError {
    match source.find(&format!("\"{id}\"")) {
        Some(offset) => locate_after(file, source, offset, field, message),
        None => FileError::new(file, message),
    }
}

/// Point at the first `field =` line after byte `start` and before the next `[[` table;
/// else at `start`.
pub(super) fn locate_after(
    file: &str,
    source: &str,
    start: usize,
    field: &str,
    message: String,
) -> FileError {
    let start = source.floor_char_boundary(start.min(source.len()));
    let rest = &source[start..];
    let end = rest[1.min(rest.len())..]
        .find("\n[[")
        .map_or(rest.len(), |i| i + 1);
    let entry = &rest[..end];
    let found = entry.match_indices(field).find(|(i, _)| {
        let before_ok =
            *i == 0 || matches!(entry.as_bytes()[i - 1], b'\n' | b' ' | b'\t' | b'{' | b',' | b'.');
        let after = entry[i + field.len()..].trim_start();
        before_ok && after.starts_with('=')
    });
    let offset = found.map_or(start, |(i, _)| start + i);
    FileError::at_offset(file, source, offset, message)
}

/// A number that must be finite and within `lo..=hi`.
fn check_number(field: &'static str, value: f64, lo: f64, hi: f64) -> Result<(), (&'static str, String)> {
    if value.is_finite() && (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err((
            field,
            format!("'{field}' must be a number between {lo} and {hi}, got {value}"),
        ))
    }
}

/// A file's `updated` key: a calendar date alone (TOML checks the day exists in its month),
/// in the years a GPU catalog can describe.
pub(super) fn validate_updated(
    d: &toml::value::Datetime,
) -> Result<toml::value::Date, (&'static str, String)> {
    match (d.date, d.time, d.offset) {
        (Some(date), None, None) if (1990..=2100).contains(&date.year) => Ok(date),
        _ => Err((
            "updated",
            format!(
                "'updated' must be a date between 1990-01-01 and 2100-12-31 written as YYYY-MM-DD, got {d}"
            ),
        )),
    }
}

/// Every number on a card within what a real card has.
pub(super) fn validate_gpu(g: &Gpu) -> Result<(), (&'static str, String)> {
    let with_id = |(field, m): (&'static str, String)| {
        let id = crate::text::clean_prefix(&g.id, 60);
        (field, format!("gpu '{id}': {m}"))
    };
    let run = || -> Result<(), (&'static str, String)> {
        if g.id.trim().is_empty() {
            return Err(("id", "'id' must not be empty".into()));
        }
        check_number("memory_gb", g.memory_gb, 0.1, 100_000.0)?;
        // A carve-out is part of the machine's RAM, never more.
        if let Some(c) = g.carve_out_gb {
            check_number("carve_out_gb", c, 0.0, g.memory_gb)?;
        }
        if let Some(b) = g.memory_visible_bytes {
            use crate::engine::workload::ranges::{MAX_CARD_BYTES, MIN_CARD_BYTES};
            check_number("memory_visible_bytes", b, MIN_CARD_BYTES, MAX_CARD_BYTES)?;
        }
        if let Some(m) = g.memory_smi_mib {
            check_number("memory_smi_mib", m as f64, 1.0, 1e8)?;
        }
        check_number("bandwidth_gbs", g.bandwidth_gbs, 1.0, 1e6)?;
        if let Some(t) = g.bf16_tflops {
            check_number("bf16_tflops", t, 0.01, 1e6)?;
        }
        if let Some(t) = g.fp8_tflops {
            check_number("fp8_tflops", t, 0.01, 1e6)?;
        }
        if let Some(l) = g.link_gbs {
            check_number("link_gbs", l, 0.1, 1e5)?;
        }
        if let Some(p) = g.pcie_gen {
            check_number("pcie_gen", f64::from(p), 1.0, 7.0)?;
        }
        if let Some(w) = g.tdp_w {
            check_number("tdp_w", w, 1.0, 1e5)?;
        }
        match g.year {
            Some(y) => check_number("year", f64::from(y), 1990.0, 2100.0),
            None => Ok(()),
        }
    };
    run().map_err(with_id)
}

/// Every number of an offer within sense: a positive price, a discount below 100 %.
pub(super) fn validate_offer(o: &Offer) -> Result<(), (&'static str, String)> {
    let with_gpu = |(field, m): (&'static str, String)| {
        let gpu = crate::text::clean_prefix(&o.gpu, 60);
        (field, format!("offer for '{gpu}': {m}"))
    };
    let run = || -> Result<(), (&'static str, String)> {
        check_number("price", o.price, 1e-6, 1e9)?;
        if let Some(m) = o.price_max {
            check_number("price_max", m, o.price, 1e9)?;
        }
        check_number("min_cards", f64::from(o.min_cards), 1.0, 1024.0)?;
        if let Some(d) = o.min_term_days {
            check_number("min_term_days", f64::from(d), 0.0, 3650.0)?;
        }
        for d in &o.discounts {
            check_number("cards", f64::from(d.cards), 1.0, 1024.0)?;
            check_number("discount", d.discount, 0.0, 0.9)?;
        }
        // A date the stale mark can judge: free text would never turn stale.
        if let Some(seen) = o.seen.as_deref().filter(|s| crate::dates::parse_day(s).is_none()) {
            return Err((
                "seen",
                format!(
                    "'seen' must be a date written as YYYY-MM-DD, got '{}'",
                    crate::text::clean_prefix(seen, 40)
                ),
            ));
        }
        if !crate::engine::hardware::offers::CURRENCIES
            .iter()
            .any(|c| c.eq_ignore_ascii_case(&o.currency))
        {
            return Err((
                "currency",
                format!(
                    "currency '{}' has no exchange rate (use {})",
                    crate::text::clean_prefix(&o.currency, 20),
                    crate::engine::hardware::offers::CURRENCIES.join(" or ")
                ),
            ));
        }
        Ok(())
    };
    run().map_err(with_gpu)
}
