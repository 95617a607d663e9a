//! How the bootstrap evaluates each sample's statistic on one resample, fast and bit-identical
//! to copying the resample and evaluating [`Statistic::eval`] on it.
//!
//! A round's `n` drawn indices are first turned into multiplicities (`m[i]` = how often `i`
//! was drawn), once for every sample of that length. Each side's values are coded by rank
//! among its distinct values (in `f64::total_cmp` order) in the narrowest integer type, so a
//! side's per-value counts are one sequential pass `counts[code[i]] += m[i]` instead of `n`
//! random reads. A median is read off the counts (it picks the same elements as selection); a
//! mean of integers whose sums stay below 2^53 is the exact integer sum of `count × value`
//! (every partial sum of the draw-order `f64` sum is then exact too, so the doubles agree);
//! any other mean is summed in draw order, as [`crate::stats::mean`] does. A sample whose two
//! sides are the same (finite, far from overflow) values gives `x − x = +0` in every round and is not resampled.

use crate::stats::{Sample, Statistic};

/// Largest integer magnitude times `n` for which integer sums reproduce `f64` sums (2^53).
const EXACT: f64 = 9_007_199_254_740_992.0;

/// One side's codes, in the narrowest type that holds its number of distinct values.
pub(crate) enum Codes {
    /// One distinct value: nothing to count.
    Constant,
    /// Two distinct values: code 0 or 1, counted as a sum.
    Two(Vec<u8>),
    /// Up to 256 distinct values.
    U8(Vec<u8>),
    /// Up to 65,536 distinct values.
    U16(Vec<u16>),
    /// More.
    U32(Vec<u32>),
}

/// One side's values coded by rank among its distinct values.
pub(crate) struct Coded {
    codes: Codes,
    distinct: Vec<f64>,
    /// The distinct values as integers, when the side is a mean whose sums are exact.
    integers: Option<Vec<i64>>,
}

impl Coded {
    fn new(xs: &[f64], mean: bool) -> Coded {
        let mut distinct = xs.to_vec();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup_by(|a, b| a.to_bits() == b.to_bits());
        let code = |x: &f64| distinct.partition_point(|d| d.total_cmp(x).is_lt());
        let codes = match distinct.len() {
            0 | 1 => Codes::Constant,
            2 => Codes::Two(xs.iter().map(|x| code(x) as u8).collect()),
            d if d <= 1 << 8 => Codes::U8(xs.iter().map(|x| code(x) as u8).collect()),
            d if d <= 1 << 16 => Codes::U16(xs.iter().map(|x| code(x) as u16).collect()),
            _ => Codes::U32(xs.iter().map(|x| code(x) as u32).collect()),
        };
        let n = xs.len() as f64;
        let integers = (mean
            && distinct
                .iter()
                .all(|v| v.fract() == 0.0 && v.abs() * n <= EXACT))
        .then(|| distinct.iter().map(|&v| v as i64).collect());
        Coded {
            codes,
            distinct,
            integers,
        }
    }

    /// Per-code counts of the resample with multiplicities `m` (`n` draws in all) into `counts`.
    fn count(&self, m: &[u32], n: usize, counts: &mut Vec<u32>) {
        counts.clear();
        counts.resize(self.distinct.len().max(1), 0);
        match &self.codes {
            Codes::Constant => counts[0] = n as u32,
            Codes::Two(codes) => {
                let mut ones = 0u32;
                for (&k, &c) in m.iter().zip(codes) {
                    ones = ones.wrapping_add(k * u32::from(c));
                }
                counts[0] = (n as u32).wrapping_sub(ones);
                counts[1] = ones;
            }
            Codes::U8(codes) => tally(m, codes, counts),
            Codes::U16(codes) => tally(m, codes, counts),
            Codes::U32(codes) => tally(m, codes, counts),
        }
    }

    /// The median of the resample whose per-code counts are `counts` (`n` draws in all): the
    /// same elements `median_in_place` selects, combined the same way.
    fn median(&self, counts: &[u32], n: usize) -> f64 {
        let kth = |k: usize| {
            let mut seen = 0usize;
            for (code, &c) in counts.iter().enumerate() {
                seen += c as usize;
                if seen > k {
                    return self.distinct[code];
                }
            }
            self.distinct[self.distinct.len() - 1]
        };
        let upper = kth(n / 2);
        if n % 2 == 1 {
            return upper;
        }
        let lower = kth(n / 2 - 1);
        (lower + upper) / 2.0
    }

