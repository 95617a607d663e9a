//! One case's raw tests, computed as it is measured (streamed): per axis the within-case
//! permutation and equivalence tests, the behaviour test, the exact test per violated rule,
//! the modal first divergence and the pass counts — everything before multiplicity. Also the
//! compact [`SuiteRow`] of a case: the part the suite-level tests and the case-test family need
//! for every case at once.

use super::layout::Case;
use super::measure::{CaseMeasures, TrialFailure, AXES, AXIS_COUNT};
use super::TrialsOptions;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use veer_base::rng::derive_seed;
use veer_contract::trials::CaseError;
use veer_policy::Policy;
use veer_trials::{
    behaviour_test, first_divergence, fisher_exact, min_attainable_p, suite_permutation_test,
    tost_p, welch, BehaviourTest, CaseSample, Count, PairwiseDistances, PermutationOptions,
};

/// One axis of one case before multiplicity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct AxisRaw {
    pub(super) baseline: Vec<f64>,
    pub(super) candidate: Vec<f64>,
    pub(super) p_worse: f64,
    pub(super) p_better: f64,
    pub(super) p_equivalence: Option<f64>,
    pub(super) margin: f64,
    /// The smallest p the test can reach given the pooled values (1 when they are all equal).
    pub(super) min_p: f64,
}

/// One rule of one case before multiplicity (rules some trial violated only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct RuleRaw {
    pub(super) index: usize,
    pub(super) baseline: u32,
    pub(super) candidate: u32,
    pub(super) p_worse: f64,
    pub(super) p_better: f64,
    /// The smallest "higher" p reachable given the total of violations (Tarone's bound).
    pub(super) min_p: f64,
}

/// A measured case before multiplicity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct MeasuredRaw {
    pub(super) axes: Vec<AxisRaw>,
    pub(super) behaviour: Option<(BehaviourTest, Option<f64>, f64)>,
    /// True when every pairwise behaviour distance is 0: the trials' calls cannot be told
    /// apart at all.
    pub(super) identical: bool,
    /// True when every cross-side pair of trials differs and no pair within a side does (both
    /// sides with ≥ 2 trials): the descriptive rule of a `changed` case.
    pub(super) separated: bool,
    /// The pooled behaviour distances (condensed, baseline first), for the suite's test.
    pub(super) distances: Vec<f64>,
    pub(super) rules: Vec<RuleRaw>,
    pub(super) first: Option<veer_contract::trials::stats::ModalDivergence>,
    /// Passing trials per side (pass^k): by the trials' `outcome` when every trial has one,
    /// else policy-clean when a policy was given; with where it came from.
    pub(super) passes: Option<(u32, u32, Cow<'static, str>)>,
    pub(super) baseline_flaky: bool,
    /// What the candidate's modal trial does differently, in words (`CaseMeasures::changes`).
    #[serde(default)]
    pub(super) changes: Vec<String>,
    /// The modal trial of each side (`CaseMeasures::modal`).
    #[serde(default)]
    pub(super) modal: Option<veer_contract::trials::ModalTrials>,
    /// The modal trials side by side (`CaseMeasures::lanes`; HTML only, not kept past the
    /// spill).
    #[serde(skip)]
    pub(super) lanes: Option<veer_contract::lanes::Lanes>,
    /// How the offered tools changed (`CaseMeasures::tool_schema`).
    #[serde(default)]
    pub(super) tool_schema: Option<veer_contract::tool_schema::ToolSchemaDiff>,
}

/// One case's raw results: what its entry in the report is built from once the multiplicity
/// adjustments are known. Past [`super::TrialsOptions::spill_after`] cases these go to a
/// temporary file ([`super::spill`]); what the suite tests need stays as its [`SuiteRow`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRaw {
    pub(super) key: String,
    pub(super) k_b: usize,
    pub(super) k_c: usize,
    pub(super) state: RawState,
    /// Quarantined (`.veer/quarantine.yaml`): measured and shown, never gating.
    pub(super) quarantined: bool,
    /// A trial whose outcome could not be read: the run stops with it (never spilled: the run
    /// stops before).
    #[serde(skip)]
    pub(super) outcome_error: Option<crate::error::Error>,
}

