//! The pair diff as every front end runs it: `veer-diff`'s measures, then the verdict at the
//! gate's threshold, written into the report's `gate` block. The binary, the Python package
//! and the directory stream all call these, so a report and its verdict always agree.

use crate::verdict::{pair_verdict, Verdict};
use veer_diff::{DiffOptions, DiffReport, SideFingerprints};
use veer_policy::Level;
use veer_trace::Trace;

/// Diffs two traces and decides the verdict at `fail_on` (the report's `gate` block is the
/// verdict's).
pub fn diff(
    baseline: &Trace,
    candidate: &Trace,
    paths: (&str, &str),
    options: &DiffOptions,
    fail_on: Level,
) -> (DiffReport, Verdict) {
    let (report, verdict, _) =
        diff_keeping_fingerprints(baseline, candidate, paths, options, fail_on);
    (report, verdict)
}

/// [`diff`], also handing back both sides' response fingerprints (directory mode pools them).
pub fn diff_keeping_fingerprints(
    baseline: &Trace,
    candidate: &Trace,
    (baseline_path, candidate_path): (&str, &str),
    options: &DiffOptions,
    fail_on: Level,
) -> (DiffReport, Verdict, SideFingerprints) {
    let (mut report, rows) = veer_diff::diff_keeping_fingerprints(
        baseline,
        candidate,
        baseline_path,
        candidate_path,
        options,
    );
    let verdict = pair_verdict(&report, fail_on);
    report.gate = verdict.gate();
    (report, verdict, rows)
}
