//! The suite-level tests: per axis the within-case permutation test over
//! all cases with its case-clustered interval, variance components and power plan; per rule the
//! exact stratified test; Holm across them at α/2; and pass^k per side. They read each case's
//! compact [`SuiteRow`], held in memory for every case.

use super::case_block::{rule_of, severity_name};
use super::measure::AXES;
use super::raw::{mean, MeasuredRow, SuiteRow};
use super::TrialsOptions;
use std::borrow::Cow;
use veer_base::rng::derive_seed;
use veer_contract::trials::*;
use veer_policy::Policy;
use veer_trials::{
    case_differences, mde_floor, minimum_detectable_effect, pass_hat_k, population_estimate,
    stratified_exact_test, suite_behaviour_test, suite_decision, suite_permutation_test,
    variance_components, BehaviourCase, CaseSample, Count, PairwiseDistances, PermutationOptions,
    PowerInputs, SuiteTest, TrialWorseWhen, DEFAULT_POWER, DEFAULT_SUITE_DRAWS,
};

/// Doubles an adjusted p (the α split between case and suite tests), capped at 1.
pub(super) fn doubled(p: f64) -> f64 {
    (2.0 * p).min(1.0)
}

/// The suite-level axis and rule tests (Holm across them at α/2) and the power plan, over the
/// measured cases that are not quarantined.
pub(super) fn suite(
    rows: &[SuiteRow],
    policy: Option<&Policy>,
    options: &TrialsOptions,
) -> (Vec<SuiteAxis>, Vec<SuiteRule>, Vec<PlanRow>) {
    let measured: Vec<(&SuiteRow, &MeasuredRow)> = rows
        .iter()
        .filter(|r| !r.quarantined)
        .filter_map(|r| r.measured.as_deref().map(|m| (r, m)))
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
                baseline: m.baseline(a),
                candidate: m.candidate(a),
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
            worse_when: axis.worse_when,
            effect: within.effect,
            margin,
            p_worse: axis.p_worse(within.p_higher, within.p_lower),
            p_better: axis.p_better(within.p_higher, within.p_lower),
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
            p_worse: axis.p_worse(within.p_higher, within.p_lower),
            p_population: axis.p_worse(population.sign_flip.p_higher, population.sign_flip.p_lower),
            p_adjusted: 1.0,
            outcome: veer_contract::trials::stats::SuiteOutcome::NoSupportedChange,
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
                veer_contract::policy::Severity::Error | veer_contract::policy::Severity::Critical
            ) && found.is_some()
                && veer_trials::is_deterministic_break(b, raw.k_b as u32, c, raw.k_c as u32)
            {
                breaks.push(raw.key.to_string());
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
            worse_when: TrialWorseWhen::Higher,
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
            outcome: veer_contract::trials::stats::SuiteOutcome::NoSupportedChange,
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

/// The suite's behaviour test over the measured cases that are not quarantined: the
/// stratified permutation test of Σ E_c (`veer_trials::suite_behaviour_test`), with its p
/// doubled for the split between the behaviour family and the axes and rules. None without a
/// measured case.
pub(super) fn suite_behaviour(
    rows: &[SuiteRow],
    options: &TrialsOptions,
) -> Option<SuiteBehaviour> {
    let tables: Vec<(PairwiseDistances, usize, usize)> = rows
        .iter()
        .filter(|r| !r.quarantined)
        .filter_map(|r| r.measured.as_deref())
        .filter(|m| m.behaviour.is_some())
        .filter_map(|m| {
            let (k_b, k_c) = m.sizes();
            PairwiseDistances::from_condensed(k_b + k_c, m.distances.to_vec())
                .ok()
                .map(|d| (d, k_b, k_c))
        })
        .collect();
    if tables.is_empty() {
        return None;
    }
    let cases: Vec<BehaviourCase<'_>> = tables
        .iter()
        .map(|(d, k_b, k_c)| BehaviourCase {
            distances: d,
            baseline_trials: *k_b,
            candidate_trials: *k_c,
        })
        .collect();
    let permutation = PermutationOptions {
        seed: derive_seed(options.seed, "\u{0}suite\u{0}behaviour"),
        draws: DEFAULT_SUITE_DRAWS,
        ..PermutationOptions::default()
    };
    let t = suite_behaviour_test(&cases, &permutation).ok()?;
    let p_adjusted = doubled(t.p_value);
    Some(SuiteBehaviour {
        cases: t.cases,
        informative_cases: t.informative_cases,
        excess_sum: t.statistic,
        p_value: t.p_value,
        p_adjusted,
        method: t.method,
        significant: p_adjusted < options.alpha,
    })
}

/// pass^k per side over the measured cases, by the outcome rule's source or policy-clean
/// (None when neither gives every case an outcome, or the cases mix the two).
pub(super) fn pass_hat(
    rows: &[SuiteRow],
    rule: &super::outcome::OutcomeRule,
) -> Option<PassHatKBlock> {
    let mut b = Vec::new();
    let mut c = Vec::new();
    let mut source: Option<Cow<'static, str>> = None;
    for raw in rows {
        if let Some(m) = &raw.measured {
            let (pb, pc, from) = m.passes.clone()?;
            // One source for the whole suite: a mix is no pass^k at all.
            if *source.get_or_insert_with(|| from.clone()) != from {
                return None;
            }
            b.push(Count::new(pb, raw.k_b as u32));
            c.push(Count::new(pc, raw.k_c as u32));
        }
    }
    if b.is_empty() {
        return None;
    }
    let outcome = source.unwrap_or(Cow::Borrowed("policy-clean"));
    let by_rule = outcome != "policy-clean";
    Some(PassHatKBlock {
        outcome,
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
