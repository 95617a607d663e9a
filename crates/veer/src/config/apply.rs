//! Flags, `veer.toml` and defaults merged into one parsed command line, once, before any
//! command runs, with where each effective setting came from (for `veer config show`).
//!
//! The command line is parsed once into `ArgMatches` and the typed `Cli`. For the command being
//! run, each key's flag that the command line did not give (clap's `ValueSource` tells a given
//! flag from a default, so `--fail-on never` written out wins while a bare default never hides
//! the file) is filled from the file, subject to the target's [`Rule`]: the file's values go
//! through that flag's own value parser and are set into the `Cli` by
//! `FromArgMatches::update_from_arg_matches` ([`super::flags::matches`]). Nothing is added to
//! argv and the command line is not parsed again, so a setting is exactly the flag it stands
//! for and a flag of the command line is never touched.

use super::flags::{self, Fill};
use super::keys::{Key, Rule, KEYS};
use super::Config;
use crate::cli::Cli;
use clap::parser::ValueSource;
use clap::{ArgMatches, FromArgMatches};
use std::ffi::OsString;

/// Where an effective setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// veer's default.
    Default,
    /// The settings file, at this 1-based line.
    File(u64),
    /// A flag on the command line.
    Flag,
}

/// One effective setting of a command.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The key.
    pub key: &'static Key,
    /// For `trials.margins`, the axis.
    pub axis: Option<String>,
    /// The value (the file's, the key's default, or the flag's as typed).
    pub value: String,
    /// Where it came from.
    pub source: Source,
}

/// The subcommand path of `matches` (`["diff"]`, `["history", "show"]`) and the innermost
/// subcommand's matches.
pub fn command_path(matches: &ArgMatches) -> (Vec<String>, &ArgMatches) {
    let mut path = Vec::new();
    let mut m = matches;
    while let Some((name, sub)) = m.subcommand() {
        path.push(name.to_string());
        m = sub;
    }
    (path, m)
}

fn given(m: &ArgMatches, id: &str) -> bool {
    m.value_source(id) == Some(ValueSource::CommandLine)
}

