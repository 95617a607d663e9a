//! `cost`: USD per response from a pricing table (continuous; spec `diff.md` §5.6). Pairs
//! where either side cannot be costed are skipped; `no_pricing` marks rows where fewer than
//! half of all pairs have both models priced.

use super::{row_from_values, Axis, AxisStat, Flag, Kind, Row, TurnPair};
use crate::pricing::Pricing;
use crate::stats::Statistic;

/// The cost row.
pub fn row(pairs: &[TurnPair<'_>], pricing: &Pricing, seed: u64) -> AxisStat {
    prepare(pairs, pricing).finish_alone(seed)
}

/// The row before its interval (see [`super::compute_axes`]).
pub(crate) fn prepare(pairs: &[TurnPair<'_>], pricing: &Pricing) -> Row {
    let mut b = Vec::new();
    let mut c = Vec::new();
    let mut idx = Vec::new();
    let mut priced = 0usize;
    for (i, (bt, ct)) in pairs.iter().enumerate() {
        if let (Some(x), Some(y)) = (pricing.cost_of(&bt.cost()), pricing.cost_of(&ct.cost())) {
            idx.push(i);
            b.push(x);
            c.push(y);
        }
        if pricing.prices(bt.features.model) && pricing.prices(ct.features.model) {
            priced += 1;
        }
    }
    if !pairs.is_empty() && b.is_empty() {
        let mut r = AxisStat::empty(Axis::Cost);
        r.flags.push(Flag::NoPricing);
        return Row::Done(r);
    }
    if b.is_empty() {
        return Row::Done(AxisStat::empty(Axis::Cost));
    }
    let mut r = row_from_values(
        Axis::Cost,
        &b,
        &c,
        Statistic::MedianDifference,
        Kind::Continuous,
    )
    .with_idx(idx);
    if priced * 2 < pairs.len() {
        r.push_flag(Flag::NoPricing);
    }
    r
}
