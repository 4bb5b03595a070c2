//! The command line's help in the user's language. The English is clap's, from the doc
//! comments; Chinese comes from `i18n/help.zh.toml`, keyed by command path and flag id.

use std::collections::BTreeMap;

use clap::{Arg, ArgAction, Command};

use crate::lang::Lang;

/// The Chinese help's source, compiled in.
pub const HELP_ZH: &str = include_str!("../../i18n/help.zh.toml");

#[derive(serde::Deserialize)]
pub struct HelpText {
    /// Command path ("vramfit plan") → its about text.
    pub commands: BTreeMap<String, String>,
    /// Flag id, or "<command>.<id>" where a command's flag means something of its own.
    pub args: BTreeMap<String, String>,
    pub clap: BTreeMap<String, String>,
    /// A flag group's heading in `plan --help` ("Model and workload") → its Chinese.
    #[serde(default)]
    pub headings: BTreeMap<String, String>,
}

impl HelpText {
    pub fn chinese() -> Option<HelpText> {
        toml::from_str(HELP_ZH).ok()
    }

    /// A flag's line under the command named `command` (its last word).
    pub fn arg(&self, command: &str, id: &str) -> Option<&String> {
        self.args
            .get(&format!("{command}.{id}"))
            .or_else(|| self.args.get(id))
    }

    fn word(&self, key: &str) -> &str {
        self.clap.get(key).map_or("", String::as_str)
    }
}

/// The command with its help in `lang` (English: as clap built it).
pub fn localized(cmd: Command, lang: Lang) -> Command {
    // The Chinese text is parsed only when asked for: English runs skip it.
    match lang {
        Lang::Zh => match HelpText::chinese() {
            Some(text) => translate(cmd, "vramfit", &text, true),
            None => cmd,
        },
        Lang::En => cmd,
    }
}

fn translate(mut cmd: Command, path: &str, text: &HelpText, root: bool) -> Command {
    if let Some(about) = text.commands.get(path) {
        let first = about.split("\n\n").next().unwrap_or(about).to_string();
        cmd = cmd.about(first).long_about(about.clone());
    }
    let name = cmd.get_name().to_string();
    let ids: Vec<String> = cmd.get_arguments().map(|a| a.get_id().to_string()).collect();
    let options = text.word("options").to_string();
    for id in ids {
        let help = text.arg(&name, &id).cloned();
        // A grouped flag keeps its group, in the language; the rest are "options".
        let group = cmd
            .get_arguments()
            .find(|a| a.get_id() == id.as_str())
            .and_then(|a| a.get_help_heading())
            .map(str::to_string);
        let heading = group
            .and_then(|g| text.headings.get(&g).cloned())
            .unwrap_or_else(|| options.clone());
        let default_word = text.word("default").to_string();
        let values_word = text.word("possible_values").to_string();
        cmd = cmd.mut_arg(id.as_str(), move |a| {
            let Some(mut help) = help else {
                return a.help_heading(heading);
            };
            // A flag (no value) has neither default nor possible values to show.
            if !a.get_action().takes_values() {
                return a.help_heading(heading).help(help);
            }
            // clap writes "[default: …] [possible values: …]" in English; the Chinese line
            // carries them itself.
            let defaults: Vec<String> = a
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect();
            let hide_values = a.is_hide_possible_values_set();
            let values: Vec<String> = a
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect();
            if !defaults.is_empty() && !a.is_hide_default_value_set() {
                help.push_str(&format!("［{default_word}{}］", defaults.join(", ")));
            }
            if !values.is_empty() && !hide_values {
                help.push_str(&format!("［{values_word}{}］", values.join(", ")));
            }
            a.help_heading(heading)
                .help(help)
                .hide_default_value(true)
                .hide_possible_values(true)
        });
    }
    // clap's own -h (and -V) lines, in the language too.
    cmd = cmd.disable_help_flag(true).arg(
        Arg::new("help")
            .short('h')
            .long("help")
            .action(ArgAction::Help)
            .help(text.word("help_flag").to_string())
            .help_heading(options.clone()),
    );
    if root {
        cmd = cmd.disable_version_flag(true).arg(
            Arg::new("version")
                .short('V')
                .long("version")
                .action(ArgAction::Version)
                .help(text.word("version_flag").to_string())
                .help_heading(options.clone()),
        );
    }
    cmd = cmd
        .subcommand_help_heading(text.word("commands").to_string())
        .help_template(format!(
            "{{about-with-newline}}\n{}{{usage}}\n\n{{all-args}}{{after-help}}",
            text.word("usage")
        ));
    let subs: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_string()).collect();
    for sub in subs {
        let sub_path = format!("{path} {sub}");
        cmd = cmd.mut_subcommand(sub.as_str(), |s| translate(s, &sub_path, text, false));
    }
    cmd
}
