//! vramfit: plan GPU memory for large language models.
//!
//! [`engine`] is the arithmetic (pure, no I/O); [`catalog`] reads models, cards and offers;
//! [`cli`] is the headless command line over both.

#![forbid(unsafe_code)]

// The UI's messages, English and Chinese, compiled in from locales/.
rust_i18n::i18n!("locales", fallback = "en");

pub mod accuracy;
pub mod catalog;
pub mod cli;
pub mod dates;
pub mod detect;
pub mod engine;
pub mod files;
pub mod lang;
pub mod planfile;
pub mod present;
pub mod text;
pub mod tui;
