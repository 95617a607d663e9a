//! The plan of an eval: one slot per case and trial (where its trace, marker and outputs go
//! inside the output directory), the placeholders of the agent command, the resume decision
//! for each slot on a rerun into the same directory, and the summary of the finished slots.
//!
//! The trace of trial N of case C is `C/trial-N.agentlog` (what `veer diff` reads as case C's
//! trial N); everything else veer keeps for a trial — its marker, stdout, stderr, input copy —
//! is under the hidden [`EVAL_STATE_DIR`], which `veer diff` does not walk.

use super::cases::{CaseInput, EvalCase};
use crate::{sha256_hex, Exit, RunMarker};
use veer_contract::eval::{
    EvalCaseEntry, EvalReport, EvalTrialEntry, EvalTrialStatus, EVAL_SCHEMA_VERSION,
};

/// The hidden directory of an eval's bookkeeping, inside the output directory.
pub const EVAL_STATE_DIR: &str = ".veer-eval";

/// One trial to run (or reuse).
#[derive(Debug, Clone, PartialEq)]
pub struct TrialSlot {
    /// Index of its case in the cases list.
    pub case_index: usize,
    /// The case name.
    pub case: String,
    /// The trial number, 1-based.
    pub trial: u32,
    /// Its label (`CASE/trial-N`): `VEER_RUN_LABEL` and the marker's.
    pub label: String,
    /// Its bookkeeping directory, relative to the output (`.veer-eval/CASE/trial-N`).
    pub run_dir: String,
    /// Its trace, relative to the output and without extension (`CASE/trial-N`).
    pub trace_stem: String,
    /// Lower-case hex SHA-256 of what the case gives as input (a changed input is not the
    /// run that was finished).
    pub input_sha256: String,
}

/// The bytes a case's input is identified by: its JSON (compact), its path, or nothing.
pub fn input_identity(input: &CaseInput) -> String {
    match input {
        CaseInput::Nothing => String::new(),
        CaseInput::Json(v) => format!("json:{v}"),
        CaseInput::Path(p) => format!("path:{p}"),
    }
}

/// Every case's trials 1..=`trials`, case by case in the cases' order.
pub fn trial_slots(cases: &[EvalCase], trials: u32) -> Vec<TrialSlot> {
    let mut out = Vec::with_capacity(cases.len() * trials as usize);
    for (case_index, case) in cases.iter().enumerate() {
        let input_sha256 = sha256_hex(input_identity(&case.input).as_bytes());
        for trial in 1..=trials {
            let label = format!("{}/trial-{trial}", case.name);
            out.push(TrialSlot {
                case_index,
                case: case.name.clone(),
                trial,
                run_dir: format!("{EVAL_STATE_DIR}/{label}"),
                trace_stem: label.clone(),
                label,
                input_sha256: input_sha256.clone(),
            });
        }
    }
    out
}

