//! Repeated trials: a directory diff whose cases were each run several times is
//! compared case by case, so the gate tells a behaviour change from agent noise.
//!
//! - [`layout`]: which files are trials of which case; [`listing`] groups two directories'
//!   files into cases as they are walked (sorted runs on disk past a few thousand files), and
//!   [`detect`] decides between the trials report and the path-paired one;
//! - [`measure`]: each trial's per-axis numbers and the pairwise behaviour distances within a
//!   case (the existing measures, computed once per case);
//! - [`raw`]: each case's raw tests as it is measured, and the compact row the suite tests keep;
//! - [`compose`]: the multiplicity adjustments over all cases and the `trials` block, from
//!   `case_block` (one case's entry and verdict) and [`suite`] (the suite-level tests);
//! - [`spill`]: past a few hundred cases, case results go to a temporary file and are read
//!   back case by case, so memory stays flat in the number of cases;
//! - [`gate`]: what trips the gate when the report has trials (quarantined cases never do);
//! - [`options`]: α, seed, margins, outcome rule, quarantine;
//! - [`outcome`] and `outcome_file`: each trial's pass/fail outcome (`--outcome`,
//!   `--outcome-threshold`).
//!
//! The statistics themselves live in the `veer-trials` crate (pure functions); this module only
//! feeds them the measures and turns their answers into verdicts.

pub(crate) mod case_block;
mod case_runs;
pub mod compose;
pub mod detect;
pub mod gate;
pub mod layout;
pub mod listing;
pub mod measure;
pub mod options;
pub mod outcome;
pub(crate) mod outcome_file;
pub mod plan;
pub mod raw;
pub mod scripted;
pub mod spill;
pub mod suite;

use layout::Layout;
use measure::MeasureOptions;
use rayon::prelude::*;
use veer_base::Level;
use veer_contract::trials::{LayoutBlock, TrialsReport};
use veer_contract::verdict::Verdict;
use veer_policy::Policy;

pub use options::{Margin, TrialsOptions, DEFAULT_BEHAVIOUR_MARGIN, DEFAULT_MARGINS};

/// Cases measured at once per worker thread: each case's traces live only while it is
/// measured, and only the small per-case results are kept, so memory stays flat in the number
/// of cases.
const CASES_PER_THREAD: usize = 4;

/// Measures every case of `layout` (a window of cases at a time, in parallel) and composes the
/// trials report with its gate. `tick` is called once per case measured (progress). A trial
/// whose outcome the rule cannot read stops the run after its window: that error.
///
/// Memory: each window's traces are dropped with it, and so is each case's list of files; what
/// is kept per case is its [`raw::SuiteRow`] (every trial's axis numbers, which the suite-level
/// permutation tests need, and the p-values of its tests); past `options.spill_after` cases its
/// full results and its entry in the report live in a temporary file ([`spill`]).
#[allow(clippy::too_many_arguments)]
pub fn analyse(
    baseline: &str,
    candidate: &str,
    layout: Layout,
    measure: MeasureOptions<'_>,
    options: &TrialsOptions,
    fail_on: Level,
    fail_on_inconclusive: bool,
    tick: &(dyn Fn() + Sync),
) -> Result<TrialsReport, crate::error::Error> {
    let policy: Option<&Policy> = measure.policy;
    let window = rayon::current_num_threads().max(1) * CASES_PER_THREAD;
    let (baseline_trials, candidate_trials) = layout.trial_counts();
    let layout_block = LayoutBlock {
        sources: layout.sources.iter().copied().collect(),
        cases: layout.len(),
        baseline_trials,
        candidate_trials,
    };
    let mut raws = spill::RawStore::new(options.spill_after);
    let mut cases = layout.into_cases()?;
    loop {
        let chunk: Vec<layout::Case> = cases.by_ref().take(window).collect::<Result<_, _>>()?;
        if chunk.is_empty() {
            break;
        }
        let done: Vec<raw::CaseRaw> = chunk
            .par_iter()
            .map(|case| {
                let measured = (!case.baseline.is_empty() && !case.candidate.is_empty())
                    .then(|| measure::measure_case(case, measure));
                let raw = raw::case_raw(case, measured, policy, options);
                tick();
                raw
            })
            .collect();
        if let Some(e) = done.iter().find_map(raw::CaseRaw::outcome_error) {
            return Err(e.clone());
        }
        for raw in done {
            raws.push(raw)?;
        }
    }
    let (trials, verdict) = decide_store(
        layout_block,
        raws,
        policy,
        options,
        fail_on,
        fail_on_inconclusive,
    )?;
    Ok(TrialsReport {
        schema_version: veer_contract::diff::DIFF_SCHEMA_VERSION.into(),
        baseline: baseline.to_string(),
        candidate: candidate.to_string(),
        trials,
        gate: verdict.gate(),
        verdict,
    })
}

