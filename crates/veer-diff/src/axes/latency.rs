//! `latency`: `latency_ms` in milliseconds (continuous; spec `diff.md` §5.5). Pairs where
//! either side lacks the number are skipped.

use super::{row_from_values, Axis, AxisStat, Kind, Row, TurnPair};
use crate::stats::Statistic;

/// The row before its interval (see [`super::compute_axes`]).
pub(crate) fn prepare(pairs: &[TurnPair<'_>]) -> Row {
    let (idx, (b, c)): (Vec<usize>, (Vec<f64>, Vec<f64>)) = pairs
        .iter()
        .enumerate()
        .filter_map(|(i, (b, c))| Some((i, (b.features.latency_ms?, c.features.latency_ms?))))
        .unzip();
    if b.is_empty() {
        return Row::Done(AxisStat::empty(Axis::Latency));
    }
    row_from_values(
        Axis::Latency,
        &b,
        &c,
        Statistic::MedianDifference,
        Kind::Continuous,
    )
    .with_idx(idx)
}