    /// The exact sum of the resample (integer sides only).
    fn integer_sum(integers: &[i64], counts: &[u32]) -> f64 {
        let mut sum = 0i64;
        for (&v, &c) in integers.iter().zip(counts) {
            sum += v * i64::from(c);
        }
        sum as f64
    }
}

/// `counts[codes[i]] += m[i]` over every `i`.
fn tally<C: Copy + Into<u32>>(m: &[u32], codes: &[C], counts: &mut [u32]) {
    for (&k, &c) in m.iter().zip(codes) {
        let slot = c.into() as usize;
        if let Some(x) = counts.get_mut(slot) {
            *x += k;
        }
    }
}

/// How one side of a sample is evaluated.
pub(crate) enum Side<'a> {
    /// Counted from codes.
    Coded(Coded),
    /// A mean of non-integers, summed in draw order.
    Ordered(&'a [f64]),
}

impl Side<'_> {
    fn value(&self, statistic: Statistic, idx: &[u32], m: &[u32], counts: &mut Vec<u32>) -> f64 {
        let n = idx.len();
        match self {
            Side::Ordered(xs) => {
                let mut sum = 0.0;
                for &i in idx {
                    sum += xs[i as usize];
                }
                sum / n as f64
            }
            Side::Coded(coded) => {
                if statistic == Statistic::MedianDifference && coded.distinct.len() == 1 {
                    // The median of a constant side, combined as selection combines it: for an
                    // even count the mean of two copies (infinite for |x| > f64::MAX / 2).
                    let x = coded.distinct[0];
                    return if n % 2 == 1 { x } else { (x + x) / 2.0 };
                }
                coded.count(m, n, counts);
                match (&coded.integers, statistic) {
                    (Some(ints), Statistic::MeanDifference) => {
                        Coded::integer_sum(ints, counts) / n as f64
                    }
                    _ => coded.median(counts, n),
                }
            }
        }
    }
}

/// How one sample's statistic is evaluated on a resample.
pub(crate) enum Plan<'a> {
    /// Both sides hold the same finite values: every round gives `+0`.
    Zero,
    /// `candidate − baseline`, each side evaluated on its own.
    Sides {
        statistic: Statistic,
        b: Side<'a>,
        c: Side<'a>,
    },
}

/// Per-thread buffers: the round's multiplicities and one side's counts.
#[derive(Default)]
pub(crate) struct Scratch {
    m: Vec<u32>,
    counts: Vec<u32>,
}

impl<'a> Plan<'a> {
    /// The plan of `s` truncated to its first `n` pairs.
    pub(crate) fn new(s: &Sample<'a>, n: usize) -> Plan<'a> {
        let (b, c) = (&s.b[..n], &s.c[..n]);
        // Far enough from overflow that no median or sum of the side reaches infinity.
        let bound = 1e300 / n.max(1) as f64;
        if b.iter()
            .zip(c)
            .all(|(x, y)| x.to_bits() == y.to_bits() && x.abs() < bound)
        {
            return Plan::Zero;
        }
        let mean = s.statistic == Statistic::MeanDifference;
        let side = |xs: &'a [f64]| {
            let coded = Coded::new(xs, mean);
            if mean && coded.integers.is_none() {
                Side::Ordered(xs)
            } else {
                Side::Coded(coded)
            }
        };
        Plan::Sides {
            statistic: s.statistic,
            b: side(b),
            c: side(c),
        }
    }

    /// Whether evaluating the plan reads the round's multiplicities.
    fn counts(&self) -> bool {
        match self {
            Plan::Zero => false,
            Plan::Sides { b, c, .. } => [b, c]
                .iter()
                .any(|s| matches!(s, Side::Coded(k) if !matches!(k.codes, Codes::Constant))),
        }
    }
}

