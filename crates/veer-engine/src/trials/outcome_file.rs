//! The external file of outcomes (`--outcome FILE.jsonl`): one JSON object a
//! line, `{"side": "baseline"|"candidate", "case": "…", "trial": N, "outcome": …}`, read and
//! checked whole before anything is measured, then looked up per trial. A bad line is an error
//! naming file, line and field.

use super::outcome::{read_value, trial_label, Side, TrialRef};
use crate::error::Error;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

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
        let mut check = self.check_each();
        for t in trials {
            check.visit(t)?;
        }
        Ok(check.unmatched())
    }

    /// [`OutcomeFile::check`] one trial at a time (for cases read one at a time): holds a
    /// reference to each line used, never the trials.
    pub(crate) fn check_each(&self) -> OutcomeCheck<'_> {
        OutcomeCheck {
            file: self,
            used: std::collections::BTreeSet::new(),
        }
    }
}

/// An [`OutcomeFile`] being checked trial by trial ([`OutcomeFile::check_each`]).
#[derive(Debug)]
pub(crate) struct OutcomeCheck<'f> {
    file: &'f OutcomeFile,
    used: std::collections::BTreeSet<&'f (Side, String, String)>,
}

impl OutcomeCheck<'_> {
    /// One trial compared: an error when the file has no line for it.
    pub(crate) fn visit(&mut self, t: TrialRef<'_>) -> Result<(), Error> {
        self.file.get(t)?;
        if let Some(label) = t.trial {
            let key = (t.side, t.case.to_string(), label.to_string());
            if let Some((k, _)) = self.file.entries.get_key_value(&key) {
                self.used.insert(k);
            }
        }
        Ok(())
    }

    /// The lines that matched no trial visited (`file:line: what`, in line order).
    pub fn unmatched(self) -> Vec<String> {
        let file = self.file;
        let mut unused: Vec<(usize, String)> = file
            .entries
            .iter()
            .filter(|(k, _)| !self.used.contains(k))
            .map(|((side, case, trial), e)| {
                (
                    e.line,
                    format!(
                        "{}:{}: {} case `{case}` trial {trial} matches no trace",
                        file.path,
                        e.line,
                        side.name()
                    ),
                )
            })
            .collect();
        unused.sort();
        unused.into_iter().map(|(_, s)| s).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
