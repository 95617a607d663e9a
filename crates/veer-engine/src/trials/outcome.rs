//! A trial's pass/fail outcome (issue 28 item 3, issue 32 item 2): where it is taken from and
//! how a value reads as pass or fail.
//!
//! Sources ([`OutcomeSource`]):
//! - **metadata** (the default): the metadata record's `outcome`, else its `score` (Inspect AI
//!   logs as read by veer carry both); a trial without either has no outcome, and a case whose
//!   trials do not all have one falls back to policy-clean;
//! - **field** (`--outcome FIELD`): a key of the metadata record, a dotted path allowed
//!   (`scores.accuracy`); every trial must have it, except an errored one (metadata `error`, or
//!   `outcome: "error"`), which fails;
//! - **file** (`--outcome FILE.jsonl`): one JSON object a line,
//!   `{"side": "baseline"|"candidate", "case": "…", "trial": N, "outcome": …}`; every trial
//!   must have a line.
//!
//! Values ([`read_value`]): booleans; `pass`/`C`/`correct`/`true`/`yes`/`1` pass and
//! `fail`/`I`/`N`/`incorrect`/`error`/`false`/`no`/`0` fail (case-insensitive, except Inspect's
//! `P`, partial credit, which is the number 0.5); numbers pass when ≥ the threshold
//! (`--outcome-threshold X`, inclusive); without a threshold only 0 and 1 are outcomes and any
//! other number is an error naming the flag.

use crate::error::Error;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;
use veer_trace::Trace;

/// Which side of the comparison a trial is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    /// The baseline.
    Baseline,
    /// The candidate.
    Candidate,
}

impl Side {
    /// `baseline` or `candidate`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Baseline => "baseline",
            Side::Candidate => "candidate",
        }
    }
}

/// Where each trial's outcome comes from.
#[derive(Debug, Clone, Default)]
pub enum OutcomeSource {
    /// The metadata record's `outcome`, else `score` (the default).
    #[default]
    Metadata,
    /// A metadata field by dotted path (`scores.accuracy`).
    Field(String),
    /// An external JSONL file of outcomes by side, case and trial.
    File(Arc<OutcomeFile>),
}

/// The outcome source and the pass threshold of numeric scores.
#[derive(Debug, Clone, Default)]
pub struct OutcomeRule {
    /// Where outcomes come from.
    pub source: OutcomeSource,
    /// A numeric score passes when ≥ this (inclusive); None: only 0 and 1 are outcomes.
    pub threshold: Option<f64>,
}

/// A value that is not a pass/fail outcome: what is wrong and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadValue {
    /// What is wrong with the value.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

const THRESHOLD_HINT: &str =
    "pass --outcome-threshold X to count a score ≥ X as a pass (e.g. --outcome-threshold 0.5)";

/// Pass (true) or fail (false) from an outcome value; `Ok(None)` for null. See the module
/// documentation for the values accepted; `threshold` is `--outcome-threshold`.
pub fn read_value(v: &Value, threshold: Option<f64>) -> Result<Option<bool>, BadValue> {
    let number = |x: f64| -> Result<Option<bool>, BadValue> {
        if !x.is_finite() {
            return Err(BadValue {
                message: format!("score {x} is not a finite number"),
                hint: "write a finite score, a boolean, or pass/fail".into(),
            });
        }
        match threshold {
            Some(t) => Ok(Some(x >= t)),
            None if x == 1.0 => Ok(Some(true)),
            None if x == 0.0 => Ok(Some(false)),
            None => Err(BadValue {
                message: format!(
                    "score {x} is neither 0 nor 1, so it is not a pass or a fail by itself"
                ),
                hint: THRESHOLD_HINT.into(),
            }),
        }
    };
    match v {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        Value::Number(n) => number(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => {
            let t = s.trim();
            // Inspect AI's partial credit is worth 0.5 (its `value_to_float`).
            if t == "P" {
                return number(0.5);
            }
            match t.to_ascii_lowercase().as_str() {
                "pass" | "passed" | "c" | "correct" | "true" | "yes" => Ok(Some(true)),
                "fail" | "failed" | "i" | "n" | "incorrect" | "error" | "false" | "no" => {
                    Ok(Some(false))
                }
                other => match other.parse::<f64>() {
                    Ok(x) => number(x),
                    Err(_) => Err(BadValue {
                        message: format!("`{s}` is not a pass/fail outcome"),
                        hint: "outcomes are booleans, pass/fail, C/I (Inspect AI), or numbers (0/1, or any score with --outcome-threshold)".into(),
                    }),
                },
            }
        }
        Value::Array(_) | Value::Object(_) => Err(BadValue {
            message: format!(
                "{} is not a pass/fail outcome",
                if v.is_array() {
                    "an array"
                } else {
                    "an object"
                }
            ),
            hint: "name the value inside it with a dotted path, e.g. --outcome scores.accuracy"
                .into(),
        }),
    }
}

/// The metadata record's payload (a small object, copied), when the trace has one.
fn metadata(trace: &Trace) -> Option<Value> {
    trace
        .records
        .iter()
        .find(|r| r.kind == veer_trace::Kind::Metadata)
        .map(|r| r.payload.to_value())
}

/// `payload` at a dotted `path`: the whole path as one key first, then key by key.
pub fn at_path<'a>(payload: &'a Value, path: &str) -> Option<&'a Value> {
    if let Some(v) = payload.get(path) {
        return Some(v);
    }
    path.split('.').try_fold(payload, |v, key| match v {
        Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => v.get(key),
    })
}

