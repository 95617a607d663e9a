//! The designs of `veer bisect` (docs/bisect.md, "Designs"): which mixtures of A and B are run.
//!
//! * **Full factorial**: all 2^k points, when 2^k × trials fits in `--max-runs`. Every main
//!   effect and every two-factor interaction is estimable.
//! * **Fold-over Plackett–Burman** (resolution IV): a Plackett–Burman design of N runs (N a
//!   multiple of 4 with N > k) followed by its mirror image, 2N points. Main effects are clear
//!   of every two-factor interaction; two-factor interactions are aliased among themselves and
//!   are not estimated.
//! * **Plackett–Burman** (resolution III), when even the fold-over does not fit: N points plus
//!   the all-B point. Main effects are partially aliased with two-factor interactions.
//!
//! Levels are `false` (A's value) and `true` (B's value); in the ±1 coding of the estimator
//! A is −1 and B is +1. Every design holds the all-A point (whose runs are the reference every
//! run is measured against) and the all-B point.

use crate::error::Error;

/// The kind of design.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DesignKind {
    /// All 2^k points.
    FullFactorial,
    /// A Plackett–Burman design and its fold-over (resolution IV).
    FoldOver,
    /// A Plackett–Burman design with the all-B point added (resolution III).
    PlackettBurman,
}

impl DesignKind {
    /// Its name in reports: `full_factorial`, `fold_over_plackett_burman`, `plackett_burman`.
    pub fn name(self) -> &'static str {
        match self {
            DesignKind::FullFactorial => "full_factorial",
            DesignKind::FoldOver => "fold_over_plackett_burman",
            DesignKind::PlackettBurman => "plackett_burman",
        }
    }

    /// The design's resolution (`None`: full factorial, nothing aliased).
    pub fn resolution(self) -> Option<u8> {
        match self {
            DesignKind::FullFactorial => None,
            DesignKind::FoldOver => Some(4),
            DesignKind::PlackettBurman => Some(3),
        }
    }

    /// Whether two-factor interactions are estimated (full factorial only).
    pub(crate) fn resolves_interactions(self) -> bool {
        self == DesignKind::FullFactorial
    }

    /// What is aliased with what, in one sentence.
    pub fn aliasing(self) -> &'static str {
        match self {
            DesignKind::FullFactorial => {
                "nothing: every main effect and two-factor interaction is estimated separately"
            }
            DesignKind::FoldOver => {
                "main effects are clear of two-factor interactions; two-factor interactions are aliased with one another and are not estimated"
            }
            DesignKind::PlackettBurman => {
                "each main effect is partially aliased with the two-factor interactions of the other factors: an interaction can show up as a main effect"
            }
        }
    }
}

/// A design: its kind and its points.
#[derive(Debug, Clone, PartialEq)]
pub struct Design {
    /// The kind.
    pub kind: DesignKind,
    /// Number of factors k (1..=`MAX_FACTORS`).
    pub factors: usize,
    /// The points: one level per factor (`true` = B). The first is the all-A point.
    pub points: Vec<Vec<bool>>,
}

/// Most factors a design can take (the largest Plackett–Burman design here has 24 runs).
pub(crate) const MAX_FACTORS: usize = 23;

/// Largest number of factors run as a full factorial whatever `--max-runs` says (2^8 points,
/// 37 terms): beyond it the fold-over keeps the estimation's work bounded.
pub(crate) const MAX_FULL_FACTORIAL: usize = 8;

/// Cyclic generators of Plackett & Burman (1946) for N = 4, 8, 12, 16, 20, 24 (`true` = +).
fn generator(n: usize) -> Option<&'static str> {
    Some(match n {
        4 => "++-",
        8 => "+++-+--",
        12 => "++-+++---+-",
        16 => "++++-+-++--+---",
        20 => "++--++++-+-+----++-",
        24 => "+++++-+-++--++--+-+----",
        _ => return None,
    })
}

/// The Plackett–Burman design of N runs (rows, N − 1 columns, `true` = +): the N − 1 cyclic
/// shifts of the generator and a row of all −.
pub(crate) fn plackett_burman(n: usize) -> Option<Vec<Vec<bool>>> {
    let g: Vec<bool> = generator(n)?.chars().map(|c| c == '+').collect();
    let m = g.len();
    let mut rows: Vec<Vec<bool>> = (0..m)
        .map(|shift| (0..m).map(|j| g[(j + m - shift) % m]).collect())
        .collect();
    rows.push(vec![false; m]);
    Some(rows)
}

