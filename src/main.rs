use std::process::ExitCode;

use clap::Parser;
use vramfit::cli::{Cli, open_planner, run};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = vramfit::cli::settings().and_then(|settings| {
        cli.language(&settings).make_current();
        match &cli.command {
            Some(command) => run(
                &cli,
                command,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            ),
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
            eprintln!("error: {}", shown.join("\n"));
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
