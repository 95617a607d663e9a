//! Which cells of the alignment table a banded round evaluates. The exact search
//! ([`super::gotoh`]) widens a band around the main diagonal that always holds the whole
//! length difference; when a fixed fallback band of that shape would be too large (two runs of
//! very different lengths), the band along the straight line from (0, 0) to (n, m) keeps the
//! work linear in the lengths.

/// The cells of an `n × m` table that a round evaluates, row by row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Band {
    /// `lo ≤ j − i ≤ hi`: a band around the main diagonal widened to hold the whole length
    /// difference (every round of the exact search).
    Diagonal {
        /// Lowest `j − i` in the band.
        lo: i64,
        /// Highest `j − i` in the band.
        hi: i64,
    },
    /// Within `w` columns of the main diagonal from (0, 0), then along the last column or row
    /// to (n, m): a common prefix, then the surplus turns as gaps.
    Prefix {
        /// Half-width, in columns.
        w: usize,
    },
    /// Along the first column or row, then within `w` columns of the diagonal ending at
    /// (n, m): the surplus turns as gaps, then a common suffix.
    Suffix {
        /// Half-width, in columns.
        w: usize,
    },
    /// Within `w` columns of the straight line from (0, 0) to (n, m): about `(2w + 1)·n + m`
    /// cells however different the lengths.
    Sloped {
        /// Half-width, in columns.
        w: usize,
    },
}

impl Band {
    /// The diagonal band of half-width `w` of an `n × m` table: every cell with
    /// `min(d, 0) − w ≤ j − i ≤ max(d, 0) + w`, `d = m − n`.
    pub(crate) fn diagonal(n: usize, m: usize, w: usize) -> Band {
        let d = m as i64 - n as i64;
        let w = w as i64;
        Band::Diagonal {
            lo: d.min(0) - w,
            hi: d.max(0) + w,
        }
    }

    /// The bands of half-width `w` whose size is linear in the lengths (at most
    /// `(2w + 2)·(n + 1) + m` cells each), in the order ties between their paths are broken.
    pub(crate) fn linear(w: usize) -> [Band; 3] {
        [Band::Prefix { w }, Band::Suffix { w }, Band::Sloped { w }]
    }

    /// Inclusive column range of row `i` (`0 ≤ i ≤ n`). Never empty, ascending in `i` at both
    /// ends, and each row reaches the next one's first column, so the band holds a path from
    /// (0, 0) to (n, m).
    pub(crate) fn cols(self, i: usize, n: usize, m: usize) -> (usize, usize) {
        match self {
            Band::Diagonal { lo, hi } => {
                let i = i as i64;
                let a = (i + lo).max(0);
                let z = (i + hi).min(m as i64);
                (a as usize, z.max(a) as usize)
            }
            Band::Prefix { w } => {
                let a = i.saturating_sub(w).min(m);
                let z = if i == n { m } else { (i + w).min(m) };
                (a, z)
            }
            Band::Suffix { w } => {
                let (i, d, w, m) = (i as i64, m as i64 - n as i64, w as i64, m as i64);
                let a = if i == 0 { 0 } else { (i + d - w).clamp(0, m) };
                let z = (i + d + w).clamp(0, m);
                (a as usize, z.max(a) as usize)
            }
            Band::Sloped { w } => sloped_cols(i, n, m, w),
        }
    }
}

/// Row `i`'s columns in the [`Band::Sloped`] band: from `⌊i·m/n⌋ − w` to `⌈i·m/n⌉ + w`,
/// widened where the line climbs more than `2w` columns a row so that the row reaches the next
/// row's first column. With `n == m` this is exactly the [`Band::Diagonal`] band of half-width
/// `w`.
fn sloped_cols(i: usize, n: usize, m: usize, w: usize) -> (usize, usize) {
    let (i, n, m) = (i as u128, n.max(1) as u128, m as u128);
    let floor = |k: u128| (k * m / n) as usize;
    let ceil = (i * m).div_ceil(n) as usize;
    let a = floor(i).saturating_sub(w);
    let z = (ceil + w)
        .max(floor(i + 1).saturating_sub(w + 1))
        .min(m as usize);
    (a, z.max(a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Every row is a non-empty range inside the table, both ends ascend, a pair step from
        /// each row's end reaches the next row, the band starts at (0, 0) and ends at (n, m),
        /// and it holds at most `(2w + 2)·(n + 1) + m` cells.
        #[test]
        fn linear_bands_hold_a_path_and_stay_linear(
            n in 1usize..300,
            m in 0usize..3000,
            w in 0usize..40,
            k in 0usize..3,
        ) {
            let band = Band::linear(w)[k];
            let mut cells = 0usize;
            let mut prev: Option<(usize, usize)> = None;
            for i in 0..=n {
                let (a, z) = band.cols(i, n, m);
                prop_assert!(a <= z && z <= m);
                if let Some((pa, pz)) = prev {
                    prop_assert!(pa <= a && pz <= z);
                    prop_assert!(a <= pz + 1, "row {} starts past the reach of row {}", i, i - 1);
                }
                cells += z + 1 - a;
                prev = Some((a, z));
            }
            prop_assert_eq!(band.cols(0, n, m).0, 0);
            prop_assert_eq!(band.cols(n, n, m).1, m);
            prop_assert!(cells <= (2 * w + 2) * (n + 1) + m);
        }

        /// For equal lengths every linear band is the diagonal one.
        #[test]
        fn linear_bands_equal_diagonal_for_equal_lengths(n in 1usize..500, w in 0usize..70) {
            for band in Band::linear(w) {
                for i in 0..=n {
                    prop_assert_eq!(band.cols(i, n, n), Band::diagonal(n, n, w).cols(i, n, n));
                }
            }
        }
    }
}
