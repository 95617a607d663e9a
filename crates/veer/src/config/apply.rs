//! Settings into flags: for the command being run, each `veer.toml` setting whose flag was not
//! given on the command line is added as `--flag=value` right after the subcommand's name, and
//! the command line is parsed again — so a value from the file goes through the flag's own
//! parser, and a flag's default never hides the file (clap's `ValueSource` tells a default
//! from a given flag). Also reports where each effective setting came from.

use super::keys::{Key, KEYS};
use super::Config;
use clap::parser::ValueSource;
use clap::ArgMatches;
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

/// The settings that apply to the command of `matches`: the arguments to add and each
/// setting's source.
pub fn resolve(matches: &ArgMatches, config: Option<&Config>) -> (Vec<String>, Vec<Resolved>) {
    let (path, leaf) = command_path(matches);
    let mut extra = Vec::new();
    let mut resolved = Vec::new();
    for key in KEYS {
        for target in key.targets.iter().filter(|t| t.command == path.as_slice()) {
            let settings: Vec<_> = config
                .map(|c| c.get(key.name).collect())
                .unwrap_or_default();
            let on_line = given(leaf, target.id);
            if key.name == "trials.margins" {
                // Repeatable: the file's margins go first, a --margin for the same axis on the
                // command line comes later and wins.
                for s in &settings {
                    extra.push(format!("{}={}", target.flag, s.value));
                    resolved.push(Resolved {
                        key,
                        axis: s.axis.clone(),
                        value: s.value.clone(),
                        source: Source::File(s.line),
                    });
                }
                if on_line {
                    resolved.push(Resolved {
                        key,
                        axis: None,
                        value: typed(leaf, target.id),
                        source: Source::Flag,
                    });
                }
                continue;
            }
            if on_line {
                resolved.push(Resolved {
                    key,
                    axis: None,
                    value: typed(leaf, target.id),
                    source: Source::Flag,
                });
                continue;
            }
            let Some(s) = settings.first() else {
                resolved.push(Resolved {
                    key,
                    axis: None,
                    value: key.default.into(),
                    source: Source::Default,
                });
                continue;
            };
            let applies = match key.name {
                // `veer diff CANDIDATE_DIR`: one path given, so the baseline is the stored one.
                "baseline" => leaf.value_source("candidate") == Some(ValueSource::DefaultValue),
                // The configured output file is for the configured format only.
                "diff.output" | "check.output" => !given(leaf, "format"),
                // The history path is where a bare --history writes, and what `veer history`
                // reads; it never turns recording on by itself.
                _ => !(key.name == "history" && path == ["diff"]),
            };
            if applies {
                extra.push(format!("{}={}", target.flag, s.value));
            }
            resolved.push(Resolved {
                key,
                axis: s.axis.clone(),
                value: s.value.clone(),
                source: Source::File(s.line),
            });
        }
    }
    (extra, resolved)
}

/// `argv` with `extra` inserted after the subcommand path's tokens (global flags before or
/// between them are skipped), and a bare `--history` of `veer diff` given the configured
/// history path.
pub fn rewrite(
    argv: &[OsString],
    path: &[String],
    extra: &[String],
    history: Option<&str>,
) -> Vec<OsString> {
    let mut at = 1;
    let mut want = path.iter();
    let mut next = want.next();
    while let (Some(name), Some(token)) = (next, argv.get(at)) {
        at += 1;
        if token == "--config" {
            at += 1;
        } else if token.to_str() == Some(name.as_str()) {
            next = want.next();
        }
    }
    let mut out: Vec<OsString> = argv[..at.min(argv.len())].to_vec();
    out.extend(extra.iter().map(OsString::from));
    for token in argv.iter().skip(at) {
        match history {
            Some(h) if token == "--history" && path == ["diff"] => {
                out.push(OsString::from(format!("--history={h}")));
            }
            _ => out.push(token.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn extra_flags_go_after_the_subcommand() {
        let path = ["diff".to_string()];
        let got = rewrite(
            &os(&["veer", "--config", "diff", "diff", "a", "b"]),
            &path,
            &["--seed=7".into()],
            None,
        );
        assert_eq!(
            got,
            os(&["veer", "--config", "diff", "diff", "--seed=7", "a", "b"])
        );
        let hist = ["history".to_string(), "show".to_string()];
        let got = rewrite(
            &os(&["veer", "--no-redact", "history", "show", "--axis", "cost"]),
            &hist,
            &["--db=x.sqlite".into()],
            None,
        );
        assert_eq!(
            got,
            os(&[
                "veer",
                "--no-redact",
                "history",
                "show",
                "--db=x.sqlite",
                "--axis",
                "cost"
            ])
        );
        let got = rewrite(
            &os(&["veer", "diff", "a", "b", "--history"]),
            &path,
            &[],
            Some("db.sqlite"),
        );
        assert_eq!(got, os(&["veer", "diff", "a", "b", "--history=db.sqlite"]));
    }
}
