//! `trajectory`: per pair, the Levenshtein distance between the tool-call token sequences
//! divided by the longer length (rate; spec `diff.md` §5.2, tokens §6).

use super::{finish_row, Axis, AxisStat, Kind, TurnPair};
use crate::levenshtein::normalized_levenshtein;
use crate::stats::{median, paired_ci, Statistic};

/// Per-pair normalised edit distances in [0, 1] over `TurnFeatures::tool_tokens`.
pub fn distances(pairs: &[TurnPair<'_>]) -> Vec<f64> {
    pairs
        .iter()
        .map(|(b, c)| normalized_levenshtein(&b.features.tool_tokens, &c.features.tool_tokens))
        .collect()
}

/// The trajectory row: baseline 0, candidate the median distance.
pub fn row(pairs: &[TurnPair<'_>], seed: u64) -> AxisStat {
    let d = distances(pairs);
    let zeros = vec![0.0; d.len()];
    let cm = median(&d);
    let ci = paired_ci(&zeros, &d, Statistic::MedianDifference, seed);
    finish_row(
        Axis::Trajectory,
        0.0,
        cm,
        cm,
        ci.low,
        ci.high,
        Kind::Rate,
        d.len(),
    )
}