/// The smallest Plackett–Burman size with at least `k` columns.
fn pb_size(k: usize) -> Option<usize> {
    [4, 8, 12, 16, 20, 24].into_iter().find(|&n| n > k)
}

/// The full factorial on `k` factors, in standard order (factor 0 alternates fastest), the
/// all-A point first.
pub(crate) fn full_factorial(k: usize) -> Vec<Vec<bool>> {
    (0..1usize << k)
        .map(|i| (0..k).map(|j| i >> j & 1 == 1).collect())
        .collect()
}

/// The points of a design of `kind` on `k` factors (see the module doc), the all-A point
/// first; `None` when `k` is 0 or too large for the kind.
pub fn points(kind: DesignKind, k: usize) -> Option<Vec<Vec<bool>>> {
    if k == 0 || k > MAX_FACTORS {
        return None;
    }
    let mut rows = match kind {
        DesignKind::FullFactorial => {
            if k > MAX_FULL_FACTORIAL {
                return None;
            }
            full_factorial(k)
        }
        DesignKind::FoldOver | DesignKind::PlackettBurman => {
            let pb: Vec<Vec<bool>> = plackett_burman(pb_size(k)?)?
                .into_iter()
                .map(|r| r.into_iter().take(k).collect())
                .collect();
            let mut rows = pb.clone();
            if kind == DesignKind::FoldOver {
                rows.extend(pb.iter().map(|r| r.iter().map(|x| !x).collect()));
            } else {
                rows.push(vec![true; k]);
            }
            rows
        }
    };
    // The all-A point first (it is in every design above).
    if let Some(i) = rows.iter().position(|r| r.iter().all(|x| !x)) {
        let a = rows.remove(i);
        rows.insert(0, a);
    }
    Some(rows)
}

