//! From measured cases to the `trials` block (issue 28, items 2–3): each case's raw tests as
//! it is measured ([`case_raw`], streamed), then — over all cases — the multiplicity
//! adjustments, the per-case verdicts, the suite-level tests, pass^k and the power plan
//! ([`compose`]). The statistics are `veer-trials`' pure functions; this module only chooses
//! what to feed them and in which family.
//!
//! Error control (docs/trials.md): α is split in two halves. The case tests — every testable
//! (case, measure) test of the run in one Benjamini–Hochberg family over the tests that can
//! reach significance (Tarone/Gilbert) — get α/2, as do the suite tests (Holm across axes and
//! rules). Reported adjusted p-values are doubled so that each compares with α.

use super::layout::Case;
use super::measure::{CaseMeasures, TrialFailure, AXES, AXIS_COUNT};
use super::report::*;
use veer_policy::Policy;
use veer_trials::{
    balanced_trials_for_level, behaviour_test, benjamini_hochberg_testable, case_differences,
    case_verdict, derive_seed, first_divergence, fisher_exact, mde_floor, min_attainable_p,
    minimum_detectable_effect, pass_hat_k, population_estimate, stratified_exact_test,
    suite_decision, suite_permutation_test, tost_p, variance_components, welch, BehaviourTest,
    CaseEvidence, CaseSample, CaseVerdict, Count, MeasureTest, PairwiseDistances,
    PermutationOptions, PowerInputs, Presence, SuiteTest, WorseWhen, DEFAULT_POWER,
    DEFAULT_SUITE_DRAWS,
};

/// A practical margin: a change counts only beyond max(relative × baseline mean, absolute).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Margin {
    /// Share of the baseline mean, ≥ 0 (0.2 = 20%).
    pub relative: f64,
    /// In the measure's units, ≥ 0.
    pub absolute: f64,
}

impl Margin {
    /// The margin in units for a baseline mean.
    pub fn at(&self, baseline_mean: f64) -> f64 {
        (self.relative * baseline_mean.abs()).max(self.absolute)
    }
}

/// Default margins per axis of [`AXES`]: latency +20% and +50 ms, output tokens +20% and +20,
/// tool calls +10% and +0.5, turns +10% and +0.5.
pub const DEFAULT_MARGINS: [Margin; AXIS_COUNT] = [
    Margin {
        relative: 0.2,
        absolute: 50.0,
    },
    Margin {
        relative: 0.2,
        absolute: 20.0,
    },
    Margin {
        relative: 0.1,
        absolute: 0.5,
    },
    Margin {
        relative: 0.1,
        absolute: 0.5,
    },
];

/// Default behaviour margin: an excess divergence E beyond 0.1 (d_norm units).
pub const DEFAULT_BEHAVIOUR_MARGIN: f64 = 0.1;

/// The knobs of the trials analysis.
#[derive(Debug, Clone)]
pub struct TrialsOptions {
    /// Significance level α, in (0, 1) (default 0.05).
    pub alpha: f64,
    /// Seed of every Monte Carlo permutation.
    pub seed: u64,
    /// Margin per axis of [`AXES`].
    pub margins: [Margin; AXIS_COUNT],
    /// Margin of the excess divergence, d_norm units, ≥ 0.
    pub behaviour_margin: f64,
    /// Where each trial's pass/fail outcome comes from (pass^k and the per-case pass rates).
    pub outcome: super::outcome::OutcomeRule,
}

impl Default for TrialsOptions {
    fn default() -> Self {
        TrialsOptions {
            alpha: 0.05,
            seed: 42,
            margins: DEFAULT_MARGINS,
            behaviour_margin: DEFAULT_BEHAVIOUR_MARGIN,
            outcome: super::outcome::OutcomeRule::default(),
        }
    }
}

/// One axis of one case before multiplicity.
#[derive(Debug, Clone, PartialEq)]
struct AxisRaw {
    baseline: Vec<f64>,
    candidate: Vec<f64>,
    p_worse: f64,
    p_better: f64,
    p_equivalence: Option<f64>,
    margin: f64,
    /// The smallest p the test can reach given the pooled values (1 when they are all equal).
    min_p: f64,
}

