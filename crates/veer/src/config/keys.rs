//! The keys `veer.toml` accepts, each declared once, on one line of [`KEYS`]: its dotted name,
//! the TOML kind of its value, the flags it stands for (subcommand and clap argument id, with
//! the rule that limits when the file fills that flag), an example for hints and, for a flag
//! without a default, what `veer config show` says when it is unset. Everything else about a
//! key — its flag's spelling, its default, the parser that checks a value — is read from the
//! clap definition of the command line itself ([`super::flags`]), so a key cannot drift from
//! its flag. The key table of docs/config.md is generated from this declaration, and a unit
//! test fails when the two differ.

use super::flags;

/// How a key's value is written in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A path, relative to the file's directory unless absolute.
    Path,
    /// A string.
    Text,
    /// A whole number ≥ 0.
    Unsigned,
    /// A number (integer or float).
    Number,
    /// A table of AXIS = "N%" | N (the trials margins), one flag value per axis.
    Margins,
    /// `true` or `false` (a switch such as `--allow-missing`).
    Bool,
}

#[cfg(test)]
impl Kind {
    /// How the docs' key table names the kind.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Path => "path",
            Kind::Text => "string",
            Kind::Unsigned => "whole number",
            Kind::Number => "number",
            Kind::Margins => "table of AXIS = \"N%\" or N",
            Kind::Bool => "`true` or `false`",
        }
    }
}

/// When the file's value fills a flag the command line did not give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Always.
    Always,
    /// Only when `veer diff` is given one path (the candidate directory): with two paths they
    /// are compared as given.
    OnePath,
    /// Only when `--format` is not given either: the configured output file is for the
    /// configured format.
    FormatNotGiven,
    /// Never by itself: the value only replaces the path of a bare flag (`--history` without
    /// `=PATH`), so the setting never turns the flag on.
    BareFlag,
}

/// Where one key applies: a subcommand and the clap id of its argument.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The subcommand path, its names separated by a space: `diff`, `history show`.
    pub command: &'static str,
    /// The clap argument id (for `ArgMatches::value_source`, and the field it fills).
    pub id: &'static str,
    /// When the file fills it.
    pub rule: Rule,
}

impl Target {
    /// Whether this target belongs to the subcommand path `path` (`["history", "show"]`).
    pub fn is_for(&self, path: &[String]) -> bool {
        self.command.split(' ').eq(path.iter().map(String::as_str))
    }
}

/// A check of a value beyond its flag's parser: `Err` says what is accepted.
pub type Check = fn(&str) -> Result<(), String>;

/// One key of `veer.toml`.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// The dotted name: `policy`, `diff.fail_on`, `trials.margins`.
    pub name: &'static str,
    /// The value's kind.
    pub kind: Kind,
    /// The flags it stands for, in the order `veer config show` and the docs list them.
    pub targets: &'static [Target],
    /// An example value as written in the file (for hints); for [`Kind::Margins`], one
    /// `AXIS = VALUE` line of the table.
    pub example: &'static str,
    /// What `veer config show` says when neither the file nor a flag sets the key and its
    /// flags have no default (`(none)`, `(stdout)`); `None` when a flag has a default.
    pub unset: Option<&'static str>,
    /// A check beyond the flag's parser, for a flag whose value is only checked once the
    /// command runs; the message says what is accepted.
    pub check: Option<Check>,
}

impl Key {
    /// The value `veer config show` gives when the key is not set: the first of its flags'
    /// defaults (`veer diff --history` has none; `veer history --db` has the same path), else
    /// [`Key::unset`].
    pub fn default_shown(&self) -> String {
        self.targets
            .iter()
            .find_map(flags::default_of)
            .or_else(|| self.unset.map(str::to_string))
            .unwrap_or_default()
    }

    /// An example line for hints: `[diff] fail_on = "severe"`.
    pub fn example_line(&self) -> String {
        match (self.kind, self.name.split_once('.')) {
            (Kind::Margins, _) => format!("[{}] {}", self.name, self.example),
            (_, Some((table, short))) => format!("[{table}] {short} = {}", self.example),
            (_, None) => format!("{} = {}", self.name, self.example),
        }
    }
}

