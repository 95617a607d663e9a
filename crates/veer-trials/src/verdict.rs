//! The decision rules, pure: a per-case verdict from the case's tests, a practical margin per
//! measure and each measure's worse direction, and the suite-level decision (Holm across axes
//! and rules). The engine computes the tests and their adjusted p-values; these functions only
//! decide, so every front end gives the same verdict for the same evidence.
//!
//! - `regressed` needs adjusted p < α **and** an effect beyond the margin in the worse
//!   direction; `improved` symmetrically (never for a measure whose worse direction is any
//!   change);
//! - a deterministic break (an error/critical rule no baseline trial violated and every
//!   candidate trial violated) is `regressed` with no test;
//! - `unchanged` when every measure is equivalent within its margin (TOST, Schuirmann 1987) or
//!   testable at this k and without a supported change;
//! - otherwise `inconclusive`, with the balanced k that would make the untestable measures
//!   testable.

use serde::{Deserialize, Serialize};
use veer_contract::trials::stats::SuiteOutcome;

use crate::error::{check_open_unit, TrialsError};
use crate::special::{normal_cdf, t_cdf};

/// Which direction of a measure is worse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrialWorseWhen {
    /// Higher is worse (latency, cost, violations, behaviour divergence).
    Higher,
    /// Lower is worse (pass rate, score).
    Lower,
    /// Any change is worse (a behaviour distance has no better side): `p_worse` is the test of
    /// change and `effect` its size (e.g. the excess divergence).
    AnyChange,
}

impl TrialWorseWhen {
    /// Whether `effect` (candidate − baseline) lies beyond `margin` (≥ 0) in the worse direction.
    pub(crate) fn is_worse_beyond(self, effect: f64, margin: f64) -> bool {
        match self {
            TrialWorseWhen::Higher => effect > margin,
            TrialWorseWhen::Lower => effect < -margin,
            TrialWorseWhen::AnyChange => effect.abs() > margin,
        }
    }

    /// Whether `effect` lies beyond `margin` in the better direction (never for `AnyChange`).
    pub(crate) fn is_better_beyond(self, effect: f64, margin: f64) -> bool {
        match self {
            TrialWorseWhen::Higher => effect < -margin,
            TrialWorseWhen::Lower => effect > margin,
            TrialWorseWhen::AnyChange => false,
        }
    }
}

/// One measure's evidence in one case (or, for the suite, over all cases).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasureTest {
    /// The measure's name (axis, rule, `behaviour`).
    pub measure: String,
    /// Its worse direction.
    pub worse_when: TrialWorseWhen,
    /// Candidate − baseline in the measure's units (for `AnyChange`, the change statistic).
    pub effect: f64,
    /// The practical margin, ≥ 0, in the same units.
    pub margin: f64,
    /// The adjusted one-sided p for a change in the worse direction, in [0, 1] (None when the
    /// test is not testable or not run).
    pub p_worse: Option<f64>,
    /// The adjusted one-sided p for a change in the better direction, in [0, 1].
    pub p_better: Option<f64>,
    /// The TOST p against ±margin, in [0, 1] (None when it cannot be computed).
    pub p_equivalence: Option<f64>,
    /// Whether the test can reach α at this case's trial counts.
    pub testable: bool,
    /// When not testable: the balanced trials per side that would make it testable.
    pub trials_needed: Option<u32>,
}

/// Which sides a case has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// Both sides have trials.
    Both,
    /// Only the baseline.
    BaselineOnly,
    /// Only the candidate.
    CandidateOnly,
}

/// Everything the per-case verdict reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseEvidence {
    /// Which sides exist.
    pub presence: Presence,
    /// A trial was unreadable or had no responses.
    pub failed: bool,
    /// Rules (error/critical) broken deterministically (see [`is_deterministic_break`]).
    pub deterministic_breaks: Vec<String>,
    /// The baseline's own trials disagree (by the rules in `crate::flakiness`).
    pub baseline_flaky: bool,
    /// Measures changed by a descriptive rule rather than a test (the behaviour: every
    /// cross-side pair differs and no within-side pair does, beyond the margin, at a k where
    /// no per-case test can reach α). The case is then `changed`, not `regressed`.
    #[serde(default)]
    pub descriptive_changes: Vec<String>,
    /// The measures' tests.
    pub tests: Vec<MeasureTest>,
}

