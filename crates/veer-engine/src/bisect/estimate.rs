//! Effects by least squares with bootstrap intervals over trials (docs/bisect.md,
//! "Estimation").
//!
//! The model, in the ±1 coding (A = −1, B = +1): y = β₀ + Σ βⱼ xⱼ (+ Σ βⱼₗ xⱼ xₗ on a full
//! factorial with two or more factors). A factor's **effect** is 2βⱼ: the change in the measure
//! when that factor alone switches from A to B (averaged over the others); an interaction's is
//! 2βⱼₗ (Box, Hunter & Hunter 2005, ch. 5). Interaction terms cancel between the all-A and the
//! all-B point, so the modelled A→B change is Σ 2βⱼ and a factor's **share** is βⱼ / Σ βⱼ.
//!
//! **Intervals**: the trials of each point are resampled with replacement (every point keeps
//! its number of trials) and the model is refitted; the standard deviation of the resampled
//! effects is the bootstrap standard error, widened by √(n/(n−1)) (n = trials per point)
//! because a bootstrap of n draws underestimates the spread of a mean by that factor. The
//! interval is the estimate ± t × that error, t the Student-t quantile at 1 − α/2 with the
//! pure-error degrees of freedom Σ(nᵢ − 1) (percentile intervals of a bootstrap over three
//! trials are far too narrow in the tails: simulated family-wise false alarms of 8–11 %). α is
//! 0.05 divided by the number of terms (Bonferroni), so the chance that *any* inert term of a
//! measure is called implicated stays at or below about 5 %. 2 000 resamples per measure. With one trial per point there is
//! no interval and nothing is implicated (inconclusive). Shares are given only when the
//! measure's A→B change itself is established (its interval excludes 0).
//!
//! Because the rows of one point are identical, least squares over runs equals weighted least
//! squares over point means with the counts as weights, so one resample costs one
//! matrix–vector product: bounded work (points × terms × resamples), whatever the values.

use super::design::Design;
use veer_base::rng::derive_seed;
use veer_base::rng::TrialRng;

/// Family-wise error rate of the intervals of one measure (split over its terms).
pub const ALPHA: f64 = 0.05;

/// Bootstrap resamples for a model of `terms` terms: 2 000 whatever the terms (the interval
/// uses the resamples' standard deviation, not their tails; its relative error is about
/// 1/√(2 × 2 000) ≈ 1.6 %).
pub fn resamples(_terms: usize) -> usize {
    2000
}

/// A term of the model besides the intercept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Term {
    /// The main effect of factor j.
    Main(usize),
    /// The two-factor interaction of factors j < l.
    Interaction(usize, usize),
}

/// The terms the design estimates: every main effect, then (full factorial, k ≥ 2) every
/// two-factor interaction in (j, l) order.
pub fn terms(design: &Design) -> Vec<Term> {
    let k = design.factors;
    let mut t: Vec<Term> = (0..k).map(Term::Main).collect();
    if design.kind.resolves_interactions() {
        for j in 0..k {
            for l in j + 1..k {
                t.push(Term::Interaction(j, l));
            }
        }
    }
    t
}

fn pm(x: bool) -> f64 {
    if x {
        1.0
    } else {
        -1.0
    }
}

/// The model row of a point: 1, then one value per term.
pub(crate) fn model_row(levels: &[bool], terms: &[Term]) -> Vec<f64> {
    let mut row = Vec::with_capacity(terms.len() + 1);
    row.push(1.0);
    for t in terms {
        row.push(match *t {
            Term::Main(j) => levels.get(j).map_or(0.0, |&x| pm(x)),
            Term::Interaction(j, l) => {
                levels.get(j).map_or(0.0, |&x| pm(x)) * levels.get(l).map_or(0.0, |&x| pm(x))
            }
        });
    }
    row
}

/// The thin QR factorisation of the n × p matrix `x` (rows) by modified Gram–Schmidt: Q's
/// columns and the upper-triangular R; `None` when X does not have full column rank (n < p, or
/// a column within 1e-10 of the span of the previous ones, relative to its norm).
type Qr = (Vec<Vec<f64>>, Vec<Vec<f64>>);

