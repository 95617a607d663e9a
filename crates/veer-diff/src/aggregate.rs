//! The summary of a directory diff: per-axis severity counts, the median per-trace delta, and
//! the worst severity over all trace pairs.
//!
//! A directory summary is built from [`PairSummary`]s, one per trace pair, merged associatively:
//! the CLI's directory mode folds them in path order as pairs stream past, and a scale-out job
//! (the Python package on Spark) may merge them in any grouping on any number of workers — both
//! finish to the same [`Aggregate`], because every field is a sum, a maximum, or (the medians) a
//! function of the multiset of deltas that does not depend on their order.

use crate::stats::median_in_place;
use serde::{Deserialize, Serialize};
use veer_base::Level;
use veer_contract::axis::Axis;
use veer_contract::axis::Direction;
use veer_contract::diff::{Aggregate, AxisAggregate, DiffReport, DirectoryPair, Unmatched};

/// What one or more trace pairs contribute to a directory summary. `PairSummary::default()`
/// is the empty summary (the identity of [`PairSummary::merge`]). It serializes to JSON and
/// back (a summary read back is checked: the nine axes in axis order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "UncheckedSummary")]
pub struct PairSummary {
    /// Trace pairs summarised (≥ 0).
    pub trace_pairs: usize,
    /// Response pairs compared over those trace pairs.
    pub pair_count: usize,
    /// Trace pairs whose first divergence is not null.
    pub traces_with_divergence: usize,
    /// One entry per axis, always in axis order ([`Axis::ALL`]).
    axes: Vec<AxisSummary>,
}

/// One axis of a [`PairSummary`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AxisSummary {
    /// The axis.
    pub axis: Axis,
    /// Trace pairs with severity none on this axis.
    pub none: usize,
    /// … minor.
    pub minor: usize,
    /// … moderate.
    pub moderate: usize,
    /// … severe.
    pub severe: usize,
    /// Highest severity seen (none when no pair reported the axis).
    pub worst_severity: Level,
    /// Highest severity of a change in the axis's worse direction (none when every change was
    /// an improvement or no pair reported the axis). Absent in summaries written before it
    /// existed, and then none.
    #[serde(default)]
    pub worst_regression: Level,
    /// The axis delta of every summarised pair that reported the axis (axis unit), in merge
    /// order. The exact median needs them all: 8 bytes per pair and axis. A job that computes
    /// the medians elsewhere drops them ([`PairSummary::without_deltas`]) and passes the
    /// medians to [`PairSummary::finish_with_medians`].
    pub deltas: Vec<f64>,
}

impl AxisSummary {
    fn empty(axis: Axis) -> AxisSummary {
        AxisSummary {
            axis,
            none: 0,
            minor: 0,
            moderate: 0,
            severe: 0,
            worst_severity: Level::None,
            worst_regression: Level::None,
            deltas: Vec::new(),
        }
    }

    fn add(&mut self, other: AxisSummary) {
        self.none += other.none;
        self.minor += other.minor;
        self.moderate += other.moderate;
        self.severe += other.severe;
        self.worst_severity = self.worst_severity.max(other.worst_severity);
        self.worst_regression = self.worst_regression.max(other.worst_regression);
        self.deltas.extend(other.deltas);
    }

    /// Trace pairs that reported this axis (≥ 0).
    pub fn count(&self) -> usize {
        self.none + self.minor + self.moderate + self.severe
    }
}

impl Default for PairSummary {
    fn default() -> PairSummary {
        PairSummary {
            trace_pairs: 0,
            pair_count: 0,
            traces_with_divergence: 0,
            axes: Axis::ALL.iter().map(|&a| AxisSummary::empty(a)).collect(),
        }
    }
}

/// A summary as written, before its axes are checked.
#[derive(Deserialize)]
struct UncheckedSummary {
    trace_pairs: usize,
    pair_count: usize,
    traces_with_divergence: usize,
    axes: Vec<AxisSummary>,
}

impl TryFrom<UncheckedSummary> for PairSummary {
    type Error = String;

    fn try_from(u: UncheckedSummary) -> Result<PairSummary, String> {
        if !u.axes.iter().map(|a| a.axis).eq(Axis::ALL.iter().copied()) {
            return Err(format!(
                "a summary lists the nine axes in order ({}); this one lists {} axes",
                Axis::ALL.map(axis_name).join(", "),
                u.axes.len()
            ));
        }
        Ok(PairSummary {
            trace_pairs: u.trace_pairs,
            pair_count: u.pair_count,
            traces_with_divergence: u.traces_with_divergence,
            axes: u.axes,
        })
    }
}

