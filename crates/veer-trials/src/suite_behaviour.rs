//! The suite's behaviour test: did behaviour change on *these* cases? A stratified permutation
//! test (Good, *Permutation, Parametric and Bootstrap Tests of Hypotheses*, §3, "stratified
//! designs") of the excess divergence summed over cases, T = Σ_c E_c, relabelling trials
//! within each case only. Under H₀ (within every case the two sides' trials are exchangeable)
//! the cases' relabellings are independent, so the null distribution of T is the convolution of
//! the cases' own distributions of E:
//!
//! - **exact** when that convolution is small: each case's E under all its C(k_B+k_C, k_B)
//!   relabellings is enumerated and the distributions are convolved (equal sums merged), while
//!   the support stays within [`EXACT_SUPPORT_LIMIT`] points — a case whose distances are all 0
//!   adds nothing, so three perfectly separated cases at 3 vs 3 among nine unchanged ones give
//!   p = (2/20)³ = 0.001;
//! - **seeded Monte Carlo** beyond: B draws of one relabelling per case, p = (b+1)/(B+1).
//!
//! A consistent change in a few cases is found at a k where no single case's test can reach α
//! (3 vs 3: a case's smallest p is 0.1).

use serde::{Deserialize, Serialize};
use veer_base::rng::TrialRng;

use crate::error::TrialsError;
use crate::permutation::{CaseNull, PairwiseDistances, PermutationOptions};
use veer_contract::trials::stats::PermutationMethod;

/// Largest support (distinct values of the partial sum) the exact convolution keeps; past it
/// the test is Monte Carlo.
pub const EXACT_SUPPORT_LIMIT: usize = 200_000;

/// Relabellings of one case enumerated for the exact convolution (and kept for Monte Carlo
/// draws, which then pick one of them); past it a draw relabels the case afresh.
const CASE_ENUMERATION_LIMIT: u64 = 20_000;

/// One case of the suite test: its pooled distance table (baseline trials first) and sizes.
#[derive(Debug, Clone, Copy)]
pub struct BehaviourCase<'a> {
    /// The pooled pairwise distances.
    pub distances: &'a PairwiseDistances,
    /// k_B.
    pub baseline_trials: usize,
    /// k_C.
    pub candidate_trials: usize,
}

/// The suite's behaviour test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteBehaviourTest {
    /// Cases tested (both sides measured).
    pub cases: u32,
    /// Cases whose distances are not all 0 (the others cannot move T).
    pub informative_cases: u32,
    /// T = Σ_c E_c, the observed summed excess divergence.
    pub statistic: f64,
    /// P(T* ≥ T) under within-case relabelling, in (0, 1].
    pub p_value: f64,
    /// Exact (the number of joint relabellings, saturating) or Monte Carlo.
    pub method: PermutationMethod,
}

