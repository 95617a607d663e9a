//! `reasoning`: depth = `usage.thinking_tokens` (0 when missing) + number of `thinking`
//! content parts (continuous; spec `diff.md` §5.7).

use super::{row_from_values, Axis, Kind, Row, TurnPair};
use crate::stats::Statistic;
use crate::turn::DiffTurn;

/// Reasoning depth of one response (thinking tokens plus thinking parts).
pub fn depth(t: &DiffTurn) -> f64 {
    t.cost().thinking_tokens + t.thinking_parts as f64
}

/// The row before its interval (see [`super::compute_axes`]).
pub(crate) fn prepare(pairs: &[TurnPair<'_>]) -> Row {
    let b: Vec<f64> = pairs.iter().map(|(b, _)| depth(b)).collect();
    let c: Vec<f64> = pairs.iter().map(|(_, c)| depth(c)).collect();
    row_from_values(
        Axis::Reasoning,
        &b,
        &c,
        Statistic::MedianDifference,
        Kind::Continuous,
    )
}
