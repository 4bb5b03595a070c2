//! Where strings meet the translation layer: the words the engine names by id (segments,
//! verdicts, bounds, splits, methods) in the current language, and the engine's English
//! formulas and notes read through the Chinese phrase rules in `i18n/formulas.zh.toml`.

use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

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

/// One phrase rule as the program uses it: compiled on first use, and only tried on a text
/// that holds one of the literals every match starts (or ends) with. Compiling all 300 rules took a
/// Chinese `plan` 50 million instructions, most of its run; a plan's text meets a few dozen.
struct Rule {
    pattern: String,
    zh: String,
    /// The literals every match begins with (`None`: a match may begin anywhere).
    needles: Option<Vec<Vec<u8>>>,
    regex: OnceLock<Option<regex::Regex>>,
}

impl Rule {
    fn new(pattern: String, zh: String) -> Rule {
        Rule {
            needles: needles(&pattern),
            pattern,
            zh,
            regex: OnceLock::new(),
        }
    }

    /// The rule applied to `text`: `None` when it cannot match (or does not compile, which a
    /// test rules out: it is skipped rather than taking the program down).
    fn apply(&self, text: &str) -> Option<String> {
        if let Some(needles) = &self.needles {
            let bytes = text.as_bytes();
            let found = |n: &Vec<u8>| bytes.windows(n.len()).any(|w| w == n.as_slice());
            if !needles.iter().any(found) {
                return None;
            }
        }
        let regex = self.regex.get_or_init(|| regex::Regex::new(&self.pattern).ok());
        match regex.as_ref()?.replace_all(text, self.zh.as_str()) {
            Cow::Owned(changed) => Some(changed),
            Cow::Borrowed(_) => None,
        }
    }
}

/// Literals one of which every match of `pattern` holds: the prefixes every match starts
/// with, else the suffixes every match ends with, from the regex parser's own literal
/// extraction; `None` when neither is a finite set of non-empty strings.
fn needles(pattern: &str) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    [ExtractKind::Prefix, ExtractKind::Suffix]
        .into_iter()
        .find_map(|kind| {
            let seq = Extractor::new().kind(kind).extract(&hir);
            let literals = seq.literals()?;
            if literals.is_empty() || literals.iter().any(|l| l.as_bytes().is_empty()) {
                return None;
            }
            Some(literals.iter().map(|l| l.as_bytes().to_vec()).collect())
        })
}

fn rules(source: &str) -> Vec<Rule> {
    toml::from_str::<PhraseRules>(source)
        .map(|r| r.rule)
        .unwrap_or_default()
        .into_iter()
        .map(|r| Rule::new(r.en, r.zh))
        .collect()
}

/// `rules` stays lazy until Chinese asks for it.
type Rules = LazyLock<Vec<Rule>>;

static RULES_ZH: Rules = LazyLock::new(|| rules(FORMULAS_ZH));
static ERROR_RULES_ZH: Rules = LazyLock::new(|| rules(ERRORS_ZH));

fn apply<'t>(rules: &Rules, text: &'t str) -> Cow<'t, str> {
    match Lang::current() {
        Lang::En => Cow::Borrowed(text),
        Lang::Zh => {
            let mut out = text.to_string();
            for rule in rules.iter() {
                if let Some(changed) = rule.apply(&out) {
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
        Lang::En => crate::engine::basics::units::format_params(n),
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
        for r in &errors.rule {
            assert!(
                regex::Regex::new(&r.en).is_ok(),
                "rule does not compile: {}",
                r.en
            );
        }
        assert_eq!(ERROR_RULES_ZH.len(), errors.rule.len());
    }

    #[test]
    fn a_rule_is_tried_only_where_its_literals_are() {
        let literal = Rule::new("the calibrated rules' default".into(), "校准规则的默认值".into());
        assert_eq!(literal.needles.as_ref().map(Vec::len), Some(1));
        assert_eq!(literal.apply("nothing here"), None);
        assert!(
            literal.regex.get().is_none(),
            "not compiled for a text without its literal"
        );
        assert_eq!(
            literal.apply("x: the calibrated rules' default").as_deref(),
            Some("x: 校准规则的默认值")
        );
        let alternatives = Rule::new("(?:gated|plain) MLP (\\d+)".into(), "$1".into());
        assert_eq!(alternatives.needles.as_ref().map(Vec::len), Some(2));
        assert_eq!(alternatives.apply("plain MLP 4").as_deref(), Some("4"));
        // A pattern whose matches start with any digit is found by how they end.
        let suffix = Rule::new("\\d+ GB".into(), "$0".into());
        assert_eq!(suffix.needles, Some(vec![b" GB".to_vec()]));
        // One that may start and end anywhere is always tried.
        let anywhere = Rule::new("\\d+ GB \\d+".into(), "$0".into());
        assert!(anywhere.needles.is_none());
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
