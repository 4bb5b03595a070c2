//! The headless command line: the same engine as the TUI, for scripts and tests.

mod args;
mod commands;
pub mod generate;
pub mod help;
pub mod launch_args;
mod resolve;
pub use args::PlanArgs;
pub use commands::{run, write_screenshots};
pub use resolve::{check_provider, load_catalog, resolve_model};

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};

use crate::engine::Choice;
use crate::engine::workload::scenario::Range;
use resolve::resolve_gpu;

/// A switch spelled `on` or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnOff {
    On,
    Off,
}

impl OnOff {
    pub fn is_on(self) -> bool {
        self == OnOff::On
    }
}

impl Choice for OnOff {
    const ALL: &'static [Self] = &[OnOff::On, OnOff::Off];

    fn id(self) -> &'static str {
        match self {
            OnOff::On => "on",
            OnOff::Off => "off",
        }
    }

    fn label(self) -> &'static str {
        self.id()
    }
}

/// `--checkpointing`: off, on (every layer recomputed from its input), or selective
/// (torchtitan's op-level policy: some outputs saved, the rest recomputed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointingArg {
    On,
    Off,
    Selective,
}

impl Choice for CheckpointingArg {
    const ALL: &'static [Self] = &[Self::On, Self::Off, Self::Selective];
    const ALIASES: &'static [(&'static str, Self)] = &[("full", Self::On)];

    fn id(self) -> &'static str {
        match self {
            Self::On => "on",
            Self::Off => "off",
            Self::Selective => "selective",
        }
    }

    fn label(self) -> &'static str {
        self.id()
    }
}

/// A failure the user can fix: printed on stderr, exit code 2.
#[derive(Debug)]
pub struct CliError(pub String);

/// The reader closed our output (`vramfit plan … | head`): not an error worth a message.
pub const BROKEN_PIPE: &str = "broken pipe";

impl CliError {
    pub fn is_broken_pipe(&self) -> bool {
        self.0 == BROKEN_PIPE
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

impl From<crate::catalog::FileError> for CliError {
    fn from(e: crate::catalog::FileError) -> Self {
        CliError(e.to_string())
    }
}

/// Parse a whole number of a knob, checked against the knob's one range (a negative or
/// fractional value is told the range, not "unexpected argument").
pub fn whole<T>(range: Range) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<u64>,
{
    move |text: &str| {
        let value: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("'{}' is not a number", crate::text::clean_prefix(text, 30)))?;
        range.check(value).map_err(|e| e.message)?;
        if value.fract() != 0.0 {
            return Err(format!("--{} takes a whole number, got {value}", range.flag));
        }
        T::try_from(value as u64).map_err(|_| format!("--{} is out of range", range.flag))
    }
}

/// Parse a model size in billions of parameters (`models --min-params 7`), any fraction.
pub fn billions(flag: &'static str) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        let value: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("'{}' is not a number", crate::text::clean_prefix(text, 30)))?;
        // Up to a thousand times the largest model published: a typo, not a size.
        let range = Range {
            flag,
            lo: 0.0,
            hi: 1_000_000.0,
            unit: "billion parameters",
        };
        range.check(value).map_err(|e| e.message)?;
        Ok(value)
    }
}

/// Parse a time in `unit`s from a number with an optional suffix (`2`, `2s`, `500ms`,
/// `72h`, `3d`, `90m`: s, ms, m, h, d), checked against `range` (in `unit`s).
pub fn duration(
    range: Range,
    unit_seconds: f64,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        let t = text.trim();
        let (number, seconds_each) = [
            ("ms", 0.001),
            ("s", 1.0),
            ("m", 60.0),
            ("h", 3600.0),
            ("d", 86_400.0),
        ]
        .iter()
        .find_map(|(suffix, secs)| t.strip_suffix(suffix).map(|n| (n, *secs)))
        .unwrap_or((t, unit_seconds));
        let value: f64 = number.trim().parse().map_err(|_| {
            format!(
                "'{}' is not a time (a number with s, m, h or d)",
                crate::text::clean_prefix(text, 30)
            )
        })?;
        let value = value * seconds_each / unit_seconds;
        range.check(value).map_err(|e| e.message)?;
        Ok(value)
    }
}

