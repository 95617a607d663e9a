//! An edit script in near-linear time for sequences whose exact comparison would cost more
//! than a work budget (one response with 200,000 tool calls against another): a valid
//! alignment whose distance is an upper bound of the Levenshtein distance, never more than
//! max(m, n). Callers use it only past their exact budget and say so in their output.
//!
//! The alignment: the common prefix and suffix are matched (exact: trimming them never changes
//! the distance); in the middle, the items that occur exactly once on each side are paired and
//! the longest chain of such pairs increasing on both sides (patience anchors, O(k log k)) is
//! matched; each gap between anchors is trimmed again and aligned exactly when it has at most
//! `GAP_CELLS` table cells, else cut into pieces of at most `PIECE` items on its longer side,
//! proportionally on both sides, each aligned exactly. When that alignment costs more than
//! pairing the items index by index, the index-wise alignment is taken instead (so the
//! distance stays ≤ max(m, n)). Work: O((m + n) · PIECE) comparisons plus O((m + n) log(m + n))
//! for the anchors; memory O(m + n) plus one piece's table.

use super::{edit_script, EditOp, EditScript};
use std::collections::HashMap;

/// Table cells ((la + 1)·(lb + 1)) up to which a gap between two anchors is aligned exactly.
pub(crate) const GAP_CELLS: u64 = 1 << 16;

/// Items on the longer side of one piece of a gap too large to align exactly; a piece's
/// table has at most (PIECE + 1)² cells.
pub(crate) const PIECE: usize = 128;

