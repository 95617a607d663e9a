//! The two-sample Hotelling T² test on behaviour fingerprints, as Shadow 3.2.5's
//! `shadow.statistical.hotelling` computes it: the pooled covariance shrunk toward a scaled
//! identity with the Oracle Approximating Shrinkage coefficient (Chen et al. 2010), the
//! F-distribution p-value, the exact permutation p-value when the number of label
//! permutations is small, seeded Monte Carlo permutations, post-hoc power under the
//! non-central F, and the three-state decision. veer adds each dimension's contribution to T²,
//! so a report can name what moved.
//!
//! Pure functions of the two samples (and a seed for Monte Carlo): no I/O.

use veer_base::fdist;
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod linalg;
pub mod moments;

use linalg::{solve, Matrix};
use moments::{moments, SampleMoments};
use veer_base::rng::ChaCha12;
use veer_contract::fingerprint::{Decision, Method};

/// Largest number of label permutations `C(n1 + n2, n1)` enumerated exactly (the reference's
/// `EXACT_PERM_LIMIT`).
pub(crate) const EXACT_PERM_LIMIT: u64 = 13_000;
/// Post-hoc power below which a non-rejecting result is `underpowered` (0–1).
pub(crate) const UNDERPOWERED_BELOW: f64 = 0.5;
/// Default significance level.
pub(crate) const DEFAULT_ALPHA: f64 = 0.05;

/// Which p-value to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PValue {
    /// F distribution only (the reference's `permutations = 0`).
    F,
    /// Exact permutation when `C(n1 + n2, n1) ≤ EXACT_PERM_LIMIT`, else the F distribution
    /// (the reference's `permutations = -1`; veer's report uses this).
    ExactWhenSmall,
    /// `count` Monte Carlo relabellings drawn from veer's ChaCha12 stream seeded with `seed`.
    MonteCarlo {
        /// Number of relabellings (≥ 1).
        count: u32,
        /// Seed of the generator.
        seed: u64,
    },
}

/// The result of one two-sample test.
#[derive(Debug, Clone, PartialEq)]
pub struct HotellingResult {
    /// Baseline sample size.
    pub n1: usize,
    /// Candidate sample size.
    pub n2: usize,
    /// Dimension D.
    pub d: usize,
    /// The T² statistic (≥ 0).
    pub t2: f64,
    /// `(n1 + n2 − D − 1) / ((n1 + n2 − 2) D) · T²`; None when `n1 + n2 ≤ D + 1`.
    pub f_stat: Option<f64>,
    /// Denominator degrees of freedom `n1 + n2 − D − 1`, floored at 0.
    pub df2: usize,
    /// The p-value (0–1) of `method`.
    pub p_value: f64,
    /// Where the p-value came from.
    pub method: Method,
    /// The OAS shrinkage coefficient ρ (0 = none, 1 = full shrinkage to `tr(S)/D · I`).
    pub shrinkage: f64,
    /// Post-hoc power (0–1) under the non-central F; None when the F approximation is undefined.
    pub power: Option<f64>,
    /// The verdict at `alpha`.
    pub decision: Decision,
    /// Per-dimension mean of the baseline sample.
    pub baseline_mean: Vec<f64>,
    /// Per-dimension mean of the candidate sample.
    pub candidate_mean: Vec<f64>,
    /// Each dimension's share of T² in T² units: `k · δ_j · (S⁻¹ δ)_j` with
    /// `k = n1 n2 / (n1 + n2)` and `δ` the mean difference; they sum to T². A negative value
    /// means the dimension's shift is explained by correlated dimensions.
    pub contributions: Vec<f64>,
}

/// Why a test cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HotellingError {
    /// One side has fewer than two observations.
    #[error(
        "the Hotelling test needs at least 2 responses a side (baseline {n1}, candidate {n2})"
    )]
    TooFew {
        /// Baseline rows.
        n1: usize,
        /// Candidate rows.
        n2: usize,
    },
    /// Rows of different widths.
    #[error("fingerprint rows differ in width")]
    Width,
}

