//! Descriptive statistics and the seeded paired bootstrap (spec `diff.md` §3).
//!
//! Every function is deterministic: sums run left to right, sorting uses a total order on
//! `f64`, and each bootstrap owns a generator freshly seeded with the caller's seed.

use crate::bootstrap_plan::{evaluate, Plan, Scratch};
use veer_base::rng::ChaCha12;

/// Number of bootstrap resamples behind every confidence interval.
pub(crate) const BOOTSTRAP_ITERATIONS: usize = 1000;

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
pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
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
pub(crate) struct Interval {
    /// Lower 95% bound.
    pub low: f64,
    /// Bootstrap median (reported by no axis; kept for completeness).
    pub median: f64,
    /// Upper 95% bound.
    pub high: f64,
}

#[cfg(test)]
/// Paired bootstrap over `b` and `c` (equal lengths; the longer is truncated if they differ):
/// 1000 rounds each drawing `n` indices with a generator seeded with `seed`; the same index
/// selects from both sides. Empty input → all zeros.
pub(crate) fn paired_ci(b: &[f64], c: &[f64], statistic: Statistic, seed: u64) -> Interval {
    paired_cis(&[Sample { b, c, statistic }], seed)[0]
}

/// One paired sample for `paired_cis`.
#[derive(Debug, Clone, Copy)]
pub struct Sample<'a> {
    /// Baseline values.
    pub b: &'a [f64],
    /// Candidate values (paired by position with `b`).
    pub c: &'a [f64],
    /// What each resample computes.
    pub statistic: Statistic,
}