fn qr(x: &[Vec<f64>]) -> Option<Qr> {
    let n = x.len();
    let p = x.first().map_or(0, Vec::len);
    if n < p || p == 0 {
        return None;
    }
    let mut q: Vec<Vec<f64>> = (0..p)
        .map(|j| x.iter().map(|r| r.get(j).copied().unwrap_or(0.0)).collect())
        .collect();
    let mut r = vec![vec![0.0; p]; p];
    for j in 0..p {
        let original: f64 = q[j].iter().map(|v| v * v).sum::<f64>().sqrt();
        let (done, rest) = q.split_at_mut(j);
        let col = &mut rest[0];
        for (i, qi) in done.iter().enumerate() {
            let d: f64 = qi.iter().zip(col.iter()).map(|(a, b)| a * b).sum();
            r[i][j] = d;
            for (v, a) in col.iter_mut().zip(qi) {
                *v -= d * a;
            }
        }
        let norm: f64 = col.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm.is_nan() || norm <= 1e-10 * original.max(1.0) {
            return None;
        }
        r[j][j] = norm;
        for v in col.iter_mut() {
            *v /= norm;
        }
    }
    Some((q, r))
}

/// Solves R β = v for upper-triangular R.
fn back_substitute(r: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    let p = v.len();
    let mut beta = vec![0.0; p];
    for i in (0..p).rev() {
        let s: f64 = (i + 1..p).map(|j| r[i][j] * beta[j]).sum();
        beta[i] = (v[i] - s) / r[i][i];
    }
    beta
}

#[cfg(test)]
/// Ordinary least squares by modified Gram–Schmidt QR: the β minimising ‖Xβ − y‖² for the
/// n × p matrix `x` (rows), or `None` when X does not have full column rank.
pub(crate) fn lstsq(x: &[Vec<f64>], y: &[f64]) -> Option<Vec<f64>> {
    if y.len() != x.len() {
        return None;
    }
    let (q, r) = qr(x)?;
    let qty: Vec<f64> = q
        .iter()
        .map(|c| c.iter().zip(y).map(|(a, b)| a * b).sum())
        .collect();
    Some(back_substitute(&r, &qty))
}

/// The linear map from point means to coefficients for fixed counts per point:
/// β = H ȳ with H = (Xᵀ W X)⁻¹ Xᵀ W, W = diag(counts), from one QR of √W X (so
/// H = R⁻¹ Qᵀ √W). `None` when the points with runs do not determine the model.
fn hat(rows: &[Vec<f64>], counts: &[usize]) -> Option<Vec<Vec<f64>>> {
    let used: Vec<usize> = (0..rows.len()).filter(|&i| counts[i] > 0).collect();
    let x: Vec<Vec<f64>> = used
        .iter()
        .map(|&i| {
            let w = (counts[i] as f64).sqrt();
            rows[i].iter().map(|v| v * w).collect()
        })
        .collect();
    let (q, r) = qr(&x)?;
    let p = r.len();
    let mut h = vec![vec![0.0; rows.len()]; p];
    for (u, &i) in used.iter().enumerate() {
        let w = (counts[i] as f64).sqrt();
        let v: Vec<f64> = q.iter().map(|c| c[u] * w).collect();
        for (row, b) in h.iter_mut().zip(back_substitute(&r, &v)) {
            row[i] = b;
        }
    }
    Some(h)
}

/// One term's estimate.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TermEstimate {
    /// The effect (2β), in the measure's unit.
    pub estimate: f64,
    /// Its bootstrap interval at level 1 − [`ALPHA`]/terms; `None` with one trial per point.
    pub ci: Option<[f64; 2]>,
    /// Share of the modelled A→B change (main effects only; `None` unless the change's
    /// interval excludes 0).
    pub share: Option<f64>,
    /// The share's bootstrap interval (same level).
    pub share_ci: Option<[f64; 2]>,
    /// The interval excludes 0.
    pub implicated: bool,
}