/// The lengths of the longest common prefix of `a` and `b` and of the longest common suffix of
/// what follows it (`p + s ≤ min(m, n)`): trimming both never changes an edit distance.
pub fn common_affixes<T: PartialEq>(a: &[T], b: &[T]) -> (usize, usize) {
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let s = a[p..]
        .iter()
        .rev()
        .zip(b[p..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (p, s)
}

/// The anchored alignment of `a` (clean) with `b` (perturbed); see the module docs. The
/// script's `ops` are in forward order and cover every index of both sides once.
pub fn anchored_script(a: &[u32], b: &[u32]) -> EditScript {
    let (m, n) = (a.len(), b.len());
    let mut ops = Vec::with_capacity(m.max(n));
    let mut edits = 0usize;
    gap(a, b, 0, 0, true, &mut ops, &mut edits);
    let index_wise = a.iter().zip(b).filter(|(x, y)| x != y).count() + m.abs_diff(n);
    if edits > index_wise {
        ops.clear();
        index_wise_ops(a, b, 0, 0, &mut ops);
    }
    forward(ops, m, n)
}

/// The script of a forward alignment; the distance is its count of edits.
fn forward(ops: Vec<EditOp>, m: usize, n: usize) -> EditScript {
    let (mut substitutions, mut insertions, mut deletions) = (0, 0, 0);
    for op in &ops {
        match op {
            EditOp::Match { .. } => {}
            EditOp::Substitution { .. } => substitutions += 1,
            EditOp::Insertion { .. } => insertions += 1,
            EditOp::Deletion { .. } => deletions += 1,
        }
    }
    EditScript {
        distance: substitutions + insertions + deletions,
        substitutions,
        insertions,
        deletions,
        baseline_length: m,
        perturbed_length: n,
        ops,
    }
}

/// Aligns `a` (starting at index `i0` of the whole clean side) with `b` (at `j0`), appending
/// forward operations; `anchor` says whether to look for unique anchors (only at the top).
fn gap(
    a: &[u32],
    b: &[u32],
    i0: usize,
    j0: usize,
    anchor: bool,
    ops: &mut Vec<EditOp>,
    edits: &mut usize,
) {
    let (p, s) = common_affixes(a, b);
    ops.extend((0..p).map(|k| EditOp::Match {
        i: i0 + k,
        j: j0 + k,
    }));
    let (am, bm) = (&a[p..a.len() - s], &b[p..b.len() - s]);
    let (mi, mj) = (i0 + p, j0 + p);
    let cells = (am.len() as u64 + 1).saturating_mul(bm.len() as u64 + 1);
    if am.is_empty() || bm.is_empty() || cells <= GAP_CELLS {
        exact(am, bm, mi, mj, ops, edits);
    } else if anchor {
        let (mut ci, mut cj) = (0, 0);
        for (ai, bj) in unique_anchors(am, bm) {
            gap(
                &am[ci..ai],
                &bm[cj..bj],
                mi + ci,
                mj + cj,
                false,
                ops,
                edits,
            );
            ops.push(EditOp::Match {
                i: mi + ai,
                j: mj + bj,
            });
            (ci, cj) = (ai + 1, bj + 1);
        }
        gap(&am[ci..], &bm[cj..], mi + ci, mj + cj, false, ops, edits);
    } else {
        let pieces = am.len().max(bm.len()).div_ceil(PIECE);
        for t in 0..pieces {
            let (a0, a1) = (t * am.len() / pieces, (t + 1) * am.len() / pieces);
            let (b0, b1) = (t * bm.len() / pieces, (t + 1) * bm.len() / pieces);
            exact(&am[a0..a1], &bm[b0..b1], mi + a0, mj + b0, ops, edits);
        }
    }
    let (ea, eb) = (i0 + a.len() - s, j0 + b.len() - s);
    ops.extend((0..s).map(|k| EditOp::Match {
        i: ea + k,
        j: eb + k,
    }));
}

/// The exact script of a small gap, shifted to its place.
fn exact(a: &[u32], b: &[u32], i0: usize, j0: usize, ops: &mut Vec<EditOp>, edits: &mut usize) {
    if a.is_empty() {
        *edits += b.len();
        ops.extend((0..b.len()).map(|k| EditOp::Insertion { j: j0 + k }));
        return;
    }
    if b.is_empty() {
        *edits += a.len();
        ops.extend((0..a.len()).map(|k| EditOp::Deletion { i: i0 + k }));
        return;
    }
    let script = edit_script(a, b);
    *edits += script.distance;
    ops.extend(script.ops.into_iter().map(|op| match op {
        EditOp::Match { i, j } => EditOp::Match {
            i: i0 + i,
            j: j0 + j,
        },
        EditOp::Substitution { i, j } => EditOp::Substitution {
            i: i0 + i,
            j: j0 + j,
        },
        EditOp::Insertion { j } => EditOp::Insertion { j: j0 + j },
        EditOp::Deletion { i } => EditOp::Deletion { i: i0 + i },
    }));
}

/// Items paired index by index (a match where equal, else a substitution), then the longer
/// side's rest as deletions or insertions.
fn index_wise_ops(a: &[u32], b: &[u32], i0: usize, j0: usize, ops: &mut Vec<EditOp>) {
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let (i, j) = (i0 + k, j0 + k);
        ops.push(if x == y {
            EditOp::Match { i, j }
        } else {
            EditOp::Substitution { i, j }
        });
    }
    let common = a.len().min(b.len());
    ops.extend((common..a.len()).map(|k| EditOp::Deletion { i: i0 + k }));
    ops.extend((common..b.len()).map(|k| EditOp::Insertion { j: j0 + k }));
}

/// Positions (i, j) of the items that occur exactly once in `a` and once in `b`, the longest
/// chain increasing in both (ties: the chain patience sorting finds), in increasing order.
pub(crate) fn unique_anchors(a: &[u32], b: &[u32]) -> Vec<(usize, usize)> {
    // item → (count in a, position in a, count in b, position in b)
    let mut seen: HashMap<u32, (u32, usize, u32, usize)> = HashMap::new();
    for (i, &x) in a.iter().enumerate() {
        let e = seen.entry(x).or_insert((0, i, 0, 0));
        e.0 = e.0.saturating_add(1);
    }
    for (j, &y) in b.iter().enumerate() {
        if let Some(e) = seen.get_mut(&y) {
            if e.2 == 0 {
                e.3 = j;
            }
            e.2 = e.2.saturating_add(1);
        }
    }
    // In the order of `b`, the positions in `a` of the items unique on both sides.
    let mut pairs: Vec<(usize, usize)> = seen
        .values()
        .filter(|e| e.0 == 1 && e.2 == 1)
        .map(|e| (e.3, e.1))
        .collect();
    pairs.sort_unstable();
    longest_increasing(&pairs)
        .into_iter()
        .map(|(j, i)| (i, j))
        .collect()
}

/// The longest subsequence of `pairs` (sorted by their first, distinct, component) whose
/// second components increase, by patience sorting: O(k log k).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[l]: index into `pairs` of the smallest tail of an increasing run of length l + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut back: Vec<usize> = Vec::with_capacity(pairs.len());
    for (k, &(_, v)) in pairs.iter().enumerate() {
        let l = tails.partition_point(|&t| pairs[t].1 < v);
        back.push(if l > 0 { tails[l - 1] } else { usize::MAX });
        if l == tails.len() {
            tails.push(k);
        } else {
            tails[l] = k;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut k = tails.last().copied().unwrap_or(usize::MAX);
    while k != usize::MAX {
        out.push(pairs[k]);
        k = back[k];
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The ops are a valid forward alignment of `a` with `b` (veer-base's one checker).
    fn check_valid(a: &[u32], b: &[u32], s: &EditScript) -> Result<(), TestCaseError> {
        crate::edit_script::validate(a, b, s).map_err(TestCaseError::fail)
    }

    /// A long sequence with a small alphabet (repeats) and a unique tail, and an edited copy.
    fn pair(len: usize, alphabet: u32, edits: &[(usize, u8)]) -> (Vec<u32>, Vec<u32>) {
        let a: Vec<u32> = (0..len as u32)
            .map(|k| if k % 3 == 0 { 1000 + k } else { k % alphabet })
            .collect();
        let mut b = a.clone();
        for &(at, what) in edits {
            if b.is_empty() {
                break;
            }
            let at = at % b.len();
            match what % 3 {
                0 => b[at] = 999,
                1 => {
                    b.remove(at);
                }
                _ => b.insert(at, 998),
            }
        }
        (a, b)
    }

    proptest! {
        #[test]
        fn anchored_is_a_valid_alignment_no_shorter_than_the_exact_one(
            a in proptest::collection::vec(0u32..5, 0..80),
            b in proptest::collection::vec(0u32..5, 0..80),
        ) {
            let s = anchored_script(&a, &b);
            check_valid(&a, &b, &s)?;
            prop_assert!(s.distance >= edit_script(&a, &b).distance);
            prop_assert!(s.distance <= a.len().max(b.len()));
        }

        #[test]
        fn anchored_on_long_inputs_past_the_gap_budget(
            len in 300usize..1500,
            alphabet in 1u32..6,
            edits in proptest::collection::vec((0usize..5000, 0u8..3), 0..40),
        ) {
            let (a, b) = pair(len, alphabet, &edits);
            let s = anchored_script(&a, &b);
            check_valid(&a, &b, &s)?;
            let exact = edit_script(&a, &b).distance;
            prop_assert!(s.distance >= exact);
            prop_assert!(s.distance <= a.len().max(b.len()));
        }

        #[test]
        fn anchors_are_unique_and_increasing(
            a in proptest::collection::vec(0u32..30, 0..60),
            b in proptest::collection::vec(0u32..30, 0..60),
        ) {
            let anchors = unique_anchors(&a, &b);
            for w in anchors.windows(2) {
                prop_assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1);
            }
            for &(i, j) in &anchors {
                prop_assert_eq!(a[i], b[j]);
                prop_assert_eq!(a.iter().filter(|&&x| x == a[i]).count(), 1);
                prop_assert_eq!(b.iter().filter(|&&y| y == b[j]).count(), 1);
            }
        }
    }

    #[test]
    fn sparse_edits_of_unique_items_cost_what_they_are() {
        // 20,000 distinct items, every 100th replaced: anchors find every edit exactly.
        let a: Vec<u32> = (0..20_000).collect();
        let b: Vec<u32> = a
            .iter()
            .map(|&x| if x % 100 == 50 { x + 1_000_000 } else { x })
            .collect();
        let s = anchored_script(&a, &b);
        assert_eq!(
            (s.distance, s.substitutions, s.insertions, s.deletions),
            (200, 200, 0, 0)
        );
    }

    #[test]
    fn longest_increasing_chain() {
        let pairs = [(0, 3), (1, 1), (2, 2), (3, 0), (4, 4)];
        assert_eq!(longest_increasing(&pairs), vec![(1, 1), (2, 2), (4, 4)]);
        assert!(longest_increasing(&[]).is_empty());
    }
}
