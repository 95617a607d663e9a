//! The turn alignment past the exact budget: anchored on turns identical on both sides, exact
//! between them.
//!
//! Why: the exact Gotoh alignment ([`super::gotoh`]) widens its band until provably optimal;
//! for two long runs that differ almost everywhere that band approaches the whole n × m table
//! and `--max-align-cells` stops it. Rather than report no first divergence, veer then aligns
//! in pieces (spec `diff.md` §9, docs/diff.md "Anchored alignment"):
//!
//! 1. Anchors: turns whose features (tool-shape set, tool count, normalised text, stop reason,
//!    tool inputs) occur exactly once in the baseline and exactly once in the candidate — a
//!    pair cost of 0 — kept when they are in the same order on both sides (the longest chain,
//!    ties to the earliest, as patience diff does).
//! 2. Windows: the turns strictly between two consecutive anchors (and before the first,
//!    after the last) are aligned with the exact Gotoh DP within the same budget; a window
//!    still too large takes the cheapest path inside a band of half-width
//!    [`super::gotoh::INITIAL_HALF_WIDTH`] around its diagonal.
//!
//! Guarantee: each window's path is optimal for that window when it fits the budget, anchors
//! are always paired, and the result is deterministic (windows are solved in parallel and
//! joined in order). The whole path is optimal whenever some optimal alignment pairs every
//! anchor — in particular whenever the runs differ only by changes that leave unique turns in
//! place. It is *not* a global optimum in general, so the report says `alignment: "anchored"`.

use super::cost::AlignTurn;
use super::gotoh::{align_in_band, align_within, INITIAL_HALF_WIDTH};
use super::{Alignment, Step};
use rayon::prelude::*;
use std::collections::HashMap;

/// The features that make two turns identical (pair cost 0).
type Key<'k> = (u32, usize, u32, u32, &'k [(u32, u32)]);

fn key<'k>(t: &'k AlignTurn<'_>) -> Key<'k> {
    (t.shape_set, t.count, t.text, t.stop, &t.inputs)
}

/// The anchors of `b` and `c`: (baseline turn, candidate turn) pairs of turns unique and
/// identical on both sides, strictly increasing on both, the longest such chain (among equally
/// long chains, the one ending earliest at each length).
pub fn anchors(b: &[AlignTurn<'_>], c: &[AlignTurn<'_>]) -> Vec<(usize, usize)> {
    // (count in b, position in b, count in c, position in c)
    let mut seen: HashMap<Key<'_>, (u32, usize, u32, usize)> = HashMap::new();
    for (i, t) in b.iter().enumerate() {
        let e = seen.entry(key(t)).or_insert((0, i, 0, 0));
        e.0 = e.0.saturating_add(1);
    }
    for (j, t) in c.iter().enumerate() {
        if let Some(e) = seen.get_mut(&key(t)) {
            e.2 = e.2.saturating_add(1);
            e.3 = j;
        }
    }
    // Candidates in baseline order (read off `b`, so the order never depends on the map).
    let candidates: Vec<(usize, usize)> = b
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let &(nb, _, nc, j) = seen.get(&key(t))?;
            (nb == 1 && nc == 1).then_some((i, j))
        })
        .collect();
    longest_increasing(&candidates)
}

/// The longest subsequence of `pairs` (ascending in `.0`, all `.1` distinct) whose `.1` also
/// ascends; patience sorting with predecessor links, O(k log k).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[l]: index into `pairs` of the smallest `.1` ending a chain of length l + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, &(_, j)) in pairs.iter().enumerate() {
        let at = tails.partition_point(|&t| pairs[t].1 < j);
        prev[k] = at.checked_sub(1).map(|p| tails[p]);
        if at == tails.len() {
            tails.push(k);
        } else {
            tails[at] = k;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut cursor = tails.last().copied();
    while let Some(k) = cursor {
        out.push(pairs[k]);
        cursor = prev[k];
    }
    out.reverse();
    out
}

