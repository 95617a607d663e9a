//! Unit-cost Levenshtein distance over whole tokens, in O(min(n, m)) memory, and its bounded
//! form for the per-pair comparisons of the diff (trajectory axis, drill-down): exact while the
//! table is within a cell budget, a near-linear upper bound past it (one response with 200,000
//! tool calls against another must not cost 4·10¹⁰ cells).

use std::collections::HashMap;
use std::hash::Hash;

/// Table cells (after the common prefix and suffix are set aside) up to which
/// `bounded_normalized_levenshtein` is exact: 2^24 (16,777,216), about 20 ms of work.
pub const EXACT_CELLS: u64 = 1 << 24;

/// Edit distance (insertions, deletions, substitutions, each cost 1) between two sequences.
pub fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return long.len();
    }
    let mut prev: Vec<usize> = (0..=short.len()).collect();
    let mut cur = vec![0usize; short.len() + 1];
    for (i, x) in long.iter().enumerate() {
        cur[0] = i + 1;
        for (j, y) in short.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[short.len()]
}

/// Levenshtein distance divided by the longer length, in [0, 1]; 0 when both are empty.
pub fn normalized_levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 0.0;
    }
    levenshtein(a, b) as f64 / longest as f64
}

/// A normalised distance and whether it is exact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bounded {
    /// Distance / longer length, in [0, 1].
    pub value: f64,
    /// False when the value is the anchored upper bound (the pair was past the budget).
    pub exact: bool,
}

/// [`normalized_levenshtein`] when the part of the table left after setting aside the common
/// prefix and suffix (which never changes the distance) has at most `max_cells` cells;
/// otherwise the distance of `veer_base::edit_script::anchored` over the interned tokens —
/// an upper bound, never above the longer length — in O((n + m) log(n + m)) time.
pub(crate) fn bounded_normalized_levenshtein<T: Eq + Hash>(
    a: &[T],
    b: &[T],
    max_cells: u64,
) -> Bounded {
    let longest = a.len().max(b.len());
    if longest == 0 {
        return Bounded {
            value: 0.0,
            exact: true,
        };
    }
    let (p, s) = veer_base::edit_script::anchored::common_affixes(a, b);
    let (am, bm) = (&a[p..a.len() - s], &b[p..b.len() - s]);
    if (am.len() as u64).saturating_mul(bm.len() as u64) <= max_cells {
        return Bounded {
            value: levenshtein(am, bm) as f64 / longest as f64,
            exact: true,
        };
    }
    let mut ids: HashMap<&T, u32> = HashMap::new();
    let ia = intern(&mut ids, am);
    let ib = intern(&mut ids, bm);
    let d = veer_base::edit_script::anchored::anchored_script(&ia, &ib).distance;
    Bounded {
        value: d as f64 / longest as f64,
        exact: false,
    }
}

/// The ids of `side`'s items, numbering items not seen before from `ids.len()`.
fn intern<'a, T: Eq + Hash>(ids: &mut HashMap<&'a T, u32>, side: &'a [T]) -> Vec<u32> {
    side.iter()
        .map(|x| {
            let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
            *ids.entry(x).or_insert(next)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn bounded_is_exact_within_the_budget_and_an_upper_bound_past_it(
            a in proptest::collection::vec(0u8..4, 0..60),
            b in proptest::collection::vec(0u8..4, 0..60),
            budget in 0u64..4000,
        ) {
            let exact = normalized_levenshtein(&a, &b);
            let got = bounded_normalized_levenshtein(&a, &b, budget);
            if got.exact {
                // bit-identical to the plain definition
                prop_assert_eq!(got.value.to_bits(), exact.to_bits());
            } else {
                prop_assert!(got.value >= exact && got.value <= 1.0);
            }
            let unlimited = bounded_normalized_levenshtein(&a, &b, u64::MAX);
            prop_assert!(unlimited.exact);
            prop_assert_eq!(unlimited.value.to_bits(), exact.to_bits());
        }
    }

    #[test]
    fn the_fallback_engages_past_the_budget() {
        let a: Vec<u32> = (0..5000).collect();
        let b: Vec<u32> = (0..5000)
            .map(|x| if x % 50 == 7 { x + 9000 } else { x })
            .collect();
        let got = bounded_normalized_levenshtein(&a, &b, EXACT_CELLS);
        assert!(!got.exact);
        assert_eq!(got.value, 100.0 / 5000.0);
        // Prefix and suffix set aside: an edit at each end of a long pair stays exact.
        let c: Vec<u32> = (0..5000)
            .map(|x| if x == 0 || x == 4999 { 1 } else { x })
            .collect();
        assert!(!bounded_normalized_levenshtein(&a, &c, 10).exact);
        let d: Vec<u32> = (0..5000).map(|x| if x == 2500 { 1 } else { x }).collect();
        let e = bounded_normalized_levenshtein(&a, &d, 10);
        assert!(e.exact);
        assert_eq!(e.value, 1.0 / 5000.0);
    }

    #[test]
    fn distances() {
        assert_eq!(levenshtein::<u8>(&[], &[]), 0);
        assert_eq!(levenshtein(b"kitten", b"sitting"), 3);
        assert_eq!(levenshtein(b"abc", b""), 3);
        assert_eq!(normalized_levenshtein(&["a", "b"], &["a", "c"]), 0.5);
        assert_eq!(normalized_levenshtein::<u8>(&[], &[]), 0.0);
    }
}
