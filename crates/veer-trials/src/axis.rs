//! A continuous axis in one case (latency, cost, tokens…): the difference of the sides' mean
//! per-trial values with a directional permutation p-value over the relabellings of the pooled
//! trials (so "worse" can be tested one-sided), Welch's standard error for the equivalence
//! test, and each side's own spread.

use serde::{Deserialize, Serialize};

use crate::error::TrialsError;
use crate::permutation::PermutationOptions;
use crate::special::ln_choose;
use crate::suite::{suite_permutation_test, CaseSample};
use crate::verdict::{welch, MeanDifference};
use veer_contract::trials::stats::PermutationMethod;

/// One axis in one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AxisCaseTest {
    /// mean(candidate) − mean(baseline), in the axis's units.
    pub effect: f64,
    /// Sample standard deviation of the baseline's trials (None at k = 1), ≥ 0.
    pub baseline_spread: Option<f64>,
    /// Likewise for the candidate.
    pub candidate_spread: Option<f64>,
    /// One-sided permutation p for "the candidate is higher", in (0, 1].
    pub p_higher: f64,
    /// One-sided p for "lower", in (0, 1].
    pub p_lower: f64,
    /// Two-sided p, in (0, 1].
    pub p_two_sided: f64,
    /// The smallest one-sided p reachable at these trial counts: 1/C(k_B+k_C, k_B) (Monte
    /// Carlo: at least 1/(B+1)), in (0, 1].
    pub min_attainable_p: f64,
    /// Welch's mean difference (None unless both sides have ≥ 2 trials), for TOST.
    pub welch: Option<MeanDifference>,
    /// Exact or Monte Carlo.
    pub method: PermutationMethod,
}

fn spread(v: &[f64]) -> Option<f64> {
    if v.len() < 2 {
        return None;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    Some((v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64).sqrt())
}

/// The per-case test of one continuous axis (exact up to `options.exact_limit` relabellings).
pub fn axis_case_test(
    baseline: &[f64],
    candidate: &[f64],
    options: &PermutationOptions,
) -> Result<AxisCaseTest, TrialsError> {
    let t = suite_permutation_test(
        &[CaseSample {
            baseline,
            candidate,
        }],
        options,
    )?;
    let (kb, kc) = (baseline.len() as u64, candidate.len() as u64);
    let exact_floor = (-ln_choose(kb + kc, kb)).exp();
    let min_attainable_p = match t.method {
        PermutationMethod::Exact { .. } => exact_floor,
        PermutationMethod::MonteCarlo { draws, .. } => {
            (1.0 / (f64::from(draws) + 1.0)).max(exact_floor)
        }
    };
    Ok(AxisCaseTest {
        effect: t.effect,
        baseline_spread: spread(baseline),
        candidate_spread: spread(candidate),
        p_higher: t.p_higher,
        p_lower: t.p_lower,
        p_two_sided: t.p_two_sided,
        min_attainable_p,
        welch: welch(baseline, candidate),
        method: t.method,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separated_sides() {
        let t = axis_case_test(
            &[100.0, 110.0, 105.0, 101.0],
            &[200.0, 190.0, 210.0, 205.0],
            &PermutationOptions::default(),
        )
        .unwrap();
        assert!((t.p_higher - 1.0 / 70.0).abs() < 1e-12);
        assert!((t.min_attainable_p - 1.0 / 70.0).abs() < 1e-12);
        assert_eq!(t.p_lower, 1.0);
        assert!(t.welch.is_some());
        let one = axis_case_test(&[1.0], &[2.0], &PermutationOptions::default()).unwrap();
        assert_eq!(one.baseline_spread, None);
        assert!((one.min_attainable_p - 0.5).abs() < 1e-12);
    }
}
