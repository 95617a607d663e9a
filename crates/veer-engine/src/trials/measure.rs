//! One case's trials measured with the existing measures: each trial's
//! per-axis numbers and policy violations, and — once per case — the pairwise behaviour
//! distances between any two of its trials, baseline and candidate pooled.
//!
//! A case's traces are read, measured and dropped together, so memory holds one case (per
//! worker thread) at a time whatever the number of cases.

use super::layout::{Case, TrialFile};
use super::outcome::{OutcomeRule, Side, TrialRef};
use rayon::prelude::*;
use veer_contract::trials::ModalTrials;
use veer_experiment::divergence::{structural_parts, PreparedTrace};
use veer_policy::Policy;
use veer_trace::{ReadOptions, Trace};
use veer_trials::TrialWorseWhen;

/// One per-trial axis: its name in the report, its unit, how a trial's number is taken and
/// which way it gets worse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrialAxis {
    /// The axis name in the report (`latency`, `output_tokens`, `tool_calls`, `turns`).
    pub name: &'static str,
    /// The unit of its numbers.
    pub unit: &'static str,
    /// What one trial's number is.
    pub summary: &'static str,
    /// Its direction rule: `Higher` for what the user pays (time, tokens) — faster or cheaper
    /// is an improvement; `AnyChange` for what the agent does (how many calls and turns) — a
    /// dropped call is a change as much as an added one, never an improvement.
    pub worse_when: TrialWorseWhen,
}

impl TrialAxis {
    /// The p-value of a change in the worse direction from a permutation test's one-sided
    /// p-values (candidate higher, candidate lower): the first for `Higher`, the second for
    /// `Lower`, and for `AnyChange` the two-sided p, min(1, 2·min(p_higher, p_lower)).
    pub fn p_worse(self, p_higher: f64, p_lower: f64) -> f64 {
        match self.worse_when {
            TrialWorseWhen::Higher => p_higher,
            TrialWorseWhen::Lower => p_lower,
            TrialWorseWhen::AnyChange => (2.0 * p_higher.min(p_lower)).min(1.0),
        }
    }

    /// The p-value of a change in the better direction (1 for `AnyChange`: no side is better).
    pub fn p_better(self, p_higher: f64, p_lower: f64) -> f64 {
        match self.worse_when {
            TrialWorseWhen::Higher => p_lower,
            TrialWorseWhen::Lower => p_higher,
            TrialWorseWhen::AnyChange => 1.0,
        }
    }

    /// The smallest attainable [`TrialAxis::p_worse`] given the smallest attainable one-sided
    /// p (doubled, at most 1, for a two-sided axis).
    pub fn min_p(self, one_sided: f64) -> f64 {
        match self.worse_when {
            TrialWorseWhen::AnyChange => (2.0 * one_sided).min(1.0),
            TrialWorseWhen::Higher | TrialWorseWhen::Lower => one_sided,
        }
    }
}

