//! `--offers FILE`: the user's own prices, a CSV table or a JSON list of the same fields,
//! added to the catalog's offers or replacing them.
//!
//! CSV: the header `provider,card,count,price,per,spot,region,date` (any order), optionally
//! a `currency` column; JSON: a list of objects with those keys. `price` is for `count`
//! cards together (an 8-card node), in USD unless `currency` says CNY; `per` is hour or
//! month; `spot` yes or no; `region` may be empty; `date` is the day the price was seen.
//!
//! A row replaces the catalog's offer from the same provider (full or short name, any case)
//! for the same card, the same count and the same kind of price (spot, hourly on demand or
//! monthly); any other row is added. Files apply in the order given, rows in file order, so
//! a later row replaces an earlier one the same way.

use std::path::Path;

use super::validate::validate_offer;
use super::{Catalog, FileError};
use crate::engine::hardware::offers::{CURRENCIES, Offer, OfferKind, Per, provider_matches};

/// The columns every row gives.
pub const COLUMNS: [&str; 8] = [
    "provider", "card", "count", "price", "per", "spot", "region", "date",
];

/// The one column a file may add: the price's currency (USD when absent).
pub const OPTIONAL: &str = "currency";

/// A row's fields by column name, and the line it starts on.
struct Row {
    line: usize,
    fields: Vec<(String, String)>,
}

impl Row {
    fn get(&self, column: &str) -> &str {
        self.fields
            .iter()
            .find(|(k, _)| k == column)
            .map_or("", |(_, v)| v.trim())
    }
}

/// A value as an error shows it: quoted, escaped, cut to a name's length.
fn shown(value: &str) -> String {
    format!("\"{}\"", crate::text::clean_prefix(value, 40))
}

impl Catalog {
    /// Read an offers file (JSON when it ends in `.json` or starts with `[`, else CSV) and
    /// merge its rows; today's date bounds the `date` column.
    pub fn merge_offers_path(&mut self, path: &Path) -> Result<(), FileError> {
        let file = path.display().to_string();
        if path.is_dir() {
            return Err(FileError::new(&file, "is a folder, not an offers file"));
        }
        if !path.exists() {
            return Err(FileError::new(&file, "no such offers file"));
        }
        let source = crate::files::read_text(path, crate::files::MAX_CATALOG_BYTES)
            .map_err(|e| FileError::new(&file, e))?;
        let json = path.extension().is_some_and(|x| x.eq_ignore_ascii_case("json"));
        self.merge_offers_str(&file, &source, json, crate::dates::today())
    }

    /// Merge the rows of one offers file's text (`json`: a JSON list, else CSV). A date after
    /// `today` (a day count, [`crate::dates`]) by more than a day is refused: time zones
    /// allow one.
    pub fn merge_offers_str(
        &mut self,
        file: &str,
        source: &str,
        json: bool,
        today: i64,
    ) -> Result<(), FileError> {
        // Spreadsheets save CSV with a byte-order mark, which would glue onto `provider`.
        let source = source.strip_prefix('\u{feff}').unwrap_or(source);
        let json = json || source.trim_start().starts_with('[');
        let rows = if json {
            json_rows(file, source)?
        } else {
            csv_rows(file, source)?
        };
        if rows.is_empty() {
            return Err(FileError::new(file, "holds no offers"));
        }
        // Every row is checked before any is merged: a bad file changes nothing.
        let offers = rows
            .iter()
            .map(|row| self.offer_of(file, row, today))
            .collect::<Result<Vec<_>, _>>()?;
        for (g, offer) in offers {
            let list = &mut self.gpus[g].offers;
            let same = list.iter().position(|o| {
                (provider_matches(&o.provider, &offer.provider)
                    || provider_matches(&offer.provider, &o.provider))
                    && o.min_cards == offer.min_cards
                    && o.kind == offer.kind
            });
            match same {
                // The catalog's spelling of the provider stays ("Lanyun (蓝耘)" for "lanyun").
                Some(i) => {
                    list[i] = Offer {
                        provider: list[i].provider.clone(),
                        ..offer
                    }
                }
                None => list.push(offer),
            }
        }
        Ok(())
    }