/// One rule of one case before multiplicity (rules some trial violated only).
#[derive(Debug, Clone, PartialEq)]
struct RuleRaw {
    index: usize,
    baseline: u32,
    candidate: u32,
    p_worse: f64,
    p_better: f64,
    /// The smallest "higher" p reachable given the total of violations (Tarone's bound).
    min_p: f64,
}

/// A measured case before multiplicity.
#[derive(Debug, Clone, PartialEq)]
struct MeasuredRaw {
    axes: Vec<AxisRaw>,
    behaviour: Option<(BehaviourTest, Option<f64>, f64)>,
    /// True when every pairwise distance is 0: the trials cannot be told apart at all.
    identical: bool,
    rules: Vec<RuleRaw>,
    first: Option<veer_trials::FirstDivergence>,
    /// Passing trials per side (pass^k): by the trials' `outcome` when every trial has one,
    /// else policy-clean when a policy was given; with where it came from.
    passes: Option<(u32, u32, &'static str)>,
    baseline_flaky: bool,
}

/// One case's raw results, small enough to keep for every case of a large suite.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseRaw {
    key: String,
    k_b: usize,
    k_c: usize,
    state: RawState,
    /// A trial whose outcome could not be read: the run stops with it.
    outcome_error: Option<crate::error::Error>,
}

impl CaseRaw {
    /// The error of the first trial of this case whose outcome the rule could not read
    /// (`--outcome`, `--outcome-threshold`): the comparison stops with it (exit 2).
    pub fn outcome_error(&self) -> Option<&crate::error::Error> {
        self.outcome_error.as_ref()
    }
}

#[derive(Debug, Clone, PartialEq)]
enum RawState {
    Missing,
    Failed(CaseError),
    Measured(Box<MeasuredRaw>),
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn sd(v: &[f64]) -> Option<f64> {
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
pub fn case_raw(
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

/// [`case_raw`] for a case given by its key and trial counts `(k_B, k_C)` (trials measured in
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
                .map_or((1.0, 1.0), |t| (t.p_higher, t.p_lower));
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
                    min_attainable_p(k_b as u32, k_c as u32)
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
    let behaviour = PairwiseDistances::from_condensed(n, m.d_norm.clone())
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
            options.outcome.kind(),
        ))
    } else {
        policy.map(|_| {
            let clean = |side: &[super::measure::TrialNumbers]| {
                side.iter().filter(|t| !t.violated.contains(&true)).count() as u32
            };
            (clean(&m.baseline), clean(&m.candidate), "policy-clean")
        })
    };
    MeasuredRaw {
        axes,
        behaviour,
        identical: m.d_norm.iter().all(|d| *d == 0.0),
        rules,
        first,
        passes,
        baseline_flaky,
    }
}

/// Where one case test sits: (case index, slot), slot < AXIS_COUNT an axis, = AXIS_COUNT the
/// behaviour, past it rule `slot − AXIS_COUNT − 1` of the case's `rules`.
type Slot = (usize, usize);

/// The case-test family: every case's behaviour test and the tests of the rules its trials
/// violated, with raw p-values and smallest attainable p. Per-case axis tests stay out of it:
/// at the usual k (3–10 trials a side) their permutation p-values cannot reach the level a
/// family of several axes per case would need, so axes are decided at suite level, where the
/// cases pool their power, and per case only reported (with their equivalence test).
fn case_family(raws: &[CaseRaw]) -> (Vec<Slot>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let (mut slots, mut worse, mut better, mut min_p) = (vec![], vec![], vec![], vec![]);
    for (c, raw) in raws.iter().enumerate() {
        let RawState::Measured(m) = &raw.state else {
            continue;
        };
        if let Some((t, _, _)) = &m.behaviour {
            slots.push((c, AXIS_COUNT));
            worse.push(t.p_value);
            better.push(1.0);
            min_p.push(if m.identical { 1.0 } else { t.min_attainable_p });
        }
        for (r, rule) in m.rules.iter().enumerate() {
            slots.push((c, AXIS_COUNT + 1 + r));
            worse.push(rule.p_worse);
            better.push(rule.p_better);
            min_p.push(rule.min_p);
        }
    }
    (slots, worse, better, min_p)
}

/// Doubles an adjusted p (the α split), capped at 1.
fn doubled(p: f64) -> f64 {
    (2.0 * p).min(1.0)
}

