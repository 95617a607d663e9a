//! `veer.toml`: the project's settings file (docs/config.md). Finding it (`--config FILE`,
//! then `VEER_CONFIG`, then walking up from the working directory to the repository root),
//! reading it into settings with their lines, each value checked by its flag's own parser
//! ([`keys`] declares the keys, [`flags`] reads their flags from the clap definition), and
//! merging them into the parsed command line of the command being run ([`apply`]). A flag
//! given on the command line always wins; `--no-config` ignores the file. Settings resolution
//! is neither a measure nor a printer: it only fills the command's parsed arguments.

pub mod apply;
pub mod flags;
pub mod keys;

use crate::error::CliError;
use keys::{Kind, KEYS};
use std::path::{Path, PathBuf};

/// The settings file's name.
pub const FILE_NAME: &str = "veer.toml";

/// The environment variable naming a settings file.
pub const ENV: &str = "VEER_CONFIG";

/// Largest accepted settings file, in bytes (1 MiB; a real one is a few hundred bytes).
pub const MAX_BYTES: u64 = 1 << 20;

/// How the settings file was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `--config FILE`.
    Flag,
    /// The `VEER_CONFIG` environment variable.
    Env,
    /// Found by walking up from the working directory.
    Found,
}

impl Origin {
    /// How `veer config show` names it.
    pub fn label(&self) -> &'static str {
        match self {
            Origin::Flag => "flag --config",
            Origin::Env => "env VEER_CONFIG",
            Origin::Found => "found from the working directory",
        }
    }
}

/// One setting read from the file.
#[derive(Debug, Clone)]
pub struct Setting {
    /// The key.
    pub key: &'static keys::Key,
    /// For `trials.margins`, the axis; otherwise `None`.
    pub axis: Option<String>,
    /// The value as a flag takes it (paths already made relative to the working directory's
    /// view: joined to the file's directory unless absolute).
    pub value: String,
    /// The 1-based line of the key in the file.
    pub line: u64,
}

/// A loaded settings file.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file.
    pub path: PathBuf,
    /// How it was chosen.
    pub origin: Origin,
    /// Its settings, in file order.
    pub settings: Vec<Setting>,
}

impl Config {
    /// The settings of `name` (several for `trials.margins`).
    pub fn get(&self, name: &str) -> impl Iterator<Item = &Setting> {
        let name = name.to_string();
        self.settings.iter().filter(move |s| s.key.name == name)
    }
}

/// The settings file to use: `--no-config` → none; `--config FILE`; `VEER_CONFIG`; else the
/// first `veer.toml` in the working directory or one of its parents, stopping after the
/// directory holding `.git` (the repository root) or at the filesystem root. A named file
/// that does not exist is an error.
pub fn locate(flag: Option<&Path>, no_config: bool) -> Result<Option<(PathBuf, Origin)>, CliError> {
    if no_config {
        return Ok(None);
    }
    let named = |path: PathBuf, origin: Origin, how: &str| {
        if path.is_file() {
            Ok(Some((path, origin)))
        } else {
            Err(CliError::input(format!(
                "{}: the settings file named by {how} does not exist or is not a file",
                path.display()
            ))
            .hint("give the path of a veer.toml (`veer init` writes one), or --no-config"))
        }
    };
    if let Some(path) = flag {
        return named(path.to_path_buf(), Origin::Flag, "--config");
    }
    if let Some(path) = std::env::var_os(ENV).filter(|p| !p.is_empty()) {
        return named(PathBuf::from(path), Origin::Env, ENV);
    }
    // A working directory that cannot be read (removed under the process) has no settings
    // file above it that veer could name; commands run with flags and defaults.
    let Ok(cwd) = std::env::current_dir() else {
        return Ok(None);
    };
    Ok(find_from(&cwd).map(|p| (p, Origin::Found)))
}

/// The first `veer.toml` in `start` or its parents, stopping after the repository root (a
/// directory holding `.git`) or at the filesystem root. The walk is bounded by the number of
/// path components of `start`.
pub fn find_from(start: &Path) -> Option<PathBuf> {
    for dir in start.ancestors() {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        if dir.join(".git").exists() {
            return None;
        }
    }
    None
}