/// The stratified permutation test of Σ_c E_c over `cases`. An empty suite, or one whose
/// distances are all 0, has p = 1.
pub fn suite_behaviour_test(
    cases: &[BehaviourCase<'_>],
    options: &PermutationOptions,
) -> Result<SuiteBehaviourTest, TrialsError> {
    let nulls: Vec<CaseNull<'_>> = cases
        .iter()
        .map(|c| CaseNull::new(c.distances, c.baseline_trials, c.candidate_trials))
        .collect::<Result<_, _>>()?;
    let statistic: f64 = nulls.iter().map(|n| n.observed).sum();
    let tolerance: f64 = nulls.iter().map(|n| n.tolerance).sum::<f64>().max(1e-12);
    let informative: Vec<&CaseNull<'_>> = nulls.iter().filter(|n| !n.degenerate()).collect();
    let result = |p: f64, method| SuiteBehaviourTest {
        cases: nulls.len() as u32,
        informative_cases: informative.len() as u32,
        statistic,
        p_value: p.clamp(0.0, 1.0),
        method,
    };
    if informative.is_empty() {
        return Ok(result(1.0, PermutationMethod::Exact { relabellings: 1 }));
    }
    let enumerated: Vec<Option<Vec<f64>>> = informative
        .iter()
        .map(|n| n.enumerate(CASE_ENUMERATION_LIMIT))
        .collect();
    if let Some(p) = exact(&enumerated, statistic, tolerance) {
        let relabellings = informative
            .iter()
            .try_fold(1u64, |acc, n| acc.checked_mul(n.relabellings?))
            .unwrap_or(u64::MAX);
        return Ok(result(p, PermutationMethod::Exact { relabellings }));
    }
    let draws = options.draws.max(1);
    let mut rng = TrialRng::new(options.seed);
    let mut pools: Vec<Vec<usize>> = informative
        .iter()
        .zip(&enumerated)
        .map(|(n, e)| {
            if e.is_some() {
                Vec::new()
            } else {
                (0..n.len()).collect()
            }
        })
        .collect();
    let threshold = statistic - tolerance;
    let mut at_least = 0u64;
    for _ in 0..draws {
        let mut t = 0.0;
        for ((null, values), pool) in informative.iter().zip(&enumerated).zip(&mut pools) {
            t += match values {
                Some(v) => v[rng.below(v.len() as u64) as usize],
                None => null.draw(&mut rng, pool),
            };
        }
        if t >= threshold {
            at_least += 1;
        }
    }
    Ok(result(
        (at_least + 1) as f64 / (f64::from(draws) + 1.0),
        PermutationMethod::MonteCarlo {
            draws,
            seed: options.seed,
        },
    ))
}

/// The exact upper tail P(T* ≥ statistic − tolerance) by convolving the cases' enumerated
/// distributions, or None when a case was not enumerated or the support outgrows
/// [`EXACT_SUPPORT_LIMIT`].
fn exact(enumerated: &[Option<Vec<f64>>], statistic: f64, tolerance: f64) -> Option<f64> {
    // The distribution so far: (value, probability), sorted by value, equal values merged.
    let mut dist: Vec<(f64, f64)> = vec![(0.0, 1.0)];
    for values in enumerated {
        let values = values.as_ref()?;
        let weight = 1.0 / values.len() as f64;
        let case = merge(values.iter().map(|v| (*v, weight)).collect(), tolerance);
        if dist.len().saturating_mul(case.len()) > EXACT_SUPPORT_LIMIT * 8 {
            return None;
        }
        let mut next = Vec::with_capacity(dist.len() * case.len());
        for (a, p) in &dist {
            for (b, q) in &case {
                next.push((a + b, p * q));
            }
        }
        dist = merge(next, tolerance / (enumerated.len() as f64 + 1.0));
        if dist.len() > EXACT_SUPPORT_LIMIT {
            return None;
        }
    }
    let threshold = statistic - tolerance;
    Some(
        dist.iter()
            .filter(|(v, _)| *v >= threshold)
            .map(|(_, p)| p)
            .sum(),
    )
}

/// Sorts `(value, probability)` pairs and merges values within `tolerance` of the first of
/// their run.
fn merge(mut points: Vec<(f64, f64)>, tolerance: f64) -> Vec<(f64, f64)> {
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(points.len());
    for (v, p) in points {
        match out.last_mut() {
            Some(last) if v - last.0 <= tolerance => last.1 += p,
            _ => out.push((v, p)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// k_b + k_c trials, baseline first: distance 1 across sides and 0 within (a change in
    /// every trial), or 0 everywhere.
    fn table(k_b: usize, k_c: usize, separated: bool) -> PairwiseDistances {
        PairwiseDistances::from_fn(k_b + k_c, |i, j| {
            if separated && ((i < k_b) != (j < k_b)) {
                1.0
            } else {
                0.0
            }
        })
        .unwrap()
    }

    fn case(d: &PairwiseDistances, k: usize) -> BehaviourCase<'_> {
        BehaviourCase {
            distances: d,
            baseline_trials: k,
            candidate_trials: k,
        }
    }

    #[test]
    fn three_separated_cases_at_three_a_side_give_a_thousandth() {
        // Per case 2 of the C(6, 3) = 20 relabellings reach the observed E: 0.1; three
        // independent cases: 0.1³ = 0.001 (by hand). Nine unchanged cases do not dilute it.
        let changed = table(3, 3, true);
        let same = table(3, 3, false);
        let mut cases: Vec<BehaviourCase<'_>> = (0..3).map(|_| case(&changed, 3)).collect();
        cases.extend((0..9).map(|_| case(&same, 3)));
        let t = suite_behaviour_test(&cases, &PermutationOptions::default()).unwrap();
        assert!((t.p_value - 0.001).abs() < 1e-12, "{}", t.p_value);
        assert_eq!((t.cases, t.informative_cases), (12, 3));
        assert!((t.statistic - 3.0).abs() < 1e-12);
        assert_eq!(
            t.method,
            PermutationMethod::Exact {
                relabellings: 8_000
            }
        );
    }

    #[test]
    fn one_separated_case_at_five_a_side_is_its_own_exact_test() {
        // 2/252 = 0.007937 (SciPy: 2 / comb(10, 5)).
        let d = table(5, 5, true);
        let t = suite_behaviour_test(&[case(&d, 5)], &PermutationOptions::default()).unwrap();
        assert!((t.p_value - 0.007_936_507_936_507_936).abs() < 1e-12);
    }

    #[test]
    fn unchanged_suites_have_p_one() {
        let same = table(4, 4, false);
        let t =
            suite_behaviour_test(&[case(&same, 4), case(&same, 4)], &Default::default()).unwrap();
        assert_eq!(t.p_value, 1.0);
        let t = suite_behaviour_test(&[], &Default::default()).unwrap();
        assert_eq!(t.p_value, 1.0);
    }

    #[test]
    fn monte_carlo_agrees_with_the_exact_tail() {
        // Twelve noisy cases at 4 vs 4: 70¹² joint relabellings, past the exact support, so
        // Monte Carlo; the same table with fewer cases is exact. Points on a line, the
        // candidate shifted by 0.5 in four of them.
        let mk = |shift: f64, salt: usize| {
            let x: Vec<f64> = (0..8)
                .map(|i| {
                    let noise = ((i as f64 * 12.9898 + salt as f64 * 78.233).sin() * 43_758.545)
                        .fract()
                        .abs();
                    noise + if i >= 4 { shift } else { 0.0 }
                })
                .collect();
            PairwiseDistances::from_fn(8, |i, j| (x[i] - x[j]).abs()).unwrap()
        };
        let tables: Vec<PairwiseDistances> = (0..12)
            .map(|c| mk(if c < 4 { 0.5 } else { 0.0 }, c))
            .collect();
        let cases: Vec<BehaviourCase<'_>> = tables.iter().map(|d| case(d, 4)).collect();
        let options = PermutationOptions {
            seed: 11,
            draws: 19_999,
            ..PermutationOptions::default()
        };
        let mc = suite_behaviour_test(&cases, &options).unwrap();
        assert!(matches!(mc.method, PermutationMethod::MonteCarlo { .. }));
        assert_eq!(mc, suite_behaviour_test(&cases, &options).unwrap());
        // Two cases: exact (70² = 4,900 joint relabellings); Monte Carlo on them must agree.
        let two = &cases[..2];
        let exact = suite_behaviour_test(two, &options).unwrap();
        assert!(matches!(exact.method, PermutationMethod::Exact { .. }));
        let nulls: Vec<CaseNull<'_>> = two
            .iter()
            .map(|c| CaseNull::new(c.distances, 4, 4).unwrap())
            .collect();
        let mut rng = TrialRng::new(5);
        let mut pools = vec![(0..8).collect::<Vec<usize>>(); 2];
        let draws = 40_000;
        let threshold = exact.statistic - 1e-9;
        let hits = (0..draws)
            .filter(|_| {
                let t: f64 = nulls
                    .iter()
                    .zip(&mut pools)
                    .map(|(n, p)| n.draw(&mut rng, p))
                    .sum();
                t >= threshold
            })
            .count();
        let mc_p = hits as f64 / f64::from(draws);
        let se = (exact.p_value * (1.0 - exact.p_value) / f64::from(draws)).sqrt();
        assert!(
            (mc_p - exact.p_value).abs() < 4.0 * se + 1e-3,
            "{mc_p} vs {}",
            exact.p_value
        );
        assert!(mc.p_value < 0.05, "{}", mc.p_value);
    }
}