fn severity_name(s: veer_policy::Severity) -> &'static str {
    match s {
        veer_policy::Severity::Info => "info",
        veer_policy::Severity::Warning => "warning",
        veer_policy::Severity::Error => "error",
        veer_policy::Severity::Critical => "critical",
    }
}

fn rule_of(policy: Option<&Policy>, index: usize) -> (String, veer_policy::Severity) {
    policy.and_then(|p| p.rules.get(index)).map_or(
        (format!("rule-{index}"), veer_policy::Severity::Error),
        |r| (r.id.clone(), r.severity),
    )
}

/// The `trials` block of every case's raw results (in case-key order); `tripped` is left
/// empty for [`super::gate::trials_gate`].
pub fn compose(
    layout: LayoutBlock,
    raws: &[CaseRaw],
    policy: Option<&Policy>,
    options: &TrialsOptions,
) -> TrialsBlock {
    let alpha = options.alpha;
    let half = alpha / 2.0;
    let (slots, worse, better, min_p) = case_family(raws);
    let adjust = |p: &[f64]| {
        benjamini_hochberg_testable(p, &min_p, half)
            .map(|v| v.into_iter().map(|x| x.map(doubled)).collect::<Vec<_>>())
            .unwrap_or_else(|_| vec![None; p.len()])
    };
    let (adj_worse, adj_better) = (adjust(&worse), adjust(&better));
    let lookup = |c: usize, slot: usize, adjusted: &[Option<f64>]| -> Option<f64> {
        slots
            .binary_search(&(c, slot))
            .ok()
            .and_then(|i| adjusted.get(i).copied().flatten())
    };
    let trials_needed = balanced_trials_for_level(half);
    let mut cases = Vec::with_capacity(raws.len());
    let mut counts = VerdictCounts::default();
    for (c, raw) in raws.iter().enumerate() {
        let block = case_block(
            raw,
            policy,
            options,
            &|slot, w| lookup(c, slot, if w { &adj_worse } else { &adj_better }),
            trials_needed,
        );
        match block.verdict.as_ref() {
            "regressed" => counts.regressed += 1,
            "improved" => counts.improved += 1,
            "unchanged" => counts.unchanged += 1,
            "inconclusive" => counts.inconclusive += 1,
            "flaky" => counts.flaky += 1,
            "missing" => counts.missing += 1,
            _ => counts.failed += 1,
        }
        cases.push(block);
    }
    let (axes, rules, plan) = suite(raws, policy, options);
    TrialsBlock {
        layout,
        alpha,
        seed: options.seed,
        margins: AXES
            .iter()
            .zip(&options.margins)
            .map(|(a, m)| MarginRow {
                measure: a.name.to_string(),
                relative: m.relative,
                absolute: m.absolute,
            })
            .chain([MarginRow {
                measure: "behaviour".to_string(),
                relative: 0.0,
                absolute: options.behaviour_margin,
            }])
            .collect(),
        cases,
        axes,
        rules,
        pass_hat_k: pass_hat(raws, &options.outcome),
        plan,
        verdicts: counts,
        tripped: Vec::new(),
    }
}

