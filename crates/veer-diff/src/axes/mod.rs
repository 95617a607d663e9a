//! The nine axes of the behaviour diff, one file each, in the fixed report order (spec
//! `diff.md` §5). Every axis is a pure function of the paired turns and the seed.

pub(crate) mod conformance;
pub mod cost;
pub(crate) mod judge;
pub(crate) mod latency;
pub(crate) mod reasoning;
pub(crate) mod safety;
pub(crate) mod semantic;
pub mod trajectory;
pub(crate) mod verbosity;

use crate::changes::pair_changes;
use crate::pricing::Pricing;
use crate::severity::{classify, classify_rate, straddles};
use crate::stats::{mean, median, paired_cis, Sample, Statistic};
use crate::turn::DiffTurn;
use veer_contract::axis::Direction;
use veer_contract::axis::Position;
use veer_contract::axis::{Axis, AxisStat, Flag};

/// How a row's severity is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Relative change against the baseline (continuous axes).
    Continuous,
    /// Absolute change of a rate in [0, 1].
    Rate,
}

/// A row waiting for its bootstrap interval: the point estimates and the paired values.
/// Every row's interval is drawn in one [`paired_cis`] call, where samples of one length share
/// their index stream (the numbers are those of one `paired_ci` per row).
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub axis: Axis,
    pub baseline_median: f64,
    pub candidate_median: f64,
    pub delta: f64,
    pub kind: Kind,
    /// Baseline values (paired by position with `c`).
    pub b: Vec<f64>,
    /// Candidate values.
    pub c: Vec<f64>,
    pub statistic: Statistic,
    /// Flags added after the standard ones (e.g. `no_pricing`).
    pub extra_flags: Vec<Flag>,
    /// The position index (into the positions given to [`compute_axes_at`]) of each
    /// observation; empty means observation i is position i.
    pub idx: Vec<usize>,
    /// Per observation, whether it is filler next to a tool call (semantic only; empty: none).
    pub filler: Vec<bool>,
}

/// An axis row: complete, or waiting for its interval.
#[derive(Debug, Clone)]
pub(crate) enum Row {
    Done(AxisStat),
    Pending(Pending),
}

impl Row {
    /// Adds a flag after the standard ones.
    pub(crate) fn push_flag(&mut self, flag: Flag) {
        match self {
            Row::Done(r) => r.flags.push(flag),
            Row::Pending(p) => p.extra_flags.push(flag),
        }
    }

    /// Says which position each observation comes from (for axes that skip pairs).
    pub(crate) fn with_idx(mut self, idx: Vec<usize>) -> Row {
        if let Row::Pending(p) = &mut self {
            p.idx = idx;
        }
        self
    }

    /// The finished row, drawing its interval on its own.
    pub(crate) fn finish_alone(self, seed: u64) -> AxisStat {
        finish_rows(vec![self], seed, &[])
            .pop()
            .unwrap_or_else(|| AxisStat::empty(Axis::Judge))
    }
}

/// Finishes rows in order, drawing all their intervals together; `at` gives the turns of
/// each position (empty: no per-pair changes are reported).
fn finish_rows(rows: Vec<Row>, seed: u64, at: &[Position]) -> Vec<AxisStat> {
    let samples: Vec<Sample<'_>> = rows
        .iter()
        .filter_map(|r| match r {
            Row::Pending(p) => Some(Sample {
                b: &p.b,
                c: &p.c,
                statistic: p.statistic,
            }),
            Row::Done(_) => None,
        })
        .collect();
    let mut intervals = paired_cis(&samples, seed).into_iter();
    rows.into_iter()
        .map(|r| match r {
            Row::Done(stat) => stat,
            Row::Pending(p) => {
                let ci = intervals.next().unwrap_or(crate::stats::Interval {
                    low: 0.0,
                    median: 0.0,
                    high: 0.0,
                });
                let mut stat = finish_row(
                    p.axis,
                    p.baseline_median,
                    p.candidate_median,
                    p.delta,
                    ci.low,
                    ci.high,
                    p.kind,
                    p.b.len(),
                );
                stat.flags.extend(p.extra_flags);
                let positions: Vec<Position> = if p.idx.is_empty() {
                    at.iter().take(p.b.len()).copied().collect()
                } else {
                    p.idx.iter().filter_map(|&i| at.get(i).copied()).collect()
                };
                (stat.changed_pairs, stat.largest_change) =
                    pair_changes(p.axis, &p.b, &p.c, &positions);
                stat.filler_pairs = p
                    .filler
                    .iter()
                    .zip(p.b.iter().zip(&p.c))
                    .filter(|(&f, (&vb, &vc))| {
                        f && (vc - vb).is_finite() && (vc - vb).abs() >= p.axis.pair_noise_floor(vb)
                    })
                    .count();
                stat
            }
        })
        .collect()
}