/// Parse a positive number checked against `range`.
pub fn number(range: Range) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        let value: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("'{}' is not a number", crate::text::clean_prefix(text, 30)))?;
        range.check(value).map_err(|e| e.message)?;
        Ok(value)
    }
}

/// Parse a [`Choice`] enum from its id, listing the valid ids in help and errors.
pub fn choice<T: Choice + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let shown = T::ALL.iter().map(|v| clap::builder::PossibleValue::new(v.id()));
    let aliases = T::ALIASES
        .iter()
        .map(|(a, _)| clap::builder::PossibleValue::new(*a).hide(true));
    PossibleValuesParser::new(shown.chain(aliases))
        .try_map(|s: String| T::from_id(&s).ok_or_else(|| format!("unknown value '{s}'")))
}

/// Parse `--framework NAME[@VERSION]` (`vllm`, `vllm@0.11`, `llama.cpp@b7079`).
pub fn runtime() -> impl TypedValueParser<
    Value = (
        crate::engine::Framework,
        Option<crate::engine::workload::version::Version>,
    ),
> {
    clap::builder::NonEmptyStringValueParser::new()
        .try_map(|s: String| crate::engine::workload::version::parse_runtime(&s))
}

#[derive(Debug, Parser)]
#[command(
    name = "vramfit",
    version,
    about = "Plan GPU memory for LLMs: will it fit, how fast can it decode, what is the cheapest card.",
    long_about = "Plan GPU memory for LLMs: will it fit, how fast can it decode, what is the cheapest card.\n\n\
                  Without a subcommand vramfit opens the interactive planner."
)]
pub struct Cli {
    /// Extra catalog file or folder of *.toml (models, gpus, offers); may be repeated.
    #[arg(long, global = true, hide_short_help = true, value_name = "PATH")]
    pub catalog: Vec<PathBuf>,
    /// Prices of your own: a CSV (provider,card,count,price,per,spot,region,date[,currency])
    /// or a JSON list of the same fields; a row replaces the catalog's offer of the same
    /// provider, card, count and kind, else it is added; may be repeated.
    #[arg(long, global = true, hide_short_help = true, value_name = "FILE")]
    pub offers: Vec<PathBuf>,
    /// Planner: start on this model (catalog id, or a config.json / its folder, shown first).
    #[arg(long, short, value_name = "ID|PATH")]
    pub model: Option<String>,
    /// Planner: theme name (default, light, high-contrast, mono, or one in
    /// <config>/themes/) or a path to a theme TOML. NO_COLOR selects mono.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
    /// Planner: enable the mouse (click to focus, wheel to scroll).
    #[arg(long)]
    pub mouse: bool,
    /// Planner: do not look for this machine's GPUs (also `detect = false` in
    /// <config>/config.toml).
    #[arg(long, global = true, hide_short_help = true)]
    pub no_detect: bool,
    /// Language of the output: en or zh (also `lang = "zh"` in <config>/config.toml; else
    /// from LC_ALL, LC_MESSAGES or LANG). Chinese shows prices in CNY unless --currency says.
    #[arg(long, global = true, value_enum)]
    pub lang: Option<crate::lang::Lang>,
    /// Fetch an org/name the local Hugging Face cache lacks from the Hub: its config.json and
    /// safetensors headers by range requests, a few KB, kept in the cache folder (also
    /// `hub = true` in <config>/config.toml; HF_ENDPOINT and HF_TOKEN are honoured).
    #[arg(long, global = true, hide_short_help = true)]
    pub hub: bool,
    /// Planner: also list the GGUF files in this folder (two levels deep) under "On this
    /// machine"; may be repeated (also `models_dir = "…"` in <config>/config.toml).
    #[arg(long, value_name = "DIR")]
    pub models_dir: Vec<PathBuf>,
    /// Planner: open a saved plan (TOML, as the planner's `w` writes it).
    #[arg(long, value_name = "FILE", conflicts_with = "model")]
    pub open: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// One scenario: the memory breakdown and the verdict for every card and combo.
    // Negative numbers parse as values, so `--context -1` is told it must be positive; a flag
    // given twice takes its last value, so `vramfit fit`'s suggested flags can be appended.
    #[command(allow_negative_numbers = true, args_override_self = true)]
    Plan(Box<PlanArgs>),
    /// What would make it fit on one card or combo (--gpu ID, --cards N): the exact longest
    /// context and largest batch, and the single changes (or pairs) that fit, each with the
    /// `plan` flags that apply it. Takes every `plan` flag.
    #[command(allow_negative_numbers = true, args_override_self = true)]
    Fit(Box<PlanArgs>),
    /// The GPU Rent Hub guide's lookup table (model size × method → cheapest card, a single
    /// card first as the guide picks), computed by the quick rules.
    Table {
        /// Print JSON instead of the table (keys and ids in English).
        #[arg(long)]
        json: bool,
    },
    /// The model catalog, each family together.
    Models {
        /// Print JSON instead of the table (keys and ids in English).
        #[arg(long)]
        json: bool,
        /// Only this family, or the families whose name starts so (`qwen2.5`, `llama`).
        #[arg(long, value_name = "NAME")]
        family: Option<String>,
        /// Only models whose id or name contains this (`coder`, `r1 distill`, `8b`).
        #[arg(long, value_name = "TEXT")]
        search: Option<String>,
        /// Only models of at least this many billion parameters (the total, every expert).
        #[arg(long, value_name = "B", value_parser = billions("min-params"))]
        min_params: Option<f64>,
        /// Only models of at most this many billion parameters (the total, every expert).
        #[arg(long, value_name = "B", value_parser = billions("max-params"))]
        max_params: Option<f64>,
    },
    /// The card catalog with prices.
    Gpus {
        /// Print JSON instead of the table, with each card's class, formats and sources.
        #[arg(long)]
        json: bool,
        /// Only cards whose id or name contains this (`4070`, `mi300`, `m4 pro`).
        #[arg(long, value_name = "TEXT")]
        search: Option<String>,
        /// Only this vendor's cards (NVIDIA, AMD, Intel, Apple).
        #[arg(long)]
        vendor: Option<String>,
        /// Only this class: consumer, workstation, datacenter, integrated, apple or slice.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(["consumer", "workstation", "datacenter", "integrated", "apple", "slice"]))]
        class: Option<String>,
    },
    /// This machine's GPUs, as nvidia-smi, rocm-smi or (on a Mac) sysctl report them, and the
    /// catalog card each is.
    Detect {
        /// Print JSON: index, name, memory_total_bytes, memory_used_bytes, driver, gpu, source.
        #[arg(long)]
        json: bool,
    },
    /// Predicted vs measured for every published run (writes docs/accuracy.md's table).
    Accuracy,
    /// Draw the planner's named states to SVG files (regenerates screenshots/).
    Screenshots {
        /// Folder to write into (relative to the current directory; the first line of
        /// output says where).
        #[arg(default_value = "screenshots")]
        dir: PathBuf,
    },
    /// Print the completion script for a shell (bash, zsh, fish, powershell, elvish).
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff): vramfit's own, or a command's (`vramfit man plan`); with --dir,
    /// write them all.
    Man {
        /// The command whose page to print (plan, fit, …); none: vramfit's own page.
        #[arg(value_name = "COMMAND", conflicts_with = "dir")]
        page: Option<String>,
        /// Write every page (vramfit.1, vramfit-plan.1, …) into this folder instead, replacing
        /// pages of the same name, and print their paths.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// The user's settings (`<config>/config.toml`); every key optional.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Look for this machine's GPUs when the planner starts.
    #[serde(default = "yes")]
    pub detect: bool,
    /// The output's language ("en" or "zh"); unset, the locale decides.
    #[serde(default)]
    pub lang: Option<crate::lang::Lang>,
    /// Fetch models the local cache lacks from the Hugging Face Hub (as `--hub`).
    #[serde(default)]
    pub hub: bool,
    /// A folder of GGUF files the planner lists (as `--models-dir`).
    #[serde(default)]
    pub models_dir: Option<PathBuf>,
}