/// The trial label of a trace's metadata record (`trial`: an integer, or text), when it has
/// one; numbers lose leading zeros (`"002"` is trial 2).
pub fn metadata_trial(trace: &Trace) -> Option<String> {
    metadata(trace)?.get("trial").and_then(trial_label)
}

/// A trial label from a JSON value: a non-negative integer, or text (digits lose leading
/// zeros).
fn trial_label(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => n.as_u64().map(|n| n.to_string()),
        Value::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                None
            } else if t.bytes().all(|b| b.is_ascii_digit()) {
                let z = t.trim_start_matches('0');
                Some(if z.is_empty() { "0" } else { z }.to_string())
            } else {
                Some(t.to_string())
            }
        }
        _ => None,
    }
}

/// One trial as the outcome rule sees it.
#[derive(Debug, Clone, Copy)]
pub struct TrialRef<'a> {
    /// Its side.
    pub side: Side,
    /// The case key.
    pub case: &'a str,
    /// The trial label (file name, pattern or metadata), when there is one.
    pub trial: Option<&'a str>,
    /// How messages name it (the file, or `case X epoch N`).
    pub name: &'a str,
}

impl OutcomeRule {
    /// The report's name of the source: `outcome` (metadata), `field` or `file`.
    pub fn kind(&self) -> &'static str {
        match self.source {
            OutcomeSource::Metadata => "outcome",
            OutcomeSource::Field(_) => "field",
            OutcomeSource::File(_) => "file",
        }
    }

    /// The outcome of one trial: `Ok(None)` when the default source finds none (the case falls
    /// back to policy-clean); an error naming the trial, the field or line, and a hint when a
    /// value is not an outcome or a chosen source has none for it.
    pub fn outcome(&self, trial: TrialRef<'_>, trace: &Trace) -> Result<Option<bool>, Error> {
        let at = |what: String, bad: BadValue| {
            Error::input(format!(
                "{} trial {} of case `{}`: {what}: {}",
                trial.side.name(),
                trial.name,
                trial.case,
                bad.message
            ))
            .hint(bad.hint)
        };
        match &self.source {
            OutcomeSource::Metadata => {
                let Some(meta) = metadata(trace) else {
                    return Ok(None);
                };
                for key in ["outcome", "score"] {
                    if let Some(v) = meta.get(key).filter(|v| !v.is_null()) {
                        return read_value(v, self.threshold)
                            .map_err(|b| at(format!("metadata field `{key}`"), b));
                    }
                }
                Ok(None)
            }
            OutcomeSource::Field(path) => {
                let meta = metadata(trace);
                let v = meta.as_ref().and_then(|m| at_path(m, path));
                // An errored trial (an Inspect AI sample that ended in an error has no score)
                // is a fail, as its default `outcome` says.
                let errored = meta.as_ref().is_some_and(|m| {
                    m.get("error").is_some_and(|e| !e.is_null())
                        || m.get("outcome").and_then(Value::as_str) == Some("error")
                });
                match v.map(|v| read_value(v, self.threshold)) {
                    Some(Ok(Some(o))) => Ok(Some(o)),
                    Some(Err(b)) => Err(at(format!("metadata field `{path}`"), b)),
                    None | Some(Ok(None)) if errored => Ok(Some(false)),
                    None | Some(Ok(None)) => Err(at(
                        format!("metadata field `{path}`"),
                        BadValue {
                            message: "missing (or null)".into(),
                            hint: "every trial needs the outcome field: check its spelling (a dotted path such as scores.accuracy), or give the outcomes in a file with --outcome FILE.jsonl".into(),
                        },
                    )),
                }
            }
            OutcomeSource::File(file) => file.get(trial).map(Some),
        }
    }
}