/// What one measure's fit gives.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Estimates {
    /// Per term of [`terms`], in order.
    pub terms: Vec<TermEstimate>,
    /// The modelled A→B change (Σ 2βⱼ) and its interval.
    pub change: f64,
    /// Its interval.
    pub change_ci: Option<[f64; 2]>,
}

/// Values this close to 0 (relative to the data's scale) are 0: a deterministic agent's inert
/// factor gives an exact zero, not rounding noise that would look "implicated".
fn snap(x: f64, tol: f64) -> f64 {
    if x.abs() <= tol {
        0.0
    } else {
        x
    }
}

/// Fits the model of `design` to `values` (per point, the measure of each of its trials) and
/// bootstraps intervals with `seed` (derived per `key`, the measure's name). `None` when the
/// design cannot be fitted from the points that have trials.
pub fn estimate(design: &Design, values: &[Vec<f64>], seed: u64, key: &str) -> Option<Estimates> {
    let terms = terms(design);
    let rows: Vec<Vec<f64>> = design.points.iter().map(|p| model_row(p, &terms)).collect();
    let counts: Vec<usize> = values.iter().map(Vec::len).collect();
    if counts.len() != rows.len() {
        return None;
    }
    let h = hat(&rows, &counts)?;
    let scale = values.iter().flatten().fold(1.0f64, |m, v| m.max(v.abs()));
    let tol = 1e-9 * scale;
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let k = design.factors;
    let fit = |means: &[f64]| -> Vec<f64> {
        h.iter()
            .map(|row| row.iter().zip(means).map(|(a, b)| a * b).sum::<f64>())
            .collect()
    };
    let means: Vec<f64> = values.iter().map(|v| mean(v)).collect();
    let beta = fit(&means);
    let main_sum = |b: &[f64]| b.iter().skip(1).take(k).sum::<f64>();
    let change = snap(2.0 * main_sum(&beta), tol);

    let min_trials = counts.iter().copied().filter(|&c| c > 0).min().unwrap_or(0);
    let resamples = resamples(terms.len());
    let alpha = ALPHA / terms.len().max(1) as f64;
    let boot = (min_trials >= 2).then(|| {
        let mut rng = TrialRng::new(derive_seed(seed, key));
        let mut effects: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); terms.len()];
        let mut shares: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); k];
        let mut changes = Vec::with_capacity(resamples);
        let mut resampled = vec![0.0; values.len()];
        for _ in 0..resamples {
            for (m, v) in resampled.iter_mut().zip(values) {
                let n = v.len() as u64;
                *m = if n == 0 {
                    0.0
                } else {
                    (0..n).map(|_| v[rng.below(n) as usize]).sum::<f64>() / n as f64
                };
            }
            let b = fit(&resampled);
            for (t, e) in effects.iter_mut().enumerate() {
                e.push(2.0 * b[t + 1]);
            }
            let total = main_sum(&b);
            changes.push(2.0 * total);
            if total.abs() > tol {
                for (j, s) in shares.iter_mut().enumerate() {
                    s.push(b[j + 1] / total);
                }
            }
        }
        (effects, shares, changes)
    });
    let widen = if min_trials >= 2 {
        (min_trials as f64 / (min_trials as f64 - 1.0)).sqrt()
    } else {
        1.0
    };
    let df: usize = counts.iter().map(|&c| c.saturating_sub(1)).sum();
    let t = veer_trials::special::t_quantile(1.0 - alpha / 2.0, df.max(1) as f64);
    let interval = |v: Vec<f64>, centre: f64| -> [f64; 2] {
        let m = v.iter().sum::<f64>() / v.len().max(1) as f64;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len().max(2) as f64;
        let half = t * widen * var.sqrt();
        let half = if half.is_finite() {
            half
        } else {
            f64::INFINITY
        };
        [snap(centre - half, tol), snap(centre + half, tol)]
    };
    let (boot_effects, boot_shares, boot_changes) = match boot {
        Some((e, s, c)) => (Some(e), Some(s), Some(c)),
        None => (None, None, None),
    };
    let total = main_sum(&beta);
    let change_ci = boot_changes.map(|c| interval(c, change));
    let change_established = change_ci.is_some_and(|[lo, hi]| lo > 0.0 || hi < 0.0);
    let mut out = Vec::with_capacity(terms.len());
    for (t, term) in terms.iter().enumerate() {
        let estimate = snap(2.0 * beta[t + 1], tol);
        let ci = boot_effects
            .as_ref()
            .and_then(|e| e.get(t).cloned())
            .map(|v| interval(v, estimate));
        let (share, share_ci) = match term {
            Term::Main(j) if change_established => {
                let share = beta[j + 1] / total;
                let share = if estimate == 0.0 { 0.0 } else { share };
                // Too many resamples without a change: no interval for the share.
                let ci = boot_shares
                    .as_ref()
                    .and_then(|s| s.get(*j))
                    .filter(|s| s.len() * 40 >= resamples * 39)
                    .map(|s| interval(s.clone(), share));
                (Some(share), ci)
            }
            _ => (None, None),
        };
        let implicated = ci.is_some_and(|[lo, hi]| lo > 0.0 || hi < 0.0);
        out.push(TermEstimate {
            estimate,
            ci,
            share,
            share_ci,
            implicated,
        });
    }
    Some(Estimates {
        terms: out,
        change,
        change_ci,
    })
}

