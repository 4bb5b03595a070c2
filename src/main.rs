use std::process::ExitCode;

use clap::FromArgMatches;
use vramfit::cli::{Cli, open_planner, run};

fn main() -> ExitCode {
    // The help is in the user's language, so the language is known before the arguments are
    // parsed: `--lang` as typed, else the settings file, else the locale.
    let settings = vramfit::cli::settings();
    let lang = vramfit::cli::language_before_parsing(std::env::args(), settings.as_ref().ok());
    lang.make_current();
    // The version line names the catalog's date, so the command comes from `generate`.
    let command = vramfit::cli::generate::command(lang);
    // `plan --cmd '…'`: the launch command's flags, spliced in before clap reads them.
    let args = match vramfit::cli::launch_args::expand(std::env::args_os().collect()) {
        Ok((args, notes)) => {
            for n in notes {
                eprintln!("{n}");
            }
            args
        }
        Err(e) => {
            let message = format!("error: {}", vramfit::text::clean(&e.to_string()));
            eprintln!("{}", vramfit::present::i18n::error(&message));
            return ExitCode::from(2);
        }
    };
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => usage_error(e),
    };
    let result = settings.and_then(|settings| {
        cli.language(&settings).make_current();
        let cli = cli.with_settings(&settings);
        match &cli.command {
            Some(command) => {
                // Buffered: a JSON plan is thousands of lines, each a write to a line-buffered
                // stdout otherwise.
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                run(&cli, command, &mut out, &mut std::io::stderr().lock())
                    .and_then(|()| std::io::Write::flush(&mut out).map_err(vramfit::cli::io_error))
            }
            None => planner(&cli, &settings),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            // Whatever a file or argument put in the message, no control character reaches
            // the terminal (line breaks stay).
            let text = e.to_string();
            let shown: Vec<_> = text.lines().map(vramfit::text::clean).collect();
            let message = format!("error: {}", shown.join("\n"));
            eprintln!("{}", vramfit::present::i18n::error(&message));
            ExitCode::from(2)
        }
    }
}

fn planner(cli: &Cli, settings: &vramfit::cli::Settings) -> Result<(), vramfit::cli::CliError> {
    if let Err(e) = color_eyre::install() {
        return Err(vramfit::cli::CliError(e.to_string()));
    }
    let app = open_planner(cli)?;
    let detect = !cli.no_detect && settings.detect;
    vramfit::tui::run(app, detect).map_err(|e| vramfit::cli::CliError(format!("{e}")))
}

/// A command line clap cannot take: help and version as clap prints them, anything else in
/// the user's language on stderr, with clap's exit status.
fn usage_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    let text = e.render().to_string();
    eprint!("{}", vramfit::present::i18n::error(&text));
    std::process::exit(e.exit_code())
}