impl CaseRaw {
    /// The error of the first trial of this case whose outcome the rule could not read
    /// (`--outcome`, `--outcome-threshold`): the comparison stops with it (exit 2).
    pub(crate) fn outcome_error(&self) -> Option<&crate::error::Error> {
        self.outcome_error.as_ref()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) enum RawState {
    Missing,
    Failed(CaseError),
    Measured(Box<MeasuredRaw>),
}

pub(super) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

pub(super) fn sd(v: &[f64]) -> Option<f64> {
    if v.len() < 2 {
        return None;
    }
    let m = mean(v);
    Some((v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64).sqrt())
}

/// Mean of the condensed entries of pairs (i, j), i < j, for which `keep(i, j)` holds.
fn mean_pairs(values: &[f64], n: usize, keep: impl Fn(usize, usize) -> bool) -> Option<f64> {
    let (mut sum, mut count, mut at) = (0.0, 0usize, 0usize);
    for i in 0..n {
        for j in i + 1..n {
            if keep(i, j) {
                sum += values.get(at).copied().unwrap_or(0.0);
                count += 1;
            }
            at += 1;
        }
    }
    (count > 0).then(|| sum / count as f64)
}

/// A case's raw tests from its measurement (or its failure).
pub(crate) fn case_raw(
    case: &Case,
    measured: Option<Result<CaseMeasures, TrialFailure>>,
    policy: Option<&Policy>,
    options: &TrialsOptions,
) -> CaseRaw {
    case_raw_of(
        &case.key,
        (case.baseline.len(), case.candidate.len()),
        measured,
        policy,
        options,
    )
}

/// `case_raw` for a case given by its key and trial counts `(k_B, k_C)` (trials measured in
/// memory; `measured` None means one side has no trial).
pub fn case_raw_of(
    key: &str,
    (k_b, k_c): (usize, usize),
    measured: Option<Result<CaseMeasures, TrialFailure>>,
    policy: Option<&Policy>,
    options: &TrialsOptions,
) -> CaseRaw {
    let mut outcome_error = None;
    let state = match measured {
        None => RawState::Missing,
        Some(Err(f)) => RawState::Failed(CaseError {
            file: f.file,
            error: f.error,
            hint: f.hint,
        }),
        Some(Ok(mut m)) => {
            outcome_error = m.outcome_error.take();
            RawState::Measured(Box::new(measured_raw(key, &m, policy, options)))
        }
    };
    CaseRaw {
        key: key.to_string(),
        k_b,
        k_c,
        state,
        quarantined: options.quarantine.contains(key),
        outcome_error,
    }
}

fn measured_raw(
    key: &str,
    m: &CaseMeasures,
    policy: Option<&Policy>,
    options: &TrialsOptions,
) -> MeasuredRaw {
    let (k_b, k_c) = (m.baseline.len(), m.candidate.len());
    let permutation = |what: &str| PermutationOptions {
        seed: derive_seed(options.seed, &format!("{key}\u{0}{what}")),
        ..PermutationOptions::default()
    };
    let axes = AXES
        .iter()
        .enumerate()
        .map(|(a, axis)| {
            let baseline: Vec<f64> = m.baseline.iter().map(|t| t.axes[a]).collect();
            let candidate: Vec<f64> = m.candidate.iter().map(|t| t.axes[a]).collect();
            let margin = options.margins[a].at(mean(&baseline));
            let sample = [CaseSample {
                baseline: &baseline,
                candidate: &candidate,
            }];
            let (p_worse, p_better) = suite_permutation_test(&sample, &permutation(axis.name))
                .map_or((1.0, 1.0), |t| {
                    (
                        axis.p_worse(t.p_higher, t.p_lower),
                        axis.p_better(t.p_higher, t.p_lower),
                    )
                });
            let p_equivalence = welch(&baseline, &candidate)
                .and_then(|w| tost_p(w.effect, w.standard_error, w.degrees_of_freedom, margin));
            let constant = baseline
                .iter()
                .chain(&candidate)
                .all(|v| *v == baseline.first().copied().unwrap_or(0.0));
            AxisRaw {
                min_p: if constant {
                    1.0
                } else {
                    axis.min_p(min_attainable_p(k_b as u32, k_c as u32))
                },
                baseline,
                candidate,
                p_worse,
                p_better,
                p_equivalence,
                margin,
            }
        })
        .collect();
    let n = k_b + k_c;
    let distances = m.behaviour.clone();
    let behaviour = PairwiseDistances::from_condensed(n, distances.clone())
        .and_then(|d| behaviour_test(&d, k_b, k_c, &permutation("behaviour")))
        .ok()
        .map(|t| {
            let within = mean_pairs(&m.trajectory, n, |i, j| j < k_b && i < k_b);
            let across = mean_pairs(&m.trajectory, n, |i, j| (i < k_b) != (j < k_b));
            (t, within, across.unwrap_or(0.0))
        });
    let first = first_divergence(&m.first_turns, k_b, k_c).ok();
    let mut rules = Vec::new();
    let mut baseline_flaky = behaviour
        .as_ref()
        .is_some_and(|(t, _, _)| veer_trials::is_behaviour_flaky(t.d_bb, options.behaviour_margin));
    if let Some(p) = policy {
        for index in 0..p.rules.len() {
            let count = |side: &[super::measure::TrialNumbers]| {
                side.iter()
                    .filter(|t| t.violated.get(index).copied().unwrap_or(false))
                    .count() as u32
            };
            let (b, c) = (count(&m.baseline), count(&m.candidate));
            if b == 0 && c == 0 {
                continue;
            }
            baseline_flaky |= veer_trials::is_rate_flaky(b, k_b as u32);
            let (p_worse, p_better, min_p) =
                fisher_exact(Count::new(b, k_b as u32), Count::new(c, k_c as u32))
                    .map_or((1.0, 1.0, 1.0), |f| {
                        (f.p_higher, f.p_lower, f.min_attainable_p_higher_given_total)
                    });
            rules.push(RuleRaw {
                index,
                baseline: b,
                candidate: c,
                p_worse,
                p_better,
                min_p,
            });
        }
    }
    let all: Vec<&super::measure::TrialNumbers> = m.baseline.iter().chain(&m.candidate).collect();
    let passes = if all.iter().all(|t| t.outcome.is_some()) {
        let pass = |side: &[super::measure::TrialNumbers]| {
            side.iter().filter(|t| t.outcome == Some(true)).count() as u32
        };
        Some((
            pass(&m.baseline),
            pass(&m.candidate),
            Cow::Borrowed(options.outcome.kind()),
        ))
    } else {
        policy.map(|_| {
            let clean = |side: &[super::measure::TrialNumbers]| {
                side.iter().filter(|t| !t.violated.contains(&true)).count() as u32
            };
            (
                clean(&m.baseline),
                clean(&m.candidate),
                Cow::Borrowed("policy-clean"),
            )
        })
    };
    let mut at = 0usize;
    let mut separated = k_b >= 2 && k_c >= 2;
    for i in 0..n {
        for j in i + 1..n {
            let d = distances.get(at).copied().unwrap_or(0.0);
            at += 1;
            let cross = (i < k_b) != (j < k_b);
            separated &= if cross { d > 0.0 } else { d == 0.0 };
        }
    }
    MeasuredRaw {
        axes,
        behaviour,
        identical: distances.iter().all(|d| *d == 0.0),
        separated,
        distances,
        rules,
        first,
        passes,
        baseline_flaky,
        changes: m.changes.clone(),
        modal: m.modal.clone(),
        lanes: m.lanes.clone(),
        tool_schema: m.tool_schema.clone(),
    }
}

/// What the suite-level tests and the case-test family need of one case, for every case at
/// once: per axis every trial's value (8 bytes × 4 axes × (k_B + k_C): 640 bytes at 10 trials
/// a side — the suite permutation test relabels the trials of every case in each draw), the
/// behaviour test's raw and smallest attainable p, and the violated rules' counts and p-values.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteRow {
    pub(super) key: Box<str>,
    pub(super) k_b: usize,
    pub(super) k_c: usize,
    pub(super) quarantined: bool,
    pub(super) measured: Option<Box<MeasuredRow>>,
}

