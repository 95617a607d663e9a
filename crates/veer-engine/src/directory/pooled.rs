//! Directory mode's pooled fingerprint test (docs/corpus.md): every response of every pair,
//! baseline against candidate, in one Hotelling T² test. The test passes over each sample twice
//! (means, then centred products), so a large corpus is not held: while the pooled responses are
//! few their rows are kept as they come (the exact permutation p-value needs them); past
//! [`HELD_ROWS`] only the first pass's sums are kept, and the second pass reads the pairs again
//! at the end and recomputes their rows — the same rows in the same order, so the same doubles,
//! with memory that does not grow with the number of pairs.

use super::Progress;
use crate::error::Error;
use rayon::prelude::*;
use std::path::PathBuf;
use veer_contract::fingerprint::FingerprintBlock;
use veer_diff::fingerprint::DIM;
use veer_diff::hotelling::moments::RowSums;
use veer_diff::{fingerprint_block, fingerprint_block_of_moments, FingerprintOptions};

/// Rows a side may hold before the pool keeps only sums: 4,096 rows (384 KiB). Past it the
/// labellings number more than `C(4098, 2)`, far over the exact permutation's limit, so the
/// test on moments is the test on the held rows (`hotelling_t2_of_moments`).
pub(crate) const HELD_ROWS: usize = 4096;

/// The fingerprint rows of one pair: (baseline rows, candidate rows).
pub type PairRows = (Vec<[f64; DIM]>, Vec<[f64; DIM]>);

/// The pooled rows of both sides, pair by pair in path order.
#[derive(Debug)]
pub enum Pool {
    /// Every pair's rows as they came.
    Held {
        /// Baseline rows per pair.
        baseline: Vec<Vec<[f64; DIM]>>,
        /// Candidate rows per pair.
        candidate: Vec<Vec<[f64; DIM]>>,
        /// Rows held on each side (baseline, candidate).
        held: (usize, usize),
    },
    /// Only the first pass: each side's count and sums.
    Summed {
        /// Baseline sums.
        baseline: RowSums,
        /// Candidate sums.
        candidate: RowSums,
    },
}

impl Default for Pool {
    fn default() -> Self {
        Pool::Held {
            baseline: Vec::new(),
            candidate: Vec::new(),
            held: (0, 0),
        }
    }
}

/// Adds every row of `pairs` (in order) to the sums.
fn add_all(sums: &mut RowSums, pairs: &[Vec<[f64; DIM]>]) {
    pairs.iter().flatten().for_each(|r| sums.add(r));
}

impl Pool {
    /// Adds the next pair's rows (pairs in path order).
    pub fn push(&mut self, (mut b, mut c): PairRows) {
        match self {
            Pool::Held {
                baseline,
                candidate,
                held,
            } => {
                *held = (held.0 + b.len(), held.1 + c.len());
                if held.0.max(held.1) <= HELD_ROWS {
                    b.shrink_to_fit();
                    c.shrink_to_fit();
                    baseline.push(b);
                    candidate.push(c);
                    return;
                }
                let (mut sb, mut sc) = (RowSums::new(DIM), RowSums::new(DIM));
                add_all(&mut sb, baseline);
                add_all(&mut sc, candidate);
                b.iter().for_each(|r| sb.add(r));
                c.iter().for_each(|r| sc.add(r));
                *self = Pool::Summed {
                    baseline: sb,
                    candidate: sc,
                };
            }
            Pool::Summed {
                baseline,
                candidate,
            } => {
                b.iter().for_each(|r| baseline.add(r));
                c.iter().for_each(|r| candidate.add(r));
            }
        }
    }

    /// The pooled test; for summed rows, `again` recomputes each pair's rows (the second
    /// pass), run in parallel a window of `window` pairs at a time and taken in path order.
    /// An error when a pair cannot be read again or its rows are not those of the first pass
    /// (a file changed while the directory was diffed).
    pub fn test(
        self,
        pairs: &[(String, PathBuf, PathBuf)],
        window: usize,
        again: impl Fn(&PathBuf, &PathBuf) -> Result<PairRows, Error> + Sync,
        options: &FingerprintOptions,
        progress: &dyn Progress,
    ) -> Result<Option<FingerprintBlock>, Error> {
        self.test_with(
            |take| {
                progress.begin(pairs.len() as u64, "pooling fingerprints");
                for chunk in pairs.chunks(window.max(1)) {
                    let rows: Vec<Result<PairRows, Error>> = chunk
                        .par_iter()
                        .map(|(_, bp, cp)| {
                            let r = again(bp, cp);
                            progress.tick();
                            r
                        })
                        .collect();
                    for r in rows {
                        take(r?);
                    }
                }
                progress.finish();
                Ok(())
            },
            options,
        )
    }

    /// Whether [`Pool::test_with`] will ask for the second pass (the pool holds only sums).
    pub fn needs_second_pass(&self) -> bool {
        matches!(self, Pool::Summed { .. })
    }