    /// One row as an offer on the card it names (by index), every field checked.
    fn offer_of(&self, file: &str, row: &Row, today: i64) -> Result<(usize, Offer), FileError> {
        let err = |column: &str, message: String| FileError {
            file: file.into(),
            line: Some(row.line),
            column: None,
            message: format!("{column}: {message}"),
        };
        let provider = crate::text::clean(row.get("provider")).into_owned();
        if provider.is_empty() {
            return Err(err("provider", "must not be empty".into()));
        }
        let card = row.get("card");
        if card.is_empty() {
            return Err(err("card", "must not be empty".into()));
        }
        let g = self
            .gpu_index(card)
            .or_else(|| self.gpus.iter().position(|g| g.name.eq_ignore_ascii_case(card)))
            .ok_or_else(|| {
                let near = self.suggest_gpus(card);
                let hint = if near.is_empty() {
                    String::new()
                } else {
                    format!(" Did you mean: {}?", near.join(", "))
                };
                err(
                    "card",
                    format!(
                        "unknown gpu '{}'.{hint} `vramfit gpus` lists the catalog.",
                        crate::text::clean_prefix(card, 60)
                    ),
                )
            })?;
        let count_text = row.get("count");
        let count = count_text
            .parse::<u32>()
            .ok()
            .filter(|c| (1..=1024).contains(c))
            .ok_or_else(|| {
                err(
                    "count",
                    format!("{} is not a number of cards from 1 to 1024", shown(count_text)),
                )
            })?;
        let price_text = row.get("price");
        let price: f64 = price_text
            .parse()
            .ok()
            .filter(|p: &f64| p.is_finite())
            .ok_or_else(|| err("price", format!("{} is not a number", shown(price_text))))?;
        if price <= 0.0 {
            return Err(err("price", format!("must be above 0, got {price_text}")));
        }
        let per = match row.get("per").to_ascii_lowercase().as_str() {
            "hour" => Per::Hour,
            "month" => Per::Month,
            _ => {
                return Err(err(
                    "per",
                    format!("{} must be hour or month", shown(row.get("per"))),
                ));
            }
        };
        let spot = match row.get("spot").to_ascii_lowercase().as_str() {
            "yes" | "true" => true,
            "no" | "false" => false,
            _ => {
                return Err(err(
                    "spot",
                    format!("{} must be yes or no", shown(row.get("spot"))),
                ));
            }
        };
        let date = row.get("date");
        let day = crate::dates::parse_day(date).ok_or_else(|| {
            err(
                "date",
                format!("{} is not a date written as YYYY-MM-DD", shown(date)),
            )
        })?;
        if day > today + 1 {
            return Err(err("date", format!("{date} is in the future")));
        }
        let currency = match row.get(OPTIONAL) {
            "" => "USD".to_string(),
            c => CURRENCIES
                .iter()
                .find(|k| k.eq_ignore_ascii_case(c))
                .map(|k| k.to_string())
                .ok_or_else(|| {
                    err(
                        OPTIONAL,
                        format!(
                            "{} has no exchange rate (use {})",
                            shown(c),
                            CURRENCIES.join(" or ")
                        ),
                    )
                })?,
        };
        let region = crate::text::clean(row.get("region")).into_owned();
        let offer = Offer {
            gpu: self.gpus[g].id.clone(),
            provider,
            region: (!region.is_empty()).then_some(region),
            // The file prices the whole group; the catalog prices one card of it.
            price: price / f64::from(count),
            price_max: None,
            currency,
            per,
            kind: match (spot, per) {
                (true, _) => OfferKind::Spot,
                (false, Per::Hour) => OfferKind::OnDemand,
                (false, Per::Month) => OfferKind::Monthly,
            },
            min_cards: count,
            min_term_days: None,
            discounts: Vec::new(),
            seen: Some(date.to_string()),
            source: Some(format!("offers file {}", crate::text::clean(file))),
            notes: None,
        };
        validate_offer(&offer)
            .map_err(|(field, m)| err(if field == "min_cards" { "count" } else { field }, m))?;
        Ok((g, offer))
    }
}