impl Cli {
    /// The settings file's `hub` and `models_dir` joined to the flags, so the file is read
    /// once and everything after looks at the command line alone.
    pub fn with_settings(mut self, settings: &Settings) -> Cli {
        self.hub |= settings.hub;
        self.models_dir.extend(settings.models_dir.iter().cloned());
        self
    }

    /// The language asked for: the flag, the settings file, the locale, in that order.
    pub fn language(&self, settings: &Settings) -> crate::lang::Lang {
        self.lang
            .or(settings.lang)
            .unwrap_or_else(crate::lang::Lang::from_env)
    }
}

fn yes() -> bool {
    true
}

/// Read the settings file if there is one; a malformed one is an error with its position.
/// The language before clap has parsed anything (the help is printed in it): `--lang X` or
/// `--lang=X` among the arguments, else the settings file's, else the locale's.
pub fn language_before_parsing(
    args: impl IntoIterator<Item = String>,
    settings: Option<&Settings>,
) -> crate::lang::Lang {
    use clap::ValueEnum;
    let args: Vec<String> = args.into_iter().collect();
    let typed = args.iter().enumerate().find_map(|(i, a)| {
        let value = match a.strip_prefix("--lang") {
            Some("") => args.get(i + 1)?.as_str(),
            Some(rest) => rest.strip_prefix('=')?,
            None => return None,
        };
        crate::lang::Lang::from_str(value, true).ok()
    });
    typed
        .or(settings.and_then(|s| s.lang))
        .unwrap_or_else(crate::lang::Lang::from_env)
}

