//! A trial's pass/fail outcome: where it is taken from and
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
//! Values (`read_value`): booleans; `pass`/`C`/`correct`/`true`/`yes`/`1` pass and
//! `fail`/`I`/`N`/`incorrect`/`error`/`false`/`no`/`0` fail (case-insensitive, except Inspect's
//! `P`, partial credit, which is the number 0.5); numbers pass when ≥ the threshold
//! (`--outcome-threshold X`, inclusive); without a threshold only 0 and 1 are outcomes and any
//! other number is an error naming the flag.

use crate::error::Error;
use serde_json::Value;
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
pub(crate) struct BadValue {
    /// What is wrong with the value.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

const THRESHOLD_HINT: &str =
    "pass --outcome-threshold X to count a score ≥ X as a pass (e.g. --outcome-threshold 0.5)";

/// Pass (true) or fail (false) from an outcome value; `Ok(None)` for null. See the module
/// documentation for the values accepted; `threshold` is `--outcome-threshold`.
pub(crate) fn read_value(v: &Value, threshold: Option<f64>) -> Result<Option<bool>, BadValue> {
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
pub(crate) fn at_path<'a>(payload: &'a Value, path: &str) -> Option<&'a Value> {
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
pub(crate) fn metadata_trial(trace: &Trace) -> Option<String> {
    metadata(trace)?.get("trial").and_then(trial_label)
}

/// A trial label from a JSON value: a non-negative integer, or text (digits lose leading
/// zeros).
pub(super) fn trial_label(v: &Value) -> Option<String> {
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

pub use super::outcome_file::OutcomeFile;

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
}