/// [`paired_ci`] of several samples at once, each bit-identical to its own `paired_ci`.
///
/// Every `paired_ci` with the same seed and length draws the same index stream, so samples of
/// one length share it: each round's `n` indices are drawn once and every sample reads them.
/// Rounds are then independent and run in parallel, in batches whose indices are drawn while
/// the previous batch is evaluated; each round's values land in their own slot, so the result
/// does not depend on the thread count. How a round's statistic is evaluated without copying
/// the resample, bit-identically, is in [`crate::bootstrap_plan`].
pub(crate) fn paired_cis(samples: &[Sample<'_>], seed: u64) -> Vec<Interval> {
    paired_cis_batched(samples, seed, BATCH_INDICES)
}

/// [`paired_cis`] drawing at most `batch_indices` indices ahead (tests use tiny batches).
fn paired_cis_batched(samples: &[Sample<'_>], seed: u64, batch_indices: usize) -> Vec<Interval> {
    let mut out = vec![
        Interval {
            low: 0.0,
            median: 0.0,
            high: 0.0,
        };
        samples.len()
    ];
    let mut lengths: Vec<usize> = samples.iter().map(|s| s.b.len().min(s.c.len())).collect();
    let per_sample = lengths.clone();
    lengths.sort_unstable();
    lengths.dedup();
    for n in lengths.into_iter().filter(|&n| n > 0) {
        let group: Vec<usize> = (0..samples.len()).filter(|&k| per_sample[k] == n).collect();
        let plans: Vec<Plan<'_>> = group.iter().map(|&k| Plan::new(&samples[k], n)).collect();
        let mut values = resample(&plans, n, seed, batch_indices);
        for (slot, v) in group.iter().zip(values.iter_mut()) {
            v.sort_by(f64::total_cmp);
            out[*slot] = Interval {
                low: percentile(v, 2.5),
                median: percentile(v, 50.0),
                high: percentile(v, 97.5),
            };
        }
    }
    out
}

/// Most indices of a bootstrap evaluated on one thread without scheduling (samples of up to
/// 64 values).
const SMALL_INDICES: usize = 64 * BOOTSTRAP_ITERATIONS;

/// Most indices drawn ahead at once (16 MiB of `u32`).
const BATCH_INDICES: usize = 4 << 20;

/// The bootstrap rounds of samples of length `n`: `values[sample][round]`.
fn resample(plans: &[Plan<'_>], n: usize, seed: u64, batch_indices: usize) -> Vec<Vec<f64>> {
    use rayon::prelude::*;
    let draw_n = u32::try_from(n).unwrap_or(u32::MAX);
    let mut rng = ChaCha12::seed_from_u64(seed);
    let batch = (batch_indices / n).clamp(1, BOOTSTRAP_ITERATIONS);
    let draw = |rng: &mut ChaCha12, rounds: usize, buf: &mut Vec<u32>| {
        buf.clear();
        rng.indices_below(draw_n, rounds * n, buf);
    };
    let mut values: Vec<Vec<f64>> = vec![Vec::with_capacity(BOOTSTRAP_ITERATIONS); plans.len()];
    if n * BOOTSTRAP_ITERATIONS <= SMALL_INDICES {
        // A short sample (a directory diff's pairs): all rounds on this thread, where
        // scheduling would cost more than the rounds themselves.
        let mut idx = Vec::with_capacity(n * BOOTSTRAP_ITERATIONS);
        draw(&mut rng, BOOTSTRAP_ITERATIONS, &mut idx);
        let mut scratch = Scratch::default();
        for round in idx.chunks(n) {
            for (v, x) in values.iter_mut().zip(evaluate(plans, round, &mut scratch)) {
                v.push(x);
            }
        }
        return values;
    }
    let mut current = Vec::new();
    let mut ahead = Vec::new();
    draw(&mut rng, batch.min(BOOTSTRAP_ITERATIONS), &mut current);
    let mut done = 0;
    while done < BOOTSTRAP_ITERATIONS {
        let rounds = current.len() / n;
        let next = batch.min(BOOTSTRAP_ITERATIONS - done - rounds);
        let (_, stats) = rayon::join(
            || draw(&mut rng, next, &mut ahead),
            || {
                current
                    .par_chunks(n)
                    .map_init(Scratch::default, |scratch, idx| {
                        evaluate(plans, idx, scratch)
                    })
                    .collect::<Vec<Vec<f64>>>()
            },
        );
        for round in stats {
            for (v, x) in values.iter_mut().zip(round) {
                v.push(x);
            }
        }
        done += rounds;
        std::mem::swap(&mut current, &mut ahead);
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bootstrap as first written: one generator per call, every resample copied and its
    /// statistic evaluated by selection. [`paired_cis`] must match it bit for bit.
    pub(crate) fn reference_ci(b: &[f64], c: &[f64], statistic: Statistic, seed: u64) -> Interval {
        let n = b.len().min(c.len());
        if n == 0 {
            return Interval {
                low: 0.0,
                median: 0.0,
                high: 0.0,
            };
        }
        let mut rng = ChaCha12::seed_from_u64(seed);
        let mut values = Vec::new();
        let (mut rb, mut rc) = (vec![0.0; n], vec![0.0; n]);
        for _ in 0..BOOTSTRAP_ITERATIONS {
            for k in 0..n {
                let i = rng.index_below(n as u32) as usize;
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// Any values (few distinct or all distinct, any length): the shared-stream bootstrap
        /// equals the one-call-per-sample reference bit for bit.
        #[test]
        fn paired_ci_equals_the_reference(
            b in proptest::collection::vec(-5i8..5, 0..60),
            c in proptest::collection::vec(-1000.0f64..1000.0, 0..60),
            seed in 0u64..1000,
        ) {
            let b: Vec<f64> = b.into_iter().map(f64::from).collect();
            for st in [Statistic::MedianDifference, Statistic::MeanDifference] {
                proptest::prop_assert_eq!(paired_ci(&b, &c, st, seed), reference_ci(&b, &c, st, seed));
            }
        }
    }

    #[test]
    fn shared_stream_equals_one_call_per_sample() {
        // Lengths that straddle a batch, repeated values, signed zeros, a constant side.
        let b: Vec<f64> = (0..1500)
            .map(|i| f64::from((i * 7919) % 13) - 6.0)
            .collect();
        let c: Vec<f64> = (0..1500)
            .map(|i| {
                if i % 5 == 0 {
                    -0.0
                } else {
                    f64::from((i * 104_729) % 1009) / 7.0
                }
            })
            .collect();
        let ones = vec![1.0; 1500];
        let short = &c[..37];
        let samples = [
            Sample {
                b: &b,
                c: &c,
                statistic: Statistic::MedianDifference,
            },
            Sample {
                b: &b,
                c: &c,
                statistic: Statistic::MeanDifference,
            },
            Sample {
                b: &ones,
                c: &c,
                statistic: Statistic::MedianDifference,
            },
            Sample {
                b: &b[..37],
                c: short,
                statistic: Statistic::MedianDifference,
            },
            Sample {
                b: &b[..36],
                c: &c[..36],
                statistic: Statistic::MedianDifference,
            },
            Sample {
                b: &[],
                c: &[],
                statistic: Statistic::MeanDifference,
            },
        ];
        for seed in [42, 7] {
            let expected: Vec<Interval> = samples
                .iter()
                .map(|s| reference_ci(s.b, s.c, s.statistic, seed))
                .collect();
            assert_eq!(paired_cis(&samples, seed), expected);
            // Batches of one round, of 7 rounds (1000 is not a multiple), of all rounds.
            for batch in [1, 7 * 1500, 1 << 30] {
                assert_eq!(
                    paired_cis_batched(&samples, seed, batch),
                    expected,
                    "batch {batch}"
                );
            }
        }
    }

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