pub fn settings() -> Result<Settings, CliError> {
    let path = crate::catalog::user_config_dir().map(|d| d.join("config.toml"));
    let Some(path) = path.filter(|p| p.exists()) else {
        return Ok(Settings {
            detect: true,
            lang: None,
            hub: false,
            models_dir: None,
        });
    };
    let shown = path.display().to_string();
    let source = crate::files::read_text(&path, crate::files::MAX_TOML_BYTES)
        .map_err(|e| CliError(format!("{shown}: {e}")))?;
    toml::from_str(&source).map_err(|e| crate::catalog::FileError::from_toml(&shown, &source, &e).into())
}

/// A write error as the CLI reports it (a closed pipe is no error worth a message).
pub fn io_error(e: std::io::Error) -> CliError {
    match e.kind() {
        std::io::ErrorKind::BrokenPipe => CliError(BROKEN_PIPE.into()),
        _ => CliError(format!("cannot write output: {e}")),
    }
}

/// Open the planner: load the catalog, theme and model first, so a bad file is reported
/// on the normal screen before the terminal switches mode.
pub fn open_planner(cli: &Cli) -> Result<crate::tui::app::App, CliError> {
    let catalog = load_catalog(&cli.catalog, &cli.offers)?;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let spec = cli
        .theme
        .clone()
        .unwrap_or_else(|| if no_color { "mono".into() } else { "default".into() });
    let user_themes = crate::catalog::user_config_dir().map(|d| d.join("themes"));
    let theme = crate::tui::theme::Theme::load(&spec, user_themes.as_deref())?;
    let opened = match &cli.open {
        Some(path) => Some(crate::planfile::PlanFile::load(path)?),
        None => None,
    };
    // A card the catalog lacks would leave the bar on another card without a word. "local"
    // is this machine's cards (detect.rs names them so), found after the planner opens.
    if let (Some(path), Some(card)) = (&cli.open, opened.as_ref().and_then(|(f, _, _)| f.card.as_deref()))
        && card != "local"
    {
        resolve_gpu(&catalog, card).map_err(|e| CliError(format!("{}: card = {}", path.display(), e.0)))?;
    }
    let wanted = cli
        .model
        .clone()
        .or_else(|| opened.as_ref().map(|(f, _, _)| f.model.clone()));
    let (imported, start) = match &wanted {
        None => (None, None),
        Some(id) if catalog.model(id).is_some() => (None, catalog.model(id).map(|m| m.id.clone())),
        Some(other) => (Some(resolve_model(&catalog, other, cli.hub)?), None),
    };
    let mut app = crate::tui::app::App::new(catalog, theme, imported, start.as_deref());
    app.mouse = cli.mouse;
    // A Chinese screen prices in yuan (the Currency knob switches; a plan file says its own).
    app.scenario.rent.display_currency = crate::lang::Lang::current().default_currency().into();
    // What this machine holds (the Hugging Face cache, GGUF files in the models folders)
    // is read beside the first frame, never before it: the planner takes the list when it
    // arrives (`tui::run`; `App::load_local_models_now` reads it at once).
    app.local_sources = Some(cli.models_dir.clone());
    app.hub = cli.hub;
    if let Some((file, scenario, sort)) = opened {
        app.open_plan(scenario, sort, file.card.as_deref(), file.card_count);
    }
    Ok(app)
}
