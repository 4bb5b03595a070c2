//! Ranking a plan's options: fitting ones first, single cards and combos together, by the
//! key the user ranks by; the rows of the one-row-per-card view; the pick and the closest.

use serde::Serialize;

use super::fit::FitOption;

/// What the fitting options are ranked by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SortBy {
    /// Monthly price, single cards and combos together.
    Price,
    /// Cost of the rental term.
    Rent,
    /// Cost to finish the fine-tune.
    Finish,
    /// The fewest cards, then the monthly price.
    Cards,
}

impl super::Choice for SortBy {
    const ALL: &'static [Self] = &[SortBy::Price, SortBy::Rent, SortBy::Finish, SortBy::Cards];

    fn id(self) -> &'static str {
        match self {
            SortBy::Price => "price",
            SortBy::Rent => "rent",
            SortBy::Finish => "finish",
            SortBy::Cards => "cards",
        }
    }

    fn label(self) -> &'static str {
        match self {
            SortBy::Price => "price per month",
            SortBy::Rent => "cost of the rental term",
            SortBy::Finish => "cost to finish",
            SortBy::Cards => "fewest cards, then price",
        }
    }
}

/// What an option is ranked by under `by`: lower is better, `None` (no price) last.
pub fn rank_key(o: &FitOption, by: SortBy) -> Option<f64> {
    match by {
        SortBy::Price => o.price_usd_month,
        SortBy::Rent => o.rent_cost_usd,
        SortBy::Finish => o.train_cost_usd,
        SortBy::Cards => Some(f64::from(o.count)),
    }
}

/// How far an option that does not fit is from fitting: need over what a card may use
/// (1.0 = just fits); options the card can never run last.
fn shortfall(o: &FitOption) -> f64 {
    match o.reason {
        Some(r) if r.is_unsupported() => f64::INFINITY,
        _ => o.per_card_bytes / (o.usable_bytes / f64::from(o.count)).max(1.0),
    }
}

fn known_first(a: Option<f64>, b: Option<f64>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}

/// Rank: fitting options first, single cards and combos together, by `by` (known before
/// unknown; ties by monthly price, then fewer cards, then more room); then the options that
/// do not fit, the closest first. "Cheapest" is the first fitting option.
pub fn rank_options(options: &mut [FitOption], by: SortBy) {
    options.sort_by(|a, b| {
        (!a.verdict.is_fit()).cmp(&!b.verdict.is_fit()).then_with(|| {
            if a.verdict.is_fit() {
                known_first(rank_key(a, by), rank_key(b, by))
                    .then_with(|| known_first(a.price_usd_month, b.price_usd_month))
                    .then_with(|| a.count.cmp(&b.count))
                    .then_with(|| b.free_bytes_per_card.total_cmp(&a.free_bytes_per_card))
            } else {
                shortfall(a)
                    .total_cmp(&shortfall(b))
                    .then_with(|| a.count.cmp(&b.count))
                    .then_with(|| known_first(a.price_usd_month, b.price_usd_month))
            }
        })
    });
}

/// Indices into `options` (kept in their order) with one row per card: the smallest count
/// that fits, or for a card that fits in no count, the count that comes closest.
pub fn one_row_per_card(options: &[FitOption]) -> Vec<usize> {
    let mut best: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (i, o) in options.iter().enumerate() {
        best.entry(o.gpu)
            .and_modify(|j| {
                let held = &options[*j];
                let better = match (o.verdict.is_fit(), held.verdict.is_fit()) {
                    (true, false) => true,
                    (false, true) => false,
                    (true, true) => o.count < held.count,
                    (false, false) => shortfall(o) < shortfall(held),
                };
                if better {
                    *j = i;
                }
            })
            .or_insert(i);
    }
    let mut rows: Vec<usize> = best.into_values().collect();
    rows.sort_unstable();
    rows
}

/// The first option that fits in ranked order: the cheapest under the rank.
pub fn first_fit(options: &[FitOption]) -> Option<&FitOption> {
    options.iter().find(|o| o.verdict.is_fit())
}

/// When nothing fits: the option that comes closest (ranked options list it first among
/// those a card could run).
pub fn closest(options: &[FitOption]) -> Option<&FitOption> {
    options
        .iter()
        .filter(|o| !o.reason.is_some_and(|r| r.is_unsupported()))
        .min_by(|a, b| shortfall(a).total_cmp(&shortfall(b)))
        .or_else(|| options.first())
}
