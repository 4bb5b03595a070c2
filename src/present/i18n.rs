//! Where strings meet the translation layer: the words the engine names by id (segments,
//! verdicts, bounds, splits, methods) in the current language, and the engine's English
//! formulas and notes read through the Chinese phrase rules in `i18n/formulas.zh.toml`.

use std::borrow::Cow;
use std::sync::LazyLock;

use crate::lang::Lang;

/// The phrase rules, as written in the file: a regular expression and its replacement.
#[derive(serde::Deserialize)]
pub struct PhraseRules {
    pub rule: Vec<PhraseRule>,
}

#[derive(serde::Deserialize)]
pub struct PhraseRule {
    pub en: String,
    pub zh: String,
}

/// The rules' source, compiled in.
pub const FORMULAS_ZH: &str = include_str!("../../i18n/formulas.zh.toml");

/// Messages the program writes in English (errors, clap's included), read through the
/// Chinese phrase rules in `i18n/errors.zh.toml` the same way as the formulas.
pub const ERRORS_ZH: &str = include_str!("../../i18n/errors.zh.toml");

/// A rule file compiled; a rule that does not parse is a test failure (see the tests), and is
/// skipped rather than taking the program down.
fn compile(source: &str) -> Vec<(regex::Regex, String)> {
    toml::from_str::<PhraseRules>(source)
        .map(|r| r.rule)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|r| regex::Regex::new(&r.en).ok().map(|re| (re, r.zh)))
        .collect()
}

static RULES_ZH: Rules = LazyLock::new(|| compile(FORMULAS_ZH));
static ERROR_RULES_ZH: Rules = LazyLock::new(|| compile(ERRORS_ZH));

/// `rules` stays lazy until Chinese asks for it: taking a slice of it would compile every
/// rule, which cost an English `plan` most of its run time.
type Rules = LazyLock<Vec<(regex::Regex, String)>>;

fn apply<'t>(rules: &Rules, text: &'t str) -> Cow<'t, str> {
    match Lang::current() {
        Lang::En => Cow::Borrowed(text),
        Lang::Zh => {
            let mut out = text.to_string();
            for (re, zh) in rules.iter() {
                if let Cow::Owned(changed) = re.replace_all(&out, zh.as_str()) {
                    out = changed;
                }
            }
            Cow::Owned(out)
        }
    }
}

/// An engine-written formula, note or warning in the current language.
pub fn formula(text: &str) -> Cow<'_, str> {
    apply(&RULES_ZH, text)
}

/// An error message in the current language (the engine's phrases apply too: an error may
/// quote a formula or a reason).
pub fn error(text: &str) -> String {
    let first = apply(&ERROR_RULES_ZH, text).into_owned();
    formula(&first).into_owned()
}

/// A word the engine names by an id, under `group` in the message files ("segment.kv_cache").
pub fn word(group: &str, id: &str) -> String {
    word_in(Lang::current(), group, id)
}

/// The same in a given language.
pub fn word_in(lang: Lang, group: &str, id: &str) -> String {
    let key = format!("{group}.{id}");
    let text = rust_i18n::t!(&key, locale = lang.code()).into_owned();
    // A missing key comes back as the key itself; the id is the better fallback.
    if text == key { id.to_string() } else { text }
}

/// The message under a key built at run time ("knob.batch"), in the current language.
pub fn message(key: &str) -> String {
    rust_i18n::t!(key).into_owned()
}

/// A choice's label as the screen shows it (the planner, explain): `label.<group>.<id>` in
/// the message files, else the engine's English `fallback`. Ids stay English in JSON and
/// in flags; these are the words beside them.
pub fn label(group: &str, id: &str, fallback: &str) -> String {
    let key = format!("label.{group}.{id}");
    let text = rust_i18n::t!(&key).into_owned();
    if text == key { fallback.to_string() } else { text }
}

/// A parameter count: "8.03B" in English; in Chinese 亿 and 万 ("80.3 亿").
pub fn params(n: u64) -> String {
    params_in(Lang::current(), n)
}

/// The same in a given language.
pub fn params_in(lang: Lang, n: u64) -> String {
    let v = n as f64;
    match lang {
        Lang::En => crate::engine::units::format_params(n),
        Lang::Zh if v >= 1e8 => format!("{} 亿", three_figures(v / 1e8)),
        Lang::Zh if v >= 1e4 => format!("{} 万", three_figures(v / 1e4)),
        Lang::Zh => n.to_string(),
    }
}

/// Three significant figures, as the English "8.03B" has.
fn three_figures(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_phrase_rule_compiles() {
        let rules: PhraseRules = toml::from_str(FORMULAS_ZH).expect("formulas.zh.toml parses");
        assert!(rules.rule.len() > 40);
        for r in &rules.rule {
            assert!(
                regex::Regex::new(&r.en).is_ok(),
                "rule does not compile: {}",
                r.en
            );
        }
        assert_eq!(RULES_ZH.len(), rules.rule.len());
        let errors: PhraseRules = toml::from_str(ERRORS_ZH).expect("errors.zh.toml parses");
        assert!(errors.rule.len() > 20);
        assert_eq!(
            ERROR_RULES_ZH.len(),
            errors.rule.len(),
            "every error rule compiles"
        );
    }

    #[test]
    fn chinese_counts_in_yi_and_wan() {
        assert_eq!(rust_i18n::t!("segment.kv_cache", locale = "zh"), "KV 缓存");
        assert_eq!(params_in(Lang::Zh, 8_030_261_248), "80.3 亿");
        assert_eq!(params_in(Lang::Zh, 70_553_706_496), "706 亿");
        assert_eq!(params_in(Lang::Zh, 65_536_000), "6554 万");
        assert_eq!(params_in(Lang::Zh, 9_000), "9000");
        assert_eq!(params_in(Lang::En, 8_030_261_248), "8.03B");
        assert_eq!(three_figures(6.5536), "6.55");
    }
}