/// The per-trial axes, in report order, each with its direction rule: latency and output
/// tokens are worse when higher; the number of tool calls and of turns is two-sided.
pub const AXES: [TrialAxis; 4] = [
    TrialAxis {
        name: "latency",
        unit: "ms",
        summary: "median latency_ms over the trial's responses (0 when none is recorded)",
        worse_when: TrialWorseWhen::Higher,
    },
    TrialAxis {
        name: "output_tokens",
        unit: "tokens",
        summary: "usage.output_tokens summed over the trial's responses",
        worse_when: TrialWorseWhen::Higher,
    },
    TrialAxis {
        name: "tool_calls",
        unit: "calls",
        summary: "tool calls in the trial",
        worse_when: TrialWorseWhen::AnyChange,
    },
    TrialAxis {
        name: "turns",
        unit: "responses",
        summary: "model responses in the trial",
        worse_when: TrialWorseWhen::AnyChange,
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
    /// The behaviour distance per pair (`veer_diff::calls::distance`: the trajectory tokens —
    /// tool name, argument keys, argument-value digest — along the first-divergence
    /// alignment), in [0, 1]; what the behaviour test reads.
    pub behaviour: Vec<f64>,
    /// Event-level structural distance d_norm per pair (traxr's metric), in [0, 1];
    /// descriptive only.
    pub d_norm: Vec<f64>,
    /// Trajectory distance per pair: normalised Levenshtein distance of the tool-name
    /// sequences, in [0, 1].
    pub trajectory: Vec<f64>,
    /// First structural divergence (t*, the step where the two trials first differ) per pair;
    /// None when the two never diverge.
    pub first_turns: Vec<Option<u32>>,
    /// What the candidate's modal trial does differently from the baseline's, in words, each
    /// with the trials of each side in which that change is present against the baseline's
    /// modal trial (e.g. "dropped `lookup_order` before `issue_refund` (3/3 candidate trials,
    /// 0/3 baseline)"); empty when their calls agree.
    pub changes: Vec<String>,
    /// The modal trial of each side ([`modal_index`]) and where the two first differ in their
    /// calls. `measure_traces` names the files `trial N` (1-based, in the side's order);
    /// `measure_case` gives their file names.
    pub modal: Option<ModalTrials>,
    /// The modal trials' indices (baseline among the baseline's trials, candidate among the
    /// candidate's).
    pub modal_index: Option<(usize, usize)>,
    /// The two modal trials side by side, turn by turn (only when [`MeasureOptions::lanes`]
    /// asks, for the HTML report).
    pub lanes: Option<veer_contract::lanes::Lanes>,
    /// The first trial (baseline first) whose outcome the rule could not read: the run stops
    /// with this error (exit 2).
    pub outcome_error: Option<crate::error::Error>,
    /// How the tools offered to the model changed between the baseline's trials and the
    /// candidate's (each side the union over its trials); None when nothing changed.
    pub tool_schema: Option<veer_contract::tool_schema::ToolSchemaDiff>,
}

/// The modal trial among `side` (indices into the pooled trials): the one with the least
/// summed `distance` to the others of its side, ties to the first; None when `side` is empty.
pub(crate) fn modal_index(
    side: std::ops::Range<usize>,
    distance: impl Fn(usize, usize) -> f64,
) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for i in side.clone() {
        let total: f64 = side
            .clone()
            .filter(|&j| j != i)
            .map(|j| distance(i, j))
            .sum();
        if best.is_none_or(|(_, b)| total < b) {
            best = Some((i, total));
        }
    }
    best.map(|(i, _)| i)
}