    /// The pooled test, for a front end that reads the pairs itself (the Python package's
    /// Spark job): `second_pass` is called only for summed rows and must hand every pair's
    /// rows to its argument again, in the order they were pushed. The same doubles as
    /// [`Pool::test`]; an error when the rows handed again are not those of the first pass.
    pub fn test_with(
        self,
        second_pass: impl FnOnce(&mut dyn FnMut(PairRows)) -> Result<(), Error>,
        options: &FingerprintOptions,
    ) -> Result<Option<FingerprintBlock>, Error> {
        let (sb, sc) = match self {
            Pool::Held {
                baseline,
                candidate,
                ..
            } => {
                return Ok(fingerprint_block(
                    &flat(&baseline),
                    &flat(&candidate),
                    options,
                ));
            }
            Pool::Summed {
                baseline,
                candidate,
            } => (baseline, candidate),
        };
        let (mut xb, mut xc) = (sb.second_pass(), sc.second_pass());
        // The first pass again beside the second: equal sums show the rows were the same.
        let (mut check_b, mut check_c) = (RowSums::new(DIM), RowSums::new(DIM));
        second_pass(&mut |(b, c): PairRows| {
            for row in &b {
                xb.add(row);
                check_b.add(row);
            }
            for row in &c {
                xc.add(row);
                check_c.add(row);
            }
        })?;
        if check_b != sb || check_c != sc {
            return Err(Error::input(
                "a trace changed while the directory was diffed: its responses differ between the diff and the pooled fingerprint test",
            )
            .hint("run the diff again on traces that are not being written to"));
        }
        Ok(fingerprint_block_of_moments(
            xb.finish(),
            xc.finish(),
            options,
        ))
    }
}

/// Every row of every pair, borrowed, in pair order.
fn flat(pairs: &[Vec<[f64; DIM]>]) -> Vec<&[f64; DIM]> {
    pairs.iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fingerprint-like rows from a small deterministic generator.
    fn pair_rows(seed: u64, nb: usize, nc: usize) -> PairRows {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 4 {
                0 => 0.0,
                1 => 1.0,
                _ => (x % 1000) as f64 / 1000.0,
            }
        };
        let mut side = |n: usize| -> Vec<[f64; DIM]> {
            (0..n).map(|_| std::array::from_fn(|_| next())).collect()
        };
        (side(nb), side(nc))
    }

    /// 300 pairs of 20 + 19 rows (past HELD_ROWS after about 200 pairs), their names (the
    /// pair's index as its baseline path) and the pool they fill.
    fn large_pool() -> (Vec<PairRows>, Vec<(String, PathBuf, PathBuf)>, Pool) {
        let pairs: Vec<PairRows> = (0..300).map(|k| pair_rows(k, 20, 19)).collect();
        let names = (0..300)
            .map(|k| (k.to_string(), PathBuf::from(k.to_string()), PathBuf::new()))
            .collect();
        let mut pool = Pool::default();
        pairs.iter().cloned().for_each(|p| pool.push(p));
        (pairs, names, pool)
    }

    /// The pair index a baseline path names.
    fn index(bp: &std::path::Path) -> usize {
        bp.to_string_lossy().parse().unwrap_or(0)
    }

    /// The test on every row held.
    fn held_test(pairs: &[PairRows], options: &FingerprintOptions) -> Option<FingerprintBlock> {
        let b: Vec<&[f64; DIM]> = pairs.iter().flat_map(|p| &p.0).collect();
        let c: Vec<&[f64; DIM]> = pairs.iter().flat_map(|p| &p.1).collect();
        fingerprint_block(&b, &c, options)
    }

    #[test]
    fn summed_pool_gives_the_held_rows_test() {
        let (pairs, names, pool) = large_pool();
        assert!(matches!(pool, Pool::Summed { .. }));
        let again = |bp: &PathBuf, _: &PathBuf| Ok(pairs[index(bp)].clone());
        let options = FingerprintOptions::default();
        let streamed = pool
            .test(&names, 7, again, &options, &super::super::Quiet)
            .unwrap();
        assert!(streamed.is_some());
        assert_eq!(streamed, held_test(&pairs, &options));
    }

    #[test]
    fn test_with_gives_the_same_doubles_as_test_and_checks_the_rows() {
        let (pairs, names, pool) = large_pool();
        assert!(pool.needs_second_pass());
        let options = FingerprintOptions::default();
        let fed = pool
            .test_with(
                |take| {
                    pairs.iter().cloned().for_each(take);
                    Ok(())
                },
                &options,
            )
            .unwrap();
        assert_eq!(fed, held_test(&pairs, &options));
        let (_, _, pool) = large_pool();
        let again = |bp: &PathBuf, _: &PathBuf| Ok(pairs[index(bp)].clone());
        assert_eq!(
            pool.test(&names, 5, again, &options, &super::super::Quiet)
                .unwrap(),
            fed
        );
        // A second pass that skips a pair is not the first pass.
        let (_, _, pool) = large_pool();
        let e = pool
            .test_with(
                |take| {
                    pairs.iter().skip(1).cloned().for_each(take);
                    Ok(())
                },
                &options,
            )
            .unwrap_err();
        assert!(e.message.contains("changed"), "{}", e.message);
    }

    #[test]
    fn a_small_pool_is_held_and_tested_as_before() {
        let pairs: Vec<PairRows> = (0..3).map(|k| pair_rows(k, 4, 3)).collect();
        let mut pool = Pool::default();
        pairs.iter().cloned().for_each(|p| pool.push(p));
        assert!(matches!(pool, Pool::Held { .. }));
        assert!(!pool.needs_second_pass());
        let never = |_: &PathBuf, _: &PathBuf| Err(Error::input("not read again"));
        let options = FingerprintOptions::default();
        assert_eq!(
            pool.test(&[], 7, never, &options, &super::super::Quiet)
                .unwrap(),
            held_test(&pairs, &options)
        );
    }

    #[test]
    fn rows_that_changed_between_the_passes_are_an_error() {
        let (_, names, pool) = large_pool();
        let changed = |bp: &PathBuf, _: &PathBuf| {
            let k = index(bp);
            Ok(pair_rows(k as u64 + u64::from(k == 150), 20, 19))
        };
        let e = pool
            .test(
                &names,
                16,
                changed,
                &FingerprintOptions::default(),
                &super::super::Quiet,
            )
            .unwrap_err();
        assert!(e.message.contains("changed"), "{}", e.message);
    }
}
