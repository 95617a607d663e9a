//! The random draws of the perturbation operators, on veer's seeded ChaCha12 stream
//! (spec `experiment.md` §13.6, `diff.md` §3.2).
//!
//! The operators are specified with Python's `random` calls (`random()`, `randint`, `choice`,
//! `sample`, `shuffle`). veer keeps their meaning — same ranges, same number of draws where a
//! rule counts on it — on its own stream, so outputs are a pure function of (content, operator,
//! seed) but are not byte-identical with traxr's Mersenne Twister.

use veer_base::rng::ChaCha12;

/// A seeded source of the draws the operators make.
#[derive(Debug, Clone)]
pub(crate) struct PerturbRng {
    stream: ChaCha12,
}

impl PerturbRng {
    /// The stream for a per-spec seed (see [`crate::derive_seed`]).
    pub fn new(seed: u32) -> PerturbRng {
        PerturbRng {
            stream: ChaCha12::seed_from_u64(u64::from(seed)),
        }
    }

    /// A uniform float in `[0, 1)` with 53 random bits (two words: 27 high bits of the first,
    /// 26 of the second, as CPython builds `random()` from its 32-bit outputs).
    pub fn random(&mut self) -> f64 {
        let a = u64::from(self.stream.next_u32() >> 5);
        let b = u64::from(self.stream.next_u32() >> 6);
        ((a << 26) + b) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// A uniform index in `0..n`; `n` must be at least 1 (`0` is read as 1).
    pub fn below(&mut self, n: usize) -> usize {
        let n = u32::try_from(n.max(1)).unwrap_or(u32::MAX);
        self.stream.index_below(n) as usize
    }

    /// A uniform integer in `lo..=hi` (`lo ≤ hi`), like Python's `randint`.
    pub(crate) fn randint(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo).max(0) as usize + 1;
        lo + self.below(span) as i64
    }

    /// One element of a non-empty slice, uniformly, like Python's `choice`.
    pub fn choice<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// `k` distinct positions of `0..n` in draw order (`k ≤ n`), like Python's `sample` on a
    /// range: a partial Fisher–Yates shuffle from the front.
    pub fn sample(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut pool: Vec<usize> = (0..n).collect();
        let k = k.min(n);
        for i in 0..k {
            let j = i + self.below(n - i);
            pool.swap(i, j);
        }
        pool.truncate(k);
        pool
    }

    /// Shuffles `items` in place, like Python's `shuffle`: Fisher–Yates from the back.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn same_seed_same_draws_and_seeds_differ() {
        let draws = |seed| {
            let mut r = PerturbRng::new(seed);
            (0..8).map(|_| r.randint(0, 1000)).collect::<Vec<_>>()
        };
        assert_eq!(draws(7), draws(7));
        assert_ne!(draws(7), draws(8));
    }

    #[test]
    fn random_is_the_53_bit_fraction_of_two_words() {
        let mut words = ChaCha12::seed_from_u64(3);
        let (a, b) = (words.next_u32() >> 5, words.next_u32() >> 6);
        let expected = (f64::from(a) * 67_108_864.0 + f64::from(b)) / 9_007_199_254_740_992.0;
        assert_eq!(PerturbRng::new(3).random(), expected);
    }

    proptest! {
        #[test]
        fn draws_stay_in_range(seed in any::<u32>(), lo in -50i64..50, span in 0i64..100, n in 1usize..40, k in 0usize..40) {
            let mut r = PerturbRng::new(seed);
            let x = r.random();
            prop_assert!((0.0..1.0).contains(&x));
            let v = r.randint(lo, lo + span);
            prop_assert!(v >= lo && v <= lo + span);
            prop_assert!(r.below(n) < n);
            let s = r.sample(n, k);
            prop_assert_eq!(s.len(), k.min(n));
            let mut sorted = s.clone();
            sorted.sort_unstable();
            sorted.dedup();
            prop_assert_eq!(sorted.len(), s.len());
            prop_assert!(s.iter().all(|&i| i < n));
            let mut items: Vec<usize> = (0..n).collect();
            r.shuffle(&mut items);
            items.sort_unstable();
            prop_assert_eq!(items, (0..n).collect::<Vec<_>>());
        }
    }
}
