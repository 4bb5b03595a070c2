//! The headless command line: the same engine as the TUI, for scripts and tests.

use crate::present::i18n;
mod args;
pub mod generate;
pub mod help;
pub use args::PlanArgs;

use std::path::{Path, PathBuf};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};

use crate::catalog::{Catalog, hf, hfcache};
use crate::engine::{Choice, Model, plan};

use crate::engine::rank::SortBy;
use crate::engine::scenario::Range;

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

/// Parse a [`Choice`] enum from its id, listing the valid ids in help and errors.
pub fn choice<T: Choice + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let shown = T::ALL.iter().map(|v| clap::builder::PossibleValue::new(v.id()));
    let aliases = T::ALIASES
        .iter()
        .map(|(a, _)| clap::builder::PossibleValue::new(*a).hide(true));
    PossibleValuesParser::new(shown.chain(aliases))
        .try_map(|s: String| T::from_id(&s).ok_or_else(|| format!("unknown value '{s}'")))
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
    #[arg(long, global = true, value_name = "PATH")]
    pub catalog: Vec<PathBuf>,
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
    #[arg(long, global = true)]
    pub no_detect: bool,
    /// Language of the output: en or zh (also `lang = "zh"` in <config>/config.toml; else
    /// from LC_ALL, LC_MESSAGES or LANG). Chinese shows prices in CNY unless --currency says.
    #[arg(long, global = true, value_enum)]
    pub lang: Option<crate::lang::Lang>,
    /// Fetch an org/name the local Hugging Face cache lacks from the Hub: its config.json and
    /// safetensors headers by range requests, a few KB, kept in the cache folder (also
    /// `hub = true` in <config>/config.toml; HF_ENDPOINT and HF_TOKEN are honoured).
    #[arg(long, global = true)]
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
    /// The model catalog.
    Models {
        /// Print JSON instead of the table (keys and ids in English).
        #[arg(long)]
        json: bool,
    },
    /// The card catalog with prices.
    Gpus {
        /// Print JSON instead of the table, with each card's memory source.
        #[arg(long)]
        json: bool,
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

/// The catalog with the user's additions: config dir, then each `--catalog`.
pub fn load_catalog(extra: &[PathBuf]) -> Result<Catalog, CliError> {
    let mut catalog = Catalog::embedded()?;
    if let Some(dir) = crate::catalog::user_catalog_dir().filter(|d| d.is_dir()) {
        catalog.merge_path(&dir)?;
    }
    for path in extra {
        if !path.exists() {
            return Err(CliError(format!(
                "{}: no such catalog file or folder",
                path.display()
            )));
        }
        catalog.merge_path(path)?;
    }
    Ok(catalog)
}

/// A catalog id, or a path to a config.json; an unknown id gets the nearest names.
pub fn resolve_model(catalog: &Catalog, wanted: &str, hub: bool) -> Result<Model, CliError> {
    if let Some(m) = catalog.model(wanted) {
        return Ok(m.clone());
    }
    let path = Path::new(wanted);
    if path.extension().is_some_and(|x| x.eq_ignore_ascii_case("gguf")) && path.exists() {
        return Ok(crate::catalog::gguf::gguf_model(path)?);
    }
    if path.exists() {
        return Ok(hf::load(path)?);
    }
    // `org/name`: the local Hugging Face cache, offline.
    if let Some(cache) = hfcache::cache_dir()
        && let Some(found) = hfcache::load_cached(&cache, wanted)
    {
        return Ok(found?);
    }
    // Only when asked: the Hub, by range requests.
    if hub && crate::catalog::hub::valid_repo(wanted) {
        let dir = crate::catalog::hub::fetch(wanted).map_err(CliError)?;
        let mut m = hf::load(&dir)?;
        m.id = crate::text::clean_prefix(wanted, 80);
        m.name = m.id.clone();
        m.family = "from the Hugging Face Hub".into();
        return Ok(m);
    }
    let near = catalog.suggest_models(wanted);
    let hint = if near.is_empty() {
        String::new()
    } else {
        format!(" Did you mean: {}?", near.join(", "))
    };
    Err(CliError(format!(
        "unknown model '{}'.{hint} `vramfit models` lists the catalog; a path to a config.json or a .gguf file, or an org/name in the local Hugging Face cache (or on the Hub with --hub), also works.",
        crate::text::clean_prefix(wanted, 60)
    )))
}

fn resolve_gpu(catalog: &Catalog, wanted: &str) -> Result<usize, CliError> {
    catalog.gpu_index(wanted).ok_or_else(|| {
        let near = catalog.suggest_gpus(wanted);
        let hint = if near.is_empty() {
            String::new()
        } else {
            format!(" Did you mean: {}?", near.join(", "))
        };
        CliError(format!(
            "unknown gpu '{}'.{hint} `vramfit gpus` lists the catalog.",
            crate::text::clean_prefix(wanted, 60)
        ))
    })
}

/// A provider the catalog has offers from (full or short name, any case); else the list.
pub fn check_provider(catalog: &Catalog, wanted: &str) -> Result<(), CliError> {
    let offers = catalog.gpus.iter().flat_map(|g| &g.offers);
    if offers
        .clone()
        .any(|o| crate::engine::gpu::provider_matches(&o.provider, wanted))
    {
        return Ok(());
    }
    let mut known: Vec<&str> = offers
        .map(|o| crate::engine::gpu::provider_short_name(&o.provider))
        .collect();
    known.sort_unstable_by_key(|k| k.to_lowercase());
    known.dedup();
    Err(CliError(format!(
        "unknown provider '{}'. Providers with offers: {}.",
        crate::text::clean_prefix(wanted, 60),
        known.join(", ")
    )))
}

/// Run a subcommand, writing its output to `out`.
pub fn run(
    cli: &Cli,
    command: &Command,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<(), CliError> {
    // The shell's and the manual's views need no catalog: a broken user catalog must not
    // stop a completion script from loading.
    let catalog = match command {
        Command::Completions { shell } => return generate::completions(*shell, out),
        Command::Man { page, dir } => return generate::man(page.as_deref(), dir.as_deref(), out),
        _ => load_catalog(&cli.catalog)?,
    };
    let io = io_error;
    match command {
        // Answered above, before the catalog was read.
        Command::Completions { .. } | Command::Man { .. } => {}
        Command::Plan(args) => run_plan(&catalog, args, cli.hub, out, err)?,
        Command::Fit(args) => run_fit(&catalog, args, cli.hub, out, err)?,
        Command::Table { json } => {
            let text = crate::present::text::lookup_table(&catalog, *json).map_err(CliError)?;
            out.write_all(text.as_bytes()).map_err(io)?;
        }
        Command::Models { json } => {
            out.write_all(crate::present::text::models(&catalog, *json).as_bytes())
                .map_err(io)?;
        }
        Command::Gpus { json } => {
            out.write_all(crate::present::text::gpus(&catalog, *json).as_bytes())
                .map_err(io)?;
        }
        Command::Detect { json } => {
            let found = crate::detect::detect(&catalog, crate::detect::TOOL_TIMEOUT);
            for n in &found.notes {
                writeln!(err, "{}", i18n::error(&format!("note: {n}"))).map_err(io)?;
            }
            // A tool that failed, or a card no real card is: an error, not "no GPU".
            if let Some(e) = found.error() {
                return Err(CliError(e));
            }
            let text = crate::present::text::detected(&found, *json);
            out.write_all(text.as_bytes()).map_err(io)?;
        }
        Command::Accuracy => {
            let rows = crate::accuracy::evaluate(&catalog).map_err(CliError)?;
            out.write_all(crate::accuracy::markdown(&rows).as_bytes())
                .map_err(io)?;
        }
        Command::Screenshots { dir } => {
            // Say where, before writing: the default folder is relative to where you stand.
            let shown = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
            writeln!(
                out,
                "writing {} screenshots (SVG) into {}",
                crate::tui::states::STATES.len(),
                shown.display()
            )
            .map_err(io)?;
            for (file, about) in write_screenshots(dir)? {
                writeln!(out, "{file}  {about}").map_err(io)?;
            }
        }
    }
    Ok(())
}

/// A write error as the CLI reports it (a closed pipe is no error worth a message).
fn io_error(e: std::io::Error) -> CliError {
    match e.kind() {
        std::io::ErrorKind::BrokenPipe => CliError(BROKEN_PIPE.into()),
        _ => CliError(format!("cannot write output: {e}")),
    }
}

/// `vramfit plan`: one scenario against the catalog, as text, JSON or Markdown.
fn run_plan(
    catalog: &Catalog,
    args: &PlanArgs,
    hub: bool,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<(), CliError> {
    let io = io_error;
    if let Some(p) = &args.provider {
        check_provider(catalog, p)?;
    }
    let model = resolve_model(catalog, &args.model, hub)?;
    let mut scenario = args.scenario_for(&model)?;
    for w in &model.warnings {
        writeln!(err, "{}", i18n::error(&format!("warning: {w}"))).map_err(io)?;
    }
    let gpus = if args.here {
        let found = crate::detect::detect(catalog, crate::detect::TOOL_TIMEOUT);
        for n in &found.notes {
            writeln!(err, "{}", i18n::error(&format!("note: {n}"))).map_err(io)?;
        }
        let local = crate::detect::local(&found, catalog)
            .map_err(CliError)?
            .ok_or_else(|| {
                CliError("no GPU found on this machine (nvidia-smi, rocm-smi or a Mac's sysctl)".into())
            })?;
        // Judge exactly this machine's cards; mixed cards can only split by layer.
        scenario.cards = local.count;
        if local.mixed {
            scenario.split = crate::engine::scenario::Split::Layer;
        }
        std::borrow::Cow::Owned(vec![local.gpu])
    } else {
        match &args.gpu {
            Some(id) => std::borrow::Cow::Owned(vec![catalog.gpus[resolve_gpu(catalog, id)?].clone()]),
            // The whole catalog, borrowed: a 10,000-card file is not copied.
            None => std::borrow::Cow::Borrowed(catalog.gpus.as_slice()),
        }
    };
    if args.sort == SortBy::Finish && args.train_tokens.is_none() {
        return Err(CliError(
            "--sort finish needs --train-tokens N (and a training --method)".into(),
        ));
    }
    let mut plan = plan(&model, &gpus, &scenario, !args.no_combos && !args.here);
    // The plan comes ranked by price.
    if args.sort != SortBy::Price {
        crate::engine::rank::rank_options(&mut plan.options, args.sort);
    }
    if args.markdown {
        out.write_all(crate::present::markdown::plan_markdown(&model, &gpus, &scenario, &plan).as_bytes())
            .map_err(io)?;
    } else if args.json {
        let json = crate::present::json::plan_json(&model, &gpus, &scenario, &plan);
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json).map_err(|e| CliError(e.to_string()))?
        )
        .map_err(io)?;
    } else {
        out.write_all(crate::present::text::plan_text(&model, &gpus, &scenario, &plan, args.all).as_bytes())
            .map_err(io)?;
    }
    Ok(())
}

/// `vramfit fit`: the advice for one target, as text or JSON.
fn run_fit(
    catalog: &Catalog,
    args: &PlanArgs,
    hub: bool,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<(), CliError> {
    use crate::engine::advise::{Target, advise};
    if let Some(p) = &args.provider {
        check_provider(catalog, p)?;
    }
    let model = resolve_model(catalog, &args.model, hub)?;
    let scenario = args.scenario_for(&model)?;
    for w in &model.warnings {
        writeln!(err, "{}", i18n::error(&format!("warning: {w}"))).map_err(io_error)?;
    }
    let gpu = match &args.gpu {
        Some(id) => resolve_gpu(catalog, id)?,
        None => {
            // No card named: the plan's own pick (or what comes closest), said on stderr.
            let p = plan(&model, &catalog.gpus, &scenario, true);
            let o = p
                .target()
                .ok_or_else(|| CliError("the catalog has no cards".into()))?;
            let note = format!(
                "note: no --gpu given; advising for {} (the plan's pick)",
                catalog.gpus[o.gpu].id
            );
            writeln!(err, "{}", i18n::error(&note)).map_err(io_error)?;
            o.gpu
        }
    };
    let target = Target {
        gpu,
        count: scenario.cards,
    };
    let advice = advise(&model, &catalog.gpus, &scenario, target);
    let text = if args.json {
        let json = crate::present::advice::advice_json(&advice, &catalog.gpus);
        serde_json::to_string_pretty(&json).map_err(|e| CliError(e.to_string()))? + "\n"
    } else {
        crate::present::advice::advice_text(&advice, &catalog.gpus, &scenario, &model.name)
    };
    out.write_all(text.as_bytes()).map_err(io_error)
}

/// Draw every named state to `<dir>/<name>.svg`, writing each file atomically.
pub fn write_screenshots(dir: &Path) -> Result<Vec<(String, &'static str)>, CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError(format!("{}: {e}", dir.display())))?;
    let mut written = Vec::new();
    for state in crate::tui::states::STATES {
        let (app, buf) = crate::tui::states::render_state(state);
        let svg = crate::tui::svg::buffer_to_svg(&buf, app.theme.preview_fg, app.theme.preview_bg);
        let path = dir.join(format!("{}.svg", state.name));
        crate::files::write_atomic(&path, svg.as_bytes())
            .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
        written.push((path.display().to_string(), state.about));
    }
    Ok(written)
}

/// Open the planner: load the catalog, theme and model first, so a bad file is reported
/// on the normal screen before the terminal switches mode.
pub fn open_planner(cli: &Cli) -> Result<crate::tui::app::App, CliError> {
    let catalog = load_catalog(&cli.catalog)?;
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
    if let Some((file, scenario, sort)) = opened {
        app.open_plan(scenario, sort, file.card.as_deref(), file.card_count);
    }
    Ok(app)
}
