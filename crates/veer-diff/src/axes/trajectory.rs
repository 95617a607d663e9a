//! `trajectory`: per pair, the Levenshtein distance between the tool-call token sequences
//! divided by the longer length (rate; spec `diff.md` §5.2, tokens §6).

use super::{Axis, AxisStat, Kind, Pending, Row, TurnPair};
use crate::levenshtein::normalized_levenshtein;
use crate::stats::{median, Statistic};

/// Per-pair normalised edit distances in [0, 1] over `TurnFeatures::tool_tokens`.
pub fn distances(pairs: &[TurnPair<'_>]) -> Vec<f64> {
    pairs
        .iter()
        .map(|(b, c)| normalized_levenshtein(&b.features.tool_tokens, &c.features.tool_tokens))
        .collect()
}

/// The trajectory row: baseline 0, candidate the median distance.
pub fn row(pairs: &[TurnPair<'_>], seed: u64) -> AxisStat {
    prepare(pairs).finish_alone(seed)
}

/// The row before its interval (see [`super::compute_axes`]).
pub(crate) fn prepare(pairs: &[TurnPair<'_>]) -> Row {
    let d = distances(pairs);
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
        extra_flags: Vec::new(),
    })
}
