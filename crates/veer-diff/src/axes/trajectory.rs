//! `trajectory`: per pair, the Levenshtein distance between the tool-call token sequences
//! divided by the longer length (rate; spec `diff.md` §5.2, tokens §6).

use super::{Axis, AxisStat, Flag, Kind, Pending, Row, TurnPair};
use crate::levenshtein::{bounded_normalized_levenshtein, Bounded, EXACT_CELLS};
use crate::stats::{median, Statistic};

/// Per-pair normalised edit distances in [0, 1] over `TurnFeatures::tool_tokens`.
pub fn distances(pairs: &[TurnPair<'_>]) -> Vec<f64> {
    bounded_distances(pairs)
        .into_iter()
        .map(|d| d.value)
        .collect()
}

/// [`distances`] with whether each is exact: a pair whose table is past
/// [`EXACT_CELLS`] gets the anchored upper bound (the row is flagged
/// `approximate_edit_distance`).
pub(crate) fn bounded_distances(pairs: &[TurnPair<'_>]) -> Vec<Bounded> {
    pairs
        .iter()
        .map(|(b, c)| {
            bounded_normalized_levenshtein(
                &b.features.tool_tokens,
                &c.features.tool_tokens,
                EXACT_CELLS,
            )
        })
        .collect()
}

/// The trajectory row: baseline 0, candidate the median distance.
pub fn row(pairs: &[TurnPair<'_>], seed: u64) -> AxisStat {
    prepare(pairs).finish_alone(seed)
}

/// The row before its interval (see [`super::compute_axes`]).
pub(crate) fn prepare(pairs: &[TurnPair<'_>]) -> Row {
    let bounded = bounded_distances(pairs);
    let extra_flags = if bounded.iter().all(|d| d.exact) {
        Vec::new()
    } else {
        vec![Flag::ApproximateEditDistance]
    };
    let d: Vec<f64> = bounded.into_iter().map(|d| d.value).collect();
    let cm = median(&d);
    Row::Pending(Pending {
        axis: Axis::Trajectory,
        baseline_median: 0.0,
        candidate_median: cm,
        delta: cm,
        kind: Kind::Rate,
        b: vec![0.0; d.len()],
        c: d,
        statistic: Statistic::MedianDifference,
        extra_flags,
        idx: Vec::new(),
        filler: Vec::new(),
    })
}

/// Adds one observation of distance 1 per turn the pairing left unpaired that has tool calls
/// (`unpaired` of them, after the pairs): a dropped or added call is a trajectory change of 1
/// at its position, so it is never invisible (docs/diff.md "Pairing").
pub(crate) fn with_unpaired(row: Row, unpaired: usize) -> Row {
    if unpaired == 0 {
        return row;
    }
    let (mut b, mut c, extra_flags) = match row {
        Row::Pending(p) => (p.b, p.c, p.extra_flags),
        Row::Done(r) => (Vec::new(), Vec::new(), r.flags),
    };
    b.extend(std::iter::repeat_n(0.0, unpaired));
    c.extend(std::iter::repeat_n(1.0, unpaired));
    let cm = median(&c);
    Row::Pending(Pending {
        axis: Axis::Trajectory,
        baseline_median: 0.0,
        candidate_median: cm,
        delta: cm,
        kind: Kind::Rate,
        b,
        c,
        statistic: Statistic::MedianDifference,
        extra_flags,
        idx: Vec::new(),
        filler: Vec::new(),
    })
}
