//! One case's trials measured with the existing measures (issue 28, item 2): each trial's
//! per-axis numbers and policy violations, and — once per case — the pairwise behaviour
//! distances between any two of its trials, baseline and candidate pooled.
//!
//! A case's traces are read, measured and dropped together, so memory holds one case (per
//! worker thread) at a time whatever the number of cases.

use super::layout::{Case, TrialFile};
use super::outcome::{OutcomeRule, Side, TrialRef};
use rayon::prelude::*;
use veer_experiment::divergence::{structural_parts, PreparedTrace};
use veer_policy::Policy;
use veer_trace::{ReadOptions, Trace};

/// One per-trial axis: its name in the report, its unit, and how a trial's number is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrialAxis {
    /// The axis name in the report (`latency`, `output_tokens`, `tool_calls`, `turns`).
    pub name: &'static str,
    /// The unit of its numbers.
    pub unit: &'static str,
    /// What one trial's number is.
    pub summary: &'static str,
}

/// The per-trial axes, in report order. Higher is worse on every one of them.
pub const AXES: [TrialAxis; 4] = [
    TrialAxis {
        name: "latency",
        unit: "ms",
        summary: "median latency_ms over the trial's responses (0 when none is recorded)",
    },
    TrialAxis {
        name: "output_tokens",
        unit: "tokens",
        summary: "usage.output_tokens summed over the trial's responses",
    },
    TrialAxis {
        name: "tool_calls",
        unit: "calls",
        summary: "tool calls in the trial",
    },
    TrialAxis {
        name: "turns",
        unit: "responses",
        summary: "model responses in the trial",
    },
];

/// Number of per-trial axes.
pub(crate) const AXIS_COUNT: usize = AXES.len();

/// One trial's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialNumbers {
    /// Per axis of [`AXES`], finite and ≥ 0.
    pub axes: [f64; AXIS_COUNT],
    /// Per policy rule (in the policy's order): whether this trial violated it.
    pub violated: Vec<bool>,
    /// The trial's pass/fail outcome from its metadata record's `outcome` field (Inspect AI
    /// scores converted by veer, or written by the harness), when it has one.
    pub outcome: Option<bool>,
}

/// The trial's pass/fail outcome by the default rule ([`super::outcome`]): the metadata
/// record's `outcome`, else its `score`, read without a threshold; None when it has neither, or
/// when the value is not a pass/fail by itself (the case then falls back to policy-clean; the
/// engine's outcome rule reports such values as errors).
pub(crate) fn trial_outcome(trace: &Trace) -> Option<bool> {
    let rule = OutcomeRule::default();
    let at = TrialRef {
        side: Side::Baseline,
        case: "",
        trial: None,
        name: "",
    };
    rule.outcome(at, trace).ok().flatten()
}

/// One case measured: every trial's numbers and the pooled pairwise tables (baseline trials
/// first, then candidate; condensed upper triangle, pair (0,1), (0,2), …).
#[derive(Debug, Clone, PartialEq)]
pub struct CaseMeasures {
    /// Baseline trials' numbers, in the layout's order.
    pub baseline: Vec<TrialNumbers>,
    /// Candidate trials' numbers.
    pub candidate: Vec<TrialNumbers>,
    /// Event-level structural distance d_norm per pair, in [0, 1].
    pub d_norm: Vec<f64>,
    /// Trajectory distance per pair: normalised Levenshtein distance of the tool-name
    /// sequences, in [0, 1].
    pub trajectory: Vec<f64>,
    /// First structural divergence (t*, the step where the two trials first differ) per pair;
    /// None when the two never diverge.
    pub first_turns: Vec<Option<u32>>,
    /// The first trial (baseline first) whose outcome the rule could not read: the run stops
    /// with this error (exit 2).
    pub outcome_error: Option<crate::error::Error>,
}

/// A trial that could not be measured: the file and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrialFailure {
    /// The file at fault (as found under the directory given).
    pub file: String,
    /// What went wrong (names the line and field where there are some).
    pub error: String,
    /// What to do about it.
    pub hint: Option<String>,
}

/// The knobs of a case's measurement.
#[derive(Debug, Clone, Copy)]
pub struct MeasureOptions<'a> {
    /// How traces are read.
    pub read: &'a ReadOptions,
    /// The policy whose violations are counted per trial.
    pub policy: Option<&'a Policy>,
    /// Work budget of one structural comparison (`--max-align-cells`).
    pub max_align_cells: u64,
    /// Where each trial's pass/fail outcome comes from (`--outcome`, `--outcome-threshold`).
    pub outcome: &'a OutcomeRule,
}

/// Reads one trial; a file that cannot be read, or has no model response, is a failure.
fn read_trial(file: &TrialFile, read: &ReadOptions) -> Result<Trace, TrialFailure> {
    let trace = veer_trace::load_trace(&file.path(), read).map_err(|e| TrialFailure {
        file: file.name.to_string(),
        error: e.to_string(),
        hint: e.hint.clone(),
    })?;
    if trace.responses().is_empty() {
        return Err(TrialFailure {
            file: file.name.to_string(),
            error: format!("{}: no model response in this trial", file.path().display()),
            hint: Some(
                "a trial whose agent stopped before its first model call cannot be compared; re-run it or remove the file"
                    .to_string(),
            ),
        });
    }
    Ok(trace)
}