/// Declares [`KEYS`], one key a line:
/// `NAME KIND [COMMAND ID (if RULE)?, …] e.g. EXAMPLE (unset SHOWN)? (check FN)?;`.
macro_rules! keys {
    ($(
        $name:literal $kind:ident [$($command:literal $id:literal $(if $rule:ident)?),+]
        e.g. $example:literal $(unset $unset:literal)? $(check $check:path)? ;
    )*) => {
        /// Every key, in the order `veer config show` lists them.
        pub const KEYS: &[Key] = &[$(Key {
            name: $name,
            kind: Kind::$kind,
            targets: &[$(Target {
                command: $command,
                id: $id,
                rule: keys!(@rule $($rule)?),
            }),+],
            example: $example,
            unset: keys!(@some $($unset)?),
            check: keys!(@some $($check)?),
        }),*];
    };
    (@rule) => { Rule::Always };
    (@rule $rule:ident) => { Rule::$rule };
    (@some) => { None };
    (@some $v:expr) => { Some($v) };
}

#[rustfmt::skip]
keys! {
    // key                  kind     [subcommand arg-id (if rule)]  e.g. example  (unset shown)
    "policy"                Path     ["diff" "policy", "check" "policy", "mine" "policy"] e.g. "\"veer-policy.yaml\"" unset "(none)";
    "pricing"               Path     ["diff" "pricing"] e.g. "\"pricing.json\"" unset "(none)";
    "baseline"              Text     ["diff" "stored_baseline" if OnePath] e.g. "\"main\"" unset "(none)";
    "history"               Path     ["diff" "history" if BareFlag, "history add" "db", "history show" "db", "history report" "db", "history export" "db"] e.g. "\".veer/history.sqlite\"";
    "diff.fail_on"          Text     ["diff" "fail_on"] e.g. "\"severe\"";
    "diff.fail_on_schema"   Text     ["diff" "fail_on_schema"] e.g. "\"breaking\"";
    "diff.pair_by"          Text     ["diff" "pair_by"] e.g. "\"auto\"";
    "diff.seed"             Unsigned ["diff" "seed"] e.g. "42";
    "diff.format"           Text     ["diff" "format"] e.g. "\"markdown\"";
    "diff.output"           Path     ["diff" "output" if FormatNotGiven] e.g. "\"veer-report.md\"" unset "(stdout)";
    "check.fail_on"         Text     ["check" "fail_on"] e.g. "\"severe\"";
    "check.format"          Text     ["check" "format"] e.g. "\"markdown\"";
    "check.output"          Path     ["check" "output" if FormatNotGiven] e.g. "\"veer-report.md\"" unset "(stdout)";
    "trials.mode"           Text     ["diff" "trials"] e.g. "\"auto\"";
    "trials.case_pattern"   Text     ["diff" "case_pattern"] e.g. "'^(?P<case>[^/]+)/'" unset "(none)" check case_pattern;
    "trials.alpha"          Number   ["diff" "alpha"] e.g. "0.05";
    "trials.allow_missing"  Bool     ["diff" "allow_missing"] e.g. "true";
    "trials.margins"        Margins  ["diff" "margin"] e.g. "latency = \"20%\"" unset "(the defaults of docs/trials.md)";
    "mine.cases"            Unsigned ["mine" "cases"] e.g. "12" unset "(chosen by silhouette)";
    "mine.per_case"         Unsigned ["mine" "per_case"] e.g. "3";
    "mine.seed"             Unsigned ["mine" "seed"] e.g. "42";
}

/// `trials.case_pattern`: a regular expression with a named group `case` (the flag's value is
/// only checked once `veer diff` runs; the file's is checked when it is read).
fn case_pattern(s: &str) -> Result<(), String> {
    let re = regex::Regex::new(s).map_err(|e| format!("not a regular expression: {e}"))?;
    if re.capture_names().flatten().any(|n| n == "case") {
        Ok(())
    } else {
        Err("the pattern needs a named group `case`, e.g. '^(?P<case>[^/]+)/'".to_string())
    }
}

/// The tables a key may sit in: the first part of every dotted name, in declaration order.
pub fn tables() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for k in KEYS {
        if let Some((table, _)) = k.name.split_once('.') {
            if !out.contains(&table) {
                out.push(table);
            }
        }
    }
    out
}

/// The key named `name`.
pub fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// Checks one value of `key` as its flags take it (`AXIS=VALUE` for a margin): every flag's
/// own parser, then the key's further check. The message says what is accepted.
pub fn check(key: &Key, value: &str) -> Result<(), String> {
    for target in key.targets {
        flags::check(target, value)?;
    }
    key.check.map_or(Ok(()), |f| f(value))
}

