//! Ranking a plan's options: fitting ones first, single cards and combos together, by the
//! key the user ranks by; the rows of the one-row-per-card view; the pick and the closest.

use serde::Serialize;

use crate::engine::verdict::fit::FitOption;

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
    /// The fastest decode per stream: the expected speed where a class of measured runs gives
    /// one, else the ceiling.
    Speed,
    /// The cheapest that meets the target (`engine::verdict::meets_target`), replicas counted; the options
    /// that do not meet it after.
    Target,
}

impl crate::engine::basics::choice::Choice for SortBy {
    const ALL: &'static [Self] = &[
        SortBy::Price,
        SortBy::Rent,
        SortBy::Finish,
        SortBy::Cards,
        SortBy::Speed,
        SortBy::Target,
    ];

    fn id(self) -> &'static str {
        match self {
            SortBy::Price => "price",
            SortBy::Rent => "rent",
            SortBy::Finish => "finish",
            SortBy::Cards => "cards",
            SortBy::Speed => "speed",
            SortBy::Target => "target",
        }
    }

    fn label(self) -> &'static str {
        match self {
            SortBy::Price => "price per month",
            SortBy::Rent => "cost of the rental term",
            SortBy::Finish => "cost to finish",
            SortBy::Cards => "fewest cards, then price",
            SortBy::Speed => "fastest decode (expected, else the ceiling)",
            SortBy::Target => "cheapest meeting the target",
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
        SortBy::Speed => o
            .expected_decode_tokens_per_s
            .or(o.decode_tokens_per_s)
            .map(|tps| -tps),
        SortBy::Target => o.target.filter(|c| c.meets).and_then(|c| c.cost()),
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
    // Each option's key is read once and the keys are sorted, not the options: an option is
    // a large struct, and a 10,000-card catalog has 40,000 of them.
    let keys: Vec<Key> = options.iter().map(|o| Key::of(o, by)).collect();
    let mut order: Vec<usize> = (0..options.len()).collect();
    order.sort_by(|&i, &j| keys[i].cmp(&keys[j]));
    apply_order(options, order);
}

/// Where the first fitting option would be if `options` were ranked by `by` (the first of
/// equals, as the stable ranking keeps them), without ranking them.
pub fn first_fit_under(options: &[FitOption], by: SortBy) -> Option<usize> {
    options
        .iter()
        .enumerate()
        .filter(|(_, o)| o.verdict.is_fit())
        .map(|(i, o)| (i, Key::of(o, by)))
        .min_by(|a, b| a.1.cmp(&b.1))
        .map(|(i, _)| i)
}

/// What an option is ranked by.
struct Key {
    fits: bool,
    rank: Option<f64>,
    price: Option<f64>,
    count: u32,
    free: f64,
    shortfall: f64,
}

impl Key {
    fn of(o: &FitOption, by: SortBy) -> Key {
        Key {
            fits: o.verdict.is_fit(),
            rank: rank_key(o, by),
            price: o.price_usd_month,
            count: o.count,
            free: o.free_bytes_per_card,
            shortfall: shortfall(o),
        }
    }

    fn cmp(&self, b: &Key) -> std::cmp::Ordering {
        let a = self;
        (!a.fits).cmp(&!b.fits).then_with(|| {
            if a.fits {
                known_first(a.rank, b.rank)
                    .then_with(|| known_first(a.price, b.price))
                    .then_with(|| a.count.cmp(&b.count))
                    .then_with(|| b.free.total_cmp(&a.free))
            } else {
                a.shortfall
                    .total_cmp(&b.shortfall)
                    .then_with(|| a.count.cmp(&b.count))
                    .then_with(|| known_first(a.price, b.price))
            }
        })
    }
}

/// Put `items` in `order` (`order[k]` is the index of the item that goes to place `k`),
/// by swaps along the permutation's cycles.
fn apply_order<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..items.len() {
        let mut at = start;
        while order[at] != start {
            let next = order[at];
            items.swap(at, next);
            order[at] = at;
            at = next;
        }
        order[at] = at;
    }
}

/// Indices into `options` (kept in their order) with one row per card: the smallest count
/// that fits (with a target, the cheapest count that meets it), or for a card that fits in
/// no count, the count that comes closest.
pub fn one_row_per_card(options: &[FitOption]) -> Vec<usize> {
    let meets = |o: &FitOption| o.target.filter(|c| c.meets).map(|c| c.cost().unwrap_or(f64::MAX));
    let mut best: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    // A rig of mixed cards is its own row, never a card's (the views list it apart).
    for (i, o) in options.iter().enumerate().filter(|(_, o)| o.rig.is_empty()) {
        best.entry(o.gpu)
            .and_modify(|j| {
                let held = &options[*j];
                let better = match (o.verdict.is_fit(), held.verdict.is_fit()) {
                    (true, false) => true,
                    (false, true) => false,
                    // With a target, the card's cheapest option that meets it.
                    (true, true) => match (meets(o), meets(held)) {
                        (Some(a), Some(b)) => a < b,
                        (Some(_), None) => true,
                        (None, Some(_)) => false,
                        (None, None) => o.count < held.count,
                    },
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

#[cfg(test)]
mod tests {
    use super::apply_order;

    #[test]
    fn apply_order_places_each_item_where_the_order_says() {
        // Every permutation of five items, against building the result directly.
        let items: Vec<char> = "abcde".chars().collect();
        let mut order: Vec<usize> = (0..5).collect();
        let mut seen = 0;
        loop {
            let expected: Vec<char> = order.iter().map(|&i| items[i]).collect();
            let mut got = items.clone();
            apply_order(&mut got, order.clone());
            assert_eq!(got, expected, "order {order:?}");
            seen += 1;
            // Next permutation in lexicographic order.
            let Some(i) = (0..4).rev().find(|&i| order[i] < order[i + 1]) else {
                break;
            };
            let j = (i + 1..5).rev().find(|&j| order[j] > order[i]).unwrap();
            order.swap(i, j);
            order[i + 1..].reverse();
        }
        assert_eq!(seen, 120);
    }
}
