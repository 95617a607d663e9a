//! The edit script of [`veer_base::edit_script::edit_script`] — same distance, same decomposition,
//! same alignment, traxr's backtrack order included — without the (m+1)·(n+1) decision table.
//!
//! Furthest-reaching diagonals (Landau–Vishkin / Ukkonen): `front[e][k]` is the last row `i`
//! on diagonal `k = j − i` with D(i, j) ≤ e. D never decreases along a diagonal, so
//! `D(x, y) ≤ t ⇔ |y − x| ≤ t ∧ front[t][y − x] ≥ x`; that predicate is all traxr's backtrack
//! needs (a cell's neighbours differ from it by at most one), so the walk from (m, n) is
//! replayed exactly. Memory: (d + 1)² row numbers for distance d; time O(m + n + d²) plus the
//! slides along equal runs. Near-identical traces of a hundred thousand events cost
//! milliseconds; when the fronts would exceed a budget the caller is told so (`None`).

use veer_base::edit_script::{EditOp, EditScript};

/// No cell of this diagonal is reachable with this cost (or the diagonal is off the table).
const NONE: u32 = u32::MAX;

/// The fronts of costs 0..=d; `rows[e][k + e]` for k in −e..=e.
struct Fronts {
    rows: Vec<Vec<u32>>,
}

impl Fronts {
    /// `front[e][k]` as a row number, or None.
    fn get(&self, e: usize, k: isize) -> Option<usize> {
        if k.unsigned_abs() > e {
            return None;
        }
        let v = self.rows[e][(k + e as isize) as usize];
        (v != NONE).then_some(v as usize)
    }

    /// D(x, y) ≤ t (false for t < 0).
    fn within(&self, x: usize, y: usize, t: isize) -> bool {
        if t < 0 {
            return false;
        }
        let k = y as isize - x as isize;
        self.get(t as usize, k).is_some_and(|i| i >= x)
    }
}

/// Compares `seq1` (clean) with `seq2` (perturbed) like [`veer_base::edit_script::edit_script`].
/// Returns None when the fronts would hold more than `max_entries` row numbers (4 bytes each)
/// or a sequence is longer than 2³² − 2 items.
pub(crate) fn edit_script_diagonal<T: PartialEq>(
    seq1: &[T],
    seq2: &[T],
    max_entries: u64,
) -> Option<EditScript> {
    let (m, n) = (seq1.len(), seq2.len());
    if m >= NONE as usize || n >= NONE as usize {
        return None;
    }
    let (mi, ni) = (m as isize, n as isize);
    let slide = |mut i: usize, k: isize| {
        while i < m {
            let j = (i as isize + k) as usize;
            if j >= n || seq1[i] != seq2[j] {
                break;
            }
            i += 1;
        }
        i
    };
    let target = ni - mi;
    let mut fronts = Fronts { rows: Vec::new() };
    let mut stored: u64 = 0;
    let mut e = 0usize;
    loop {
        stored += 2 * e as u64 + 1;
        if stored > max_entries {
            return None;
        }
        let ei = e as isize;
        let mut row = vec![NONE; 2 * e + 1];
        for k in (-ei).max(-mi)..=ei.min(ni) {
            let start = if e == 0 {
                Some(0)
            } else {
                let mut best: Option<usize> = None;
                let mut offer = |i: usize| best = Some(best.map_or(i, |b| b.max(i)));
                if let Some(i) = fronts.get(e - 1, k) {
                    offer(i);
                    if i < m && i as isize + k < ni {
                        offer(i + 1);
                    }
                }
                if let Some(i) = fronts.get(e - 1, k - 1) {
                    if i as isize + k <= ni {
                        offer(i);
                    }
                }
                if let Some(i) = fronts.get(e - 1, k + 1) {
                    if i < m {
                        offer(i + 1);
                    }
                }
                best
            };
            if let Some(i) = start {
                row[(k + ei) as usize] = slide(i, k) as u32;
            }
        }
        fronts.rows.push(row);
        if fronts.get(e, target) == Some(m) {
            break;
        }
        e += 1;
    }
    let distance = e;

    let mut ops = Vec::with_capacity(m.max(n));
    let (mut i, mut j, mut v) = (m, n, distance as isize);
    while i > 0 || j > 0 {
        let op = if i == 0 {
            EditOp::Insertion { j: j - 1 }
        } else if j == 0 {
            EditOp::Deletion { i: i - 1 }
        } else if seq1[i - 1] == seq2[j - 1] {
            EditOp::Match { i: i - 1, j: j - 1 }
        } else if fronts.within(i - 1, j - 1, v - 1) {
            EditOp::Substitution { i: i - 1, j: j - 1 }
        } else if fronts.within(i, j - 1, v - 1) {
            EditOp::Insertion { j: j - 1 }
        } else {
            EditOp::Deletion { i: i - 1 }
        };
        let (back_i, back_j, costs) = op.step_back(i, j);
        (i, j) = (back_i, back_j);
        if costs {
            v -= 1;
        }
        ops.push(op);
    }
    Some(EditScript::from_backtrack(distance, m, n, ops))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use veer_base::edit_script::edit_script;

    #[test]
    fn spec_cases_match_the_full_table() {
        let cases: &[(&str, &str)] = &[
            ("", ""),
            ("", "abc"),
            ("ab", ""),
            ("abc", "abc"),
            ("abc", "axc"),
            ("kitten", "sitting"),
            ("A", "AA"),
            ("AB", "ABC"),
            ("AB", "BA"),
            ("ab", "xyz"),
        ];
        for (a, b) in cases {
            let a: Vec<char> = a.chars().collect();
            let b: Vec<char> = b.chars().collect();
            assert_eq!(
                edit_script_diagonal(&a, &b, u64::MAX),
                Some(edit_script(&a, &b)),
                "{a:?} {b:?}"
            );
        }
    }

    #[test]
    fn budget_is_respected() {
        let a: Vec<u32> = (0..100).collect();
        let b: Vec<u32> = (100..200).collect();
        // distance 100 needs 101² entries.
        assert_eq!(edit_script_diagonal(&a, &b, 5_000), None);
        assert_eq!(
            edit_script_diagonal(&a, &b, 20_000).map(|e| e.distance),
            Some(100)
        );
    }

    #[test]
    fn long_near_identical_sequences_are_cheap() {
        let a: Vec<u32> = (0..200_000).map(|i| i % 7).collect();
        let mut b = a.clone();
        b[150_000] = 99;
        b.insert(1_000, 5);
        let e = edit_script_diagonal(&a, &b, 1_000).expect("within budget");
        assert_eq!(e.distance, 2);
        assert_eq!(e.ops.len(), 200_001);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn equals_the_full_table(
            a in proptest::collection::vec(0u8..3, 0..24),
            b in proptest::collection::vec(0u8..3, 0..24),
        ) {
            prop_assert_eq!(edit_script_diagonal(&a, &b, u64::MAX), Some(edit_script(&a, &b)));
        }
    }
}