/// `arg` with every `{name}` of `values` replaced by its value, in one pass from left to
/// right (a value that itself holds `{case}` is not replaced again); unknown braces stay.
pub fn substitute(arg: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    'outer: while !rest.is_empty() {
        for (name, value) in values {
            if let Some(after) = rest.strip_prefix(name) {
                out.push_str(value);
                rest = after;
                continue 'outer;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// What to do with one slot on this invocation.
#[derive(Debug, Clone, PartialEq)]
pub enum Resume {
    /// Run it (nothing of it is there, or only what veer itself left unfinished).
    Run,
    /// An earlier invocation finished it under the same settings: reuse it.
    Reuse(Box<RunMarker>),
    /// Its trace file exists but veer did not write it (no bookkeeping of veer's): the
    /// user's file, never touched. The path is relative to the output.
    Foreign(String),
    /// An earlier invocation finished it under other settings (command, upstreams, time
    /// limit, trace source) or on another input.
    OtherSettings,
}

/// What is found of one slot in the output directory.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Its marker, when one is there and reads.
    pub marker: Option<RunMarker>,
    /// Whether its bookkeeping directory exists (veer started it).
    pub run_dir_exists: bool,
    /// The trace files with its stem that exist, relative to the output.
    pub traces: Vec<String>,
}

/// The decision for `slot` given what is `found`, the settings hash of this invocation and
/// `--fresh` (redo veer's own finished trials; a user's file is never redone).
pub fn resume(slot: &TrialSlot, found: &Found, settings_sha256: &str, fresh: bool) -> Resume {
    if let Some(marker) = &found.marker {
        if fresh {
            return Resume::Run;
        }
        if !marker.records(&slot.label, &slot.input_sha256, settings_sha256) {
            return Resume::OtherSettings;
        }
        if !marker.trace.is_empty() && found.traces.contains(&marker.trace) {
            return Resume::Reuse(Box::new(marker.clone()));
        }
        return Resume::Run;
    }
    match found.traces.first() {
        Some(t) if !found.run_dir_exists => Resume::Foreign(t.clone()),
        _ => Resume::Run,
    }
}

/// Whether a finished trial failed: a non-zero exit, a time-out, or a problem noted in its
/// marker (no trace, an unreadable trace).
pub fn trial_failed(marker: &RunMarker) -> bool {
    marker.exit != Exit::Exited(0) || !marker.warnings.is_empty()
}

/// What the summary is about, beside the trials.
#[derive(Debug, Clone)]
pub struct SummaryInput<'a> {
    /// `--out` as given.
    pub out: &'a str,
    /// `--cases` as given.
    pub cases_from: &'a str,
    /// Trials per case.
    pub trials: u32,
    /// Seconds this invocation ran agents.
    pub seconds: f64,
}

/// The summary of the finished slots: `finished` holds, per slot in `slots` order, its marker
/// and whether it was reused; a slot without a marker (interrupted) is left out.
pub fn eval_report(
    input: &SummaryInput<'_>,
    cases: &[EvalCase],
    slots: &[TrialSlot],
    finished: &[Option<(RunMarker, bool)>],
) -> EvalReport {
    let mut entries: Vec<EvalCaseEntry> = cases
        .iter()
        .map(|c| EvalCaseEntry {
            case: c.name.clone(),
            trials: Vec::new(),
        })
        .collect();
    let (mut done, mut skipped, mut failed) = (0, 0, 0);
    for (slot, f) in slots.iter().zip(finished) {
        let Some((marker, reused)) = f else { continue };
        let is_failed = trial_failed(marker);
        if *reused {
            skipped += 1;
        } else {
            done += 1;
        }
        if is_failed {
            failed += 1;
        }
        if let Some(entry) = entries.get_mut(slot.case_index) {
            entry.trials.push(EvalTrialEntry {
                trial: slot.trial,
                status: if is_failed {
                    EvalTrialStatus::Failed
                } else {
                    EvalTrialStatus::Ok
                },
                trace: marker.trace.clone(),
                reused: *reused,
                problems: marker.warnings.clone(),
            });
        }
    }
    EvalReport {
        schema_version: EVAL_SCHEMA_VERSION.to_string(),
        out: input.out.to_string(),
        cases_from: input.cases_from.to_string(),
        trials: input.trials,
        done,
        skipped,
        failed,
        seconds: (input.seconds.max(0.0) * 1000.0).round() / 1000.0,
        cases: entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str) -> EvalCase {
        EvalCase {
            name: name.into(),
            input: CaseInput::Nothing,
        }
    }

    fn marker(slot: &TrialSlot, settings: &str, exit: Exit) -> RunMarker {
        RunMarker {
            schema_version: 1,
            label: slot.label.clone(),
            input_sha256: slot.input_sha256.clone(),
            settings_sha256: settings.into(),
            exit,
            trace: format!("{}.agentlog", slot.trace_stem),
            answer: None,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn slots_are_case_by_case_with_hidden_bookkeeping() {
        let slots = trial_slots(&[case("a"), case("b")], 2);
        let labels: Vec<&str> = slots.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["a/trial-1", "a/trial-2", "b/trial-1", "b/trial-2"]);
        assert_eq!(slots[3].run_dir, ".veer-eval/b/trial-2");
        assert_eq!(slots[3].trace_stem, "b/trial-2");
        assert_eq!(slots[3].case_index, 1);
    }

    #[test]
    fn placeholders_are_replaced_once() {
        let v = [
            ("{case}", "x{trial}"),
            ("{trial}", "3"),
            ("{input}", "/in.json"),
        ];
        assert_eq!(substitute("--id={case}-{trial}", &v), "--id=x{trial}-3");
        assert_eq!(substitute("{input}", &v), "/in.json");
        assert_eq!(substitute("{other} é {", &v), "{other} é {");
    }

    #[test]
    fn resume_reuses_matching_refuses_foreign_and_other_settings() {
        let slot = trial_slots(&[case("a")], 1).remove(0);
        let trace = "a/trial-1.agentlog".to_string();
        let found = |m: Option<RunMarker>, dir: bool, traces: Vec<String>| Found {
            marker: m,
            run_dir_exists: dir,
            traces,
        };
        let ok = marker(&slot, "s1", Exit::Exited(0));
        let f = found(Some(ok.clone()), true, vec![trace.clone()]);
        assert!(matches!(resume(&slot, &f, "s1", false), Resume::Reuse(_)));
        assert_eq!(resume(&slot, &f, "s2", false), Resume::OtherSettings);
        assert_eq!(resume(&slot, &f, "s2", true), Resume::Run);
        // The trace was deleted: run it again.
        let f = found(Some(ok), true, vec![]);
        assert_eq!(resume(&slot, &f, "s1", false), Resume::Run);
        // A file veer did not write.
        let f = found(None, false, vec![trace.clone()]);
        assert_eq!(
            resume(&slot, &f, "s1", true),
            Resume::Foreign(trace.clone())
        );
        // veer's own unfinished run.
        let f = found(None, true, vec![trace]);
        assert_eq!(resume(&slot, &f, "s1", false), Resume::Run);
    }

    #[test]
    fn the_summary_counts_done_reused_and_failed() {
        let cases = [case("a"), case("b")];
        let slots = trial_slots(&cases, 2);
        let mut bad = marker(&slots[1], "s", Exit::Exited(3));
        bad.warnings.push("exited with code 3".into());
        let finished = vec![
            Some((marker(&slots[0], "s", Exit::Exited(0)), true)),
            Some((bad, false)),
            Some((marker(&slots[2], "s", Exit::TimedOut), false)),
            None,
        ];
        let input = SummaryInput {
            out: "runs/pr",
            cases_from: "cases.txt",
            trials: 2,
            seconds: 1.23456,
        };
        let r = eval_report(&input, &cases, &slots, &finished);
        assert_eq!((r.done, r.skipped, r.failed), (2, 1, 2));
        assert_eq!(r.seconds, 1.235);
        assert_eq!(r.cases[0].trials.len(), 2);
        assert_eq!(r.cases[0].trials[1].status, EvalTrialStatus::Failed);
        assert_eq!(r.cases[0].trials[1].problems, ["exited with code 3"]);
        assert_eq!(r.cases[1].trials.len(), 1);
    }
}
