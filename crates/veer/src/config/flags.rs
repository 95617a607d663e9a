//! The flags behind the keys, read from the clap definition of the command line
//! (`Cli::command()`, built once): a key's flag spelling and default, its value checked by the
//! flag's own value parser, and the file's values set into the parsed command line.
//!
//! clap keeps a value parser's typed output to itself (`ValueParser::parse_ref` is not public),
//! so a value reaches its flag's parser the one way clap offers: through matches. For the
//! settings the file fills, [`matches`] builds a small command shaped like the real one —
//! the same subcommand path and argument ids, each argument with its own value parser and
//! action but without defaults, requirements or conflicts — and gives it only those values, as
//! `--ID=VALUE`. Those matches hold nothing but the file's values, so
//! `FromArgMatches::update_from_arg_matches` on the parsed `Cli` replaces exactly those fields
//! and leaves every flag of the command line as parsed. The command line itself is parsed once.
//! Because filled values come after clap checked the command line, no key's flag may take part
//! in a conflict (a unit test holds every key to that).

use super::keys::Target;
use crate::cli::Cli;
use clap::{Arg, ArgAction, ArgGroup, ArgMatches, Command, CommandFactory};
use std::ffi::OsString;
use std::sync::OnceLock;

/// The clap definition of veer's command line, built once (so its names are `'static`).
pub fn cli() -> &'static Command {
    static CLI: OnceLock<Command> = OnceLock::new();
    CLI.get_or_init(Cli::command)
}

/// The subcommand of `cli()` at `path` (names separated by a space: `history show`).
fn subcommand(path: &str) -> Option<&'static Command> {
    path.split(' ')
        .try_fold(cli(), |cmd, name| cmd.find_subcommand(name))
}

/// The clap argument `target` stands for.
pub fn argument(target: &Target) -> Option<&'static Arg> {
    subcommand(target.command)?
        .get_arguments()
        .find(|a| a.get_id() == target.id)
}

/// The flag as written on the command line: `--fail-on`.
#[cfg(test)]
pub fn flag_of(target: &Target) -> String {
    match argument(target).and_then(Arg::get_long) {
        Some(long) => format!("--{long}"),
        None => target.id.to_string(),
    }
}

/// The default of `target`'s flag as clap shows it (`never`, `42`), when it has one.
pub fn default_of(target: &Target) -> Option<String> {
    let defaults = argument(target)?.get_default_values();
    (!defaults.is_empty()).then(|| {
        defaults
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(",")
    })
}

/// One value for one argument, as `--ID=VALUE`.
fn token(id: &str, value: &std::ffi::OsStr) -> OsString {
    let mut t = OsString::from(format!("--{id}="));
    t.push(value);
    t
}

/// `original` as the small command takes it: the same id and value parser, named `--ID`,
/// taking one value an occurrence (appended when the flag is repeatable), with no default,
/// requirement or conflict — so it is in the matches only when given.
fn bare(original: &'static Arg) -> Arg {
    let id = original.get_id().as_str();
    let action = match original.get_action() {
        ArgAction::Append => ArgAction::Append,
        _ => ArgAction::Set,
    };
    Arg::new(id)
        .long(id)
        .action(action)
        .num_args(1)
        .ignore_case(original.is_ignore_case_set())
        .value_parser(original.get_value_parser().clone())
}

/// Checks `value` with the value parser of `target`'s flag. The message is the parser's own
/// (`` `loud` is not a level; … ``), or, for a flag with a fixed list of values, `` `pdf` is
/// not one of terminal, json, … ``.
pub fn check(target: &Target, value: &str) -> Result<(), String> {
    let Some(arg) = argument(target) else {
        return Err(format!(
            "veer has no argument `{}` of `{}`",
            target.id, target.command
        ));
    };
    Command::new("veer")
        .no_binary_name(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(bare(arg))
        .try_get_matches_from([token(target.id, value.as_ref())])
        .map(|_| ())
        .map_err(|e| message(arg, value, &e))
}

/// What a refused value gets told.
fn message(arg: &Arg, value: &str, e: &clap::Error) -> String {
    if let Some(source) = std::error::Error::source(e) {
        return source.to_string();
    }
    let names: Vec<String> = arg
        .get_possible_values()
        .iter()
        .map(|p| p.get_name().to_string())
        .collect();
    if e.kind() == clap::error::ErrorKind::InvalidValue && !names.is_empty() {
        return format!("`{value}` is not one of {}", names.join(", "));
    }
    let rendered = e.render().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    first.trim_start_matches("error: ").to_string()
}

/// Values the settings file gives one argument of the command being run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fill {
    /// The clap argument id.
    pub id: &'static str,
    /// Its values, in order (several only for a repeatable flag).
    pub values: Vec<OsString>,
}