/// A case's decision with the measures behind it (the engine turns it into the report's
/// `veer_contract::trials::CaseVerdict`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum CaseDecision {
    /// A supported change beyond the margin in the worse direction, or a deterministic break.
    Regressed {
        /// The measures (and broken rules) that regressed.
        measures: Vec<String>,
    },
    /// A supported change beyond the margin in the better direction, none worse.
    Improved {
        /// The measures that improved.
        measures: Vec<String>,
    },
    /// Changed by a descriptive rule (see [`CaseEvidence::descriptive_changes`]), no test
    /// supported a change.
    Changed {
        /// The measures that changed.
        measures: Vec<String>,
    },
    /// Equivalent within the margins, or no supported change at a testable k.
    Unchanged,
    /// This k cannot reach α on some measure.
    Inconclusive {
        /// The balanced trials per side that would make every measure testable.
        trials_needed: Option<u32>,
        /// The measures that could not be decided.
        measures: Vec<String>,
    },
    /// No supported change, and the baseline's own trials disagree.
    Flaky,
    /// One side has the case, the other does not.
    Missing,
    /// A trial could not be read or had no responses.
    Failed,
}

/// A deterministic break: no baseline trial violated the rule and every candidate trial did
/// (needs at least one trial a side). The caller applies it to error/critical rules only.
pub fn is_deterministic_break(
    baseline_violations: u32,
    baseline_trials: u32,
    candidate_violations: u32,
    candidate_trials: u32,
) -> bool {
    baseline_trials >= 1
        && candidate_trials >= 1
        && baseline_violations == 0
        && candidate_violations == candidate_trials
}

/// The per-case verdict at level `alpha`. Order: missing, failed, regressed (deterministic
/// breaks, then supported worse changes), improved, changed (descriptive), flaky, unchanged,
/// inconclusive.
pub fn case_verdict(evidence: &CaseEvidence, alpha: f64) -> Result<CaseDecision, TrialsError> {
    check_open_unit("alpha", alpha)?;
    if evidence.presence != Presence::Both {
        return Ok(CaseDecision::Missing);
    }
    if evidence.failed {
        return Ok(CaseDecision::Failed);
    }
    let significant = |p: Option<f64>| p.is_some_and(|p| p < alpha);
    let mut worse: Vec<String> = evidence.deterministic_breaks.clone();
    let mut better = Vec::new();
    for t in &evidence.tests {
        if significant(t.p_worse) && t.worse_when.is_worse_beyond(t.effect, t.margin) {
            worse.push(t.measure.clone());
        } else if significant(t.p_better) && t.worse_when.is_better_beyond(t.effect, t.margin) {
            better.push(t.measure.clone());
        }
    }
    if !worse.is_empty() {
        return Ok(CaseDecision::Regressed { measures: worse });
    }
    if !better.is_empty() {
        return Ok(CaseDecision::Improved { measures: better });
    }
    if !evidence.descriptive_changes.is_empty() {
        return Ok(CaseDecision::Changed {
            measures: evidence.descriptive_changes.clone(),
        });
    }
    if evidence.baseline_flaky {
        return Ok(CaseDecision::Flaky);
    }
    let mut undecided = Vec::new();
    let mut trials_needed: Option<u32> = None;
    for t in &evidence.tests {
        let equivalent = significant(t.p_equivalence);
        if equivalent || t.testable {
            continue;
        }
        undecided.push(t.measure.clone());
        if let Some(k) = t.trials_needed {
            trials_needed = Some(trials_needed.map_or(k, |m| m.max(k)));
        }
    }
    if evidence.tests.is_empty() {
        return Ok(CaseDecision::Inconclusive {
            trials_needed: None,
            measures: Vec::new(),
        });
    }
    if undecided.is_empty() {
        Ok(CaseDecision::Unchanged)
    } else {
        Ok(CaseDecision::Inconclusive {
            trials_needed,
            measures: undecided,
        })
    }
}

/// A mean difference with its standard error and degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanDifference {
    /// mean(candidate) − mean(baseline).
    pub effect: f64,
    /// Welch's standard error, ≥ 0.
    pub standard_error: f64,
    /// Welch–Satterthwaite degrees of freedom, ≥ 1 (None when both variances are 0).
    pub degrees_of_freedom: Option<f64>,
}