/// Every plan's statistic on the resample `idx` (indices below `n`), in plan order.
pub(crate) fn evaluate(plans: &[Plan<'_>], idx: &[u32], scratch: &mut Scratch) -> Vec<f64> {
    let n = idx.len();
    scratch.m.clear();
    if plans.iter().any(Plan::counts) {
        scratch.m.resize(n, 0);
        for &i in idx {
            if let Some(k) = scratch.m.get_mut(i as usize) {
                *k += 1;
            }
        }
    }
    plans
        .iter()
        .map(|p| match p {
            Plan::Zero => 0.0,
            Plan::Sides { statistic, b, c } => {
                let vc = c.value(*statistic, idx, &scratch.m, &mut scratch.counts);
                let vb = b.value(*statistic, idx, &scratch.m, &mut scratch.counts);
                vc - vb
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The slow definition of one round: copy the resample, evaluate the statistic on it.
    fn slow(s: &Sample<'_>, idx: &[u32]) -> f64 {
        let b: Vec<f64> = idx.iter().map(|&i| s.b[i as usize]).collect();
        let c: Vec<f64> = idx.iter().map(|&i| s.c[i as usize]).collect();
        s.statistic.eval(&b, &c)
    }

    fn check(b: &[f64], c: &[f64], rounds: &[Vec<u32>]) -> Result<(), TestCaseError> {
        let n = b.len().min(c.len());
        let samples = [
            Sample {
                b,
                c,
                statistic: Statistic::MedianDifference,
            },
            Sample {
                b,
                c,
                statistic: Statistic::MeanDifference,
            },
        ];
        let plans: Vec<Plan<'_>> = samples.iter().map(|s| Plan::new(s, n)).collect();
        let mut scratch = Scratch::default();
        for idx in rounds {
            let idx: Vec<u32> = idx.iter().map(|&i| i % n as u32).collect();
            let fast = evaluate(&plans, &idx, &mut scratch);
            for (s, f) in samples.iter().zip(&fast) {
                prop_assert_eq!(
                    f.to_bits(),
                    slow(s, &idx).to_bits(),
                    "{:?} {} vs {}",
                    s.statistic,
                    f,
                    slow(s, &idx)
                );
            }
        }
        Ok(())
    }

    /// Values of one kind per side: 0/1, small integers, reals, values near overflow and
    /// specials (signed zeros, NaN, infinities), or a mix.
    fn side(len: usize) -> BoxedStrategy<Vec<f64>> {
        let special = prop_oneof![
            Just(-0.0),
            Just(0.0),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(1e308),
            Just(-1e308),
            Just(0.5),
            Just(9.0e15),
        ];
        let two = prop_oneof![Just(0.0), Just(1.0)];
        let ints = (-4i32..5).prop_map(f64::from);
        let reals = -1e3f64..1e3;
        prop_oneof![
            proptest::collection::vec(two, len),
            proptest::collection::vec(ints, len),
            proptest::collection::vec(reals, len),
            proptest::collection::vec(special.clone(), len),
            proptest::collection::vec(prop_oneof![special, (-4i32..5).prop_map(f64::from)], len),
        ]
        .boxed()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every fast path (codes of each width, counted sums, draw-order sums, identical
        /// sides) gives the statistic of the copied resample, bit for bit.
        #[test]
        fn rounds_equal_the_copied_resample(
            (b, c, same, rounds) in (1usize..70).prop_flat_map(|n| (
                side(n),
                side(n),
                any::<bool>(),
                proptest::collection::vec(proptest::collection::vec(any::<u32>(), n), 1..4),
            )),
        ) {
            let c = if same { b.clone() } else { c };
            check(&b, &c, &rounds)?;
        }
    }

    /// A constant side near overflow: an even count's median is the mean of two copies, as
    /// selection computes it (infinite here), not the value itself.
    #[test]
    fn constant_side_median_combines_like_selection() {
        let rounds = vec![vec![0, 1, 2, 3], vec![3, 3, 1, 0]];
        check(&[1e308; 4], &[0.5, 1.0, 2.0, 2.0], &rounds).unwrap();
        check(&[0.5, 1.0, 2.0, 2.0], &[-1e308; 4], &rounds).unwrap();
        check(&[1e308; 3], &[0.5, 1.0, 2.0], &[vec![0, 1, 2]]).unwrap();
    }

    /// Sides with hundreds and with 70,000 distinct values (16- and 32-bit codes), and
    /// integers too large for exact sums.
    #[test]
    fn wide_sides_equal_the_copied_resample() {
        let mut rng = veer_base::rng::ChaCha12::seed_from_u64(3);
        for n in [301usize, 70_001] {
            let b: Vec<f64> = (0..n).map(|i| (i % 997) as f64 * 0.25).collect();
            let c: Vec<f64> = (0..n).map(|i| i as f64 * 1e11 - 3.0).collect();
            let rounds: Vec<Vec<u32>> = (0..3)
                .map(|_| (0..n).map(|_| rng.index_below(n as u32)).collect())
                .collect();
            check(&b, &c, &rounds).unwrap();
            check(&c, &b, &rounds).unwrap();
        }
    }
}
