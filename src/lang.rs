//! The UI's language: English or Chinese. The strings live in `locales/en.yml` and
//! `locales/zh.yml` (rust-i18n compiles them in); JSON keys and enum values stay English.

use clap::ValueEnum;

/// A language the UI speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    En,
    Zh,
}

impl Lang {
    /// The locale code the message files are named by.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// From the environment as POSIX orders it: `LC_ALL`, then `LC_MESSAGES`, then `LANG`
    /// (the first one set and not empty decides; `zh_*` → Chinese, anything else English).
    pub fn from_env() -> Lang {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let locale = var("LC_ALL")
            .or_else(|| var("LC_MESSAGES"))
            .or_else(|| var("LANG"));
        Lang::from_locale(locale.as_deref().unwrap_or(""))
    }

    /// `zh_CN.UTF-8`, `zh_TW`, `zh` → Chinese; anything else English.
    pub fn from_locale(locale: &str) -> Lang {
        let lower = locale.to_ascii_lowercase();
        if lower == "zh" || lower.starts_with("zh_") || lower.starts_with("zh-") || lower.starts_with("zh.") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// Make this the language every later string is looked up in.
    pub fn make_current(self) {
        rust_i18n::set_locale(self.code());
    }

    /// The language strings are looked up in now.
    pub fn current() -> Lang {
        if &*rust_i18n::locale() == "zh" {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// Prices show in yuan for a Chinese reader unless asked otherwise.
    pub fn default_currency(self) -> &'static str {
        match self {
            Lang::En => "USD",
            Lang::Zh => "CNY",
        }
    }
}

/// A message in the current language, with `%{name}` placeholders filled.
#[macro_export]
macro_rules! tr {
    ($key:expr) => { rust_i18n::t!($key).into_owned() };
    ($key:expr, $($name:ident = $value:expr),+ $(,)?) => {
        rust_i18n::t!($key, $($name = $value),+).into_owned()
    };
}

/// A message in a given language (where the output's language is fixed, as JSON's English).
#[macro_export]
macro_rules! tr_in {
    ($lang:expr, $key:expr) => { rust_i18n::t!($key, locale = $lang.code()).into_owned() };
    ($lang:expr, $key:expr, $($name:ident = $value:expr),+ $(,)?) => {
        rust_i18n::t!($key, locale = $lang.code(), $($name = $value),+).into_owned()
    };
}

#[cfg(test)]
mod tests {
    use super::Lang;

    #[test]
    fn locales_name_the_language() {
        assert_eq!(Lang::from_locale("zh_CN.UTF-8"), Lang::Zh);
        assert_eq!(Lang::from_locale("zh_TW"), Lang::Zh);
        assert_eq!(Lang::from_locale("zh"), Lang::Zh);
        assert_eq!(Lang::from_locale("en_US.UTF-8"), Lang::En);
        assert_eq!(Lang::from_locale("C"), Lang::En);
        assert_eq!(Lang::from_locale("zhx"), Lang::En);
    }
}