/// One case's block; `adjusted(slot, worse)` is its adjusted p for a slot and direction.
fn case_block(
    raw: &CaseRaw,
    policy: Option<&Policy>,
    options: &TrialsOptions,
    adjusted: &dyn Fn(usize, bool) -> Option<f64>,
    trials_needed: Option<u32>,
) -> CaseBlock {
    let mut block = CaseBlock {
        case: raw.key.clone(),
        baseline_trials: raw.k_b,
        candidate_trials: raw.k_c,
        verdict: "missing".into(),
        measures: Vec::new(),
        trials_needed: None,
        noise_estimated: raw.k_b >= 2 || raw.k_c >= 2,
        axes: Vec::new(),
        behaviour: None,
        rules: Vec::new(),
        first_divergence: None,
        passes: None,
        error: None,
    };
    let m = match &raw.state {
        RawState::Missing => return block,
        RawState::Failed(e) => {
            block.verdict = "failed".into();
            block.error = Some(e.clone());
            return block;
        }
        RawState::Measured(m) => m,
    };
    block.passes = m.passes.map(|(b, c, outcome)| CasePasses {
        outcome: outcome.into(),
        baseline: b,
        candidate: c,
        baseline_rate: f64::from(b) / raw.k_b.max(1) as f64,
        candidate_rate: f64::from(c) / raw.k_c.max(1) as f64,
    });
    let mut tests = Vec::new();
    let testable_needed = |p: Option<f64>| if p.is_none() { trials_needed } else { None };
    for (a, (axis, r)) in AXES.iter().zip(&m.axes).enumerate() {
        let effect = mean(&r.candidate) - mean(&r.baseline);
        let p_adjusted = adjusted(a, true);
        tests.push(MeasureTest {
            measure: axis.name.to_string(),
            worse_when: WorseWhen::Higher,
            effect,
            margin: r.margin,
            p_worse: p_adjusted,
            p_better: adjusted(a, false),
            p_equivalence: r.p_equivalence,
            // Decided at suite level (see `case_family`); here only equivalence can settle it.
            testable: r.min_p >= 1.0,
            trials_needed: None,
        });
        block.axes.push(CaseAxis {
            axis: axis.name.into(),
            unit: axis.unit.into(),
            baseline_mean: mean(&r.baseline),
            candidate_mean: mean(&r.candidate),
            baseline_sd: sd(&r.baseline),
            candidate_sd: sd(&r.candidate),
            effect,
            margin: r.margin,
            p_worse: r.p_worse,
            p_adjusted,
        });
    }
    if let Some((t, within, across)) = &m.behaviour {
        let p_adjusted = adjusted(AXIS_COUNT, true);
        tests.push(MeasureTest {
            measure: "behaviour".to_string(),
            worse_when: WorseWhen::AnyChange,
            effect: t.excess,
            margin: options.behaviour_margin,
            p_worse: p_adjusted,
            p_better: None,
            // Trials that cannot be told apart at all are equivalent within any margin.
            p_equivalence: m.identical.then_some(0.0),
            testable: p_adjusted.is_some(),
            trials_needed: testable_needed(p_adjusted),
        });
        block.behaviour = Some(CaseBehaviour {
            d_bb: t.d_bb,
            d_cc: t.d_cc,
            d_bc: t.d_bc,
            excess: t.excess,
            trajectory_within_baseline: *within,
            trajectory_across: *across,
            p_value: t.p_value,
            p_adjusted,
            method: t.method,
        });
    }
    let mut breaks = Vec::new();
    for (r, rule) in m.rules.iter().enumerate() {
        let (id, severity) = rule_of(policy, rule.index);
        let slot = AXIS_COUNT + 1 + r;
        let p_adjusted = adjusted(slot, true);
        let deterministic = matches!(
            severity,
            veer_policy::Severity::Error | veer_policy::Severity::Critical
        ) && veer_trials::is_deterministic_break(
            rule.baseline,
            raw.k_b as u32,
            rule.candidate,
            raw.k_c as u32,
        );
        if deterministic {
            breaks.push(id.clone());
        }
        tests.push(MeasureTest {
            measure: id.clone(),
            worse_when: WorseWhen::Higher,
            effect: f64::from(rule.candidate) / raw.k_c as f64
                - f64::from(rule.baseline) / raw.k_b as f64,
            margin: 0.0,
            p_worse: p_adjusted,
            p_better: adjusted(slot, false),
            // Every trial of both sides violated it: no change is possible to see.
            p_equivalence: (rule.baseline as usize == raw.k_b
                && rule.candidate as usize == raw.k_c)
                .then_some(0.0),
            testable: p_adjusted.is_some(),
            trials_needed: testable_needed(p_adjusted),
        });
        block.rules.push(CaseRule {
            rule: id,
            severity: severity_name(severity).into(),
            baseline_violations: rule.baseline,
            candidate_violations: rule.candidate,
            p_worse: rule.p_worse,
            p_adjusted,
            deterministic_break: deterministic,
        });
    }
    block.first_divergence = m.first.clone().map(|f| FirstDivergenceBlock {
        turn: f.turn,
        cross: format!("{}/{}", f.cross_at_turn, f.cross_pairs),
        within: format!("{}/{}", f.within_at_turn, f.within_pairs),
        counts: f,
    });
    let evidence = CaseEvidence {
        presence: Presence::Both,
        failed: false,
        deterministic_breaks: breaks,
        baseline_flaky: m.baseline_flaky,
        tests,
    };
    let verdict = case_verdict(&evidence, options.alpha).unwrap_or(CaseVerdict::Inconclusive {
        trials_needed: None,
        measures: Vec::new(),
    });
    (block.verdict, block.measures, block.trials_needed) = match verdict {
        CaseVerdict::Regressed { measures } => ("regressed".into(), measures, None),
        CaseVerdict::Improved { measures } => ("improved".into(), measures, None),
        CaseVerdict::Unchanged => ("unchanged".into(), Vec::new(), None),
        CaseVerdict::Inconclusive {
            trials_needed,
            measures,
        } => ("inconclusive".into(), measures, trials_needed),
        CaseVerdict::Flaky => ("flaky".into(), Vec::new(), None),
        CaseVerdict::Missing => ("missing".into(), Vec::new(), None),
        CaseVerdict::Failed => ("failed".into(), Vec::new(), None),
    };
    // A deterministic break is also a supported change: name each measure once.
    let mut seen = std::collections::BTreeSet::new();
    block.measures.retain(|m| seen.insert(m.clone()));
    block
}