/// Welch's mean difference of one case's per-trial values (None unless both sides have ≥ 2
/// finite values).
pub fn welch(baseline: &[f64], candidate: &[f64]) -> Option<MeanDifference> {
    if baseline.len() < 2 || candidate.len() < 2 {
        return None;
    }
    if baseline.iter().chain(candidate).any(|v| !v.is_finite()) {
        return None;
    }
    let stats = |v: &[f64]| {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
        (n, m, var)
    };
    let (nb, mb, vb) = stats(baseline);
    let (nc, mc, vc) = stats(candidate);
    let (ab, ac) = (vb / nb, vc / nc);
    let se = (ab + ac).sqrt();
    let df = if ab + ac > 0.0 {
        Some(((ab + ac).powi(2) / (ab * ab / (nb - 1.0) + ac * ac / (nc - 1.0))).max(1.0))
    } else {
        None
    };
    Some(MeanDifference {
        effect: mc - mb,
        standard_error: se,
        degrees_of_freedom: df,
    })
}

/// The two one-sided tests (Schuirmann 1987) of |true effect| < `margin`: the larger of the
/// p-values of "effect ≤ −margin" and "effect ≥ +margin", from a t (or, without degrees of
/// freedom, normal) reference, in [0, 1]. None when `margin` ≤ 0 or the standard error is 0
/// with the estimate on a boundary.
pub fn tost_p(
    effect: f64,
    standard_error: f64,
    degrees_of_freedom: Option<f64>,
    margin: f64,
) -> Option<f64> {
    if !(margin > 0.0 && margin.is_finite() && effect.is_finite() && standard_error >= 0.0) {
        return None;
    }
    if standard_error == 0.0 {
        return Some(if effect.abs() < margin { 0.0 } else { 1.0 });
    }
    let cdf = |x: f64| match degrees_of_freedom {
        Some(df) => t_cdf(x, df),
        None => normal_cdf(x),
    };
    // H01: effect ≤ −margin, rejected for large (effect + margin)/se.
    let p_low = 1.0 - cdf((effect + margin) / standard_error);
    // H02: effect ≥ +margin, rejected for small (effect − margin)/se.
    let p_high = cdf((effect - margin) / standard_error);
    Some(p_low.max(p_high).clamp(0.0, 1.0))
}

/// One suite-level test (an axis or a rule over all cases), with raw p-values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteTest {
    /// The axis or rule.
    pub measure: String,
    /// Its worse direction.
    pub worse_when: TrialWorseWhen,
    /// The effect (candidate − baseline) in the measure's units.
    pub effect: f64,
    /// The practical margin, ≥ 0.
    pub margin: f64,
    /// Raw one-sided p in the worse direction, in [0, 1].
    pub p_worse: f64,
    /// Raw one-sided p in the better direction, in [0, 1].
    pub p_better: f64,
}

/// The suite-level decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteDecision {
    /// Holm-adjusted worse-direction p per test (input order), in [0, 1].
    pub adjusted_p_worse: Vec<f64>,
    /// Holm-adjusted better-direction p per test, in [0, 1].
    pub adjusted_p_better: Vec<f64>,
    /// The outcome per test.
    pub outcomes: Vec<SuiteOutcome>,
    /// Whether any test regressed (the gate trips).
    pub regressed: bool,
}

