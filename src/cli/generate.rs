//! What vramfit says about itself to the shell and the manual: the version line, completion
//! scripts (clap_complete) and man pages (clap_mangen), each built from the one clap
//! definition the parser uses, so none of them can name a flag that is gone or miss a new one.

use std::io::Write;
use std::path::Path;

use clap::CommandFactory;

use super::{Cli, CliError, io_error};
use crate::lang::Lang;

/// What `--version` prints after the name: `0.1.0 (catalog 2026-12-01)`. The date says how old
/// the compiled-in cards, models and prices are, which matters more than the program's number.
pub fn version() -> String {
    let version = env!("CARGO_PKG_VERSION");
    match crate::catalog::embedded_updated() {
        Some(date) => crate::tr!("cli.version", version = version, date = date.to_string()),
        None => version.to_string(),
    }
}

/// The command line as the parser, the help, the completions and the man pages see it, with
/// its help in `lang`.
pub fn command(lang: Lang) -> clap::Command {
    super::help::localized(Cli::command().version(version()), lang)
}

/// `vramfit completions SHELL`: the script for that shell.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<(), CliError> {
    let mut cmd = command(Lang::current());
    // clap_complete panics when a write fails (`… | head` closes the pipe), so the script is
    // made in memory and written here, where a closed pipe is no error.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "vramfit", &mut script);
    out.write_all(&script).map_err(io_error)
}

/// One man page: its file name (`vramfit-plan.1`) and its roff text.
pub struct ManPage {
    pub file: String,
    pub roff: Vec<u8>,
}

/// Every man page: `vramfit.1`, then one per command (`vramfit-plan.1`, …), in `lang`.
pub fn man_pages(lang: Lang) -> Result<Vec<ManPage>, CliError> {
    // `help` is clap's own command; its page would only repeat the others.
    let mut root = command(lang).disable_help_subcommand(true);
    // Building names each command's page (`vramfit-plan`) and gives it the global flags.
    root.build();
    let mut pages = Vec::new();
    add_pages(&root, &mut pages)?;
    Ok(pages)
}

fn add_pages(cmd: &clap::Command, pages: &mut Vec<ManPage>) -> Result<(), CliError> {
    // A command's page carries the program's version, not the command's (it has none).
    let man = clap_mangen::Man::new(cmd.clone().override_usage(synopsis(cmd)))
        .source(format!("vramfit {}", env!("CARGO_PKG_VERSION")));
    let mut roff = Vec::new();
    man.render(&mut roff)
        .map_err(|e| CliError(format!("cannot write the man page: {e}")))?;
    pages.push(ManPage {
        file: man.get_filename(),
        roff,
    });
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        add_pages(sub, pages)?;
    }
    Ok(())
}

/// A command's synopsis for its man page, each flag with its value (`[--context <N>]`,
/// `[--method <inference|full|lora|qlora>]`): clap_mangen's own lists the flags alone.
pub fn synopsis(cmd: &clap::Command) -> String {
    let mut parts = vec![cmd.get_bin_name().unwrap_or(cmd.get_name()).to_string()];
    for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let flag = match (a.get_short(), a.get_long()) {
            (_, Some(long)) => format!("--{long}"),
            (Some(short), None) => format!("-{short}"),
            (None, None) => continue,
        };
        let value = if a.get_action().takes_values() {
            let shown: Vec<String> = a
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect();
            let name = if !shown.is_empty() && shown.len() <= 8 {
                shown.join("|")
            } else {
                a.get_value_names()
                    .map(|v| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "))
                    .unwrap_or_else(|| a.get_id().as_str().to_uppercase().replace('-', "_"))
            };
            format!(" <{name}>")
        } else {
            String::new()
        };
        let item = format!("{flag}{value}");
        parts.push(if a.is_required_set() {
            item
        } else {
            format!("[{item}]")
        });
    }
    for p in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        let name = p
            .get_value_names()
            .map(|v| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|| p.get_id().as_str().to_uppercase());
        parts.push(if p.is_required_set() {
            format!("<{name}>")
        } else {
            format!("[{name}]")
        });
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        parts.push("<COMMAND>".to_string());
    }
    parts.join(" ")
}

/// `vramfit man [COMMAND]`: one page as roff on `out`; `--dir DIR`: every page written into
/// DIR (each atomically, replacing a page of the same name), its path printed.
pub fn man(page: Option<&str>, dir: Option<&Path>, out: &mut dyn Write) -> Result<(), CliError> {
    let pages = man_pages(Lang::current())?;
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir).map_err(|e| CliError(format!("{}: {e}", dir.display())))?;
        for page in &pages {
            let path = dir.join(&page.file);
            crate::files::write_atomic(&path, &page.roff)
                .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
            writeln!(out, "{}", path.display()).map_err(io_error)?;
        }
        return Ok(());
    }
    // `plan`, `vramfit-plan` and `vramfit-plan.1` all name the same page.
    let wanted = page.map_or_else(
        || "vramfit.1".to_string(),
        |p| {
            let p = p.strip_suffix(".1").unwrap_or(p);
            let p = p.strip_prefix("vramfit-").unwrap_or(p);
            if p == "vramfit" {
                "vramfit.1".to_string()
            } else {
                format!("vramfit-{p}.1")
            }
        },
    );
    let Some(found) = pages.iter().find(|p| p.file == wanted) else {
        let commands: Vec<&str> = pages
            .iter()
            .filter_map(|p| p.file.strip_prefix("vramfit-")?.strip_suffix(".1"))
            .collect();
        return Err(CliError(format!(
            "no man page for '{}'. Commands with a page: {}.",
            crate::text::clean_prefix(page.unwrap_or_default(), 60),
            commands.join(", ")
        )));
    };
    out.write_all(&found.roff).map_err(io_error)
}
