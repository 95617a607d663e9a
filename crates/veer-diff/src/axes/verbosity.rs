//! `verbosity`: `usage.output_tokens` (continuous; spec `diff.md` §5.4). Pairs where either
//! side lacks the number are skipped.

use super::{row_from_values, Axis, AxisStat, Kind, Row, TurnPair};
use crate::stats::Statistic;

/// The row before its interval (see [`super::compute_axes`]).
pub(crate) fn prepare(pairs: &[TurnPair<'_>]) -> Row {
    let (idx, (b, c)): (Vec<usize>, (Vec<f64>, Vec<f64>)) = pairs
        .iter()
        .enumerate()
        .filter_map(|(i, (b, c))| Some((i, (b.features.output_tokens?, c.features.output_tokens?))))
        .unzip();
    if b.is_empty() {
        return Row::Done(AxisStat::empty(Axis::Verbosity));
    }
    row_from_values(
        Axis::Verbosity,
        &b,
        &c,
        Statistic::MedianDifference,
        Kind::Continuous,
    )
    .with_idx(idx)
}