/// Holm across the family of suite-level tests (separately for the worse and the better
/// direction), then the margin and direction rule per test.
pub fn suite_decision(tests: &[SuiteTest], alpha: f64) -> Result<SuiteDecision, TrialsError> {
    check_open_unit("alpha", alpha)?;
    let worse: Vec<f64> = tests.iter().map(|t| t.p_worse).collect();
    let better: Vec<f64> = tests.iter().map(|t| t.p_better).collect();
    let adjusted_p_worse = crate::multiplicity::holm(&worse)?;
    let adjusted_p_better = crate::multiplicity::holm(&better)?;
    let outcomes: Vec<SuiteOutcome> = tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if adjusted_p_worse[i] < alpha && t.worse_when.is_worse_beyond(t.effect, t.margin) {
                SuiteOutcome::Regressed
            } else if adjusted_p_better[i] < alpha
                && t.worse_when.is_better_beyond(t.effect, t.margin)
            {
                SuiteOutcome::Improved
            } else {
                SuiteOutcome::NoSupportedChange
            }
        })
        .collect();
    let regressed = outcomes.contains(&SuiteOutcome::Regressed);
    Ok(SuiteDecision {
        adjusted_p_worse,
        adjusted_p_better,
        outcomes,
        regressed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(p_worse: f64, effect: f64, testable: bool) -> MeasureTest {
        MeasureTest {
            measure: "latency".to_string(),
            worse_when: TrialWorseWhen::Higher,
            effect,
            margin: 50.0,
            p_worse: testable.then_some(p_worse),
            p_better: testable.then_some(1.0 - p_worse),
            p_equivalence: None,
            testable,
            trials_needed: (!testable).then_some(4),
        }
    }

    fn case(tests: Vec<MeasureTest>) -> CaseEvidence {
        CaseEvidence {
            presence: Presence::Both,
            failed: false,
            deterministic_breaks: Vec::new(),
            baseline_flaky: false,
            descriptive_changes: Vec::new(),
            tests,
        }
    }

    #[test]
    fn regressed_needs_both_p_and_margin() {
        let v = case_verdict(&case(vec![test(0.01, 80.0, true)]), 0.05).unwrap();
        assert!(matches!(v, CaseDecision::Regressed { .. }));
        // Significant but within the margin: unchanged.
        let v = case_verdict(&case(vec![test(0.01, 20.0, true)]), 0.05).unwrap();
        assert_eq!(v, CaseDecision::Unchanged);
        // Faster is not a regression.
        let v = case_verdict(&case(vec![test(0.99, -80.0, true)]), 0.05).unwrap();
        assert!(matches!(v, CaseDecision::Improved { .. }));
    }

    #[test]
    fn three_trials_alone_are_inconclusive() {
        // 0/3 → 3/3 at α = 0.05: p = 0.05 is not below α, and the test is not testable.
        let mut t = test(0.05, 1.0, false);
        t.margin = 0.0;
        let v = case_verdict(&case(vec![t]), 0.05).unwrap();
        assert_eq!(
            v,
            CaseDecision::Inconclusive {
                trials_needed: Some(4),
                measures: vec!["latency".to_string()]
            }
        );
        let mut c = case(Vec::new());
        c.deterministic_breaks.push("no-secrets".to_string());
        assert!(matches!(
            case_verdict(&c, 0.05).unwrap(),
            CaseDecision::Regressed { .. }
        ));
        assert!(is_deterministic_break(0, 3, 3, 3));
        assert!(!is_deterministic_break(0, 3, 2, 3));
    }

    #[test]
    fn a_descriptive_change_is_changed_but_a_test_wins() {
        let mut c = case(vec![test(0.5, 0.0, false)]);
        c.descriptive_changes.push("behaviour".to_string());
        assert_eq!(
            case_verdict(&c, 0.05).unwrap(),
            CaseDecision::Changed {
                measures: vec!["behaviour".to_string()]
            }
        );
        c.deterministic_breaks.push("no-secrets".to_string());
        assert!(matches!(
            case_verdict(&c, 0.05).unwrap(),
            CaseDecision::Regressed { .. }
        ));
    }

    #[test]
    fn order_of_rules() {
        let mut c = case(vec![test(0.5, 0.0, true)]);
        c.baseline_flaky = true;
        assert_eq!(case_verdict(&c, 0.05).unwrap(), CaseDecision::Flaky);
        c.failed = true;
        assert_eq!(case_verdict(&c, 0.05).unwrap(), CaseDecision::Failed);
        c.presence = Presence::CandidateOnly;
        assert_eq!(case_verdict(&c, 0.05).unwrap(), CaseDecision::Missing);
    }

    #[test]
    fn tost_values() {
        // Effect 0, se 1, margin 3, normal: p = Φ(−3) = 0.00135.
        let p = tost_p(0.0, 1.0, None, 3.0).unwrap();
        assert!((p - 0.001_349_898_031_630_094_5).abs() < 1e-12);
        assert_eq!(tost_p(0.0, 1.0, None, 0.0), None);
        let w = welch(&[1.0, 2.0, 3.0], &[2.0, 3.0, 4.0]).unwrap();
        assert!((w.effect - 1.0).abs() < 1e-12);
        assert!((w.degrees_of_freedom.unwrap() - 4.0).abs() < 1e-12);
    }

    #[test]
    fn suite_decision_holm() {
        let tests = vec![
            SuiteTest {
                measure: "latency".to_string(),
                worse_when: TrialWorseWhen::Higher,
                effect: 100.0,
                margin: 50.0,
                p_worse: 0.01,
                p_better: 0.99,
            },
            SuiteTest {
                measure: "cost".to_string(),
                worse_when: TrialWorseWhen::Higher,
                effect: 1.0,
                margin: 0.0,
                p_worse: 0.03,
                p_better: 0.97,
            },
        ];
        let d = suite_decision(&tests, 0.05).unwrap();
        assert_eq!(d.outcomes[0], SuiteOutcome::Regressed);
        // 0.03·1 after 0.01·2 = 0.02 → 0.03 < 0.05: also regressed.
        assert_eq!(d.outcomes[1], SuiteOutcome::Regressed);
        assert!(d.regressed);
    }
}