/// With `--outcome FILE.jsonl`: checks the file against every trial of `layout` before anything
/// is measured. A trial without a line is the error; the lines matching no trial are returned
/// for a warning. Other sources: nothing to check.
pub fn check_outcome_file(
    layout: &Layout,
    rule: &outcome::OutcomeRule,
) -> Result<Vec<String>, crate::error::Error> {
    let outcome::OutcomeSource::File(file) = &rule.source else {
        return Ok(Vec::new());
    };
    let mut check = file.check_each();
    for case in layout.cases()? {
        let case = case?;
        for (side, files) in [
            (outcome::Side::Baseline, &case.baseline),
            (outcome::Side::Candidate, &case.candidate),
        ] {
            for f in files {
                check.visit(outcome::TrialRef {
                    side,
                    case: &case.key,
                    trial: f.trial.as_deref(),
                    name: &f.name,
                })?;
            }
        }
    }
    Ok(check.unmatched())
}

/// [`check_outcome_file`] for in-memory cases (e.g. two Inspect AI logs grouped by sample id).
pub fn check_outcome_file_in_memory(
    baseline: &std::collections::BTreeMap<String, Vec<veer_trace::Trace>>,
    candidate: &std::collections::BTreeMap<String, Vec<veer_trace::Trace>>,
    rule: &outcome::OutcomeRule,
) -> Result<Vec<String>, crate::error::Error> {
    let outcome::OutcomeSource::File(file) = &rule.source else {
        return Ok(Vec::new());
    };
    let labels: Vec<(&String, Vec<measure::TrialLabel>)> = baseline
        .iter()
        .map(|(k, b)| (k, memory_labels(b, &[])))
        .chain(candidate.iter().map(|(k, c)| (k, memory_labels(&[], c))))
        .collect();
    let trials = labels.iter().flat_map(|(case, ls)| {
        ls.iter().map(move |l| outcome::TrialRef {
            side: l.side,
            case: case.as_str(),
            trial: l.trial.as_deref(),
            name: &l.name,
        })
    });
    file.check(trials)
}

/// The labels of in-memory trials (side, the metadata `trial`, `epoch N` for messages).
fn memory_labels(
    baseline: &[veer_trace::Trace],
    candidate: &[veer_trace::Trace],
) -> Vec<measure::TrialLabel> {
    let label = |side, t: &veer_trace::Trace| {
        let trial = outcome::metadata_trial(t);
        measure::TrialLabel {
            side,
            name: format!("epoch {}", trial.as_deref().unwrap_or("?")),
            trial,
        }
    };
    baseline
        .iter()
        .map(|t| label(outcome::Side::Baseline, t))
        .chain(candidate.iter().map(|t| label(outcome::Side::Candidate, t)))
        .collect()
}

/// The trials block and the gate from every case's raw results (in case-key order): the
/// multiplicity adjustments, verdicts and suite tests ([`compose::compose`]), then what trips
/// the gate at `fail_on` ([`gate::trials_gate`]; `Level::None` never trips). An error is a
/// temporary file of spilled results that could not be written or read back.
pub fn decide(
    layout: LayoutBlock,
    raws: Vec<raw::CaseRaw>,
    policy: Option<&Policy>,
    options: &TrialsOptions,
    fail_on: Level,
    fail_on_inconclusive: bool,
) -> Result<(veer_contract::trials::TrialsBlock, Verdict), crate::error::Error> {
    let mut store = spill::RawStore::new(options.spill_after);
    for raw in raws {
        store.push(raw)?;
    }
    decide_store(
        layout,
        store,
        policy,
        options,
        fail_on,
        fail_on_inconclusive,
    )
}

