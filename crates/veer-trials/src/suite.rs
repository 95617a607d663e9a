//! Continuous axes at suite level, both questions labelled:
//! - **suite scope** (did behaviour change on these cases?): within-case permutation of trial
//!   labels with the statistic Σ_c d_c, d_c = ȳ_{c,C} − ȳ_{c,B};
//! - **population scope** (would it hold on new cases like these?): Δ̂ = mean d_c with the
//!   clustered standard error sd(d)/√n and a Student t_{n−1} interval (Miller 2024), and an
//!   exact sign-flip test on the d_c (Monte Carlo past `SIGN_FLIP_EXACT_MAX` non-zero d_c);
//! - the variance components s²_w per side and ω̂² that power and `plan` use.

use serde::{Deserialize, Serialize};

use crate::error::{check_cases, check_open_unit, check_trials, TrialsError};
use crate::permutation::{PermutationOptions, SEQUENTIAL_STOP};
use crate::special::{choose_u64, t_quantile};
use veer_base::rng::TrialRng;
use veer_contract::trials::stats::PermutationMethod;

/// Exact sign-flip enumeration up to this many non-zero d_c (2^20 sign patterns).
pub(crate) const SIGN_FLIP_EXACT_MAX: usize = 20;
/// Monte Carlo draws for suite-level tests (B); p = (b+1)/(B+1) ≥ 1/5,000.
pub const DEFAULT_SUITE_DRAWS: u32 = 4_999;
/// Trial draws one Monte Carlo suite test may make (B × pooled trials of the varying cases);
/// past it B shrinks (to no fewer than 99). 1,000 cases × 20 trials × 4,999 draws fit.
pub(crate) const SUITE_MONTE_CARLO_WORK_LIMIT: u64 = 200_000_000;

/// One case's per-trial values on one axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CaseSample<'a> {
    /// The baseline's per-trial values (≥ 1).
    pub baseline: &'a [f64],
    /// The candidate's per-trial values (≥ 1).
    pub candidate: &'a [f64],
}