/// Index of pair (i, j), i < j, in the condensed upper triangle of `n` items.
fn condensed(n: usize, i: usize, j: usize) -> usize {
    let (i, j) = if i < j { (i, j) } else { (j, i) };
    i * n - i * (i + 1) / 2 + (j - i - 1)
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
    /// Where the trials the policy runs on are watched for rules that never fire.
    pub coverage: Option<&'a std::sync::Mutex<crate::policy::Coverage>>,
    /// Work budget of one structural comparison (`--max-align-cells`).
    pub max_align_cells: u64,
    /// Where each trial's pass/fail outcome comes from (`--outcome`, `--outcome-threshold`).
    pub outcome: &'a OutcomeRule,
    /// Build the side-by-side view of the two modal trials (the HTML report's lanes).
    pub lanes: bool,
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
    if let (Some(p), Some(watch)) = (options.policy, options.coverage) {
        for t in traces.iter().chain(&candidate) {
            crate::policy::observe(watch, p, t);
        }
    }
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
    if let (Some(m), Some((b, c))) = (measured.modal.as_mut(), measured.modal_index) {
        if let (Some(fb), Some(fc)) = (case.baseline.get(b), case.candidate.get(c)) {
            m.baseline_file = fb.name.to_string();
            m.candidate_file = fc.name.to_string();
        }
        if options.lanes {
            if let (Some(tb), Some(tc)) = (traces.get(b), candidate.get(c)) {
                // The pair diff's own side-by-side view of the two typical trials.
                let mut diff_options = crate::DiffOptions::default();
                diff_options.behaviour.lanes = true;
                diff_options.behaviour.max_align_cells = options.max_align_cells;
                let (report, _) = crate::diff::diff(
                    tb,
                    tc,
                    (m.baseline_file.as_str(), m.candidate_file.as_str()),
                    &diff_options,
                    veer_base::Level::None,
                );
                measured.lanes = report.lanes;
            }
        }
    }
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
    let turns = veer_diff::turn::diff_turns_shared(&traces);
    let tools: Vec<Vec<String>> = traces
        .iter()
        .map(|t| t.tool_calls().into_iter().map(|c| c.name).collect())
        .collect();
    let n = traces.len();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let finite = |d: f64| if d.is_finite() { d } else { 1.0 };
    let measured: Vec<(f64, f64, f64, Option<u32>)> = pairs
        .par_iter()
        .map(|&(i, j)| {
            let (script, first, _, _) =
                structural_parts(&prepared[i], &prepared[j], max_align_cells);
            let d = script.normalized();
            let trajectory = veer_diff::levenshtein::normalized_levenshtein(&tools[i], &tools[j]);
            let alignment = veer_diff::calls::align(&turns[i], &turns[j], max_align_cells);
            let calls =
                veer_diff::calls::distance(alignment.as_ref().map(|a| &a.0), &turns[i], &turns[j]);
            let turn = first.map(|f| u32::try_from(f.step.max(0)).unwrap_or(u32::MAX));
            (finite(calls), finite(d), finite(trajectory), turn)
        })
        .collect();
    let behaviour: Vec<f64> = measured.iter().map(|m| m.0).collect();
    let k_b = baseline.len();
    let distance = |i: usize, j: usize| behaviour[condensed(n, i, j)];
    let modal_b = modal_index(0..k_b, distance);
    let modal_c = modal_index(k_b..n, distance);
    let (changes, modal, modal_index) = match (modal_b, modal_c) {
        (Some(b), Some(c)) => {
            let (changes, modal) = modal_changes(&traces, &turns, (b, c), k_b, max_align_cells);
            (changes, Some(modal), Some((b, c - k_b)))
        }
        _ => (Vec::new(), None, None),
    };
    let candidate_numbers = numbers.split_off(baseline.len());
    CaseMeasures {
        baseline: numbers,
        candidate: candidate_numbers,
        behaviour,
        d_norm: measured.iter().map(|m| m.1).collect(),
        trajectory: measured.iter().map(|m| m.2).collect(),
        first_turns: measured.iter().map(|m| m.3).collect(),
        changes,
        modal,
        modal_index,
        lanes: None,
        outcome_error: None,
        tool_schema: veer_diff::tool_schema::compare_offered(
            &veer_diff::tool_schema::Offered::of_traces(&traces[..k_b]),
            &veer_diff::tool_schema::Offered::of_traces(&traces[k_b..]),
        ),
    }
}