/// The statistic of one labelling: (T², shrinkage, contributions, means).
struct Statistic {
    t2: f64,
    shrinkage: f64,
    contributions: Vec<f64>,
    mean_a: Vec<f64>,
    mean_b: Vec<f64>,
}

/// OAS shrinkage of `s` with `n` degrees of freedom: `(1 − ρ) S + ρ tr(S)/D I`.
fn oas_shrink(mut s: Matrix, n: f64) -> (Matrix, f64) {
    let d = s.len() as f64;
    let trace: f64 = (0..s.len()).map(|i| s[i][i]).sum();
    let trace_sq: f64 = s.iter().flatten().map(|x| x * x).sum();
    let numerator = (1.0 - 2.0 / d) * trace_sq + trace * trace;
    let denominator = (n + 1.0 - 2.0 / d) * (trace_sq - trace * trace / d);
    if denominator.abs() < 1e-12 {
        return (s, 0.0);
    }
    let rho = (numerator / denominator).clamp(0.0, 1.0);
    let mu = trace / d;
    for (i, row) in s.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = (1.0 - rho) * *x + if i == j { rho * mu } else { 0.0 };
        }
    }
    (s, rho)
}

/// T² of sample `a` against sample `b`.
fn statistic<'a>(
    a: impl Iterator<Item = &'a [f64]> + Clone,
    b: impl Iterator<Item = &'a [f64]> + Clone,
    d: usize,
) -> Statistic {
    statistic_of(moments(a, d), moments(b, d))
}

/// T² of two samples from their moments.
fn statistic_of(a: SampleMoments, b: SampleMoments) -> Statistic {
    let (f1, f2) = (a.n as f64, b.n as f64);
    let dof = f1 + f2 - 2.0;
    // The reference forms (n1 − 1)·S1 + (n2 − 1)·S2 from the unbiased covariances.
    let pooled: Matrix = a
        .cross
        .iter()
        .zip(&b.cross)
        .map(|(ra, rb)| {
            ra.iter()
                .zip(rb)
                .map(|(x, y)| ((f1 - 1.0) * (x / (f1 - 1.0)) + (f2 - 1.0) * (y / (f2 - 1.0))) / dof)
                .collect()
        })
        .collect();
    let (shrunk, shrinkage) = oas_shrink(pooled, dof);
    let delta: Vec<f64> = a.mean.iter().zip(&b.mean).map(|(x, y)| x - y).collect();
    let z = solve(&shrunk, &delta);
    let k = f1 * f2 / (f1 + f2);
    let contributions: Vec<f64> = delta.iter().zip(&z).map(|(dl, zz)| k * dl * zz).collect();
    let t2 = contributions.iter().sum::<f64>().max(0.0);
    Statistic {
        t2,
        shrinkage,
        contributions,
        mean_a: a.mean,
        mean_b: b.mean,
    }
}

/// `C(n, k)` when it is at most `limit`, else None.
fn combinations_within(n: u64, k: u64, limit: u64) -> Option<u64> {
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        // C(n, i) · (n − i) / (i + 1) = C(n, i + 1) exactly; the sequence grows up to k ≤ n/2.
        c = c * u128::from(n - i) / u128::from(i + 1);
        if c > u128::from(limit) {
            return None;
        }
    }
    u64::try_from(c).ok().filter(|&c| c <= limit)
}

/// Relative tolerance under which a permuted T² counts as "at least the observed": labellings
/// that are mathematically equal (the swapped labelling when `n1 = n2`, exchanged identical
/// rows) must count, whatever the last bits of their arithmetic.
const TIE_TOLERANCE: f64 = 1e-12;

fn at_least(t2: f64, observed: f64) -> bool {
    t2 >= observed - TIE_TOLERANCE * observed.abs()
}

