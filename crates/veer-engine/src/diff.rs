//! The pair diff as every front end runs it, composed here and nowhere else: `veer-diff`'s
//! behaviour measures (axes, alignment, drill-down, fingerprint rows) beside `veer-experiment`'s
//! structural block, its tool-schema comparison and `veer-policy`'s comparison and recorded
//! enforcement, then the side-by-side
//! view when asked, then the verdict at the gate's threshold, written into the report's `gate`
//! block. The binary, the Python package and the directory stream all call these, so a report
//! and its verdict always agree.

use crate::verdict::pair_verdict;
use crate::{DiffOptions, Error};
use std::path::Path;
use veer_base::Level;
use veer_contract::diff::DiffReport;
use veer_contract::verdict::Verdict;
use veer_diff::lanes::Named;
use veer_diff::{Pricing, SideFingerprints};
use veer_trace::Trace;

/// Reads and validates a pricing table (USD per million tokens, by model) for the cost axis;
/// an input error naming the file, line and field otherwise.
pub fn load_pricing(path: &Path) -> Result<Pricing, Error> {
    Ok(veer_diff::inputs::load_pricing(path)?)
}

/// Both sides of a pair diff must hold at least one response, in comparable formats; an input
/// error with a hint otherwise.
pub fn check_pair(baseline: &Trace, candidate: &Trace) -> Result<(), Error> {
    Ok(veer_diff::inputs::check_pair(baseline, candidate)?)
}

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
pub(crate) fn diff_keeping_fingerprints(
    baseline: &Trace,
    candidate: &Trace,
    (baseline_path, candidate_path): (&str, &str),
    options: &DiffOptions,
    fail_on: Level,
) -> (DiffReport, Verdict, SideFingerprints) {
    let (behaviour, (structural, policy)) = rayon::join(
        || {
            veer_diff::measure(
                baseline,
                candidate,
                baseline_path,
                candidate_path,
                &options.behaviour,
            )
        },
        || {
            rayon::join(
                || veer_experiment::structural_within(baseline, candidate, options.max_align_cells),
                || {
                    options.policy.as_deref().map(|p| {
                        if let Some(watch) = &options.coverage {
                            crate::policy::observe(watch, p, baseline);
                            crate::policy::observe(watch, p, candidate);
                        }
                        veer_policy::compare(p, baseline, candidate)
                    })
                },
            )
        },
    );
    let lanes = options.lanes.then(|| {
        let mut named = behaviour.named_turns();
        if let Some(p) = &policy {
            add_policy_turns(&mut named, p);
        }
        behaviour.lanes(&named)
    });
    let (mut report, rows) = behaviour.into_parts();
    report.structural = Some(structural);
    report.policy = policy;
    report.enforcement = veer_policy::live::enforcement(baseline, candidate);
    report.tool_schema = veer_diff::tool_schema::compare(baseline, candidate).map(|mut block| {
        block.set_gate(options.fail_on_schema);
        block
    });
    report.lanes = lanes;
    let verdict = pair_verdict(&report, fail_on);
    report.gate = verdict.gate();
    (report, verdict, rows)
}

/// The turns of the policy comparison the side-by-side view names: the candidate turns of
/// regressions and the baseline turns of fixes.
fn add_policy_turns(named: &mut Named, policy: &veer_contract::policy::PolicyDiff) {
    named
        .candidate
        .extend(policy.regressions.iter().filter_map(|v| v.pair_index));
    named
        .baseline
        .extend(policy.fixes.iter().filter_map(|v| v.pair_index));
}