/// One window's alignment, with its steps moved to whole-trace indices.
fn window(
    b: &[AlignTurn<'_>],
    c: &[AlignTurn<'_>],
    (b0, c0): (usize, usize),
    max_cells: u64,
    whole: bool,
) -> Alignment {
    let (n, m) = (b.len(), c.len());
    let local = if n == 0 || m == 0 {
        // One gap run: opened once, extended for every further turn.
        let run = |k: usize| {
            if k == 0 {
                0.0
            } else {
                super::GAP_OPEN + (k - 1) as f64 * super::GAP_EXTEND
            }
        };
        let steps = (0..n)
            .map(Step::Delete)
            .chain((0..m).map(Step::Insert))
            .collect();
        Alignment {
            steps,
            cost: run(n) + run(m),
        }
    } else {
        // The whole pair was just found over the budget: go straight to the band.
        let exact = if whole {
            None
        } else {
            align_within(b, c, max_cells)
        };
        exact.unwrap_or_else(|| align_in_band(b, c, INITIAL_HALF_WIDTH, max_cells))
    };
    let steps = local
        .steps
        .into_iter()
        .map(|s| match s {
            Step::Match(i, j) => Step::Match(b0 + i, c0 + j),
            Step::Insert(j) => Step::Insert(c0 + j),
            Step::Delete(i) => Step::Delete(b0 + i),
        })
        .collect();
    Alignment {
        steps,
        cost: local.cost,
    }
}

#[cfg(test)]
/// The anchored alignment of `b` and `c` (see the module comment); `max_cells` bounds each
/// window's exact DP as it bounds the whole pair's.
pub(crate) fn align_anchored(
    b: &[AlignTurn<'_>],
    c: &[AlignTurn<'_>],
    max_cells: u64,
) -> Alignment {
    align_anchored_with(b, c, max_cells, None)
}

/// [`align_anchored`] given, when known, the whole pair's path in the band of half-width
/// [`INITIAL_HALF_WIDTH`] (what the exact search's first round found, see
/// [`super::gotoh::align_or_first_band`]): with no anchors that path is the answer, and it is
/// not evaluated again. The result is the same with or without it.
pub(crate) fn align_anchored_with(
    b: &[AlignTurn<'_>],
    c: &[AlignTurn<'_>],
    max_cells: u64,
    first_band: Option<Alignment>,
) -> Alignment {
    let anchors = anchors(b, c);
    if anchors.is_empty() && !b.is_empty() && !c.is_empty() {
        if let Some(band) = first_band {
            return band;
        }
    }
    // Window k runs from after anchor k − 1 to before anchor k (the last one to the end).
    let mut bounds = Vec::with_capacity(anchors.len() + 1);
    let (mut pb, mut pc) = (0usize, 0usize);
    for &(i, j) in anchors.iter().chain(std::iter::once(&(b.len(), c.len()))) {
        bounds.push(((pb, i), (pc, j)));
        (pb, pc) = (i + 1, j + 1);
    }
    let whole = anchors.is_empty();
    let parts: Vec<Alignment> = bounds
        .par_iter()
        .map(|&((b0, b1), (c0, c1))| window(&b[b0..b1], &c[c0..c1], (b0, c0), max_cells, whole))
        .collect();
    let mut steps = Vec::with_capacity(b.len() + c.len());
    let mut cost = 0.0;
    for (k, part) in parts.into_iter().enumerate() {
        steps.extend(part.steps);
        cost += part.cost;
        if let Some(&(i, j)) = anchors.get(k) {
            steps.push(Step::Match(i, j));
        }
    }
    Alignment { steps, cost }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_chain_of_anchors() {
        let pairs = [(0, 3), (1, 0), (2, 1), (3, 4), (4, 2), (5, 5)];
        assert_eq!(
            longest_increasing(&pairs),
            vec![(1, 0), (2, 1), (4, 2), (5, 5)]
        );
        assert_eq!(longest_increasing(&[]), Vec::<(usize, usize)>::new());
    }
}