/// One line of an outcome file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    outcome: bool,
    line: usize,
}

/// An external file of outcomes keyed by side, case and trial (`--outcome FILE.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutcomeFile {
    /// The file, as given.
    pub path: String,
    entries: BTreeMap<(Side, String, String), Entry>,
}

/// The shape of a line, for hints.
const LINE_SHAPE: &str = r#"each line is {"side": "baseline" or "candidate", "case": "CASE", "trial": N, "outcome": true, false, "C", "I" or a number}"#;

impl OutcomeFile {
    /// Reads and checks every line; the first bad line is an error naming file, line and field.
    pub fn load(path: &Path, threshold: Option<f64>) -> Result<OutcomeFile, Error> {
        let shown = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| {
            Error::input(format!("cannot read the outcome file {shown}: {e}"))
                .hint("--outcome takes a metadata field (e.g. scores.accuracy) or a FILE.jsonl")
        })?;
        let mut entries: BTreeMap<(Side, String, String), Entry> = BTreeMap::new();
        let reader = std::io::BufReader::new(file);
        for (i, line) in reader.split(b'\n').enumerate() {
            let n = i + 1;
            let bad = |field: &str, message: String, hint: &str| {
                let place = if field.is_empty() {
                    format!("{shown}:{n}")
                } else {
                    format!("{shown}:{n}: field `{field}`")
                };
                Error::input(format!("{place}: {message}")).hint(hint.to_string())
            };
            let line = line.map_err(|e| bad("", format!("cannot read: {e}"), LINE_SHAPE))?;
            let text = std::str::from_utf8(&line)
                .map_err(|_| bad("", "not valid UTF-8".into(), LINE_SHAPE))?
                .trim();
            if text.is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(text)
                .map_err(|e| bad("", format!("not JSON: {e}"), LINE_SHAPE))?;
            let Value::Object(o) = &v else {
                return Err(bad("", "not a JSON object".into(), LINE_SHAPE));
            };
            let side = match o.get("side").and_then(Value::as_str) {
                Some("baseline") => Side::Baseline,
                Some("candidate") => Side::Candidate,
                Some(other) => {
                    return Err(bad(
                        "side",
                        format!("`{other}` is neither baseline nor candidate"),
                        LINE_SHAPE,
                    ))
                }
                None => return Err(bad("side", "missing (or not a string)".into(), LINE_SHAPE)),
            };
            let case = match o.get("case") {
                Some(Value::String(s)) if !s.is_empty() => s.clone(),
                Some(Value::Number(c)) if c.is_u64() || c.is_i64() => c.to_string(),
                Some(_) => {
                    return Err(bad(
                        "case",
                        "must be a non-empty string (or an integer sample id)".into(),
                        LINE_SHAPE,
                    ))
                }
                None => return Err(bad("case", "missing".into(), LINE_SHAPE)),
            };
            let trial = match o.get("trial") {
                Some(t) => trial_label(t).ok_or_else(|| {
                    bad(
                        "trial",
                        "must be a non-negative integer (or a non-empty label)".into(),
                        LINE_SHAPE,
                    )
                })?,
                None => return Err(bad("trial", "missing".into(), LINE_SHAPE)),
            };
            let outcome = match o.get("outcome") {
                None => return Err(bad("outcome", "missing".into(), LINE_SHAPE)),
                Some(value) => match read_value(value, threshold) {
                    Ok(Some(b)) => b,
                    Ok(None) => {
                        return Err(bad(
                            "outcome",
                            "null is not an outcome".into(),
                            "leave out the line of a trial without an outcome only if that trial is not in the comparison; otherwise write true or false",
                        ))
                    }
                    Err(b) => return Err(bad("outcome", b.message, &b.hint)),
                },
            };
            let key = (side, case, trial);
            if let Some(first) = entries.get(&key) {
                return Err(bad(
                    "",
                    format!(
                        "{} case `{}` trial {} already has an outcome on line {}",
                        key.0.name(),
                        key.1,
                        key.2,
                        first.line
                    ),
                    "each side, case and trial has one line",
                ));
            }
            entries.insert(key, Entry { outcome, line: n });
        }
        Ok(OutcomeFile {
            path: shown,
            entries,
        })
    }

    /// Lines in the file.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the file has no line.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The outcome of `trial`; an error when its line is missing or it has no trial label.
    pub fn get(&self, trial: TrialRef<'_>) -> Result<bool, Error> {
        let Some(label) = trial.trial else {
            return Err(Error::input(format!(
                "{}: {} trial {} of case `{}` has no trial number to look its outcome up by",
                self.path,
                trial.side.name(),
                trial.name,
                trial.case
            ))
            .hint("name trial files CASE/trial-N or CASE-N, write the trial into the metadata record (veer record --trial N), or give --case-pattern a `trial` group"));
        };
        let key = (trial.side, trial.case.to_string(), label.to_string());
        self.entries.get(&key).map(|e| e.outcome).ok_or_else(|| {
            Error::input(format!(
                "{}: no outcome for {} case `{}` trial {label} ({})",
                self.path,
                trial.side.name(),
                trial.case,
                trial.name
            ))
            .hint(format!(
                r#"every trial compared needs a line, e.g. {{"side": "{}", "case": "{}", "trial": {label}, "outcome": true}}"#,
                trial.side.name(),
                trial.case
            ))
        })
    }

    /// Checks the file against every trial compared before any is measured: the first trial
    /// without a line is an error; the lines that match no trial are returned (`file:line:
    /// what`, in line order) for a warning.
    pub fn check<'a>(
        &self,
        trials: impl IntoIterator<Item = TrialRef<'a>>,
    ) -> Result<Vec<String>, Error> {
        let mut used = std::collections::BTreeSet::new();
        for t in trials {
            self.get(t)?;
            if let Some(label) = t.trial {
                used.insert((t.side, t.case.to_string(), label.to_string()));
            }
        }
        let mut unused: Vec<(usize, String)> = self
            .entries
            .iter()
            .filter(|(k, _)| !used.contains(*k))
            .map(|((side, case, trial), e)| {
                (
                    e.line,
                    format!(
                        "{}:{}: {} case `{case}` trial {trial} matches no trace",
                        self.path,
                        e.line,
                        side.name()
                    ),
                )
            })
            .collect();
        unused.sort();
        Ok(unused.into_iter().map(|(_, s)| s).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_as_pass_or_fail() {
        for (v, want) in [
            (json!(true), true),
            (json!(false), false),
            (json!("C"), true),
            (json!("I"), false),
            (json!("N"), false),
            (json!("pass"), true),
            (json!("error"), false),
            (json!(1), true),
            (json!(0), false),
            (json!("1"), true),
            (json!(0.0), false),
        ] {
            assert_eq!(read_value(&v, None), Ok(Some(want)), "{v}");
        }
        assert_eq!(read_value(&Value::Null, None), Ok(None));
    }

    #[test]
    fn a_fractional_score_needs_the_threshold_which_is_inclusive() {
        let e = read_value(&json!(0.5), None).unwrap_err();
        assert!(e.hint.contains("--outcome-threshold"), "{e:?}");
        assert!(read_value(&json!("P"), None).is_err());
        assert_eq!(read_value(&json!(0.5), Some(0.5)), Ok(Some(true)));
        assert_eq!(read_value(&json!(0.49), Some(0.5)), Ok(Some(false)));
        assert_eq!(read_value(&json!("P"), Some(0.5)), Ok(Some(true)));
        assert_eq!(read_value(&json!(1), Some(2.0)), Ok(Some(false)));
        // Extreme values are compared, never looped over.
        assert_eq!(read_value(&json!(1e308), Some(-1e308)), Ok(Some(true)));
        assert!(read_value(&json!("maybe"), None).is_err());
        assert!(read_value(&json!({"a": 1}), None)
            .unwrap_err()
            .hint
            .contains("dotted path"));
    }

    #[test]
    fn dotted_paths_reach_into_objects_and_arrays() {
        let m = json!({"scores": {"accuracy": 1, "multi": [0, 1]}, "a.b": true});
        assert_eq!(at_path(&m, "scores.accuracy"), Some(&json!(1)));
        assert_eq!(at_path(&m, "scores.multi.1"), Some(&json!(1)));
        assert_eq!(at_path(&m, "a.b"), Some(&json!(true)));
        assert_eq!(at_path(&m, "scores.missing"), None);
    }

    fn write(lines: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("o.jsonl");
        std::fs::write(&path, lines).unwrap();
        (dir, path)
    }

    fn trial<'a>(side: Side, case: &'a str, t: Option<&'a str>) -> TrialRef<'a> {
        TrialRef {
            side,
            case,
            trial: t,
            name: "f",
        }
    }

    #[test]
    fn a_file_keys_outcomes_by_side_case_and_trial() {
        let (_d, p) = write(concat!(
            r#"{"side":"baseline","case":"a","trial":1,"outcome":"C"}"#,
            "\n\n",
            r#"{"side":"candidate","case":"a","trial":"01","outcome":false,"extra":1}"#,
            "\n",
            r#"{"side":"candidate","case":7,"trial":2,"outcome":1}"#,
            "\n",
        ));
        let f = OutcomeFile::load(&p, None).unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(f.get(trial(Side::Baseline, "a", Some("1"))), Ok(true));
        assert_eq!(f.get(trial(Side::Candidate, "a", Some("1"))), Ok(false));
        let missing = f.get(trial(Side::Baseline, "b", Some("1"))).unwrap_err();
        assert!(missing
            .message
            .contains("no outcome for baseline case `b` trial 1"));
        let no_label = f.get(trial(Side::Baseline, "a", None)).unwrap_err();
        assert!(no_label.hint.unwrap().contains("--case-pattern"));
        let unused = f
            .check([
                trial(Side::Baseline, "a", Some("1")),
                trial(Side::Candidate, "a", Some("1")),
            ])
            .unwrap();
        assert_eq!(unused.len(), 1);
        assert!(unused[0].ends_with(":4: candidate case `7` trial 2 matches no trace"));
    }

    #[test]
    fn bad_lines_name_file_line_and_field() {
        for (text, want) in [
            (
                "{\"side\":\"b\",\"case\":\"a\",\"trial\":1,\"outcome\":true}",
                ":1: field `side`",
            ),
            (
                "\n{\"side\":\"baseline\",\"trial\":1,\"outcome\":true}",
                ":2: field `case`",
            ),
            (
                "{\"side\":\"baseline\",\"case\":\"a\",\"trial\":-1,\"outcome\":true}",
                ":1: field `trial`",
            ),
            (
                "{\"side\":\"baseline\",\"case\":\"a\",\"trial\":1}",
                ":1: field `outcome`: missing",
            ),
            (
                "{\"side\":\"baseline\",\"case\":\"a\",\"trial\":1,\"outcome\":0.7}",
                ":1: field `outcome`: score 0.7",
            ),
            (
                "{\"side\":\"baseline\",\"case\":\"a\",\"trial\":1,\"outcome\":null}",
                ":1: field `outcome`: null",
            ),
            ("not json", ":1: not JSON"),
            ("[1]", ":1: not a JSON object"),
            (
                concat!(
                    "{\"side\":\"baseline\",\"case\":\"a\",\"trial\":1,\"outcome\":true}\n",
                    "{\"side\":\"baseline\",\"case\":\"a\",\"trial\":\"1\",\"outcome\":true}"
                ),
                ":2: baseline case `a` trial 1 already has an outcome on line 1",
            ),
        ] {
            let (_d, p) = write(text);
            let e = OutcomeFile::load(&p, None).unwrap_err();
            assert!(e.message.contains(want), "{text}: {}", e.message);
            assert!(e.hint.is_some(), "{text}");
        }
        // With the threshold the fractional score is read.
        let (_d, p) = write("{\"side\":\"baseline\",\"case\":\"a\",\"trial\":1,\"outcome\":0.7}");
        let f = OutcomeFile::load(&p, Some(0.7)).unwrap();
        assert_eq!(f.get(trial(Side::Baseline, "a", Some("1"))), Ok(true));
    }
}