#[cfg(test)]
mod tests {
    use super::super::design::{points, DesignKind};
    use super::*;

    fn design(kind: DesignKind, k: usize) -> Design {
        Design {
            kind,
            factors: k,
            points: points(kind, k).unwrap(),
        }
    }

    #[test]
    fn lstsq_matches_a_direct_computation_on_an_orthogonal_design() {
        // On an orthogonal ±1 design, βⱼ = mean(y · xⱼ) directly.
        let d = design(DesignKind::FullFactorial, 3);
        let t = terms(&d);
        let x: Vec<Vec<f64>> = d.points.iter().map(|p| model_row(p, &t)).collect();
        let y: Vec<f64> = (0..8)
            .map(|i| (i * i) as f64 * 0.5 - 3.0 + (i % 3) as f64)
            .collect();
        let beta = lstsq(&x, &y).unwrap();
        for (c, b) in beta.iter().enumerate() {
            let direct: f64 = x.iter().zip(&y).map(|(r, v)| r[c] * v).sum::<f64>() / 8.0;
            assert!((b - direct).abs() < 1e-12, "column {c}: {b} vs {direct}");
        }
    }

    #[test]
    fn lstsq_refuses_rank_deficiency() {
        let x = vec![vec![1.0, 2.0], vec![2.0, 4.0], vec![3.0, 6.0]];
        assert_eq!(lstsq(&x, &[1.0, 2.0, 3.0]), None);
        assert_eq!(lstsq(&[vec![1.0, 1.0]], &[1.0]), None);
    }

    #[test]
    fn a_single_culprit_takes_the_whole_share() {
        // Factor 1 adds 2.0 to the measure; factors 0 and 2 do nothing; three noisy trials.
        let d = design(DesignKind::FullFactorial, 3);
        let noise = [-0.1, 0.0, 0.1];
        let values: Vec<Vec<f64>> = d
            .points
            .iter()
            .map(|p| {
                noise
                    .iter()
                    .map(|e| if p[1] { 2.0 } else { 0.0 } + e)
                    .collect()
            })
            .collect();
        let est = estimate(&d, &values, 7, "m").unwrap();
        assert!((est.terms[1].estimate - 2.0).abs() < 1e-9);
        assert!(est.terms[1].implicated);
        assert!((est.terms[1].share.unwrap() - 1.0).abs() < 1e-9);
        for j in [0, 2] {
            assert_eq!(est.terms[j].estimate, 0.0);
            assert!(!est.terms[j].implicated, "{:?}", est.terms[j]);
        }
        assert!((est.change - 2.0).abs() < 1e-9);
        // Same seed, same intervals.
        assert_eq!(estimate(&d, &values, 7, "m").unwrap(), est);
    }

