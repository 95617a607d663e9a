//! Which trace files of a directory are trials of the same case.
//!
//! `veer diff BASE_DIR CAND_DIR` used to pair files by relative path, so with several runs per
//! case `run-1` met `run-1` — an arbitrary pairing of exchangeable runs. This module groups each
//! side's files into cases with their trials, by (first rule that applies):
//!
//! 1. `--case-pattern REGEX` on the relative path (named groups `case` and, optionally,
//!    `trial`);
//! 2. the trace's own metadata record: `payload.case` (and `payload.trial`), written by
//!    `veer record --case/--trial` and by converted formats that carry a sample id and an epoch;
//! 3. the file name: `CASE/trial-N.agentlog` or `CASE/003.agentlog` (a subdirectory per case),
//!    siblings `NAME.N.EXT`, or a trailing number after `-` or `_` (`refund-2.agentlog`,
//!    `trial_02.json`). A trailing number after a word that names a case rather than a run
//!    (`pair-00003`, `case-7`, `sample_12`, …) identifies a case, and a number glued to a word
//!    (`s1`, `run2`) is part of the name: such files stay one case each.
//!
//! Cases pair by key; trials are never paired by number. Whether the directory has trials at
//! all is [`Layout::has_trials`]: when no case has more than one trial on either side, the
//! caller keeps the path-paired report.

use regex::Regex;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use super::listing::{list_cases, Layout};
use veer_contract::trials::KeySource;

/// Words before a trailing number that name a run of the same case (`run-3` is trial 3).
const TRIAL_WORDS: &[&str] = &[
    "run",
    "runs",
    "trial",
    "trials",
    "epoch",
    "attempt",
    "rep",
    "repeat",
    "repetition",
    "try",
    "seed",
    "iter",
    "iteration",
];

/// Words before a trailing number that name a case (`pair-00003` is a case of its own).
const CASE_WORDS: &[&str] = &[
    "pair", "case", "sample", "task", "example", "item", "test", "scenario", "ticket", "question",
    "q", "id", "prompt", "instance", "problem",
];

/// Where a listed file is on disk, without a full path per file: most files are their
/// directory root (shared by every file of the side) joined with their relative name; a file
/// whose name is not valid UTF-8 (its relative name is lossy) keeps its own path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `root.join(name)` is the file; the root is shared by the whole side.
    Joined(Arc<Path>),
    /// The file's own path (its relative name cannot be joined back to it).
    Whole(Arc<Path>),
}

/// One trial: a trace file and the trial label its name or metadata gave (for the report).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrialFile {
    /// Relative path inside its directory (`/`-separated).
    pub name: Box<str>,
    /// Where the file is: its side's root (joined with `name` when the file is opened), or its
    /// own path.
    pub origin: Origin,
    /// The trial id from the pattern, metadata or file name, when there is one.
    pub trial: Option<Box<str>>,
}

impl TrialFile {
    /// The file's path (built when the file is opened, never held per file).
    pub fn path(&self) -> PathBuf {
        match &self.origin {
            Origin::Joined(root) => root.join(&*self.name),
            Origin::Whole(path) => path.to_path_buf(),
        }
    }
}

/// One case: its key and each side's trials (sorted by relative path; trials are exchangeable,
/// the order only makes the output deterministic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The case key both sides share.
    pub key: String,
    /// Baseline trials (empty: the case is on the candidate side only).
    pub baseline: Vec<TrialFile>,
    /// Candidate trials (empty: the case is on the baseline side only).
    pub candidate: Vec<TrialFile>,
}

/// A validated `--case-pattern`: a regular expression with a named group `case` (and
/// optionally `trial`), matched against each file's relative path (`/`-separated).
#[derive(Debug, Clone)]
pub struct CasePattern(Regex);

/// A `--case-pattern` that cannot be used: the message and a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

impl CasePattern {
    /// Compiles `pattern`; an error when it is not a regular expression or has no `case`
    /// group.
    pub fn new(pattern: &str) -> Result<CasePattern, PatternError> {
        let hint = "e.g. --case-pattern '^(?P<case>[^/]+)/run-(?P<trial>[0-9]+)' (named groups `case` and, optionally, `trial`; matched against each file's path relative to the directory)";
        let re = regex::RegexBuilder::new(pattern)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| PatternError {
                message: format!("--case-pattern: not a regular expression: {e}"),
                hint: hint.to_string(),
            })?;
        if !re.capture_names().flatten().any(|n| n == "case") {
            return Err(PatternError {
                message: format!("--case-pattern `{pattern}` has no named group `case`"),
                hint: hint.to_string(),
            });
        }
        Ok(CasePattern(re))
    }

    /// The case and trial of `name`, when the pattern matches it and its `case` group is set.
    fn key(&self, name: &str) -> Option<(String, Option<String>)> {
        let m = self.0.captures(name)?;
        let case = m.name("case")?.as_str().to_string();
        let trial = m.name("trial").map(|t| t.as_str().to_string());
        Some((case, trial))
    }
}