/// The median of `v` (0 when empty).
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// One trial's per-axis numbers and rule violations.
pub(crate) fn trial_numbers(trace: &Trace, policy: Option<&Policy>) -> TrialNumbers {
    let responses = trace.responses();
    let finite = |v: Option<f64>| v.filter(|x| x.is_finite() && *x >= 0.0);
    let mut latencies: Vec<f64> = responses
        .iter()
        .filter_map(|r| finite(r.latency_ms()))
        .collect();
    let tokens: f64 = responses
        .iter()
        .filter_map(|r| finite(r.usage("output_tokens")))
        .sum();
    let violated = match policy {
        Some(p) => {
            let found = veer_policy::evaluate(p, trace);
            p.rules
                .iter()
                .map(|rule| found.iter().any(|v| v.rule_id == rule.id))
                .collect()
        }
        None => Vec::new(),
    };
    TrialNumbers {
        axes: [
            median(&mut latencies),
            if tokens.is_finite() { tokens } else { 0.0 },
            trace.tool_calls().len() as f64,
            responses.len() as f64,
        ],
        violated,
        outcome: trial_outcome(trace),
    }
}

/// Reads and measures every trial of `case` (both sides present, every trial read), and the
/// pairwise tables over the pooled trials. The first trial that cannot be measured (in
/// baseline-then-candidate order) is the case's failure.
pub(crate) fn measure_case(
    case: &Case,
    options: MeasureOptions<'_>,
) -> Result<CaseMeasures, TrialFailure> {
    let files: Vec<&TrialFile> = case.baseline.iter().chain(&case.candidate).collect();
    let traces: Vec<Result<Trace, TrialFailure>> = files
        .par_iter()
        .map(|f| read_trial(f, options.read))
        .collect();
    let mut traces: Vec<Trace> = traces.into_iter().collect::<Result<_, _>>()?;
    let candidate = traces.split_off(case.baseline.len());
    let label = |side, f: &'_ TrialFile| TrialLabel {
        side,
        trial: f.trial.as_deref().map(str::to_string),
        name: f.name.to_string(),
    };
    let labels: Vec<TrialLabel> = case
        .baseline
        .iter()
        .map(|f| label(Side::Baseline, f))
        .chain(case.candidate.iter().map(|f| label(Side::Candidate, f)))
        .collect();
    let mut measured = measure_traces(&traces, &candidate, options.policy, options.max_align_cells);
    apply_outcomes(
        &mut measured,
        &case.key,
        &labels,
        &traces,
        &candidate,
        options.outcome,
    );
    // The traces end with the case: freeing them here keeps memory to one case per thread.
    drop((traces, candidate));
    Ok(measured)
}

/// How the outcome rule names one trial: its side, trial label and a name for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TrialLabel {
    /// Its side.
    pub side: Side,
    /// The trial label (file name, pattern or metadata), when there is one.
    pub trial: Option<String>,
    /// The file (or `epoch N` of a log) for messages.
    pub name: String,
}

/// Replaces every trial's outcome by what `rule` reads (pooled order, baseline first, as in
/// `labels`); the first trial it cannot read is kept as the case's `outcome_error`.
pub(crate) fn apply_outcomes(
    measured: &mut CaseMeasures,
    case: &str,
    labels: &[TrialLabel],
    baseline: &[Trace],
    candidate: &[Trace],
    rule: &OutcomeRule,
) {
    let numbers = measured
        .baseline
        .iter_mut()
        .chain(measured.candidate.iter_mut());
    for ((numbers, label), trace) in numbers.zip(labels).zip(baseline.iter().chain(candidate)) {
        let at = TrialRef {
            side: label.side,
            case,
            trial: label.trial.as_deref(),
            name: &label.name,
        };
        match rule.outcome(at, trace) {
            Ok(o) => numbers.outcome = o,
            Err(e) => {
                numbers.outcome = None;
                if measured.outcome_error.is_none() {
                    measured.outcome_error = Some(e);
                }
            }
        }
    }
}

/// Measures one case's trials held in memory (each with at least one response): every trial's
/// numbers and the pairwise tables over the pooled trials, baseline first.
pub fn measure_traces(
    baseline: &[Trace],
    candidate: &[Trace],
    policy: Option<&Policy>,
    max_align_cells: u64,
) -> CaseMeasures {
    let traces: Vec<&Trace> = baseline.iter().chain(candidate).collect();
    let mut numbers: Vec<TrialNumbers> = traces
        .par_iter()
        .map(|t| trial_numbers(t, policy))
        .collect();
    let prepared: Vec<PreparedTrace<'_>> =
        traces.par_iter().map(|t| PreparedTrace::new(t)).collect();
    let tools: Vec<Vec<String>> = traces
        .iter()
        .map(|t| t.tool_calls().into_iter().map(|c| c.name).collect())
        .collect();
    let n = traces.len();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let measured: Vec<(f64, f64, Option<u32>)> = pairs
        .par_iter()
        .map(|&(i, j)| {
            let (script, first, _, _) =
                structural_parts(&prepared[i], &prepared[j], max_align_cells);
            let d = script.normalized();
            let trajectory = veer_diff::levenshtein::normalized_levenshtein(&tools[i], &tools[j]);
            let turn = first.map(|f| u32::try_from(f.step.max(0)).unwrap_or(u32::MAX));
            (
                if d.is_finite() { d } else { 1.0 },
                if trajectory.is_finite() {
                    trajectory
                } else {
                    1.0
                },
                turn,
            )
        })
        .collect();
    let candidate_numbers = numbers.split_off(baseline.len());
    CaseMeasures {
        baseline: numbers,
        candidate: candidate_numbers,
        d_norm: measured.iter().map(|m| m.0).collect(),
        trajectory: measured.iter().map(|m| m.1).collect(),
        first_turns: measured.iter().map(|m| m.2).collect(),
        outcome_error: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }
}
