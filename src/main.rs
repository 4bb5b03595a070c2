use std::process::ExitCode;

use clap::Parser;
use vramfit::cli::{Cli, run};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let Some(command) = &cli.command else {
        eprintln!("The interactive planner is not built yet; try `vramfit plan --help`.");
        return ExitCode::from(2);
    };
    match run(
        &cli,
        command,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