/// A trace's own identity: the case and trial its metadata record names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceIdentity {
    /// `payload.case` of the metadata record.
    pub case: String,
    /// `payload.trial` of the metadata record, when present.
    pub trial: Option<String>,
}

/// Bytes read from the head of a file to find its metadata record (a first line longer than
/// this is not looked at).
const PEEK_BYTES: u64 = 64 * 1024;

/// The case and trial named by the first record of an `.agentlog` file, when it is a
/// `metadata` record whose payload has a `case` (a string or a number). Reads at most the first
/// 64 KiB; any other file, or any problem, is `None` (the full read later reports problems).
pub fn peek_identity(path: &Path) -> Option<TraceIdentity> {
    let name = path.file_name()?.to_str()?;
    if !name.ends_with(".agentlog") {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut line = String::new();
    BufReader::new(file.take(PEEK_BYTES))
        .read_line(&mut line)
        .ok()?;
    identity_of_line(&line)
}

/// [`peek_identity`] of one line of JSON.
pub(crate) fn identity_of_line(line: &str) -> Option<TraceIdentity> {
    let v: serde_json::Value = serde_json::from_str(line.trim_end()).ok()?;
    if v.get("kind")?.as_str()? != "metadata" {
        return None;
    }
    let payload = v.get("payload")?;
    let label = |x: &serde_json::Value| match x {
        serde_json::Value::String(s) if !s.is_empty() => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    Some(TraceIdentity {
        case: label(payload.get("case")?)?,
        trial: payload.get("trial").and_then(label),
    })
}

/// The name without its trace extension (`.agentlog`, `.json`, `.jsonl`, each optionally
/// `.gz`), and that extension.
fn split_extension(file: &str) -> (&str, &str) {
    let base = file.strip_suffix(".gz").unwrap_or(file);
    match base.rfind('.') {
        Some(i) if i > 0 => (&file[..i], &file[i..]),
        _ => (file, ""),
    }
}

/// The case key, trial and rule of a relative path by its name alone (rule 3 of the module
/// docs).
pub(crate) fn key_of_name(name: &str) -> (String, Option<String>, KeySource) {
    let (dir, file) = match name.rfind('/') {
        Some(i) => (&name[..i], &name[i + 1..]),
        None => ("", name),
    };
    let (stem, _) = split_extension(file);
    let joined = |tail: &str| {
        if dir.is_empty() {
            tail.to_string()
        } else {
            format!("{dir}/{tail}")
        }
    };
    // Siblings NAME.N.EXT.
    if let Some((base, n)) = stem.rsplit_once('.') {
        if !base.is_empty() && is_number(n) {
            return (joined(base), Some(trim_number(n)), KeySource::Siblings);
        }
    }
    let (prefix, number) = if is_number(stem) {
        ("", stem)
    } else {
        match stem.rfind(['-', '_']) {
            Some(i) if is_number(&stem[i + 1..]) => (&stem[..i], &stem[i + 1..]),
            _ => return (joined(stem), None, KeySource::Path),
        }
    };
    let word = prefix.to_ascii_lowercase();
    if CASE_WORDS.contains(&word.as_str()) {
        return (joined(stem), None, KeySource::Path);
    }
    let trial = Some(trim_number(number));
    if prefix.is_empty() || TRIAL_WORDS.contains(&word.as_str()) {
        if dir.is_empty() {
            let key = if prefix.is_empty() { "." } else { prefix };
            return (key.to_string(), trial, KeySource::TrailingNumber);
        }
        return (dir.to_string(), trial, KeySource::Subdirectory);
    }
    (joined(prefix), trial, KeySource::TrailingNumber)
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit())
}

/// `"002"` → `"2"` (a trial label as a number; `"0"` stays).
fn trim_number(s: &str) -> String {
    let t = s.trim_start_matches('0');
    if t.is_empty() { "0" } else { t }.to_string()
}

/// One file's key by the rules in order (module docs).
pub(super) fn key_of(
    name: &str,
    path: impl FnOnce() -> PathBuf,
    pattern: Option<&CasePattern>,
    peek: &(impl Fn(&Path) -> Option<TraceIdentity> + Sync),
) -> (String, Option<String>, KeySource) {
    if let Some(p) = pattern {
        return match p.key(name) {
            Some((case, trial)) => (case, trial, KeySource::Pattern),
            None => (split_extension(name).0.to_string(), None, KeySource::Path),
        };
    }
    if let Some(id) = peek(&path()) {
        let (_, trial, _) = key_of_name(name);
        return (id.case, id.trial.or(trial), KeySource::Metadata);
    }
    key_of_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trials::listing::group_names;

    fn key(name: &str) -> (String, Option<String>, KeySource) {
        key_of_name(name)
    }

    #[test]
    fn trailing_numbers_siblings_and_subdirectories() {
        use KeySource::*;
        assert_eq!(
            key("refund/run-1.agentlog"),
            ("refund".into(), Some("1".into()), Subdirectory)
        );
        assert_eq!(
            key("refund/trial_02.json"),
            ("refund".into(), Some("2".into()), Subdirectory)
        );
        assert_eq!(
            key("refund/003.agentlog"),
            ("refund".into(), Some("3".into()), Subdirectory)
        );
        assert_eq!(
            key("refund.2.agentlog"),
            ("refund".into(), Some("2".into()), Siblings)
        );
        assert_eq!(
            key("a/refund.10.agentlog.gz"),
            ("a/refund".into(), Some("10".into()), Siblings)
        );
        assert_eq!(
            key("refund-2.agentlog"),
            ("refund".into(), Some("2".into()), TrailingNumber)
        );
        assert_eq!(
            key("run-1.agentlog"),
            ("run".into(), Some("1".into()), TrailingNumber)
        );
        assert_eq!(
            key("007.agentlog"),
            (".".into(), Some("7".into()), TrailingNumber)
        );
    }

    #[test]
    fn names_that_are_cases_of_their_own() {
        use KeySource::Path;
        assert_eq!(
            key("pair-00003.agentlog"),
            ("pair-00003".into(), None, Path)
        );
        assert_eq!(key("s1.agentlog"), ("s1".into(), None, Path));
        assert_eq!(key("team/er.agentlog"), ("team/er".into(), None, Path));
        assert_eq!(key("case_7.json"), ("case_7".into(), None, Path));
    }

    /// Groups names under `/root` (baseline) and `/root` (candidate), in memory.
    fn group(
        baseline: &[&str],
        candidate: &[&str],
        pattern: Option<&CasePattern>,
        peek: impl Fn(&std::path::Path) -> Option<TraceIdentity> + Sync,
    ) -> Layout {
        let root = std::path::Path::new("/root");
        group_names([root, root], baseline, candidate, pattern, peek, usize::MAX).unwrap()
    }

    fn cases(l: &Layout) -> Vec<Case> {
        l.cases().unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn cases_pair_by_key_and_k_may_differ() {
        let l = group(
            &["a/run-1.agentlog", "a/run-2.agentlog", "b/run-1.agentlog"],
            &["a/run-7.agentlog", "c/run-1.agentlog", "c/run-2.agentlog"],
            None,
            |_| None,
        );
        assert!(l.has_trials());
        let cs = cases(&l);
        let shape: Vec<(&str, usize, usize)> = cs
            .iter()
            .map(|c| (c.key.as_str(), c.baseline.len(), c.candidate.len()))
            .collect();
        assert_eq!(shape, [("a", 2, 1), ("b", 1, 0), ("c", 0, 2)]);
        assert_eq!(l.trial_counts(), (3, 3));
    }

    #[test]
    fn one_trial_per_case_is_not_a_trials_layout() {
        let l = group(
            &["demo.agentlog", "team/er.agentlog"],
            &["demo.agentlog", "team/er.agentlog"],
            None,
            |_| None,
        );
        assert!(!l.has_trials());
    }

    #[test]
    fn metadata_takes_precedence_and_a_pattern_over_it() {
        let peek = |p: &Path| {
            Some(TraceIdentity {
                case: format!("meta-{}", p.display().to_string().len() % 2),
                trial: None,
            })
        };
        let l = group(&["x.agentlog", "yy.agentlog"], &["x.agentlog"], None, peek);
        assert_eq!(
            l.sources,
            std::collections::BTreeSet::from([KeySource::Metadata])
        );
        assert_eq!(l.len(), 2);
        let p = CasePattern::new("^(?P<case>[a-z])").unwrap();
        let l = group(
            &["x1.agentlog", "x2.agentlog"],
            &["x3.agentlog"],
            Some(&p),
            peek,
        );
        assert_eq!(l.len(), 1);
        assert_eq!(cases(&l)[0].key, "x");
        assert!(l.has_trials());
    }

    #[test]
    fn bad_patterns_are_errors_with_hints() {
        let e = CasePattern::new("(").unwrap_err();
        assert!(e.message.contains("not a regular expression"), "{e:?}");
        let e = CasePattern::new("(?P<trial>[0-9]+)").unwrap_err();
        assert!(e.message.contains("no named group `case`"), "{e:?}");
        assert!(e.hint.contains("--case-pattern"));
    }

    #[test]
    fn identity_from_a_metadata_line() {
        let line = r#"{"kind":"metadata","payload":{"case":"refund","trial":3}}"#;
        assert_eq!(
            identity_of_line(line),
            Some(TraceIdentity {
                case: "refund".into(),
                trial: Some("3".into())
            })
        );
        assert_eq!(
            identity_of_line(r#"{"kind":"metadata","payload":{}}"#),
            None
        );
        assert_eq!(
            identity_of_line(r#"{"kind":"chat_request","payload":{"case":"x"}}"#),
            None
        );
        assert_eq!(identity_of_line("not json"), None);
    }
}
