//! The plan's options table as text: the column headings and one line per option, the
//! columns chosen from the scenario (rent over a term, training's finish, serving's decode).

use std::fmt::Write as _;

use super::{i18n, money, option_label, price_text_in, seqs_text, verdict_text};
use crate::engine::basics::units::format_gb;
use crate::engine::{FitOption, Gpu, Scenario};
use crate::text::{pad, pad_left};
use crate::tr;

/// What the options table shows, from the scenario.
pub(super) struct Table<'a> {
    scenario: &'a Scenario,
    serving: bool,
    term: bool,
    train: bool,
    /// A target is set: a column says whether each option meets it.
    target: bool,
    rates: &'a crate::engine::hardware::offers::Rates,
    currency: &'a str,
}

impl<'a> Table<'a> {
    /// The columns `scenario` calls for: rent over its term, training's finish, serving's
    /// decode.
    pub(super) fn for_scenario(scenario: &'a Scenario) -> Self {
        let rent = &scenario.rent;
        Table {
            scenario,
            serving: !scenario.method.is_training(),
            term: (rent.hours - crate::engine::hardware::offers::HOURS_PER_MONTH).abs() > 0.5,
            train: rent.train_tokens.is_some() && scenario.method.is_training(),
            target: scenario.target.is_set(),
            rates: &rent.rates,
            currency: rent.display_currency.as_str(),
        }
    }

    /// The column headings.
    pub(super) fn header(&self, s: &mut String, hours: f64) {
        let month = if self.currency == "CNY" {
            tr!("column.cny_month")
        } else {
            tr!("column.usd_month")
        };
        let _ = write!(
            *s,
            "  {} {} {} {}",
            pad(&tr!("column.fit"), 6),
            pad(&tr!("column.card"), 30),
            pad_left(&tr!("column.free_per_card"), 10),
            pad_left(&month, 9)
        );
        if self.term {
            let term = tr!("column.hours", hours = format!("{hours:.0}"));
            let _ = write!(
                *s,
                " {} {}",
                pad_left(&term, 11),
                pad_left(&tr!("column.spot"), 9)
            );
        }
        if self.train {
            let _ = write!(
                *s,
                " {} {}",
                pad_left(&tr!("column.finish_hours"), 9),
                pad_left(&tr!("column.finish_cost"), 10)
            );
        }
        if self.serving {
            let _ = write!(
                s,
                " {} {} {} {}",
                pad_left(&tr!("column.decode"), 12),
                pad_left(&tr!("column.aggregate"), 10),
                pad_left(&tr!("column.bound"), 9),
                pad_left(&tr!("column.seqs"), 9)
            );
        }
        if self.target {
            let _ = write!(s, "  {}", pad(&tr!("target.column"), 12));
        }
        let _ = writeln!(*s);
    }

    /// One option's line.
    pub(super) fn line(&self, s: &mut String, gpus: &[Gpu], o: &FitOption) {
        let price = price_text_in(&gpus[o.gpu], o, self.rates, self.currency);
        let _ = write!(
            *s,
            "  {} {} {:>10} {}",
            pad(&verdict_text(o), 6),
            pad(&option_label(gpus, o), 30),
            format_gb(o.free_bytes_per_card),
            pad_left(&price, 9)
        );
        let m = |v: Option<f64>| v.map_or("-".to_string(), |u| money(u, self.rates, self.currency));
        if self.term {
            let _ = write!(*s, " {:>11} {:>9}", m(o.rent_cost_usd), m(o.spot_rent_cost_usd));
        }
        if self.train {
            let hours = o.training.map_or("-".to_string(), |t| format!("{:.1}", t.hours));
            let _ = write!(*s, " {:>9} {:>10}", hours, m(o.train_cost_usd));
        }
        if self.serving {
            let decode = o
                .decode_tokens_per_s
                .map_or("-".to_string(), |t| format!("{t:.1}"));
            let (agg, bound) = o.roofline.map_or(("-".into(), "-".into()), |r| {
                (format!("{:.0}", r.aggregate), i18n::word("bound", r.bound.id()))
            });
            let seqs = o.serving.map_or("-".into(), |c| seqs_text(self.scenario, &c, o));
            let _ = write!(*s, " {decode:>12} {agg:>10} {} {seqs:>9}", pad_left(&bound, 9));
        }
        if self.target {
            let _ = write!(*s, "  {}", pad(&super::target_text::cell(o.target.as_ref()), 12));
        }
        if o.count > 1 {
            let link = o.link.to_string();
            let split = i18n::word("split", o.split.id());
            let _ = write!(
                *s,
                "  {}",
                tr!("plan.split_over", split = split, link = i18n::formula(&link))
            );
        }
        if let Some(w) = o.warning() {
            let _ = write!(*s, "  ⚠ {}", i18n::formula(&w));
        }
        if let Some(r) = o.reason {
            let _ = write!(*s, "  {}", i18n::formula(&r.text(&gpus[o.gpu])));
        }
        let _ = writeln!(*s);
    }
}