/// The suite-level axis and rule tests (Holm across them at α/2) and the power plan.
fn suite(
    raws: &[CaseRaw],
    policy: Option<&Policy>,
    options: &TrialsOptions,
) -> (Vec<SuiteAxis>, Vec<SuiteRule>, Vec<PlanRow>) {
    let measured: Vec<(&CaseRaw, &MeasuredRaw)> = raws
        .iter()
        .filter_map(|r| match &r.state {
            RawState::Measured(m) => Some((r, &**m)),
            _ => None,
        })
        .collect();
    if measured.is_empty() {
        return (Vec::new(), Vec::new(), Vec::new());
    }
    let permutation = |what: &str| PermutationOptions {
        seed: derive_seed(options.seed, &format!("\u{0}suite\u{0}{what}")),
        draws: DEFAULT_SUITE_DRAWS,
        ..PermutationOptions::default()
    };
    let mut tests = Vec::new();
    let mut axes = Vec::new();
    let mut plan = Vec::new();
    for (a, axis) in AXES.iter().enumerate() {
        let samples: Vec<CaseSample<'_>> = measured
            .iter()
            .map(|(_, m)| CaseSample {
                baseline: &m.axes[a].baseline,
                candidate: &m.axes[a].candidate,
            })
            .collect();
        let baseline_mean = mean(&samples.iter().map(|s| mean(s.baseline)).collect::<Vec<_>>());
        let margin = options.margins[a].at(baseline_mean);
        let within = suite_permutation_test(&samples, &permutation(axis.name)).ok();
        let population = case_differences(&samples)
            .ok()
            .and_then(|d| population_estimate(&d, 0.95, &permutation(axis.name)).ok());
        let (Some(within), Some(population)) = (within, population) else {
            continue;
        };
        let components = variance_components(&samples).ok();
        let n = samples.len() as u64;
        let powered = components.as_ref().and_then(|v| {
            let inputs = PowerInputs {
                omega_squared: v.omega_squared?,
                sigma_squared_baseline: v.within_baseline.unwrap_or(0.0),
                sigma_squared_candidate: v.within_candidate.unwrap_or(0.0),
            };
            let mde = minimum_detectable_effect(
                &inputs,
                v.baseline_trials,
                v.candidate_trials,
                n,
                options.alpha,
                DEFAULT_POWER,
            )
            .ok()?;
            let floor = mde_floor(&inputs, n, options.alpha, DEFAULT_POWER).ok()?;
            Some((mde, floor))
        });
        if let Some((mde, floor)) = powered {
            plan.push(PlanRow {
                axis: axis.name.into(),
                mde,
                floor,
                advice: if floor < 0.8 * mde {
                    "more trials".into()
                } else {
                    "more cases".into()
                },
            });
        }
        tests.push(SuiteTest {
            measure: axis.name.to_string(),
            worse_when: WorseWhen::Higher,
            effect: within.effect,
            margin,
            p_worse: within.p_higher,
            p_better: within.p_lower,
        });
        axes.push(SuiteAxis {
            axis: axis.name.into(),
            unit: axis.unit.into(),
            cases: within.cases,
            effect: within.effect,
            interval: population
                .interval_low
                .zip(population.interval_high)
                .map(|(l, h)| [l, h]),
            margin,
            p_worse: within.p_higher,
            p_population: population.sign_flip.p_higher,
            p_adjusted: 1.0,
            outcome: veer_trials::SuiteOutcome::NoSupportedChange,
            mde: powered.map(|p| p.0),
        });
    }
    let mut rules = Vec::new();
    let rule_count = policy.map_or(0, |p| p.rules.len());
    for index in 0..rule_count {
        let mut strata = Vec::new();
        let mut breaks = Vec::new();
        let (mut vb, mut kb, mut vc, mut kc) = (0u64, 0u64, 0u64, 0u64);
        for (raw, m) in &measured {
            let found = m.rules.iter().find(|r| r.index == index);
            let (b, c) = found.map_or((0, 0), |r| (r.baseline, r.candidate));
            strata.push((Count::new(b, raw.k_b as u32), Count::new(c, raw.k_c as u32)));
            (vb, kb, vc, kc) = (
                vb + u64::from(b),
                kb + raw.k_b as u64,
                vc + u64::from(c),
                kc + raw.k_c as u64,
            );
            let (_, severity) = rule_of(policy, index);
            if matches!(
                severity,
                veer_policy::Severity::Error | veer_policy::Severity::Critical
            ) && found.is_some()
                && veer_trials::is_deterministic_break(b, raw.k_b as u32, c, raw.k_c as u32)
            {
                breaks.push(raw.key.clone());
            }
        }
        if vb == 0 && vc == 0 {
            continue;
        }
        let Ok(test) = stratified_exact_test(&strata) else {
            continue;
        };
        let (id, severity) = rule_of(policy, index);
        tests.push(SuiteTest {
            measure: id.clone(),
            worse_when: WorseWhen::Higher,
            effect: test.effect,
            margin: 0.0,
            p_worse: test.p_higher,
            p_better: test.p_lower,
        });
        rules.push(SuiteRule {
            rule: id,
            severity: severity_name(severity).into(),
            baseline: format!("{vb}/{kb}"),
            candidate: format!("{vc}/{kc}"),
            effect: test.effect,
            p_worse: test.p_higher,
            p_adjusted: 1.0,
            outcome: veer_trials::SuiteOutcome::NoSupportedChange,
            deterministic_breaks: breaks,
        });
    }
    if let Ok(decision) = suite_decision(&tests, options.alpha / 2.0) {
        let rows = axes
            .iter_mut()
            .map(|a| (&mut a.p_adjusted, &mut a.outcome))
            .chain(
                rules
                    .iter_mut()
                    .map(|r| (&mut r.p_adjusted, &mut r.outcome)),
            );
        for (i, (p, outcome)) in rows.enumerate() {
            *p = decision
                .adjusted_p_worse
                .get(i)
                .copied()
                .map_or(1.0, doubled);
            *outcome = decision.outcomes.get(i).copied().unwrap_or(*outcome);
        }
    }
    (axes, rules, plan)
}