fn check_sample(index: usize, s: &CaseSample<'_>) -> Result<(), TrialsError> {
    check_trials("baseline", s.baseline.len())?;
    check_trials("candidate", s.candidate.len())?;
    for v in s.baseline.iter().chain(s.candidate) {
        if !v.is_finite() {
            return Err(TrialsError::NotFinite {
                what: "value of case".to_string(),
                index,
            });
        }
    }
    Ok(())
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Sample variance (n − 1 denominator); None below two values.
fn variance(v: &[f64]) -> Option<f64> {
    if v.len() < 2 {
        return None;
    }
    let m = mean(v);
    Some(v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64)
}

/// d_c = mean(candidate) − mean(baseline) for every case, refusing empty sides, too many trials
/// and non-finite values.
pub fn case_differences(cases: &[CaseSample<'_>]) -> Result<Vec<f64>, TrialsError> {
    check_cases(cases.len())?;
    cases
        .iter()
        .enumerate()
        .map(|(i, s)| {
            check_sample(i, s)?;
            Ok(mean(s.candidate) - mean(s.baseline))
        })
        .collect()
}

/// A suite-scope or sign-flip permutation test of Σ d_c (or mean d_c).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuitePermutationTest {
    /// Cases.
    pub cases: u32,
    /// Mean d_c (candidate − baseline) in the axis's units.
    pub effect: f64,
    /// One-sided p for "the candidate is higher", in (0, 1].
    pub p_higher: f64,
    /// One-sided p for "lower", in (0, 1].
    pub p_lower: f64,
    /// Two-sided p (|statistic| at least the observed), in (0, 1].
    pub p_two_sided: f64,
    /// Exact or Monte Carlo.
    pub method: PermutationMethod,
}

/// The suite-scope test: the trial labels are permuted within every case (H₀: within each case
/// the two sides' trials are exchangeable), statistic Σ_c d_c. Exact when the product of the
/// cases' C(k_B+k_C, k_B) is at most `options.exact_limit`, else seeded Monte Carlo with
/// `options.draws` draws (use [`DEFAULT_SUITE_DRAWS`] for suites).
pub fn suite_permutation_test(
    cases: &[CaseSample<'_>],
    options: &PermutationOptions,
) -> Result<SuitePermutationTest, TrialsError> {
    case_differences(cases)?;
    let n = cases.len();
    // Canonical order (each side's values sorted, cases sorted by their values), so the result,
    // Monte Carlo draws included, does not depend on the order of trials or cases.
    let mut pooled: Vec<(Vec<f64>, f64, usize, usize)> = cases
        .iter()
        .map(|s| {
            let mut b = s.baseline.to_vec();
            b.sort_by(f64::total_cmp);
            let mut c = s.candidate.to_vec();
            c.sort_by(f64::total_cmp);
            let (kb, kc) = (b.len(), c.len());
            b.extend_from_slice(&c);
            let total = b.iter().sum();
            (b, total, kb, kc)
        })
        .collect();
    pooled.sort_by(|x, y| {
        (x.2, x.3).cmp(&(y.2, y.3)).then_with(|| {
            x.0.iter()
                .zip(&y.0)
                .map(|(a, b)| a.total_cmp(b))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        })
    });
    let observed: f64 = pooled
        .iter()
        .map(|(v, _, kb, kc)| {
            v[*kb..].iter().sum::<f64>() / *kc as f64 - v[..*kb].iter().sum::<f64>() / *kb as f64
        })
        .sum();
    let scale: f64 = pooled
        .iter()
        .flat_map(|p| p.0.iter())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    let tol = 1e-9 * (scale + observed.abs()) * (n.max(1) as f64);
    let d_of = |case: &(Vec<f64>, f64, usize, usize), group_sum: f64, group_is_b: bool| {
        let (_, total, kb, kc) = case;
        let (sb, sc) = if group_is_b {
            (group_sum, total - group_sum)
        } else {
            (total - group_sum, group_sum)
        };
        sc / *kc as f64 - sb / *kb as f64
    };
    let mut product: Option<u64> = Some(1);
    for (_, _, kb, kc) in &pooled {
        product = product.and_then(|p| {
            choose_u64((kb + kc) as u64, (*kb.min(kc)) as u64).and_then(|c| p.checked_mul(c))
        });
    }
    let (mut ge, mut le, mut abs_ge, total_count, method);
    ge = 0u64;
    le = 0u64;
    abs_ge = 0u64;
    match product {
        Some(count) if count <= options.exact_limit && n > 0 => {
            // Every case's own relabellings, as lists of d_c values; then the product.
            let per_case: Vec<Vec<f64>> = pooled
                .iter()
                .map(|case| {
                    let (v, _, kb, kc) = case;
                    let k_g = *kb.min(kc);
                    let group_is_b = kb <= kc;
                    let mut group: Vec<usize> = (0..k_g).collect();
                    let mut out = Vec::new();
                    loop {
                        let s: f64 = group.iter().map(|&i| v[i]).sum();
                        out.push(d_of(case, s, group_is_b));
                        if !crate::permutation::next_combination(&mut group, kb + kc) {
                            break;
                        }
                    }
                    out
                })
                .collect();
            let mut idx = vec![0usize; n];
            loop {
                let t: f64 = idx.iter().zip(&per_case).map(|(&i, l)| l[i]).sum();
                ge += u64::from(t >= observed - tol);
                le += u64::from(t <= observed + tol);
                abs_ge += u64::from(t.abs() >= observed.abs() - tol);
                // Odometer increment.
                let mut pos = 0;
                loop {
                    if pos == n {
                        break;
                    }
                    idx[pos] += 1;
                    if idx[pos] < per_case[pos].len() {
                        break;
                    }
                    idx[pos] = 0;
                    pos += 1;
                }
                if pos == n {
                    break;
                }
            }
            total_count = count as f64;
            method = PermutationMethod::Exact {
                relabellings: count,
            };
        }
        _ => {
            let mut rng = TrialRng::new(options.seed);
            // A case whose pooled values are all equal has d_c = 0 under every relabelling.
            let varying: Vec<&(Vec<f64>, f64, usize, usize)> = pooled
                .iter()
                .filter(|(v, ..)| v.iter().any(|x| x.to_bits() != v[0].to_bits()))
                .collect();
            let per_draw: u64 = varying.iter().map(|(v, ..)| v.len() as u64).sum();
            let budget = (SUITE_MONTE_CARLO_WORK_LIMIT / per_draw.max(1)).max(99);
            let draws = u64::from(options.draws.max(1)).min(budget) as u32;
            // Each case's pooled values, shuffled in place from draw to draw: a partial
            // Fisher–Yates shuffle makes its first k slots a uniform k-subset whatever the
            // arrangement it starts from.
            let mut work: Vec<(Vec<f64>, f64, usize, usize)> =
                varying.iter().map(|c| (*c).clone()).collect();
            let mut done = 0u32;
            let mut stopped = false;
            while done < draws {
                let mut t = 0.0;
                for case in work.iter_mut() {
                    let n_c = case.2 + case.3;
                    let k_g = case.2.min(case.3);
                    let mut s = 0.0;
                    for slot in 0..k_g {
                        let pick = slot + rng.below((n_c - slot) as u64) as usize;
                        case.0.swap(slot, pick);
                        s += case.0[slot];
                    }
                    t += d_of(case, s, case.2 <= case.3);
                }
                done += 1;
                ge += u64::from(t >= observed - tol);
                le += u64::from(t <= observed + tol);
                abs_ge += u64::from(t.abs() >= observed.abs() - tol);
                // Sequential stopping once every tally has reached h (see SEQUENTIAL_STOP).
                if ge.min(le).min(abs_ge) >= SEQUENTIAL_STOP {
                    stopped = true;
                    break;
                }
            }
            if stopped {
                total_count = f64::from(done);
            } else {
                // (b+1)/(B+1): the observed labelling counts as one draw.
                ge += 1;
                le += 1;
                abs_ge += 1;
                total_count = f64::from(done) + 1.0;
            }
            let draws = done;
            method = PermutationMethod::MonteCarlo {
                draws,
                seed: options.seed,
            };
        }
    }
    if n == 0 {
        return Ok(SuitePermutationTest {
            cases: 0,
            effect: 0.0,
            p_higher: 1.0,
            p_lower: 1.0,
            p_two_sided: 1.0,
            method,
        });
    }
    Ok(SuitePermutationTest {
        cases: n as u32,
        effect: observed / n as f64,
        p_higher: (ge as f64 / total_count).min(1.0),
        p_lower: (le as f64 / total_count).min(1.0),
        p_two_sided: (abs_ge as f64 / total_count).min(1.0),
        method,
    })
}

/// The exact (or Monte Carlo) sign-flip test on the case differences d_c: under H₀ each d_c is
/// symmetric about 0. Zeros carry no sign and are left out; exact up to
/// `SIGN_FLIP_EXACT_MAX` non-zero values (Gray-code enumeration), else `options.draws` draws.
pub fn sign_flip_test(
    d: &[f64],
    options: &PermutationOptions,
) -> Result<SuitePermutationTest, TrialsError> {
    check_cases(d.len())?;
    for (index, v) in d.iter().enumerate() {
        if !v.is_finite() {
            return Err(TrialsError::NotFinite {
                what: "case difference".to_string(),
                index,
            });
        }
    }
    // Sorted, so the result (Monte Carlo draws included) does not depend on the case order.
    let mut nz: Vec<f64> = d.iter().copied().filter(|&v| v != 0.0).collect();
    nz.sort_by(f64::total_cmp);
    let observed: f64 = nz.iter().sum();
    let effect = if d.is_empty() {
        0.0
    } else {
        observed / d.len() as f64
    };
    let scale: f64 = nz.iter().map(|v| v.abs()).sum();
    let tol = 1e-9 * scale.max(f64::MIN_POSITIVE);
    let (mut ge, mut le, mut abs_ge) = (0u64, 0u64, 0u64);
    // Counts one statistic; returns the smallest of the three tallies.
    let mut tally = |t: f64| -> u64 {
        ge += u64::from(t >= observed - tol);
        le += u64::from(t <= observed + tol);
        abs_ge += u64::from(t.abs() >= observed.abs() - tol);
        ge.min(le).min(abs_ge)
    };
    let (total, method) = if nz.len() <= SIGN_FLIP_EXACT_MAX {
        // Gray code: start with every sign +, flip one sign per step.
        let m = nz.len();
        let mut t = scale_sum(&nz);
        let mut signs = vec![1.0f64; m];
        tally(t);
        for step in 1u64..(1u64 << m) {
            let bit = step.trailing_zeros() as usize;
            t -= 2.0 * signs[bit] * nz[bit];
            signs[bit] = -signs[bit];
            tally(t);
        }
        let count = 1u64 << m;
        (
            count as f64,
            PermutationMethod::Exact {
                relabellings: count,
            },
        )
    } else {
        let mut rng = TrialRng::new(options.seed);
        let draws = options.draws.max(1);
        let mut done = 0u32;
        let mut stopped = false;
        while done < draws {
            let mut t = 0.0;
            let mut bits = 0u64;
            for (i, v) in nz.iter().enumerate() {
                if i % 64 == 0 {
                    bits = rng.next_u64();
                }
                t += if bits & 1 == 1 { *v } else { -*v };
                bits >>= 1;
            }
            done += 1;
            // Sequential stopping once every tally has reached h (see SEQUENTIAL_STOP).
            if tally(t) >= SEQUENTIAL_STOP {
                stopped = true;
                break;
            }
        }
        let total = if stopped {
            f64::from(done)
        } else {
            // (b+1)/(B+1): the observed signs count as one draw.
            tally(observed);
            f64::from(done) + 1.0
        };
        (
            total,
            PermutationMethod::MonteCarlo {
                draws: done,
                seed: options.seed,
            },
        )
    };
    Ok(SuitePermutationTest {
        cases: d.len() as u32,
        effect,
        p_higher: (ge as f64 / total).min(1.0),
        p_lower: (le as f64 / total).min(1.0),
        p_two_sided: (abs_ge as f64 / total).min(1.0),
        method,
    })
}

fn scale_sum(v: &[f64]) -> f64 {
    v.iter().sum()
}

/// The population-scope estimate of the effect on one axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PopulationEstimate {
    /// Cases (n).
    pub cases: u32,
    /// Δ̂ = mean_c d_c, in the axis's units.
    pub effect: f64,
    /// The clustered standard error sd(d)/√n (None below two cases), ≥ 0.
    pub standard_error: Option<f64>,
    /// Degrees of freedom n − 1.
    pub degrees_of_freedom: u32,
    /// Lower end of the interval at `level` (None below two cases).
    pub interval_low: Option<f64>,
    /// Upper end.
    pub interval_high: Option<f64>,
    /// The interval's confidence level, in (0, 1).
    pub level: f64,
    /// The sign-flip test on the d_c.
    pub sign_flip: SuitePermutationTest,
}

/// Δ̂, its clustered standard error and t_{n−1} interval at `level` (e.g. 0.95), and the
/// sign-flip p on the case differences `d`.
pub fn population_estimate(
    d: &[f64],
    level: f64,
    options: &PermutationOptions,
) -> Result<PopulationEstimate, TrialsError> {
    check_open_unit("level", level)?;
    let sign_flip = sign_flip_test(d, options)?;
    let n = d.len();
    let effect = sign_flip.effect;
    let se = variance(d).map(|v| (v / n as f64).sqrt());
    let df = n.saturating_sub(1) as u32;
    let (low, high) = match se {
        Some(se) => {
            let t = t_quantile(0.5 + level / 2.0, f64::from(df));
            (Some(effect - t * se), Some(effect + t * se))
        }
        None => (None, None),
    };
    Ok(PopulationEstimate {
        cases: n as u32,
        effect,
        standard_error: se,
        degrees_of_freedom: df,
        interval_low: low,
        interval_high: high,
        level,
        sign_flip,
    })
}

/// Variance components of one axis over the cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VarianceComponents {
    /// Cases (n).
    pub cases: u32,
    /// s²_{w,B}: mean within-case variance of the baseline's trials over cases with ≥ 2 of
    /// them (None when no case has), ≥ 0.
    pub within_baseline: Option<f64>,
    /// s²_{w,C}, likewise, ≥ 0.
    pub within_candidate: Option<f64>,
    /// Var(d) over cases (None below two cases), ≥ 0.
    pub between_differences: Option<f64>,
    /// ω̂² = max(0, Var(d) − mean_c s²_{w,B}/k_{c,B} − mean_c s²_{w,C}/k_{c,C}): the
    /// between-case variance of the true effect, ≥ 0 (None below two cases).
    pub omega_squared: Option<f64>,
    /// The harmonic-mean trial count per side used for the σ²/k terms (= k when balanced).
    pub baseline_trials: f64,
    /// Likewise for the candidate.
    pub candidate_trials: f64,
}