/// Matches holding exactly `fills`, parsed by their flags' own parsers, for the subcommand
/// path `path` (`["diff"]`, `["history", "show"]`): the input of
/// `Cli::update_from_arg_matches`.
pub fn matches(path: &[String], fills: &[Fill]) -> Result<ArgMatches, clap::Error> {
    let mut chain = vec![cli()];
    for name in path {
        let Some(sub) = chain.last().and_then(|c| c.find_subcommand(name)) else {
            return Err(clap::Error::raw(
                clap::error::ErrorKind::InvalidSubcommand,
                format!("veer has no subcommand `{}`\n", path.join(" ")),
            ));
        };
        chain.push(sub);
    }
    let mut built: Option<Command> = None;
    for &real in chain.iter().rev() {
        let mut cmd = Command::new(real.get_name())
            .disable_help_flag(true)
            .disable_version_flag(true)
            .args(real.get_arguments().map(bare))
            .groups(real.get_groups().map(|g| {
                ArgGroup::new(g.get_id().clone())
                    .args(g.get_args().cloned())
                    .multiple(true)
            }));
        if let Some(inner) = built.take() {
            cmd = cmd.subcommand(inner);
        }
        built = Some(cmd);
    }
    let Some(root) = built else {
        return Err(clap::Error::raw(
            clap::error::ErrorKind::InvalidSubcommand,
            "no command\n",
        ));
    };
    let mut argv: Vec<OsString> = vec!["veer".into()];
    argv.extend(path.iter().map(OsString::from));
    for fill in fills {
        argv.extend(fill.values.iter().map(|v| token(fill.id, v)));
    }
    root.try_get_matches_from(argv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::keys::{Rule, KEYS};
    use clap::{FromArgMatches, Parser};

    fn parsed(argv: &[&str]) -> Cli {
        Cli::try_parse_from(argv).expect("parses")
    }

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_and_defaults_come_from_clap() {
        let t = Target {
            command: "diff",
            id: "fail_on",
            rule: Rule::Always,
        };
        assert_eq!(flag_of(&t), "--fail-on");
        assert_eq!(default_of(&t).as_deref(), Some("never"));
        let t = Target {
            command: "history show",
            id: "db",
            rule: Rule::Always,
        };
        assert_eq!(flag_of(&t), "--db");
        assert_eq!(
            default_of(&t).as_deref(),
            Some(crate::cli::DEFAULT_HISTORY_DB)
        );
    }

    #[test]
    fn fills_replace_only_their_fields() {
        let mut cli = parsed(&["veer", "--no-redact", "diff", "a", "b", "--top-k", "9"]);
        let fills = [
            Fill {
                id: "seed",
                values: vec!["7".into()],
            },
            Fill {
                id: "fail_on",
                values: vec!["-x".into()],
            },
        ];
        // A refused value is clap's error, not a panic.
        assert!(matches(&path(&["diff"]), &fills).is_err());
        let fills = [
            Fill {
                id: "seed",
                values: vec!["7".into()],
            },
            Fill {
                id: "margin",
                values: vec!["latency=30%".into(), "turns=2".into()],
            },
            Fill {
                id: "allow_missing",
                values: vec!["true".into()],
            },
            Fill {
                id: "output",
                values: vec!["-report.md".into()],
            },
        ];
        let m = matches(&path(&["diff"]), &fills).unwrap();
        cli.update_from_arg_matches(&m).unwrap();
        assert!(cli.no_redact);
        let crate::cli::Command::Diff(d) = &cli.command else {
            panic!("diff")
        };
        assert_eq!(d.seed, 7);
        assert_eq!(d.top_k, 9);
        assert_eq!(d.baseline.to_str(), Some("a"));
        assert_eq!(d.candidate.to_str(), Some("b"));
        assert_eq!(d.trials.margin.len(), 2);
        assert!(d.trials.allow_missing);
        assert_eq!(d.out.file().and_then(|p| p.to_str()), Some("-report.md"));
    }

    #[test]
    fn every_targeted_command_takes_fills() {
        // The small command of every key's subcommand builds and fills each of its targets
        // (clap's debug assertions check the command's shape).
        for k in KEYS {
            for t in k.targets {
                let p: Vec<String> = t.command.split(' ').map(str::to_string).collect();
                let value = match k.kind {
                    crate::config::keys::Kind::Margins => "latency=20%",
                    crate::config::keys::Kind::Bool => "true",
                    crate::config::keys::Kind::Unsigned => "3",
                    crate::config::keys::Kind::Number => "0.01",
                    _ => k.example.trim_matches(|c| c == '"' || c == '\''),
                };
                let m = matches(
                    &p,
                    &[Fill {
                        id: t.id,
                        values: vec![value.into()],
                    }],
                )
                .unwrap_or_else(|e| panic!("{}: {e}", k.name));
                let mut argv = vec!["veer".to_string()];
                argv.extend(p.iter().cloned());
                match t.command {
                    "diff" => argv.extend(["a".into(), "b".into()]),
                    "check" => argv.extend(["t".into(), "--policy".into(), "p".into()]),
                    "mine" => argv.extend(["corpus".into(), "--out".into(), "suite".into()]),
                    "history add" => argv.push("r.json".into()),
                    _ => {}
                }
                let mut cli = Cli::try_parse_from(&argv)
                    .unwrap_or_else(|e| panic!("{}: {argv:?}: {e}", k.name));
                cli.update_from_arg_matches(&m)
                    .unwrap_or_else(|e| panic!("{}: {e}", k.name));
            }
        }
    }

    #[test]
    fn no_flag_the_file_fills_takes_part_in_a_conflict() {
        // Filled values are set after clap checked the command line, so a key's flag must
        // conflict with nothing, and nothing of its command be exclusive: a new key whose flag
        // does needs that check here first.
        for k in KEYS {
            for t in k.targets {
                let cmd = subcommand(t.command).expect("subcommand");
                let arg = argument(t).expect("argument");
                assert!(
                    cmd.get_arg_conflicts_with(arg).is_empty(),
                    "{}: {} conflicts",
                    k.name,
                    flag_of(t)
                );
                for other in cmd.get_arguments() {
                    assert!(!other.is_exclusive_set(), "{}: {}", k.name, other.get_id());
                    assert!(
                        cmd.get_arg_conflicts_with(other)
                            .iter()
                            .all(|a| a.get_id() != t.id),
                        "{}: {} conflicts with {}",
                        k.name,
                        other.get_id(),
                        flag_of(t)
                    );
                }
            }
        }
    }
}