/// The changes of the candidate's modal trial `modal.1` against the baseline's `modal.0`
/// (pooled indices; baseline trials are `0..k_b`), each with the number of trials of each side
/// whose calls show the same change against the baseline's modal trial; and the modal trials
/// with where they first differ.
fn modal_changes(
    traces: &[&Trace],
    turns: &[Vec<veer_diff::turn::DiffTurn<'_>>],
    (b, c): (usize, usize),
    k_b: usize,
    max_align_cells: u64,
) -> (Vec<String>, ModalTrials) {
    use veer_diff::calls::{align, changes, first_change, Run};
    // Per trial: its changes in words against the baseline's modal trial, and the first
    // (baseline, candidate) turns where their calls differ.
    type Against = (Vec<String>, Option<(usize, usize)>);
    let against_modal: Vec<Against> = (0..traces.len())
        .into_par_iter()
        .map(|t| {
            let alignment = align(&turns[b], &turns[t], max_align_cells).map(|a| a.0);
            let words = changes(
                alignment.as_ref(),
                Run {
                    trace: traces[b],
                    turns: &turns[b],
                },
                Run {
                    trace: traces[t],
                    turns: &turns[t],
                },
            )
            .into_iter()
            .map(|c| c.words)
            .collect();
            (
                words,
                first_change(alignment.as_ref(), &turns[b], &turns[t]),
            )
        })
        .collect();
    let (k_c, n) = (traces.len() - k_b, traces.len());
    let present = |words: &str, side: std::ops::Range<usize>| {
        side.filter(|&t| against_modal[t].0.iter().any(|w| w == words))
            .count()
    };
    let changes = against_modal[c]
        .0
        .iter()
        .map(|w| {
            format!(
                "{w} ({}/{k_c} candidate trials, {}/{k_b} baseline)",
                present(w, k_b..n),
                present(w, 0..k_b)
            )
        })
        .collect();
    let first = against_modal[c].1;
    let turn = first.map(|(_, j)| j);
    let candidate_line =
        turn.and_then(|j| traces[c].responses().get(j).and_then(|r| r.record.line));
    let modal = ModalTrials {
        baseline_file: format!("trial {}", b + 1),
        candidate_file: format!("trial {}", c - k_b + 1),
        candidate_line,
        turn: turn.map(|j| u32::try_from(j).unwrap_or(u32::MAX)),
    };
    (changes, modal)
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::scripted::{agentlog, Script};

    fn trace(trial: u32, script: &Script) -> Trace {
        let text = agentlog("c", trial, 7, script);
        veer_trace::agentlog::reader::read_agentlog_bytes(
            "scripted",
            text.as_bytes(),
            &ReadOptions::default(),
        )
        .unwrap()
    }

    #[test]
    fn modal_is_the_least_total_distance_ties_to_the_first() {
        // Trials 0..3; trial 2 is far from both others, 0 and 1 tie.
        let d = [[0.0, 0.1, 0.9], [0.1, 0.0, 0.8], [0.9, 0.8, 0.0]];
        assert_eq!(modal_index(0..3, |i, j| d[i][j]), Some(1));
        assert_eq!(modal_index(0..2, |i, j| d[i][j]), Some(0));
        assert_eq!(modal_index(2..3, |i, j| d[i][j]), Some(2));
        assert_eq!(modal_index(0..0, |i, j| d[i][j]), None);
        for n in 1..6 {
            for i in 0..n {
                for j in i + 1..n {
                    let at = condensed(n, i, j);
                    assert_eq!(at, condensed(n, j, i));
                    let before = (0..i).map(|r| n - r - 1).sum::<usize>() + (j - i - 1);
                    assert_eq!(at, before);
                }
            }
        }
    }

    #[test]
    fn a_dropped_call_in_two_of_three_candidate_trials_is_named_with_its_counts() {
        let steady = Script {
            extra_call_rate: 0.0,
            ..Script::default()
        };
        let skipping = Script {
            skip_tool: Some(1),
            ..steady.clone()
        };
        let baseline = vec![trace(1, &steady), trace(2, &steady)];
        let candidate = vec![trace(3, &steady), trace(4, &skipping), trace(5, &skipping)];
        let m = measure_traces(&baseline, &candidate, None, 1 << 20);
        assert_eq!(
            m.changes,
            vec![
                "dropped `check_policy` before `issue_refund` (2/3 candidate trials, 0/2 baseline)"
            ]
        );
        // The baseline's trials agree (their wording differs); the candidate's modal trial is
        // the first that skips, and its first differing response is its second.
        assert_eq!(m.behaviour[0], 0.0);
        assert_eq!(m.modal_index, Some((0, 1)));
        let modal = m.modal.unwrap();
        assert_eq!(modal.turn, Some(1));
        assert_eq!(modal.candidate_line, Some(5));
        assert_eq!(modal.candidate_file, "trial 2");
        // Pooled pairs (0,1) (0,2) (0,3) (0,4) (1,2) …: a baseline trial against a skipping one
        // has one of its three calls dropped.
        assert!(
            (m.behaviour[2] - 1.0 / 3.0).abs() < 1e-12,
            "{:?}",
            m.behaviour
        );
        assert_eq!(m.behaviour[1], 0.0);
    }

    #[test]
    fn counts_of_calls_and_turns_are_two_sided_latency_and_tokens_are_not() {
        let by = |name: &str| *AXES.iter().find(|a| a.name == name).unwrap();
        for name in ["latency", "output_tokens"] {
            let a = by(name);
            assert_eq!(a.worse_when, TrialWorseWhen::Higher);
            assert_eq!(
                (a.p_worse(0.01, 0.99), a.p_better(0.01, 0.99)),
                (0.01, 0.99)
            );
            assert_eq!(a.min_p(0.05), 0.05);
        }
        for name in ["tool_calls", "turns"] {
            let a = by(name);
            assert_eq!(a.worse_when, TrialWorseWhen::AnyChange);
            // Fewer calls is a change (the lower tail, doubled), never an improvement.
            assert_eq!(a.p_worse(0.99, 0.01), 0.02);
            assert_eq!(a.p_worse(0.01, 0.99), 0.02);
            assert_eq!(a.p_worse(0.6, 0.7), 1.0);
            assert_eq!(a.p_better(0.99, 0.01), 1.0);
            assert_eq!(a.min_p(0.05), 0.1);
        }
    }

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }
}