/// The design for `k` factors at `trials` runs per point within `max_runs` runs: the full
/// factorial when it fits, else the fold-over Plackett–Burman, else the plain Plackett–Burman;
/// an error (with the `--max-runs` that would do) when none fits or `k` is 0 or too large.
pub fn choose(k: usize, trials: usize, max_runs: usize) -> Result<Design, Error> {
    if k == 0 {
        return Err(Error::input(
            "the baseline and candidate configurations are the same: nothing to bisect",
        )
        .hint("give two configurations that differ, e.g. the agent's config before and after the change"));
    }
    if k > MAX_FACTORS {
        return Err(Error::input(format!(
            "{k} factors: veer bisect designs take at most {MAX_FACTORS}"
        ))
        .hint("merge related deltas into one factor with --group PATH=NAME"));
    }
    let mut smallest = usize::MAX;
    for kind in [
        DesignKind::FullFactorial,
        DesignKind::FoldOver,
        DesignKind::PlackettBurman,
    ] {
        if let Some(points) = points(kind, k) {
            let runs = points.len().saturating_mul(trials);
            smallest = smallest.min(runs);
            if runs <= max_runs {
                return Ok(Design {
                    kind,
                    factors: k,
                    points,
                });
            }
        }
    }
    Err(Error::input(format!(
        "{k} factors at {trials} trials need at least {smallest} runs, more than --max-runs {max_runs}"
    ))
    .hint(format!(
        "raise --max-runs to {smallest} or more, lower --trials, or merge deltas with --group PATH=NAME"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pm(x: bool) -> i64 {
        if x {
            1
        } else {
            -1
        }
    }

    fn balanced_and_orthogonal(rows: &[Vec<bool>]) -> Result<(), String> {
        let k = rows.first().map_or(0, Vec::len);
        for j in 0..k {
            let s: i64 = rows.iter().map(|r| pm(r[j])).sum();
            if s != 0 {
                return Err(format!("column {j} unbalanced: {s}"));
            }
            for l in j + 1..k {
                let d: i64 = rows.iter().map(|r| pm(r[j]) * pm(r[l])).sum();
                if d != 0 {
                    return Err(format!("columns {j}, {l} not orthogonal: {d}"));
                }
            }
        }
        Ok(())
    }

    #[test]
    fn every_plackett_burman_matrix_is_balanced_and_orthogonal() {
        for n in [4, 8, 12, 16, 20, 24] {
            let rows = plackett_burman(n).unwrap();
            assert_eq!(rows.len(), n);
            balanced_and_orthogonal(&rows).unwrap_or_else(|e| panic!("N={n}: {e}"));
        }
    }

    /// Resolution IV: every main-effect column is orthogonal to every product of two other
    /// columns.
    fn mains_clear_of_two_factor_interactions(rows: &[Vec<bool>]) -> Result<(), String> {
        let k = rows[0].len();
        for j in 0..k {
            for a in 0..k {
                for b in a + 1..k {
                    if a == j || b == j {
                        continue;
                    }
                    let d: i64 = rows.iter().map(|r| pm(r[j]) * pm(r[a]) * pm(r[b])).sum();
                    if d != 0 {
                        return Err(format!("{j} aliased with {a}x{b}: {d}"));
                    }
                }
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn full_factorials_are_balanced_orthogonal_and_complete(k in 1usize..=8) {
            let rows = points(DesignKind::FullFactorial, k).unwrap();
            prop_assert_eq!(rows.len(), 1 << k);
            prop_assert!(balanced_and_orthogonal(&rows).is_ok());
            let mut distinct = rows.clone();
            distinct.sort();
            distinct.dedup();
            prop_assert_eq!(distinct.len(), rows.len());
        }

        #[test]
        fn fold_overs_are_resolution_iv(k in 1usize..=MAX_FACTORS) {
            let rows = points(DesignKind::FoldOver, k).unwrap();
            prop_assert!(balanced_and_orthogonal(&rows).is_ok());
            prop_assert!(mains_clear_of_two_factor_interactions(&rows).is_ok());
            prop_assert!(rows[0].iter().all(|x| !x));
            prop_assert!(rows.iter().any(|r| r.iter().all(|x| *x)));
        }

        #[test]
        fn plackett_burman_keeps_both_ends(k in 1usize..=MAX_FACTORS) {
            let rows = points(DesignKind::PlackettBurman, k).unwrap();
            prop_assert!(rows[0].iter().all(|x| !x));
            prop_assert!(rows.iter().any(|r| r.iter().all(|x| *x)));
            // Without the added all-B point the columns are balanced and orthogonal.
            // (it is the last point).
            prop_assert!(rows.last().is_some_and(|r| r.iter().all(|x| *x)));
            prop_assert!(balanced_and_orthogonal(&rows[..rows.len() - 1]).is_ok());
        }

        #[test]
        fn choose_never_exceeds_max_runs(k in 1usize..=30, trials in 1usize..=5, max in 0usize..=400) {
            match choose(k, trials, max) {
                Ok(d) => {
                    prop_assert!(d.points.len() * trials <= max);
                    prop_assert_eq!(d.factors, k);
                }
                Err(e) => prop_assert!(e.hint.is_some()),
            }
        }
    }

    #[test]
    fn choice_follows_the_budget() {
        assert_eq!(choose(3, 3, 24).unwrap().kind, DesignKind::FullFactorial);
        assert_eq!(choose(3, 3, 23).unwrap().kind, DesignKind::PlackettBurman);
        assert_eq!(choose(5, 3, 96).unwrap().kind, DesignKind::FullFactorial);
        assert_eq!(choose(5, 3, 95).unwrap().kind, DesignKind::FoldOver);
        assert_eq!(choose(5, 3, 47).unwrap().kind, DesignKind::PlackettBurman);
        let e = choose(5, 3, 10).unwrap_err();
        assert!(e.message.contains("at least 27 runs"), "{}", e.message);
        assert!(choose(0, 3, 100).is_err());
        assert!(choose(MAX_FACTORS + 1, 1, usize::MAX).is_err());
        // Huge budgets stay bounded: at most 2^8 points.
        assert_eq!(
            choose(8, 1, usize::MAX).unwrap().kind,
            DesignKind::FullFactorial
        );
        assert_eq!(choose(9, 1, usize::MAX).unwrap().kind, DesignKind::FoldOver);
    }
}