/// The exact permutation p-value: the share of the `combos` labellings (the observed included)
/// whose T² is at least the observed one. Labellings are enumerated in lexicographic order.
fn exact_p(rows: &[&[f64]], n1: usize, d: usize, observed: f64, combos: u64) -> f64 {
    let n = rows.len();
    let mut idx: Vec<usize> = (0..n1).collect();
    let mut chosen = vec![false; n];
    let mut count = 0u64;
    loop {
        chosen.iter_mut().for_each(|c| *c = false);
        for &i in &idx {
            chosen[i] = true;
        }
        let a = rows
            .iter()
            .zip(&chosen)
            .filter(|(_, &c)| c)
            .map(|(r, _)| *r);
        let b = rows
            .iter()
            .zip(&chosen)
            .filter(|(_, &c)| !c)
            .map(|(r, _)| *r);
        if at_least(statistic(a, b, d).t2, observed) {
            count += 1;
        }
        // Next combination.
        let mut i = n1;
        loop {
            if i == 0 {
                return count as f64 / combos as f64;
            }
            i -= 1;
            if idx[i] != i + n - n1 {
                break;
            }
        }
        idx[i] += 1;
        for j in i + 1..n1 {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// The Monte Carlo permutation p-value `(b + 1) / (B + 1)`: each round shuffles the pooled rows
/// (Fisher–Yates from the top, veer's ChaCha12 stream) and splits them `n1 | n2`.
fn monte_carlo_p(
    rows: &[&[f64]],
    n1: usize,
    d: usize,
    observed: f64,
    count: u32,
    seed: u64,
) -> f64 {
    let mut rng = ChaCha12::seed_from_u64(seed);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut hits = 0u64;
    for _ in 0..count {
        for i in (1..order.len()).rev() {
            let j = rng.index_below((i + 1) as u32) as usize;
            order.swap(i, j);
        }
        let a = order[..n1].iter().map(|&i| rows[i]);
        let b = order[n1..].iter().map(|&i| rows[i]);
        if at_least(statistic(a, b, d).t2, observed) {
            hits += 1;
        }
    }
    (hits + 1) as f64 / (f64::from(count) + 1.0)
}

/// Post-hoc power under the non-central F with `λ = T² · n1 n2 / (n1 + n2)` (the reference's
/// formula); α itself when `λ ≤ 0`.
fn post_hoc_power(t2: f64, n1: usize, n2: usize, d: usize, df2: usize, alpha: f64) -> Option<f64> {
    if df2 == 0 {
        return None;
    }
    let f_crit = fdist::f_ppf(1.0 - alpha, d as f64, df2 as f64);
    if !f_crit.is_finite() {
        return None;
    }
    let (f1, f2) = (n1 as f64, n2 as f64);
    let nc = t2 * (f1 * f2) / (f1 + f2);
    if nc <= 0.0 {
        return Some(alpha);
    }
    let power = 1.0 - fdist::ncf_cdf(f_crit, d as f64, df2 as f64, nc);
    power.is_finite().then(|| power.clamp(0.0, 1.0))
}

fn classify(p: f64, alpha: f64, power: Option<f64>, df2: usize) -> Decision {
    if df2 == 0 {
        return Decision::Underpowered;
    }
    if p < alpha {
        return Decision::Reject;
    }
    match power {
        Some(p) if p >= UNDERPOWERED_BELOW => Decision::FailToReject,
        _ => Decision::Underpowered,
    }
}

/// The two-sample Hotelling T² test of `x1` (baseline rows) against `x2` (candidate rows),
/// all rows of one width D, at significance `alpha` (0–1).
pub(crate) fn hotelling_t2<R: AsRef<[f64]>>(
    x1: &[R],
    x2: &[R],
    alpha: f64,
    p_value: PValue,
) -> Result<HotellingResult, HotellingError> {
    let (n1, n2) = (x1.len(), x2.len());
    if n1 < 2 || n2 < 2 {
        return Err(HotellingError::TooFew { n1, n2 });
    }
    let d = x1[0].as_ref().len();
    if x1.iter().chain(x2).any(|r| r.as_ref().len() != d) {
        return Err(HotellingError::Width);
    }
    let observed = statistic(
        x1.iter().map(AsRef::as_ref),
        x2.iter().map(AsRef::as_ref),
        d,
    );
    let (df2, f_stat) = f_statistic(n1, n2, d, observed.t2);
    let pooled = || -> Vec<&[f64]> { x1.iter().chain(x2).map(AsRef::as_ref).collect() };
    let (p, method) = match p_value {
        PValue::MonteCarlo { count, seed } if count > 0 => (
            monte_carlo_p(&pooled(), n1, d, observed.t2, count, seed),
            Method::MonteCarloPermutation,
        ),
        PValue::ExactWhenSmall => {
            match combinations_within((n1 + n2) as u64, n1 as u64, EXACT_PERM_LIMIT) {
                Some(combos) => (
                    exact_p(&pooled(), n1, d, observed.t2, combos),
                    Method::ExactPermutation,
                ),
                None => (f_p(f_stat, d, df2), Method::FDistribution),
            }
        }
        _ => (f_p(f_stat, d, df2), Method::FDistribution),
    };
    Ok(result(
        n1,
        n2,
        d,
        observed,
        (df2, f_stat),
        (p, method),
        alpha,
    ))
}

/// The test from the two samples' moments, with the F-distribution p-value: exactly
/// `hotelling_t2` with `PValue::F` on the rows the moments were accumulated from (also
/// with `PValue::ExactWhenSmall` whenever the labellings are too many to enumerate,
/// `C(n1 + n2, n1) > EXACT_PERM_LIMIT`) — for samples passed over rather than held.
pub fn hotelling_t2_of_moments(
    a: SampleMoments,
    b: SampleMoments,
    alpha: f64,
) -> Result<HotellingResult, HotellingError> {
    let (n1, n2, d) = (a.n, b.n, a.mean.len());
    if n1 < 2 || n2 < 2 {
        return Err(HotellingError::TooFew { n1, n2 });
    }
    if b.mean.len() != d {
        return Err(HotellingError::Width);
    }
    let observed = statistic_of(a, b);
    let (df2, f_stat) = f_statistic(n1, n2, d, observed.t2);
    let p = (f_p(f_stat, d, df2), Method::FDistribution);
    Ok(result(n1, n2, d, observed, (df2, f_stat), p, alpha))
}

/// The F statistic's second degrees of freedom and value (None when undefined).
fn f_statistic(n1: usize, n2: usize, d: usize, t2: f64) -> (usize, Option<f64>) {
    let df2 = (n1 + n2).saturating_sub(d + 1);
    let f_stat =
        (df2 > 0).then(|| (n1 + n2 - d - 1) as f64 / ((n1 + n2 - 2) as f64 * d as f64) * t2);
    (df2, f_stat)
}

/// The result of a test whose statistic and p-value are known.
fn result(
    n1: usize,
    n2: usize,
    d: usize,
    observed: Statistic,
    (df2, f_stat): (usize, Option<f64>),
    (p, method): (f64, Method),
    alpha: f64,
) -> HotellingResult {
    let power = post_hoc_power(observed.t2, n1, n2, d, df2, alpha);
    HotellingResult {
        n1,
        n2,
        d,
        t2: observed.t2,
        f_stat,
        df2,
        p_value: p,
        method,
        shrinkage: observed.shrinkage,
        power,
        decision: classify(p, alpha, power, df2),
        baseline_mean: observed.mean_a,
        candidate_mean: observed.mean_b,
        contributions: observed.contributions,
    }
}

/// The F-distribution p-value; 1 when the F approximation is undefined.
fn f_p(f_stat: Option<f64>, d: usize, df2: usize) -> f64 {
    match f_stat {
        Some(f) => fdist::f_sf(f, d as f64, df2 as f64),
        None => 1.0,
    }
}

#[cfg(test)]
mod near_singular_tests;
#[cfg(test)]
mod parity_tests;
#[cfg(test)]
mod proptests;