/// The axis's name as the JSON report writes it.
fn axis_name(axis: Axis) -> String {
    serde_json::to_value(axis)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl PairSummary {
    /// The summary of one trace pair's report.
    pub fn of_pair(report: &DiffReport) -> PairSummary {
        let mut s = PairSummary {
            trace_pairs: 1,
            pair_count: report.pair_count,
            traces_with_divergence: usize::from(report.first_divergence.is_some()),
            ..PairSummary::default()
        };
        for a in &mut s.axes {
            if let Some(r) = report.axis(a.axis) {
                match r.severity {
                    Level::None => a.none += 1,
                    Level::Minor => a.minor += 1,
                    Level::Moderate => a.moderate += 1,
                    Level::Severe => a.severe += 1,
                }
                a.worst_severity = r.severity;
                if r.direction == Direction::Regression {
                    a.worst_regression = r.severity;
                }
                a.deltas.push(r.delta);
            }
        }
        s
    }

    /// The nine axes, in axis order.
    pub fn axes(&self) -> &[AxisSummary] {
        &self.axes
    }

    /// The same summary without the per-pair deltas (constant size; finish it with
    /// [`PairSummary::finish_with_medians`]).
    pub fn without_deltas(mut self) -> PairSummary {
        for a in &mut self.axes {
            a.deltas = Vec::new();
        }
        self
    }

    /// Adds `other` to `self`. Associative; commutative up to the order of the deltas, which
    /// no finished field depends on.
    pub fn merge(&mut self, other: PairSummary) {
        self.trace_pairs += other.trace_pairs;
        self.pair_count += other.pair_count;
        self.traces_with_divergence += other.traces_with_divergence;
        for (a, b) in self.axes.iter_mut().zip(other.axes) {
            a.add(b);
        }
    }

    /// The directory summary, with `unmatched` files present on one side only.
    pub fn finish(self, unmatched: usize) -> Aggregate {
        self.finish_with_medians(unmatched, |_, deltas| median_in_place(deltas))
    }

    /// [`PairSummary::finish`] with each axis's median delta given by `median(axis, deltas)`
    /// (for a job that computed the medians itself, e.g. with a distributed sort).
    pub fn finish_with_medians(
        mut self,
        unmatched: usize,
        mut median: impl FnMut(Axis, &mut [f64]) -> f64,
    ) -> Aggregate {
        let axes: Vec<AxisAggregate> = self
            .axes
            .iter_mut()
            .map(|a| AxisAggregate {
                axis: a.axis,
                none: a.none,
                minor: a.minor,
                moderate: a.moderate,
                severe: a.severe,
                worst_severity: a.worst_severity,
                worst_regression: a.worst_regression,
                median_delta: median(a.axis, &mut a.deltas),
            })
            .collect();
        Aggregate {
            trace_pairs: self.trace_pairs,
            error_pairs: 0,
            unmatched,
            pair_count: self.pair_count,
            traces_with_divergence: self.traces_with_divergence,
            worst_severity: axes
                .iter()
                .map(|a| a.worst_severity)
                .max()
                .unwrap_or(Level::None),
            worst_regression: axes
                .iter()
                .map(|a| a.worst_regression)
                .max()
                .unwrap_or(Level::None),
            axes,
        }
    }
}

/// Aggregates the per-pair reports of a directory diff: their summaries merged in order, then
/// finished.
pub fn aggregate(pairs: &[DirectoryPair], unmatched: &Unmatched) -> Aggregate {
    let mut summary = PairSummary::default();
    for p in pairs {
        summary.merge(PairSummary::of_pair(&p.report));
    }
    summary.finish(unmatched.baseline_only.len() + unmatched.candidate_only.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SEVERITIES: [Level; 4] = [Level::None, Level::Minor, Level::Moderate, Level::Severe];

    /// One trace pair as (pair count, diverged, per axis: None when the axis was not reported,
    /// else its severity index, delta and whether the change is in the worse direction).
    type Pair = (usize, bool, Vec<Option<(usize, f64, bool)>>);

    fn summary_of(p: &Pair) -> PairSummary {
        let mut s = PairSummary {
            trace_pairs: 1,
            pair_count: p.0,
            traces_with_divergence: usize::from(p.1),
            ..PairSummary::default()
        };
        for (a, cell) in s.axes.iter_mut().zip(&p.2) {
            if let Some((sev, delta, worse)) = *cell {
                match SEVERITIES[sev] {
                    Level::None => a.none += 1,
                    Level::Minor => a.minor += 1,
                    Level::Moderate => a.moderate += 1,
                    Level::Severe => a.severe += 1,
                }
                a.worst_severity = SEVERITIES[sev];
                if worse {
                    a.worst_regression = SEVERITIES[sev];
                }
                a.deltas.push(delta);
            }
        }
        s
    }

    /// The aggregate by its definition, straight from the pairs: counts, maxima, and the median
    /// of the sorted deltas (mean of the two middle ones for an even count).
    fn by_definition(pairs: &[Pair], unmatched: usize) -> Aggregate {
        let axes: Vec<AxisAggregate> = Axis::ALL
            .iter()
            .enumerate()
            .map(|(i, &axis)| {
                let cells: Vec<(usize, f64, bool)> = pairs.iter().filter_map(|p| p.2[i]).collect();
                let count = |k| cells.iter().filter(|c| c.0 == k).count();
                let mut d: Vec<f64> = cells.iter().map(|c| c.1).collect();
                d.sort_by(f64::total_cmp);
                let n = d.len();
                let median_delta = match n {
                    0 => 0.0,
                    _ if n % 2 == 1 => d[n / 2],
                    _ => (d[n / 2 - 1] + d[n / 2]) / 2.0,
                };
                AxisAggregate {
                    axis,
                    none: count(0),
                    minor: count(1),
                    moderate: count(2),
                    severe: count(3),
                    worst_severity: cells
                        .iter()
                        .map(|c| SEVERITIES[c.0])
                        .max()
                        .unwrap_or(Level::None),
                    worst_regression: cells
                        .iter()
                        .filter(|c| c.2)
                        .map(|c| SEVERITIES[c.0])
                        .max()
                        .unwrap_or(Level::None),
                    median_delta,
                }
            })
            .collect();
        Aggregate {
            trace_pairs: pairs.len(),
            error_pairs: 0,
            unmatched,
            pair_count: pairs.iter().map(|p| p.0).sum(),
            traces_with_divergence: pairs.iter().filter(|p| p.1).count(),
            worst_severity: axes
                .iter()
                .map(|a| a.worst_severity)
                .max()
                .unwrap_or_default(),
            worst_regression: axes
                .iter()
                .map(|a| a.worst_regression)
                .max()
                .unwrap_or_default(),
            axes,
        }
    }

    fn pair() -> impl Strategy<Value = Pair> {
        let cell = proptest::option::of((
            0..4usize,
            prop_oneof![-3.0..3.0f64, Just(0.0), Just(1.5)],
            any::<bool>(),
        ));
        (
            0..50usize,
            any::<bool>(),
            proptest::collection::vec(cell, 9),
        )
    }

    /// Merges `parts` as a random binary tree (the `cuts` pick where each range splits).
    fn merge_tree(parts: &[PairSummary], cuts: &mut impl Iterator<Item = usize>) -> PairSummary {
        match parts.len() {
            0 => PairSummary::default(),
            1 => parts[0].clone(),
            n => {
                let at = 1 + cuts.next().unwrap_or(0) % (n - 1);
                let mut left = merge_tree(&parts[..at], cuts);
                left.merge(merge_tree(&parts[at..], cuts));
                left
            }
        }
    }

    proptest! {
        #[test]
        fn any_grouping_and_order_finishes_to_the_definition(
            pairs in proptest::collection::vec(pair(), 0..40),
            cuts in proptest::collection::vec(any::<usize>(), 64),
            rotation in any::<usize>(),
            unmatched in 0..5usize,
        ) {
            let expected = by_definition(&pairs, unmatched);
            let mut summaries: Vec<PairSummary> = pairs.iter().map(summary_of).collect();
            let mut in_order = PairSummary::default();
            for s in &summaries {
                in_order.merge(s.clone());
            }
            prop_assert_eq!(&in_order.clone().finish(unmatched), &expected);
            if !summaries.is_empty() {
                let k = rotation % summaries.len();
                summaries.rotate_left(k);
            }
            let tree = merge_tree(&summaries, &mut cuts.into_iter().cycle());
            prop_assert_eq!(&tree.clone().finish(unmatched), &expected);
            // Through JSON and back, as a scale-out job ships them.
            let json = serde_json::to_string(&tree).unwrap();
            let back: PairSummary = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(&back, &tree);
        }
    }

    #[test]
    fn given_medians_replace_the_deltas() {
        let pairs: Vec<Pair> = (0..5)
            .map(|i| (2, i % 2 == 0, vec![Some((i % 4, i as f64, i % 3 == 0)); 9]))
            .collect();
        let mut s = PairSummary::default();
        for p in &pairs {
            s.merge(summary_of(p));
        }
        let full = s.clone().finish(1);
        let light = s.without_deltas();
        assert!(light
            .axes()
            .iter()
            .all(|a| a.deltas.is_empty() && a.count() == 5));
        let given = light.finish_with_medians(1, |axis, deltas| {
            assert!(deltas.is_empty());
            full.axes
                .iter()
                .find(|a| a.axis == axis)
                .map_or(f64::NAN, |a| a.median_delta)
        });
        assert_eq!(given, full);
        assert_eq!(full.axes[0].median_delta, 2.0);
    }

    #[test]
    fn a_summary_missing_axes_is_refused() {
        let mut v = serde_json::to_value(PairSummary::default()).unwrap();
        v["axes"].as_array_mut().unwrap().pop();
        let err = serde_json::from_value::<PairSummary>(v)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("nine axes in order (semantic, trajectory"),
            "{err}"
        );
    }
}