/// The rows of a CSV offers file, its header checked.
fn csv_rows(file: &str, source: &str) -> Result<Vec<Row>, FileError> {
    let at = |line: u64, message: String| FileError {
        file: file.into(),
        line: Some(line as usize),
        column: None,
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(source.as_bytes());
    let header = reader.headers().map_err(|e| at(1, e.to_string()))?;
    // Comment lines may come before the header.
    let header_line = header.position().map_or(1, |p| p.line());
    let header: Vec<String> = header.iter().map(|h| h.to_ascii_lowercase()).collect();
    check_columns("column", header.iter().map(String::as_str)).map_err(|m| at(header_line, m))?;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(1, |p| p.line());
            match e.kind() {
                csv::ErrorKind::UnequalLengths { len, .. } => at(
                    line,
                    format!("the row has {len} fields, the header {}", header.len()),
                ),
                _ => at(line, e.to_string()),
            }
        })?;
        rows.push(Row {
            line: record.position().map_or(1, |p| p.line() as usize),
            fields: header
                .iter()
                .cloned()
                .zip(record.iter().map(str::to_string))
                .collect(),
        });
    }
    Ok(rows)
}

/// Every column present once, and no other; `noun` names them as the file's form does
/// ("column" in a CSV header, "key" in a JSON object).
fn check_columns<'a>(noun: &str, names: impl Iterator<Item = &'a str> + Clone) -> Result<(), String> {
    let expected = || format!("{}, and optionally {OPTIONAL}", COLUMNS.join(","));
    for (i, name) in names.clone().enumerate() {
        if !COLUMNS.contains(&name) && name != OPTIONAL {
            return Err(format!(
                "{noun} '{}' is not one of {}",
                crate::text::clean_prefix(name, 40),
                expected()
            ));
        }
        if names.clone().take(i).any(|n| n == name) {
            return Err(format!("{noun} '{name}' appears twice"));
        }
    }
    match COLUMNS.iter().find(|c| !names.clone().any(|n| n == **c)) {
        Some(missing) => Err(format!(
            "{noun} '{missing}' is missing (the {noun}s are {})",
            expected()
        )),
        None => Ok(()),
    }
}

/// The rows of a JSON offers file: a list of objects with the CSV's columns as keys (numbers
/// and `true`/`false` allowed where the CSV writes text; `region` and `currency` may be left out).
fn json_rows(file: &str, source: &str) -> Result<Vec<Row>, FileError> {
    let list: Vec<serde_json::Value> = serde_json::from_str(source).map_err(|e| {
        let message = if e.is_data() {
            "the file must be a JSON list of offers".to_string()
        } else {
            // The position is the error's own; serde_json's text repeats it.
            let text = e.to_string();
            text.rsplit_once(" at line ")
                .map_or(text.clone(), |(m, _)| m.to_string())
        };
        FileError {
            file: file.into(),
            line: Some(e.line()),
            column: (e.column() > 0).then_some(e.column()),
            message,
        }
    })?;
    let starts = element_lines(source);
    let mut rows = Vec::new();
    for (n, value) in list.into_iter().enumerate() {
        let line = starts.get(n).copied().unwrap_or(1);
        let at = |message: String| FileError {
            file: file.into(),
            line: Some(line),
            column: None,
            message,
        };
        let serde_json::Value::Object(map) = value else {
            return Err(at(
                "each offer must be an object with the keys of the CSV header".into()
            ));
        };
        check_columns(
            "key",
            map.keys()
                .map(String::as_str)
                .chain(["region"].into_iter().filter(|k| !map.contains_key(*k))),
        )
        .map_err(at)?;
        let mut fields = Vec::new();
        for (key, v) in map {
            let text = match v {
                serde_json::Value::String(s) => s,
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::Bool(b) => if b { "yes" } else { "no" }.into(),
                serde_json::Value::Null => String::new(),
                _ => return Err(at(format!("{key}: must be a text or a number"))),
            };
            fields.push((key, text));
        }
        rows.push(Row { line, fields });
    }
    Ok(rows)
}

/// The 1-based line on which each element of a top-level JSON list starts, found by a scan
/// that skips strings: serde_json's values do not keep their positions.
fn element_lines(source: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut line) = (0usize, false, false, 1usize);
    let mut want = false;
    for c in source.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if depth == 1 && want && !c.is_whitespace() && c != ',' && c != ']' {
            lines.push(line);
            want = false;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                want = depth == 1;
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => want = true,
            _ => {}
        }
    }
    lines
}