/// pass^k per side over the measured cases, by the outcome rule's source or policy-clean
/// (None when neither gives every case an outcome, or the cases mix the two).
fn pass_hat(raws: &[CaseRaw], rule: &super::outcome::OutcomeRule) -> Option<PassHatKBlock> {
    let mut b = Vec::new();
    let mut c = Vec::new();
    let mut source = None;
    for raw in raws {
        if let RawState::Measured(m) = &raw.state {
            let (pb, pc, from) = m.passes?;
            // One source for the whole suite: a mix is no pass^k at all.
            if *source.get_or_insert(from) != from {
                return None;
            }
            b.push(Count::new(pb, raw.k_b as u32));
            c.push(Count::new(pc, raw.k_c as u32));
        }
    }
    if b.is_empty() {
        return None;
    }
    let outcome = source.unwrap_or("policy-clean");
    let by_rule = outcome != "policy-clean";
    Some(PassHatKBlock {
        outcome: outcome.into(),
        field: match &rule.source {
            super::outcome::OutcomeSource::Field(f) if by_rule => Some(f.clone()),
            _ => None,
        },
        file: match &rule.source {
            super::outcome::OutcomeSource::File(f) if by_rule => Some(f.path.clone()),
            _ => None,
        },
        threshold: rule.threshold.filter(|_| by_rule),
        baseline: pass_hat_k(&b).ok()?,
        candidate: pass_hat_k(&c).ok()?,
    })
}
