//! `veer config show`: the effective settings — every key of veer.toml with its value and
//! where it came from (veer's default, a line of the file, a flag of the given command line).

use crate::cli::{Cli, ConfigShowArgs};
use crate::config::apply::{self, Resolved, Source};
use crate::config::keys::KEYS;
use crate::config::Config;
use crate::error::{CliError, Exit};
use crate::output::emit;
use clap::CommandFactory;
use veer_contract::config::{ConfigDocument, ConfigFile, SettingRow, CONFIG_SCHEMA_VERSION};
use veer_report::printer::OutputFormat as _;

fn row(r: &Resolved) -> SettingRow {
    let (source, line) = match r.source {
        Source::Default => ("default", None),
        Source::File(l) => ("file", Some(l)),
        Source::Flag => ("flag", None),
    };
    SettingRow {
        key: r.key.name.to_string(),
        axis: r.axis.clone(),
        value: r.value.clone(),
        source: source.into(),
        line,
    }
}

/// Every key with the file's value or its default (no command line given).
fn all_keys(config: Option<&Config>) -> Vec<Resolved> {
    let mut out = Vec::new();
    for key in KEYS {
        let settings: Vec<_> = config
            .map(|c| c.get(key.name).collect())
            .unwrap_or_default();
        if settings.is_empty() {
            out.push(Resolved {
                key,
                axis: None,
                value: key.default_shown(),
                source: Source::Default,
            });
        }
        for s in settings {
            out.push(Resolved {
                key,
                axis: s.axis.clone(),
                value: s.value.clone(),
                source: Source::File(s.line),
            });
        }
    }
    out
}

/// Runs `veer config show` with the settings file already located and read.
pub fn show(args: &ConfigShowArgs, config: Option<&Config>) -> Result<Exit, CliError> {
    let resolved = if args.command.is_empty() {
        all_keys(config)
    } else {
        let argv = std::iter::once("veer".to_string()).chain(args.command.iter().cloned());
        let matches = Cli::command().try_get_matches_from(argv).map_err(|e| {
            CliError::input(format!(
                "the command line after `config show` does not parse: {}",
                e.render().to_string().lines().next().unwrap_or_default()
            ))
            .hint("give a veer command without `veer`, e.g. `veer config show diff a b --fail-on minor`")
        })?;
        apply::resolve(&matches, config).1
    };
    let doc = ConfigDocument {
        schema_version: CONFIG_SCHEMA_VERSION.into(),
        file: config.map(|c| ConfigFile {
            path: c.path.display().to_string(),
            origin: c.origin.label().to_string(),
        }),
        command: args.command.clone(),
        settings: resolved.iter().map(row).collect(),
    };
    let text = args
        .format
        .print(&doc, veer_report::style::Style { colour: false });
    emit(&text, args.out.output.as_deref())?;
    Ok(Exit::done())
}