/// The key table of docs/config.md, generated from [`KEYS`] and the flags' definitions: key,
/// kind, flags and default, one row a key.
#[cfg(test)]
pub fn docs_table() -> String {
    let mut out = String::from("| key | value | flags | default |\n|---|---|---|---|\n");
    for k in KEYS {
        let targets: Vec<String> = k
            .targets
            .iter()
            .map(|t| format!("`{} {}`", t.command, flags::flag_of(t)))
            .collect();
        let default = match k.unset {
            Some(text) => text.to_string(),
            None => format!("`{}`", k.default_shown()),
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {default} |\n",
            k.name,
            k.kind.label(),
            targets.join(", ")
        ));
    }
    out
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
    fn every_key_is_unique_and_every_target_is_a_flag() {
        assert_eq!(tables(), ["diff", "check", "trials", "mine"]);
        for (i, k) in KEYS.iter().enumerate() {
            assert!(KEYS[..i].iter().all(|o| o.name != k.name), "{}", k.name);
            for t in k.targets {
                assert!(
                    flags::argument(t).is_some(),
                    "{}: `{}` has no argument `{}`",
                    k.name,
                    t.command,
                    t.id
                );
            }
        }
    }

    #[test]
    fn a_key_shows_its_flags_default_or_says_what_unset_means() {
        for k in KEYS {
            let has_default = k.targets.iter().any(|t| flags::default_of(t).is_some());
            assert_ne!(
                has_default,
                k.unset.is_some(),
                "{}: declare `unset` exactly when no flag has a default",
                k.name
            );
        }
        assert_eq!(key("diff.fail_on").unwrap().default_shown(), "never");
        assert_eq!(key("check.fail_on").unwrap().default_shown(), "severe");
        assert_eq!(key("diff.pair_by").unwrap().default_shown(), "auto");
        assert_eq!(key("diff.fail_on_schema").unwrap().default_shown(), "never");
        assert_eq!(key("trials.alpha").unwrap().default_shown(), "0.05");
        assert_eq!(
            key("history").unwrap().default_shown(),
            crate::cli::DEFAULT_HISTORY_DB
        );
        assert_eq!(key("diff.output").unwrap().default_shown(), "(stdout)");
    }

    #[test]
    fn values_are_checked_like_flags() {
        let ok = |name: &str, v: &str| check(key(name).unwrap(), v);
        assert!(ok("diff.fail_on", "severe").is_ok());
        assert!(ok("diff.fail_on", "inconclusive").is_ok());
        assert!(ok("diff.fail_on_schema", "breaking").is_ok());
        assert!(ok("diff.fail_on_schema", "severe").is_err());
        assert_eq!(
            ok("diff.fail_on", "loud").unwrap_err(),
            crate::cli::parse_diff_fail_on("loud").unwrap_err()
        );
        assert!(ok("check.fail_on", "inconclusive").is_err());
        assert!(ok("diff.format", "gitlab").is_ok());
        assert_eq!(
            ok("diff.format", "pdf").unwrap_err(),
            "`pdf` is not one of terminal, json, markdown, junit, html, sarif, github, gitlab"
        );
        assert_eq!(
            ok("diff.pair_by", "Auto").unwrap_err(),
            "`Auto` is not one of auto, index, alignment"
        );
        assert_eq!(
            ok("trials.alpha", "1.5").unwrap_err(),
            "`1.5` is not a level in (0, 1), e.g. 0.05"
        );
        assert!(ok("trials.case_pattern", "^(?P<case>[^/]+)/").is_ok());
        assert!(ok("trials.case_pattern", "^([^/]+)/").is_err());
        assert!(ok("trials.case_pattern", "-x(?P<case>.)").is_ok());
        assert!(ok("trials.margins", "latency=20%").is_ok());
        assert!(ok("trials.margins", "speed=20%")
            .unwrap_err()
            .starts_with("unknown axis `speed`"));
        assert!(ok("trials.allow_missing", "true").is_ok());
        assert!(ok("diff.seed", "7").is_ok());
        assert!(ok("policy", "-odd name.yaml").is_ok());
    }

    #[test]
    fn examples_name_their_table() {
        assert_eq!(
            key("diff.fail_on").unwrap().example_line(),
            "[diff] fail_on = \"severe\""
        );
        assert_eq!(
            key("policy").unwrap().example_line(),
            "policy = \"veer-policy.yaml\""
        );
        assert_eq!(
            key("trials.margins").unwrap().example_line(),
            "[trials.margins] latency = \"20%\""
        );
    }

    #[test]
    fn the_docs_key_table_is_the_declaration() {
        let docs = include_str!("../../../../docs/config.md");
        let start = "<!-- keys: generated from crates/veer/src/config/keys.rs -->\n";
        let end = "<!-- end of keys -->";
        let from = docs
            .find(start)
            .expect("docs/config.md has the keys marker")
            + start.len();
        let to = from
            + docs[from..]
                .find(end)
                .expect("docs/config.md ends the keys table");
        let want = docs_table();
        assert!(
            docs[from..to] == want,
            "docs/config.md's key table is out of date; replace it with:\n{want}"
        );
    }
}