/// The measured part of a [`SuiteRow`].
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MeasuredRow {
    /// Baseline values per axis.
    n_b: usize,
    /// Candidate values per axis.
    n_c: usize,
    /// Axis-major: axis a's `n_b` baseline values then its `n_c` candidate values.
    values: Box<[f64]>,
    /// The behaviour test's raw p and smallest attainable p (1 when the trials are identical).
    pub(super) behaviour: Option<(f64, f64)>,
    /// The pooled behaviour distances (condensed, baseline first), for the suite's test.
    pub(super) distances: Box<[f64]>,
    pub(super) rules: Box<[RuleRaw]>,
    pub(super) passes: Option<(u32, u32, Cow<'static, str>)>,
}

impl MeasuredRow {
    /// (k_B, k_C) of the measured trials.
    pub(super) fn sizes(&self) -> (usize, usize) {
        (self.n_b, self.n_c)
    }

    /// Axis `a`'s baseline values.
    pub(super) fn baseline(&self, a: usize) -> &[f64] {
        let at = a * (self.n_b + self.n_c);
        self.values.get(at..at + self.n_b).unwrap_or(&[])
    }

    /// Axis `a`'s candidate values.
    pub(super) fn candidate(&self, a: usize) -> &[f64] {
        let at = a * (self.n_b + self.n_c) + self.n_b;
        self.values.get(at..at + self.n_c).unwrap_or(&[])
    }
}

impl CaseRaw {
    /// This case's [`SuiteRow`].
    pub fn row(&self) -> SuiteRow {
        let measured = match &self.state {
            RawState::Measured(m) => {
                let n_b = m.axes.first().map_or(0, |a| a.baseline.len());
                let n_c = m.axes.first().map_or(0, |a| a.candidate.len());
                let mut values = Vec::with_capacity(AXIS_COUNT * (n_b + n_c));
                for a in 0..AXIS_COUNT {
                    let axis = m.axes.get(a);
                    for (v, n) in [
                        (axis.map(|x| &x.baseline[..]), n_b),
                        (axis.map(|x| &x.candidate[..]), n_c),
                    ] {
                        values.extend(
                            (0..n).map(|i| v.and_then(|v| v.get(i)).copied().unwrap_or(0.0)),
                        );
                    }
                }
                Some(Box::new(MeasuredRow {
                    n_b,
                    n_c,
                    values: values.into_boxed_slice(),
                    behaviour: m.behaviour.as_ref().map(|(t, _, _)| {
                        (
                            t.p_value,
                            if m.identical { 1.0 } else { t.min_attainable_p },
                        )
                    }),
                    distances: m.distances.clone().into_boxed_slice(),
                    rules: m.rules.clone().into_boxed_slice(),
                    passes: m.passes.clone(),
                }))
            }
            _ => None,
        };
        SuiteRow {
            key: self.key.as_str().into(),
            k_b: self.k_b,
            k_c: self.k_c,
            quarantined: self.quarantined,
            measured,
        }
    }
}