/// [`decide`] over results already in a [`spill::RawStore`].
pub(crate) fn decide_store(
    layout: LayoutBlock,
    raws: spill::RawStore,
    policy: Option<&Policy>,
    options: &TrialsOptions,
    fail_on: Level,
    fail_on_inconclusive: bool,
) -> Result<(veer_contract::trials::TrialsBlock, Verdict), crate::error::Error> {
    let mut trials = compose::compose(layout, raws, policy, options)?;
    if let Some(e) = spill::case_read_error(&trials.cases) {
        return Err(e);
    }
    let (tripped, verdict) = gate::decide(&trials, fail_on, fail_on_inconclusive);
    trials.tripped = tripped;
    Ok((trials, verdict))
}

/// Re-decides a trials report (e.g. one read back from JSON by `veer gate`) at `fail_on` with
/// the same code `veer diff` used: its `verdict`, `gate` and `trials.tripped` are replaced.
pub fn redecide(report: &mut TrialsReport, fail_on: Level, fail_on_inconclusive: bool) {
    let (tripped, verdict) = gate::decide(&report.trials, fail_on, fail_on_inconclusive);
    report.trials.tripped = tripped;
    report.gate = verdict.gate();
    report.verdict = verdict;
}

/// Compares two sets of in-memory cases (e.g. the sample-epochs of two Inspect AI logs grouped
/// by sample id): `baseline` and `candidate` map case keys to their trials. Cases are measured
/// a window at a time, in key order; a case on one side only is `missing`, a trial without a
/// model response makes its case `failed`.
#[allow(clippy::too_many_arguments)]
pub fn analyse_in_memory(
    baseline_name: &str,
    candidate_name: &str,
    mut baseline: std::collections::BTreeMap<String, Vec<veer_trace::Trace>>,
    mut candidate: std::collections::BTreeMap<String, Vec<veer_trace::Trace>>,
    policy: Option<&Policy>,
    max_align_cells: u64,
    options: &TrialsOptions,
    fail_on: Level,
    fail_on_inconclusive: bool,
) -> Result<TrialsReport, crate::error::Error> {
    let keys: std::collections::BTreeSet<String> =
        baseline.keys().chain(candidate.keys()).cloned().collect();
    let (nb, nc) = (
        baseline.values().map(Vec::len).sum(),
        candidate.values().map(Vec::len).sum(),
    );
    let cases: Vec<(String, Vec<veer_trace::Trace>, Vec<veer_trace::Trace>)> = keys
        .into_iter()
        .map(|k| {
            let b = baseline.remove(&k).unwrap_or_default();
            let c = candidate.remove(&k).unwrap_or_default();
            (k, b, c)
        })
        .collect();
    let raws: Vec<raw::CaseRaw> = cases
        .par_iter()
        .map(|(key, b, c)| {
            let measured = (!b.is_empty() && !c.is_empty()).then(|| {
                let empty = b.iter().chain(c).position(|t| t.responses().is_empty());
                match empty {
                    Some(i) => Err(measure::TrialFailure {
                        file: format!("{key} trial {}", i % b.len().max(1) + 1),
                        error: format!(
                            "case {key}: a {} trial has no model response",
                            if i < b.len() { "baseline" } else { "candidate" }
                        ),
                        hint: Some("an errored sample cannot be compared; re-run it".to_string()),
                    }),
                    None => {
                        let mut m = measure::measure_traces(b, c, policy, max_align_cells);
                        let labels = memory_labels(b, c);
                        measure::apply_outcomes(&mut m, key, &labels, b, c, &options.outcome);
                        Ok(m)
                    }
                }
            });
            compose::case_raw_of(key, (b.len(), c.len()), measured, policy, options)
        })
        .collect();
    if let Some(e) = raws.iter().find_map(raw::CaseRaw::outcome_error) {
        return Err(e.clone());
    }
    let n_cases = cases.len();
    drop(cases);
    let layout = LayoutBlock {
        sources: vec![veer_contract::trials::KeySource::Metadata],
        cases: n_cases,
        baseline_trials: nb,
        candidate_trials: nc,
    };
    let (trials, verdict) = decide(layout, raws, policy, options, fail_on, fail_on_inconclusive)?;
    Ok(TrialsReport {
        schema_version: veer_contract::diff::DIFF_SCHEMA_VERSION.into(),
        baseline: baseline_name.to_string(),
        candidate: candidate_name.to_string(),
        trials,
        gate: verdict.gate(),
        verdict,
    })
}
