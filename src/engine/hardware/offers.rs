//! What a card costs: its offers (provider, price per hour or month, volume discounts, spot
//! and estimates), the currencies and exchange rates prices are compared in, the filter a
//! user narrows offers by, and the guide's price figures ($/GB/month, GB/s per $/month, per
//! GPU hour). The cheapest offer of a card is `Gpu::cheapest_offer` (in `gpu`, which holds
//! a card's offers); nothing here knows a card.

use serde::{Deserialize, Serialize};

/// Billing period of a price.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Per {
    Hour,
    Month,
}

impl Per {
    pub fn id(self) -> &'static str {
        match self {
            Per::Hour => "hour",
            Per::Month => "month",
        }
    }
}

/// Hours in one billing month: seed 003 divides the monthly price by 720.
pub const HOURS_PER_MONTH: f64 = 720.0;

/// What sort of price an offer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OfferKind {
    OnDemand,
    /// Interruptible: can be taken away; shown apart from the others.
    Spot,
    Monthly,
    Quarterly,
    Yearly,
    /// A market estimate or range, to be confirmed with the provider.
    Estimate,
    /// A reference price the source has not verified.
    Reference,
}

impl OfferKind {
    pub fn id(self) -> &'static str {
        match self {
            Self::OnDemand => "on-demand",
            Self::Spot => "spot",
            Self::Monthly => "monthly",
            Self::Quarterly => "quarterly",
            Self::Yearly => "yearly",
            Self::Estimate => "estimate",
            Self::Reference => "reference",
        }
    }
}

/// A discount for renting several cards together.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeDiscount {
    pub cards: u32,
    /// Fraction off, e.g. 0.05 for 5 %.
    pub discount: f64,
}

/// One provider's price for one card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Offer {
    pub gpu: String,
    pub provider: String,
    #[serde(default)]
    pub region: Option<String>,
    /// Price per card per `per`, in `currency` (the low end of a range).
    pub price: f64,
    /// The high end when the source gives a range.
    #[serde(default)]
    pub price_max: Option<f64>,
    pub currency: String,
    pub per: Per,
    #[serde(default = "on_demand")]
    pub kind: OfferKind,
    /// The smallest number of cards rented together (B200 boards rent in pairs).
    #[serde(default = "one")]
    pub min_cards: u32,
    /// Shortest rental; monthly prices with a minimum under 30 days are prorated.
    #[serde(default)]
    pub min_term_days: Option<u32>,
    #[serde(default)]
    pub discounts: Vec<VolumeDiscount>,
    #[serde(default)]
    pub seen: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
}

fn one() -> u32 {
    1
}

fn on_demand() -> OfferKind {
    OfferKind::OnDemand
}

impl Offer {
    /// The discount that applies to `count` cards: the largest tier not above the count.
    pub fn discount_for(&self, count: u32) -> f64 {
        self.discounts
            .iter()
            .filter(|d| d.cards <= count)
            .max_by_key(|d| d.cards)
            .map_or(0.0, |d| d.discount)
    }

    /// Cost in the offer's currency of renting `count` cards for `hours`, honouring the
    /// minimum term; `None` below the minimum card count.
    ///
    /// Hourly prices bill the hours. Monthly prices bill whole months, except offers with a
    /// minimum under a month (seed 003's 7 days), which are prorated over 720-hour months.
    pub fn term_cost(&self, count: u32, hours: f64) -> Option<f64> {
        if count < self.min_cards {
            return None;
        }
        let min_hours = self.min_term_days.map_or(0.0, |d| f64::from(d) * 24.0);
        let billed = hours.max(min_hours).max(1.0);
        let per_card = match self.per {
            Per::Hour => self.price * billed.ceil(),
            Per::Month if self.min_term_days.is_some_and(|d| d < 30) => self.price * billed / HOURS_PER_MONTH,
            Per::Month => self.price * (billed / HOURS_PER_MONTH).ceil(),
        };
        Some(per_card * f64::from(count) * (1.0 - self.discount_for(count)))
    }
}

/// Exchange rates into US dollars.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rates {
    /// Yuan per dollar (seed 000 converts at 7.2).
    pub usd_cny: f64,
}

impl Default for Rates {
    fn default() -> Self {
        Rates { usd_cny: 7.2 }
    }
}

/// Currencies offers may be priced in.
pub const CURRENCIES: &[&str] = &["USD", "CNY"];

impl Rates {
    /// An amount in `currency` as dollars; `None` for a currency without a rate.
    pub fn to_usd(&self, amount: f64, currency: &str) -> Option<f64> {
        // No allocation: this runs for every offer of every option of every plan.
        if currency.eq_ignore_ascii_case("USD") {
            Some(amount)
        } else if currency.eq_ignore_ascii_case("CNY") {
            Some(amount / self.usd_cny)
        } else {
            None
        }
    }

    /// Dollars shown in the display currency.
    pub fn from_usd(&self, usd: f64, currency: &str) -> f64 {
        if currency.eq_ignore_ascii_case("CNY") {
            usd * self.usd_cny
        } else {
            usd
        }
    }
}

/// A provider's short name: "Lanyun" for "Lanyun (蓝耘)".
pub fn provider_short_name(full: &str) -> &str {
    full.split(" (").next().unwrap_or(full).trim()
}

/// Whether an offer's provider is the one the user named: its full or short name, any case.
pub fn provider_matches(full: &str, wanted: &str) -> bool {
    full.eq_ignore_ascii_case(wanted) || provider_short_name(full).eq_ignore_ascii_case(wanted.trim())
}

/// Which offers a plan may use.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct OfferFilter {
    /// Only this provider's offers (seed 003's lookup uses its own price list).
    pub provider: Option<String>,
}

impl OfferFilter {
    /// Whether a plan under this filter may use `offer`.
    pub fn admits(&self, offer: &Offer) -> bool {
        self.provider
            .as_deref()
            .is_none_or(|p| provider_matches(&offer.provider, p))
    }
}

/// Seed 003 section 06 "$/GB/month": monthly price ÷ marketed capacity.
pub fn usd_per_gb_month(price_usd_month: f64, memory_gb: f64) -> f64 {
    price_usd_month / memory_gb
}

/// Seed 003 section 06 "GB/s per $/month": bandwidth ÷ monthly price (higher is better).
pub fn bandwidth_gbs_per_usd_month(bandwidth_gbs: f64, price_usd_month: f64) -> f64 {
    bandwidth_gbs / price_usd_month
}

/// Seed 003 section 06 "per GPU hour": the monthly price over the 720 hours of a month.
pub fn usd_per_hour_from_month(price_usd_month: f64) -> f64 {
    price_usd_month / HOURS_PER_MONTH
}
