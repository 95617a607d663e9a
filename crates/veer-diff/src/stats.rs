//! Descriptive statistics and the seeded paired bootstrap (spec `diff.md` §3).
//!
//! Every function is deterministic: sums run left to right, sorting uses a total order on
//! `f64`, and each bootstrap owns a generator freshly seeded with the caller's seed.

use crate::rng::ChaCha12;

/// Number of bootstrap resamples behind every confidence interval.
pub const BOOTSTRAP_ITERATIONS: usize = 1000;

/// Median: empty → 0.0; odd length → the middle element; even → the mean of the two middle
/// elements of a sorted copy.
pub fn median(xs: &[f64]) -> f64 {
    median_in_place(&mut xs.to_vec())
}

/// [`median`] of `xs`, reordering `xs` (linear-time selection; the same value as sorting).
pub fn median_in_place(xs: &mut [f64]) -> f64 {
    let n = xs.len();
    if n == 0 {
        return 0.0;
    }
    let (left, mid, _) = xs.select_nth_unstable_by(n / 2, f64::total_cmp);
    let upper = *mid;
    if n % 2 == 1 {
        return upper;
    }
    // The lower middle element is the largest of the elements ordered before `upper`.
    let lower = left.iter().copied().max_by(f64::total_cmp).unwrap_or(upper);
    (lower + upper) / 2.0
}

/// Arithmetic mean, summed left to right; empty → 0.0.
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let mut sum = 0.0;
    for &x in xs {
        sum += x;
    }
    sum / xs.len() as f64
}

/// Linear-interpolation percentile of an ascending slice, `p` in percent (0–100);
/// empty → 0.0.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = p / 100.0 * (sorted.len() - 1) as f64;
    let lo = rank.floor();
    let hi = rank.ceil();
    let frac = rank - lo;
    let (lo, hi) = (lo as usize, hi as usize);
    let last = sorted.len() - 1;
    let (a, b) = (sorted[lo.min(last)], sorted[hi.min(last)]);
    if a == b {
        // Interpolating between equal values can miss them by an ulp and put the 2.5th
        // percentile above the 97.5th; equal neighbours give their value exactly.
        return a;
    }
    a * (1.0 - frac) + b * frac
}

/// The statistic a bootstrap evaluates on each paired resample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statistic {
    /// `median(candidate) − median(baseline)`.
    MedianDifference,
    /// `mean(candidate) − mean(baseline)`.
    MeanDifference,
}

impl Statistic {
    /// Evaluates the statistic on one (baseline, candidate) sample.
    pub fn eval(self, b: &[f64], c: &[f64]) -> f64 {
        self.eval_in_place(&mut b.to_vec(), &mut c.to_vec())
    }

    /// [`Statistic::eval`] on buffers it may reorder.
    fn eval_in_place(self, b: &mut [f64], c: &mut [f64]) -> f64 {
        match self {
            Statistic::MedianDifference => median_in_place(c) - median_in_place(b),
            Statistic::MeanDifference => mean(c) - mean(b),
        }
    }
}

/// A bootstrap confidence interval: the 2.5th, 50th and 97.5th percentiles of the resampled
/// statistic (same unit as the statistic).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Lower 95% bound.
    pub low: f64,
    /// Bootstrap median (reported by no axis; kept for completeness).
    pub median: f64,
    /// Upper 95% bound.
    pub high: f64,
}

/// Paired bootstrap over `b` and `c` (equal lengths; the longer is truncated if they differ):
/// 1000 rounds each drawing `n` indices with a generator seeded with `seed`; the same index
/// selects from both sides. Empty input → all zeros.
pub fn paired_ci(b: &[f64], c: &[f64], statistic: Statistic, seed: u64) -> Interval {
    let n = b.len().min(c.len());
    if n == 0 {
        return Interval {
            low: 0.0,
            median: 0.0,
            high: 0.0,
        };
    }
    let draw_n = u32::try_from(n).unwrap_or(u32::MAX);
    let mut rng = ChaCha12::seed_from_u64(seed);
    let mut values = Vec::with_capacity(BOOTSTRAP_ITERATIONS);
    let mut rb = vec![0.0; n];
    let mut rc = vec![0.0; n];
    for _ in 0..BOOTSTRAP_ITERATIONS {
        for k in 0..n {
            let i = rng.index_below(draw_n) as usize;
            rb[k] = b[i];
            rc[k] = c[i];
        }
        values.push(statistic.eval_in_place(&mut rb, &mut rc));
    }
    values.sort_by(f64::total_cmp);
    Interval {
        low: percentile(&values, 2.5),
        median: percentile(&values, 50.0),
        high: percentile(&values, 97.5),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_rules() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn percentile_ranks() {
        let s: Vec<f64> = (0..1000).map(f64::from).collect();
        assert!((percentile(&s, 2.5) - 24.975).abs() < 1e-9);
        assert!((percentile(&s, 50.0) - 499.5).abs() < 1e-9);
        assert!((percentile(&s, 97.5) - 974.025).abs() < 1e-9);
    }

    #[test]
    fn bootstrap_of_constant_difference_is_a_point() {
        let ci = paired_ci(
            &[1.0, 2.0, 3.0],
            &[2.0, 3.0, 4.0],
            Statistic::MeanDifference,
            42,
        );
        // Interpolating between equal values can miss them by an ulp (as in Shadow).
        assert!((ci.low - 1.0).abs() < 1e-12 && (ci.high - 1.0).abs() < 1e-12);
        let empty = paired_ci(&[], &[], Statistic::MedianDifference, 42);
        assert_eq!((empty.low, empty.high), (0.0, 0.0));
    }
}
