//! `judge`: veer makes no LLM calls, so the judge row is always the empty row (spec
//! `diff.md` §5.8).

use super::{Axis, AxisStat};

/// The judge row: all zeros, severity none, n 0.
pub fn row() -> AxisStat {
    AxisStat::empty(Axis::Judge)
}