/// The values given on the command line for `id`, as typed (comma-separated when repeated).
fn typed(m: &ArgMatches, id: &str) -> String {
    m.get_raw(id)
        .map(|vals| {
            vals.map(|v| v.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

/// The settings that apply to the command of `matches`: the values the file fills in (one
/// [`Fill`] per argument) and every setting's value and source.
pub fn resolve(matches: &ArgMatches, config: Option<&Config>) -> (Vec<Fill>, Vec<Resolved>) {
    let (path, leaf) = command_path(matches);
    let mut fills = Vec::new();
    let mut resolved = Vec::new();
    for key in KEYS {
        for target in key.targets.iter().filter(|t| t.is_for(&path)) {
            let settings: Vec<_> = config
                .map(|c| c.get(key.name).collect())
                .unwrap_or_default();
            let on_line = given(leaf, target.id);
            let flag = || Resolved {
                key,
                axis: None,
                value: typed(leaf, target.id),
                source: Source::Flag,
            };
            // `-o` repeats for other formats' files, but the configured output file is one
            // value for the configured format: a command-line `-o` replaces it.
            if is_repeatable(target) && target.rule != Rule::FormatNotGiven {
                // Repeatable: the file's values go first, the command line's after them (a
                // later --margin for the same axis wins).
                if !settings.is_empty() {
                    let mut values: Vec<OsString> =
                        settings.iter().map(|s| OsString::from(&s.value)).collect();
                    if on_line {
                        values.extend(
                            leaf.get_raw(target.id)
                                .into_iter()
                                .flatten()
                                .map(Into::into),
                        );
                    }
                    fills.push(Fill {
                        id: target.id,
                        values,
                    });
                }
                resolved.extend(settings.iter().map(|s| Resolved {
                    key,
                    axis: s.axis.clone(),
                    value: s.value.clone(),
                    source: Source::File(s.line),
                }));
                if on_line {
                    resolved.push(flag());
                }
                continue;
            }
            if on_line {
                resolved.push(flag());
                continue;
            }
            let Some(s) = settings.first() else {
                resolved.push(Resolved {
                    key,
                    axis: None,
                    value: key.default_shown(),
                    source: Source::Default,
                });
                continue;
            };
            let applies = match target.rule {
                Rule::Always => true,
                // `veer diff CANDIDATE_DIR`: one path given, so the baseline is the stored one.
                Rule::OnePath => leaf.value_source("candidate") == Some(ValueSource::DefaultValue),
                // The configured output file is for the configured format only.
                Rule::FormatNotGiven => !given(leaf, "format"),
                // Only the path of a bare flag ([`apply`]); never the flag itself.
                Rule::BareFlag => false,
            };
            if applies {
                fills.push(Fill {
                    id: target.id,
                    values: vec![OsString::from(&s.value)],
                });
            }
            resolved.push(Resolved {
                key,
                axis: s.axis.clone(),
                value: s.value.clone(),
                source: Source::File(s.line),
            });
        }
    }
    (fills, resolved)
}

/// Whether `target`'s flag may be given several times (its values add up).
fn is_repeatable(target: &super::keys::Target) -> bool {
    flags::argument(target).is_some_and(|a| matches!(a.get_action(), clap::ArgAction::Append))
}

/// Fills `cli`, parsed from `argv` into `matches`, with the settings of `config` whose flags
/// the command line did not give, each through its flag's own parser; a bare flag of a
/// [`Rule::BareFlag`] target (`veer diff … --history`) gets the configured path. The error is
/// clap's, for a value its flag refuses.
pub fn apply(
    cli: &mut Cli,
    matches: &ArgMatches,
    config: &Config,
    argv: &[OsString],
) -> Result<(), clap::Error> {
    let (path, leaf) = command_path(matches);
    let (mut fills, _) = resolve(matches, Some(config));
    for key in KEYS {
        let Some(setting) = config.get(key.name).next() else {
            continue;
        };
        for target in key.targets.iter().filter(|t| t.is_for(&path)) {
            let bare = flags::argument(target)
                .and_then(|a| a.get_long())
                .is_some_and(|long| argv.iter().any(|t| *t == *format!("--{long}")));
            if target.rule == Rule::BareFlag && given(leaf, target.id) && bare {
                fills.push(Fill {
                    id: target.id,
                    values: vec![OsString::from(&setting.value)],
                });
            }
        }
    }
    if fills.is_empty() {
        return Ok(());
    }
    let filled = flags::matches(&path, &fills)?;
    cli.update_from_arg_matches(&filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Origin, Setting};
    use clap::CommandFactory;

    fn config(settings: &[(&str, Option<&str>, &str, u64)]) -> Config {
        Config {
            path: "veer.toml".into(),
            origin: Origin::Flag,
            settings: settings
                .iter()
                .map(|(name, axis, value, line)| Setting {
                    key: crate::config::keys::key(name).unwrap(),
                    axis: axis.map(str::to_string),
                    value: value.to_string(),
                    line: *line,
                })
                .collect(),
        }
    }

    fn run(argv: &[&str], c: &Config) -> Cli {
        let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
        let m = Cli::command().try_get_matches_from(&argv).unwrap();
        let mut cli = Cli::from_arg_matches(&m).unwrap();
        apply(&mut cli, &m, c, &argv).unwrap();
        cli
    }

    fn diff(cli: &Cli) -> &crate::cli::DiffArgs {
        match &cli.command {
            crate::cli::Command::Diff(d) => d,
            _ => panic!("not diff"),
        }
    }

    #[test]
    fn the_file_fills_what_the_command_line_left_to_defaults() {
        let c = config(&[
            ("policy", None, "/r/p.yaml", 1),
            ("diff.fail_on", None, "severe", 3),
            ("diff.seed", None, "7", 4),
            ("trials.alpha", None, "0.01", 6),
        ]);
        let cli = run(&["veer", "diff", "a", "b", "--seed", "42"], &c);
        let d = diff(&cli);
        assert_eq!(
            d.policy.as_deref().and_then(|p| p.to_str()),
            Some("/r/p.yaml")
        );
        assert_eq!(d.fail_on.level, veer_base::Level::Severe);
        // Given on the command line, even at the default value: the flag wins.
        assert_eq!(d.seed, 42);
        assert_eq!(d.trials.alpha, 0.01);
        let cli = run(&["veer", "--no-config", "check", "t", "--policy", "q"], &c);
        let crate::cli::Command::Check(a) = &cli.command else {
            panic!("check")
        };
        assert_eq!(a.policy.as_deref().and_then(|p| p.to_str()), Some("q"));
        assert!(cli.no_config);
    }

    #[test]
    fn rules_limit_where_a_value_goes() {
        let c = config(&[
            ("baseline", None, "main", 1),
            ("history", None, "/r/h.sqlite", 2),
            ("diff.format", None, "json", 4),
            ("diff.output", None, "/r/out.json", 5),
        ]);
        // Two paths: compared as given; no --history: recording stays off.
        let cli = run(&["veer", "diff", "a", "b"], &c);
        let d = diff(&cli);
        assert_eq!(d.stored_baseline, None);
        assert_eq!(d.history, None);
        assert_eq!(d.format, crate::cli::DiffFormat::Json);
        assert_eq!(d.out.file().and_then(|p| p.to_str()), Some("/r/out.json"));
        // A bare --history: the configured path; another format: no configured output file.
        // (One path alone is refused by clap before any setting is read: `<CANDIDATE>` is
        // required unless `--baseline` is given on the command line.)
        let cli = run(
            &[
                "veer",
                "diff",
                "a",
                "b",
                "--history",
                "--format",
                "markdown",
            ],
            &c,
        );
        let d = diff(&cli);
        assert_eq!(d.stored_baseline, None);
        assert_eq!(
            d.history.as_deref().and_then(|p| p.to_str()),
            Some("/r/h.sqlite")
        );
        assert_eq!(d.out.file(), None);
        // --history=PATH is the command line's.
        let cli = run(&["veer", "diff", "a", "b", "--history=x.sqlite"], &c);
        assert_eq!(
            diff(&cli).history.as_deref().and_then(|p| p.to_str()),
            Some("x.sqlite")
        );
        // `veer history show --db`: filled; given: kept.
        for (argv, want) in [
            (&["veer", "history", "show"][..], "/r/h.sqlite"),
            (&["veer", "history", "show", "--db", "mine"][..], "mine"),
        ] {
            let cli = run(argv, &c);
            let crate::cli::Command::History(crate::cli::HistoryCommand::Show(s)) = &cli.command
            else {
                panic!("history show")
            };
            assert_eq!(s.db.db.to_str(), Some(want));
        }
    }

    #[test]
    fn margins_from_the_file_come_before_the_flags() {
        let c = config(&[
            ("trials.margins", Some("latency"), "latency=30%", 8),
            ("trials.margins", Some("turns"), "turns=2", 9),
        ]);
        let cli = run(&["veer", "diff", "a", "b", "--margin", "latency=50"], &c);
        let axes: Vec<&str> = diff(&cli)
            .trials
            .margin
            .iter()
            .map(|(a, _)| a.as_str())
            .collect();
        assert_eq!(axes, ["latency", "turns", "latency"]);
        let (_, shown) = resolve(
            &Cli::command()
                .try_get_matches_from(["veer", "diff", "a", "b", "--margin", "latency=50"])
                .unwrap(),
            Some(&c),
        );
        let sources: Vec<(&str, Source)> = shown
            .iter()
            .filter(|r| r.key.name == "trials.margins")
            .map(|r| (r.value.as_str(), r.source.clone()))
            .collect();
        assert_eq!(
            sources,
            [
                ("latency=30%", Source::File(8)),
                ("turns=2", Source::File(9)),
                ("latency=50", Source::Flag)
            ]
        );
    }

    #[test]
    fn without_file_values_nothing_changes() {
        let c = config(&[]);
        let cli = run(&["veer", "diff", "a", "b", "--history"], &c);
        assert_eq!(
            diff(&cli).history.as_deref().and_then(|p| p.to_str()),
            Some(crate::cli::DEFAULT_HISTORY_DB)
        );
    }
}
