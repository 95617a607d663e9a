//! The keys `veer.toml` accepts: each key's name, the flags it stands for, its default and how
//! a value is checked (with the same parsers as the flags, so a value the file accepts is one
//! the flag accepts). docs/config.md lists the same table.

use clap::ValueEnum;

/// How a key's value is written in the file and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A path, relative to the file's directory unless absolute.
    Path,
    /// A string checked by `check`.
    Text,
    /// A whole number ≥ 0.
    Unsigned,
    /// A number (integer or float).
    Number,
    /// A table of AXIS = "N%" | N (the trials margins).
    Margins,
    /// `true` or `false` (a switch such as `--allow-missing`).
    Bool,
}

/// Where one key applies: a subcommand path (`["diff"]`, `["history", "show"]`), the clap id
/// of the argument and the flag written on the command line.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The subcommand path.
    pub command: &'static [&'static str],
    /// The clap argument id (for `ArgMatches::value_source`).
    pub id: &'static str,
    /// The long flag, with its dashes.
    pub flag: &'static str,
}

/// One key of `veer.toml`.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// The dotted name: `policy`, `diff.fail_on`, `trials.margins`.
    pub name: &'static str,
    /// The value's kind.
    pub kind: Kind,
    /// The default when neither the file nor a flag sets it, as shown by `veer config show`.
    pub default: &'static str,
    /// Checks a value (the flag's own parser); the message says what is accepted.
    pub check: fn(&str) -> Result<(), String>,
    /// The flags it stands for.
    pub targets: &'static [Target],
}

fn any(_: &str) -> Result<(), String> {
    Ok(())
}

fn diff_fail_on(s: &str) -> Result<(), String> {
    crate::cli::parse_diff_fail_on(s).map(|_| ())
}

fn check_fail_on(s: &str) -> Result<(), String> {
    crate::cli::parse_fail_on(s).map(|_| ())
}

fn choice<E: ValueEnum>(s: &str) -> Result<(), String> {
    E::from_str(s, false).map(|_| ()).map_err(|_| {
        let names: Vec<String> = E::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
            .collect();
        format!("`{s}` is not one of {}", names.join(", "))
    })
}

fn pair_by(s: &str) -> Result<(), String> {
    choice::<crate::cli::PairByArg>(s)
}

fn diff_format(s: &str) -> Result<(), String> {
    choice::<crate::cli::DiffFormat>(s)
}

fn check_format(s: &str) -> Result<(), String> {
    choice::<crate::cli::CheckFormat>(s)
}

fn trials_mode(s: &str) -> Result<(), String> {
    choice::<crate::cli::TrialsMode>(s)
}

fn alpha(s: &str) -> Result<(), String> {
    match s.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(()),
        _ => Err(format!("`{s}` is not a level in (0, 1), e.g. 0.05")),
    }
}

fn case_pattern(s: &str) -> Result<(), String> {
    let re = regex::Regex::new(s).map_err(|e| format!("not a regular expression: {e}"))?;
    if re.capture_names().flatten().any(|n| n == "case") {
        Ok(())
    } else {
        Err("the pattern needs a named group `case`, e.g. '^(?P<case>[^/]+)/'".to_string())
    }
}

fn margin(s: &str) -> Result<(), String> {
    crate::cli::parse_margin(s).map(|_| ())
}

const DIFF: &[&str] = &["diff"];
const CHECK: &[&str] = &["check"];

