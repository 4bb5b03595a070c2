//! `plan --cmd '…'` and `fit --cmd '…'`: the launch command's flags (`catalog::launch`) go in
//! right after the command's name, so that a flag the user gives beside `--cmd` wins (a flag
//! given twice takes its last value); `--cmd` itself stays for clap, which then ignores it.

use std::ffi::OsString;

use super::CliError;

/// The arguments with a `--cmd`'s flags spliced in, and the notes to show: what the command
/// was read as and each flag it sets that vramfit does not model (in the user's language).
/// The same arguments and no notes without a `--cmd`.
pub fn expand(args: Vec<OsString>) -> Result<(Vec<OsString>, Vec<String>), CliError> {
    let text: Vec<Option<&str>> = args.iter().map(|a| a.to_str()).collect();
    let Some(at) = text.iter().position(|a| matches!(a, Some("plan" | "fit"))) else {
        return Ok((args, Vec::new()));
    };
    let mut cmd = None;
    for (i, a) in text.iter().enumerate().skip(at + 1) {
        match a {
            Some("--cmd") => cmd = text.get(i + 1).copied().flatten(),
            Some(s) if s.starts_with("--cmd=") => cmd = Some(&s[6..]),
            _ => {}
        }
    }
    let Some(cmd) = cmd else {
        return Ok((args, Vec::new()));
    };
    let launch = crate::catalog::launch::read(cmd).map_err(CliError)?;
    let user_model = text[at + 1..]
        .iter()
        .any(|a| matches!(a, Some("--model" | "-m")) || a.is_some_and(|s| s.starts_with("--model=")));
    if !user_model && !launch.flags.iter().any(|f| f == "--model") {
        return Err(CliError("--cmd: the command names no model: add --model".into()));
    }
    // The notes name flags and values as the command has them; the frame is the user's language.
    let mut notes = vec![crate::tr!("plan.cmd_read_as", flags = launch.flags.join(" "))];
    notes.extend(launch.notes.iter().map(|n| crate::tr!("plan.note", note = n)));
    let mut out: Vec<OsString> = args[..=at].to_vec();
    out.extend(launch.flags.into_iter().map(OsString::from));
    out.extend(args[at + 1..].iter().cloned());
    Ok((out, notes))
}