/// A row from per-observation values of both sides, waiting for its interval.
pub(crate) fn row_from_values(
    axis: Axis,
    b: &[f64],
    c: &[f64],
    statistic: Statistic,
    kind: Kind,
) -> Row {
    let (bm, cm) = match statistic {
        Statistic::MedianDifference => (median(b), median(c)),
        Statistic::MeanDifference => (mean(b), mean(c)),
    };
    Row::Pending(Pending {
        axis,
        baseline_median: bm,
        candidate_median: cm,
        delta: cm - bm,
        kind,
        b: b.to_vec(),
        c: c.to_vec(),
        statistic,
        extra_flags: Vec::new(),
        idx: Vec::new(),
        filler: Vec::new(),
    })
}

/// Builds a row from already-computed point estimates and bounds, adding severity and flags.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish_row(
    axis: Axis,
    baseline_median: f64,
    candidate_median: f64,
    delta: f64,
    low: f64,
    high: f64,
    kind: Kind,
    n: usize,
) -> AxisStat {
    let severity = match kind {
        Kind::Continuous => classify(delta, baseline_median, low, high),
        Kind::Rate => classify_rate(delta, low, high),
    };
    let mut flags = Vec::new();
    if n > 0 && n < 5 {
        flags.push(Flag::LowPower);
    }
    if low.is_finite() && high.is_finite() && straddles(low, high) {
        flags.push(Flag::CiCrossesZero);
    }
    AxisStat {
        axis,
        baseline_median,
        candidate_median,
        delta,
        ci95_low: low,
        ci95_high: high,
        severity,
        n,
        flags,
        direction: Direction::of(axis, delta, severity),
        changed_pairs: 0,
        largest_change: None,
        filler_pairs: 0,
    }
}

/// The paired turns an axis reads: (baseline turn, candidate turn).
pub type TurnPair<'a> = (&'a DiffTurn<'a>, &'a DiffTurn<'a>);

/// All nine rows in report order. Axes prepare their values in parallel; then every
/// interval is drawn at once (`paired_cis`), so the result does not depend on the thread
/// count and equals one seeded bootstrap per row. No per-pair changes are reported (see
/// `compute_axes_at`).
pub fn compute_axes(pairs: &[TurnPair<'_>], pricing: &Pricing, seed: u64) -> Vec<AxisStat> {
    compute_axes_at(pairs, &[], &[], pricing, seed)
}

/// [`compute_axes`] with the turns of every pair (`at`, parallel to `pairs`) and the turns the
/// pairing left unpaired (`unpaired`: the trajectory observations of 1 per dropped or
/// inserted turn with tool calls, after the pairs). Each row also reports its changed pairs
/// and largest single-pair change.
pub(crate) fn compute_axes_at(
    pairs: &[TurnPair<'_>],
    at: &[Position],
    unpaired: &[Position],
    pricing: &Pricing,
    seed: u64,
) -> Vec<AxisStat> {
    use rayon::prelude::*;
    let positions: Vec<Position> = at.iter().chain(unpaired).copied().collect();
    let rows: Vec<Row> = Axis::ALL
        .par_iter()
        .map(|&axis| match axis {
            Axis::Semantic => semantic::prepare(pairs),
            Axis::Trajectory => {
                trajectory::with_unpaired(trajectory::prepare(pairs), unpaired.len())
            }
            Axis::Safety => safety::prepare(pairs),
            Axis::Verbosity => verbosity::prepare(pairs),
            Axis::Latency => latency::prepare(pairs),
            Axis::Cost => cost::prepare(pairs, pricing),
            Axis::Reasoning => reasoning::prepare(pairs),
            Axis::Judge => Row::Done(judge::row()),
            Axis::Conformance => conformance::prepare(pairs),
        })
        .collect();
    finish_rows(rows, seed, &positions)
}