    #[test]
    fn one_trial_is_inconclusive() {
        let d = design(DesignKind::FullFactorial, 2);
        let values: Vec<Vec<f64>> = d
            .points
            .iter()
            .map(|p| vec![if p[0] { 1.0 } else { 0.0 }])
            .collect();
        let est = estimate(&d, &values, 1, "m").unwrap();
        assert_eq!(est.terms[0].estimate, 2.0 - 1.0);
        assert!(est.terms.iter().all(|t| t.ci.is_none() && !t.implicated));
    }

    #[test]
    fn lstsq_matches_numpy_on_a_non_orthogonal_matrix() {
        // numpy.linalg.lstsq(X, y, rcond=None) with numpy 2 (values written here).
        let x = vec![
            vec![1.0, 0.5, -1.0],
            vec![1.0, 1.0, 2.0],
            vec![1.0, -1.0, 1.0],
            vec![1.0, 3.0, 1.0],
            vec![1.0, 2.0, -2.0],
            vec![1.0, -1.5, -1.0],
        ];
        let y = [1.0, 2.5, 0.3, 4.1, 2.2, -0.7];
        let numpy = [0.94331450094162, 0.9350282485875707, 0.3137476459510358];
        let beta = lstsq(&x, &y).unwrap();
        for (b, n) in beta.iter().zip(numpy) {
            assert!((b - n).abs() < 1e-12, "{b} vs {n}");
        }
    }

    /// False alarms measured by simulation: pure Gaussian noise on every point, three trials;
    /// the share of simulations in which any term is called implicated stays near the nominal
    /// 5% (docs/bisect.md quotes the measured rates).
    #[test]
    fn false_alarm_rate_on_pure_noise() {
        for (kind, k) in [(DesignKind::FullFactorial, 3), (DesignKind::FoldOver, 5)] {
            let d = design(kind, k);
            let mut rng = TrialRng::new(2024);
            let sims: usize = 200;
            let mut alarms = 0usize;
            for s in 0..sims {
                let values: Vec<Vec<f64>> = d
                    .points
                    .iter()
                    .map(|_| (0..3).map(|_| rng.normal()).collect())
                    .collect();
                let est = estimate(&d, &values, s as u64, "noise").unwrap();
                alarms += usize::from(est.terms.iter().any(|t| t.implicated));
            }
            let rate = alarms as f64 / sims as f64;
            eprintln!("{kind:?}: family-wise false-alarm rate {rate:.3}");
            assert!(rate < 0.10, "{kind:?}: {rate}");
        }
    }

    /// The largest design (8 factors, full factorial: 256 points, 37 terms, 2 000
    /// resamples) recovers a planted effect and an interaction; its work is bounded by those
    /// sizes (docs/bisect.md quotes the time).
    #[test]
    fn the_largest_full_factorial_recovers_effects_and_interactions() {
        let d = design(DesignKind::FullFactorial, 8);
        let mut rng = TrialRng::new(5);
        let values: Vec<Vec<f64>> = d
            .points
            .iter()
            .map(|p| {
                (0..3)
                    .map(|_| {
                        let both = if p[2] && p[5] { 1.0 } else { 0.0 };
                        3.0 * f64::from(u8::from(p[6])) + both + 0.2 * rng.normal()
                    })
                    .collect()
            })
            .collect();
        let t = std::time::Instant::now();
        let est = estimate(&d, &values, 9, "m").unwrap();
        eprintln!("k=8 full factorial: {:?}", t.elapsed());
        let all = terms(&d);
        for (term, e) in all.iter().zip(&est.terms) {
            let planted = matches!(
                term,
                Term::Main(6) | Term::Main(2) | Term::Main(5) | Term::Interaction(2, 5)
            );
            assert_eq!(e.implicated, planted, "{term:?}: {e:?}");
        }
        assert!((est.terms[6].estimate - 3.0).abs() < 0.1);
    }
}