/// s²_w per side, Var(d) and ω̂² of one axis (unbalanced k handled through the mean of 1/k
/// over cases, i.e. the harmonic mean of k).
pub fn variance_components(cases: &[CaseSample<'_>]) -> Result<VarianceComponents, TrialsError> {
    let d = case_differences(cases)?;
    let n = cases.len();
    let side = |s: &CaseSample<'_>, baseline: bool| -> usize {
        if baseline {
            s.baseline.len()
        } else {
            s.candidate.len()
        }
    };
    let within = |baseline: bool| -> Option<f64> {
        let v: Vec<f64> = cases
            .iter()
            .filter_map(|s| variance(if baseline { s.baseline } else { s.candidate }))
            .collect();
        (!v.is_empty()).then(|| mean(&v))
    };
    let s2_b = within(true);
    let s2_c = within(false);
    let inv = |baseline: bool| -> f64 {
        if n == 0 {
            return 1.0;
        }
        cases
            .iter()
            .map(|s| 1.0 / side(s, baseline) as f64)
            .sum::<f64>()
            / n as f64
    };
    let inv_b = inv(true);
    let inv_c = inv(false);
    let var_d = variance(&d);
    let omega =
        var_d.map(|v| (v - s2_b.unwrap_or(0.0) * inv_b - s2_c.unwrap_or(0.0) * inv_c).max(0.0));
    Ok(VarianceComponents {
        cases: n as u32,
        within_baseline: s2_b,
        within_candidate: s2_c,
        between_differences: var_d,
        omega_squared: omega,
        baseline_trials: 1.0 / inv_b,
        candidate_trials: 1.0 / inv_c,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_suite_test_on_a_small_suite() {
        let a = [1.0, 2.0];
        let b = [3.0, 4.0];
        let cases = [
            CaseSample {
                baseline: &a,
                candidate: &b,
            },
            CaseSample {
                baseline: &a,
                candidate: &b,
            },
        ];
        let t = suite_permutation_test(&cases, &PermutationOptions::default()).unwrap();
        // 6 × 6 = 36 relabellings; the observed Σ d (4) is the unique maximum.
        assert!(matches!(
            t.method,
            PermutationMethod::Exact { relabellings: 36 }
        ));
        assert!((t.p_higher - 1.0 / 36.0).abs() < 1e-12);
        assert!((t.effect - 2.0).abs() < 1e-12);
    }

    #[test]
    fn sign_flip_exact_values() {
        let d = [1.0, 2.0, 3.0, 0.0];
        let t = sign_flip_test(&d, &PermutationOptions::default()).unwrap();
        // 8 patterns over the three non-zero values; only all-plus reaches 6.
        assert!((t.p_higher - 1.0 / 8.0).abs() < 1e-12);
        assert!((t.p_two_sided - 2.0 / 8.0).abs() < 1e-12);
        assert_eq!(t.cases, 4);
        let z = sign_flip_test(&[0.0, 0.0], &PermutationOptions::default()).unwrap();
        assert_eq!(z.p_two_sided, 1.0);
    }

    #[test]
    fn population_interval() {
        let d = [1.0, 2.0, 3.0, 4.0, 5.0];
        let p = population_estimate(&d, 0.95, &PermutationOptions::default()).unwrap();
        let se = (2.5f64 / 5.0).sqrt();
        assert!((p.standard_error.unwrap() - se).abs() < 1e-12);
        // t_{0.975, 4} = 2.7764451051977987.
        assert!((p.interval_low.unwrap() - (3.0 - 2.776_445_105_197_798_7 * se)).abs() < 1e-9);
        let one = population_estimate(&[1.0], 0.95, &PermutationOptions::default()).unwrap();
        assert_eq!(one.standard_error, None);
    }

    #[test]
    fn variance_components_balanced() {
        let cases_b = [[1.0, 3.0], [10.0, 12.0]];
        let cases_c = [[2.0, 4.0], [15.0, 17.0]];
        let cases: Vec<CaseSample<'_>> = cases_b
            .iter()
            .zip(&cases_c)
            .map(|(b, c)| CaseSample {
                baseline: b,
                candidate: c,
            })
            .collect();
        let v = variance_components(&cases).unwrap();
        assert_eq!(v.within_baseline, Some(2.0));
        assert_eq!(v.within_candidate, Some(2.0));
        // d = 1, 5: Var(d) = 8; ω² = 8 − 2/2 − 2/2 = 6.
        assert_eq!(v.omega_squared, Some(6.0));
        assert_eq!(v.baseline_trials, 2.0);
    }

    #[test]
    fn refuses_infinite_values() {
        let b = [1.0, f64::INFINITY];
        let c = [1.0];
        let cases = [CaseSample {
            baseline: &b,
            candidate: &c,
        }];
        assert!(case_differences(&cases).is_err());
        assert!(sign_flip_test(&[f64::NAN], &PermutationOptions::default()).is_err());
    }
}