/// Every key, in the order `veer config show` lists them.
pub const KEYS: &[Key] = &[
    Key {
        name: "policy",
        kind: Kind::Path,
        default: "(none)",
        check: any,
        targets: &[
            Target {
                command: DIFF,
                id: "policy",
                flag: "--policy",
            },
            Target {
                command: CHECK,
                id: "policy",
                flag: "--policy",
            },
        ],
    },
    Key {
        name: "pricing",
        kind: Kind::Path,
        default: "(none)",
        check: any,
        targets: &[Target {
            command: DIFF,
            id: "pricing",
            flag: "--pricing",
        }],
    },
    Key {
        name: "baseline",
        kind: Kind::Text,
        default: "(none)",
        check: any,
        targets: &[Target {
            command: DIFF,
            id: "stored_baseline",
            flag: "--baseline",
        }],
    },
    Key {
        name: "history",
        kind: Kind::Path,
        default: crate::cli::DEFAULT_HISTORY_DB,
        check: any,
        targets: &[
            Target {
                command: DIFF,
                id: "history",
                flag: "--history",
            },
            Target {
                command: &["history", "add"],
                id: "db",
                flag: "--db",
            },
            Target {
                command: &["history", "show"],
                id: "db",
                flag: "--db",
            },
            Target {
                command: &["history", "report"],
                id: "db",
                flag: "--db",
            },
            Target {
                command: &["history", "export"],
                id: "db",
                flag: "--db",
            },
        ],
    },
    Key {
        name: "diff.fail_on",
        kind: Kind::Text,
        default: "never",
        check: diff_fail_on,
        targets: &[Target {
            command: DIFF,
            id: "fail_on",
            flag: "--fail-on",
        }],
    },
    Key {
        name: "diff.pair_by",
        kind: Kind::Text,
        default: "auto",
        check: pair_by,
        targets: &[Target {
            command: DIFF,
            id: "pair_by",
            flag: "--pair-by",
        }],
    },
    Key {
        name: "diff.seed",
        kind: Kind::Unsigned,
        default: "42",
        check: any,
        targets: &[Target {
            command: DIFF,
            id: "seed",
            flag: "--seed",
        }],
    },
    Key {
        name: "diff.format",
        kind: Kind::Text,
        default: "terminal",
        check: diff_format,
        targets: &[Target {
            command: DIFF,
            id: "format",
            flag: "--format",
        }],
    },
    Key {
        name: "diff.output",
        kind: Kind::Path,
        default: "(stdout)",
        check: any,
        targets: &[Target {
            command: DIFF,
            id: "output",
            flag: "--output",
        }],
    },
    Key {
        name: "check.fail_on",
        kind: Kind::Text,
        default: "severe",
        check: check_fail_on,
        targets: &[Target {
            command: CHECK,
            id: "fail_on",
            flag: "--fail-on",
        }],
    },
    Key {
        name: "check.format",
        kind: Kind::Text,
        default: "terminal",
        check: check_format,
        targets: &[Target {
            command: CHECK,
            id: "format",
            flag: "--format",
        }],
    },
    Key {
        name: "check.output",
        kind: Kind::Path,
        default: "(stdout)",
        check: any,
        targets: &[Target {
            command: CHECK,
            id: "output",
            flag: "--output",
        }],
    },
    Key {
        name: "trials.mode",
        kind: Kind::Text,
        default: "auto",
        check: trials_mode,
        targets: &[Target {
            command: DIFF,
            id: "trials",
            flag: "--trials",
        }],
    },
    Key {
        name: "trials.case_pattern",
        kind: Kind::Text,
        default: "(none)",
        check: case_pattern,
        targets: &[Target {
            command: DIFF,
            id: "case_pattern",
            flag: "--case-pattern",
        }],
    },
    Key {
        name: "trials.alpha",
        kind: Kind::Number,
        default: "0.05",
        check: alpha,
        targets: &[Target {
            command: DIFF,
            id: "alpha",
            flag: "--alpha",
        }],
    },
    Key {
        name: "trials.allow_missing",
        kind: Kind::Bool,
        default: "false",
        check: any,
        targets: &[Target {
            command: DIFF,
            id: "allow_missing",
            flag: "--allow-missing",
        }],
    },
    Key {
        name: "trials.margins",
        kind: Kind::Margins,
        default: "(the defaults of docs/trials.md)",
        check: margin,
        targets: &[Target {
            command: DIFF,
            id: "margin",
            flag: "--margin",
        }],
    },
];

/// The tables a key may sit in.
pub const TABLES: &[&str] = &["diff", "check", "trials"];

/// The key named `name`.
pub fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// Levenshtein distance between two names (characters), for did-you-mean hints.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The known name closest to `name` among `candidates`, when it is close enough to be a
/// typo: at most 2 edits, or a third of the name's length for longer names.
pub fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(2);
    candidates
        .map(|c| (distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("fail-on", "fail_on"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("same", "same"), 0);
    }

    #[test]
    fn suggestions() {
        let names = ["fail_on", "format", "output", "pair_by", "seed"];
        assert_eq!(closest("fail-on", names.iter().copied()), Some("fail_on"));
        assert_eq!(closest("formt", names.iter().copied()), Some("format"));
        assert_eq!(closest("zzzzzzzz", names.iter().copied()), None);
    }

    #[test]
    fn every_key_has_a_target_and_a_unique_name() {
        for (i, k) in KEYS.iter().enumerate() {
            assert!(!k.targets.is_empty(), "{}", k.name);
            assert!(KEYS[..i].iter().all(|o| o.name != k.name), "{}", k.name);
            if let Some((table, _)) = k.name.split_once('.') {
                assert!(TABLES.contains(&table), "{}", k.name);
            }
        }
    }

    #[test]
    fn shown_defaults_are_the_flags_defaults() {
        use clap::CommandFactory;
        let root = crate::cli::Cli::command();
        for k in KEYS.iter().filter(|k| !k.default.starts_with('(')) {
            for t in k.targets {
                let mut cmd = &root;
                for name in t.command {
                    cmd = cmd.find_subcommand(name).expect("subcommand");
                }
                let arg = cmd
                    .get_arguments()
                    .find(|a| a.get_id() == t.id)
                    .unwrap_or_else(|| panic!("{}: no argument {}", k.name, t.id));
                let defaults: Vec<String> = arg
                    .get_default_values()
                    .iter()
                    .map(|v| v.to_string_lossy().into_owned())
                    .collect();
                // `veer diff --history` has a value only when given (its missing value is the
                // same path as `veer history --db`'s default, checked there).
                if k.name == "history" && t.command == ["diff"] {
                    continue;
                }
                assert!(
                    defaults.iter().any(|d| d == k.default),
                    "{} shows {} but {:?} defaults to {defaults:?}",
                    k.name,
                    k.default,
                    t.command
                );
            }
        }
    }

    #[test]
    fn values_are_checked_like_flags() {
        let k = key("diff.fail_on").unwrap();
        assert!((k.check)("severe").is_ok());
        assert!((k.check)("inconclusive").is_ok());
        assert!((k.check)("loud").is_err());
        assert!((key("diff.format").unwrap().check)("gitlab").is_ok());
        assert!((key("diff.format").unwrap().check)("pdf").is_err());
        assert!((key("trials.alpha").unwrap().check)("1.5").is_err());
        assert!((key("trials.case_pattern").unwrap().check)("^(?P<case>[^/]+)/").is_ok());
        assert!((key("trials.case_pattern").unwrap().check)("^([^/]+)/").is_err());
        assert!((key("trials.margins").unwrap().check)("latency=20%").is_ok());
        assert!((key("trials.margins").unwrap().check)("speed=20%").is_err());
    }
}