/// Reads and checks the settings file: every key known, every value of the right kind and
/// accepted by its flag's parser. Errors name the file, line and key, with a hint.
pub fn load(path: &Path, origin: Origin) -> Result<Config, CliError> {
    let shown = path.display().to_string();
    let fail = |line: Option<u64>, field: Option<&str>, message: String, hint: String| {
        let mut e = CliError::input(match line {
            Some(l) => format!("{shown}:{l}: {message}"),
            None => format!("{shown}: {message}"),
        })
        .hint(hint);
        e.file = Some(shown.clone());
        e.line = line;
        e.field = field.map(str::to_string);
        e
    };
    let size = std::fs::metadata(path)
        .map_err(|e| {
            fail(
                None,
                None,
                format!("cannot read: {e}"),
                "check the path and its permissions".into(),
            )
        })?
        .len();
    if size > MAX_BYTES {
        return Err(fail(
            None,
            None,
            format!("{size} bytes is over the {MAX_BYTES}-byte limit of a settings file"),
            "veer.toml holds a few settings; is this the right file?".into(),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        fail(
            None,
            None,
            format!("cannot read: {e}"),
            "check the path and its permissions".into(),
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u64;
        fail(
            Some(line),
            None,
            "not UTF-8 text".into(),
            "save the file as UTF-8".into(),
        )
    })?;
    let line_of = |offset: usize| -> u64 {
        1 + text.as_bytes()[..offset.min(text.len())]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u64
    };
    let root = toml::de::DeTable::parse(&text).map_err(|e| {
        let line = e.span().map(|s| line_of(s.start));
        fail(
            line,
            None,
            format!("not valid TOML: {}", e.message()),
            "see docs/config.md for the file's layout, or run `veer init` for a commented example"
                .into(),
        )
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut settings = Vec::new();
    let mut problems: Vec<CliError> = Vec::new();
    let unknown = |name: &str, line: u64, candidates: Vec<&'static str>| {
        let (prefix, short) = match name.rsplit_once('.') {
            Some((table, short)) => (format!("{table}."), short),
            None => (String::new(), name),
        };
        let hint = match keys::closest(short, candidates.iter().copied()) {
            Some(c) => {
                format!("did you mean `{prefix}{c}`? (the keys are listed in docs/config.md)")
            }
            None => format!("known keys here: {}", candidates.join(", ")),
        };
        fail(
            Some(line),
            Some(name),
            format!("unknown key `{name}`"),
            hint,
        )
    };
    let tables = keys::tables();
    let top_names: Vec<&'static str> = KEYS
        .iter()
        .filter(|k| !k.name.contains('.'))
        .map(|k| k.name)
        .chain(tables.iter().copied())
        .collect();
    let mut entries: Vec<_> = root.get_ref().iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    for (k, v) in entries {
        let name = k.get_ref().as_ref();
        let line = line_of(k.span().start);
        if tables.contains(&name) {
            let Some(table) = v.get_ref().as_table() else {
                problems.push(fail(
                    Some(line),
                    Some(name),
                    format!("`{name}` must be a table ([{name}])"),
                    format!("write the section as [{name}] followed by its keys"),
                ));
                continue;
            };
            let names: Vec<&'static str> = KEYS
                .iter()
                .filter_map(|k| k.name.strip_prefix(name).and_then(|r| r.strip_prefix('.')))
                .collect();
            let mut inner: Vec<_> = table.iter().collect();
            inner.sort_by_key(|(k, _)| k.span().start);
            for (ik, iv) in inner {
                let short = ik.get_ref().as_ref();
                let full = format!("{name}.{short}");
                let iline = line_of(ik.span().start);
                match keys::key(&full) {
                    Some(key) => match value(key, iv.get_ref(), dir, &full) {
                        Ok(values) => {
                            settings.extend(values.into_iter().map(|(axis, value, l)| Setting {
                                key,
                                axis,
                                value,
                                line: l.map_or(iline, line_of),
                            }))
                        }
                        Err((m, h)) => problems.push(fail(Some(iline), Some(&full), m, h)),
                    },
                    None => {
                        let candidates = names.clone();
                        let e = unknown(&full, iline, candidates);
                        // A top-level key written inside a table is a common slip.
                        problems.push(match keys::key(short) {
                            Some(_) => e.hint(format!(
                                "`{short}` is a top-level key: move it above the first [table]"
                            )),
                            None => e,
                        });
                    }
                }
            }
            continue;
        }
        match keys::key(name).filter(|k| !k.name.contains('.')) {
            Some(key) => match value(key, v.get_ref(), dir, name) {
                Ok(values) => settings.extend(values.into_iter().map(|(axis, value, _)| Setting {
                    key,
                    axis,
                    value,
                    line,
                })),
                Err((m, h)) => problems.push(fail(Some(line), Some(name), m, h)),
            },
            None => problems.push(unknown(name, line, top_names.clone())),
        }
    }
    if let Some(mut first) = problems.first().cloned() {
        first.more = problems[1..].iter().map(|p| p.message.clone()).collect();
        return Err(first);
    }
    settings.sort_by_key(|s| {
        (
            KEYS.iter().position(|k| k.name == s.key.name),
            s.axis.clone(),
        )
    });
    Ok(Config {
        path: path.to_path_buf(),
        origin,
        settings,
    })
}

type Problem = (String, String);

/// The flag values of one key's TOML value: `(axis, value, offset of the axis key)`.
#[allow(clippy::type_complexity)]
fn value(
    key: &keys::Key,
    v: &toml::de::DeValue<'_>,
    dir: &Path,
    name: &str,
) -> Result<Vec<(Option<String>, String, Option<usize>)>, Problem> {
    let example = || format!("e.g. {}", key.example_line());
    let kind_error = |want: &str| {
        (
            format!("`{name}` must be {want}, not {}", v.type_str()),
            example(),
        )
    };
    let checked = |s: String| -> Result<String, Problem> {
        keys::check(key, &s).map_err(|m| (format!("`{name}`: {m}"), example()))?;
        Ok(s)
    };
    match key.kind {
        Kind::Path => {
            let s = v.as_str().ok_or_else(|| kind_error("a string (a path)"))?;
            if s.is_empty() {
                return Err((format!("`{name}` is empty"), example()));
            }
            let p = Path::new(s);
            let joined = if p.is_absolute() {
                p.to_path_buf()
            } else {
                dir.join(p)
            };
            Ok(vec![(None, checked(joined.display().to_string())?, None)])
        }
        Kind::Text => {
            let s = v.as_str().ok_or_else(|| kind_error("a string"))?;
            if s.trim().is_empty() {
                return Err((format!("`{name}` is empty"), example()));
            }
            Ok(vec![(None, checked(s.to_string())?, None)])
        }
        Kind::Unsigned => {
            let i = v.as_integer().ok_or_else(|| kind_error("a whole number"))?;
            let n = u64::from_str_radix(
                i.as_str().replace('_', "").trim_start_matches('+'),
                i.radix(),
            )
            .map_err(|_| kind_error("a whole number from 0 to 18446744073709551615"))?;
            Ok(vec![(None, checked(n.to_string())?, None)])
        }
        Kind::Number => {
            let s = if let Some(f) = v.as_float() {
                f.as_str().replace('_', "")
            } else if let Some(i) = v.as_integer() {
                i.as_str().replace('_', "")
            } else {
                return Err(kind_error("a number"));
            };
            Ok(vec![(None, checked(s)?, None)])
        }
        Kind::Bool => {
            let b = v.as_bool().ok_or_else(|| kind_error("true or false"))?;
            Ok(vec![(None, checked(b.to_string())?, None)])
        }
        Kind::Margins => {
            let table = v
                .as_table()
                .ok_or_else(|| kind_error("a table of AXIS = \"N%\" or N"))?;
            let mut out = Vec::new();
            let mut entries: Vec<_> = table.iter().collect();
            entries.sort_by_key(|(k, _)| k.span().start);
            for (k, m) in entries {
                let axis = k.get_ref().as_ref();
                let text = if let Some(s) = m.get_ref().as_str() {
                    s.to_string()
                } else if let Some(f) = m.get_ref().as_float() {
                    f.as_str().to_string()
                } else if let Some(i) = m.get_ref().as_integer() {
                    i.as_str().to_string()
                } else {
                    return Err((
                        format!(
                            "`{name}.{axis}` must be \"N%\" or a number, not {}",
                            m.get_ref().type_str()
                        ),
                        "e.g. latency = \"20%\" or latency = 50".into(),
                    ));
                };
                let flag = format!("{axis}={text}");
                keys::check(key, &flag).map_err(|e| {
                    (
                        format!("`{name}.{axis}`: {e}"),
                        "e.g. latency = \"20%\" or behaviour = 0.1".to_string(),
                    )
                })?;
                out.push((Some(axis.to_string()), flag, Some(k.span().start)));
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<Config, CliError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, text).unwrap();
        let r = load(&path, Origin::Flag);
        drop(dir);
        r
    }

    #[test]
    fn reads_keys_with_lines_and_relative_paths() {
        let c = load_text(
            "# settings\npolicy = \"p.yaml\"\n\n[diff]\nfail_on = \"moderate\"\nseed = 7\n[trials]\nalpha = 0.01\n[trials.margins]\nlatency = \"30%\"\nbehaviour = 0.2\n",
        )
        .unwrap();
        let policy = c.get("policy").next().unwrap();
        assert_eq!(policy.line, 2);
        assert!(policy.value.ends_with("/p.yaml") && Path::new(&policy.value).is_absolute());
        assert_eq!(c.get("diff.fail_on").next().unwrap().line, 5);
        assert_eq!(c.get("diff.seed").next().unwrap().value, "7");
        assert_eq!(c.get("trials.alpha").next().unwrap().value, "0.01");
        let margins: Vec<(&str, u64)> = c
            .get("trials.margins")
            .map(|s| (s.value.as_str(), s.line))
            .collect();
        assert_eq!(margins, [("behaviour=0.2", 11), ("latency=30%", 10)]);
    }

    #[test]
    fn unknown_keys_name_line_and_a_suggestion() {
        let e = load_text("[diff]\nseed = 1\nfail-on = \"severe\"\n").unwrap_err();
        assert!(
            e.message.contains(":3: unknown key `diff.fail-on`"),
            "{}",
            e.message
        );
        assert_eq!(e.line, Some(3));
        assert!(e.hint.unwrap().contains("`diff.fail_on`"));
        let e = load_text("polcy = \"x\"\n").unwrap_err();
        assert!(e.hint.unwrap().contains("`policy`"));
        let e = load_text("[dif]\nseed = 1\n").unwrap_err();
        assert!(e.message.contains("unknown key `dif`"), "{}", e.message);
        assert!(e.hint.unwrap().contains("`diff`"));
        let e = load_text("[diff]\npolicy = \"p.yaml\"\n").unwrap_err();
        assert!(e.hint.unwrap().contains("top-level"));
    }

    #[test]
    fn bad_values_are_errors_not_panics() {
        for (text, needle) in [
            ("[diff]\nfail_on = \"loud\"\n", "`diff.fail_on`"),
            ("[diff]\nseed = -1\n", "whole number"),
            ("[diff]\nseed = \"7\"\n", "whole number"),
            ("[diff]\nseed = 99999999999999999999999\n", "whole number"),
            ("[trials]\nalpha = 2.0\n", "(0, 1)"),
            ("[trials.margins]\nspeed = \"20%\"\n", "unknown axis"),
            ("[trials.margins]\nlatency = true\n", "must be"),
            ("diff = 3\n", "must be a table"),
            ("policy = \"\"\n", "empty"),
            ("[diff\n", "not valid TOML"),
            ("a = \"\u{0}\"", "not valid TOML"),
        ] {
            let e = load_text(text).unwrap_err();
            let all = format!("{} {:?}", e.message, e.more);
            assert!(all.contains(needle), "{text:?}: {all}");
            assert_eq!(e.exit_code(), 2);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, b"policy = \"\xff\"\n").unwrap();
        assert!(load(&path, Origin::Flag)
            .unwrap_err()
            .message
            .contains("UTF-8"));
    }

    #[test]
    fn the_walk_stops_at_the_repository_root() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let deep = repo.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(tmp.path().join(FILE_NAME), "").unwrap();
        // Without a .git the walk goes on up to the file above.
        assert_eq!(find_from(&deep), Some(tmp.path().join(FILE_NAME)));
        std::fs::create_dir(repo.join(".git")).unwrap();
        assert_eq!(find_from(&deep), None);
        std::fs::write(repo.join(FILE_NAME), "").unwrap();
        assert_eq!(find_from(&deep), Some(repo.join(FILE_NAME)));
    }

    #[test]
    fn the_docs_example_file_is_valid_and_sets_every_key() {
        let docs = include_str!("../../../../docs/config.md");
        let from = docs
            .find("```toml\n")
            .expect("docs/config.md has an example")
            + 8;
        let to = from + docs[from..].find("```").expect("the example ends");
        let c = load_text(&docs[from..to]).unwrap_or_else(|e| panic!("{}", e.message));
        for k in KEYS {
            assert!(
                c.get(k.name).next().is_some(),
                "the example sets no `{}`",
                k.name
            );
        }
    }
}
