//! The summary of a directory diff: per-axis severity counts, the median per-trace delta, and
//! the worst severity over all trace pairs.

use crate::axes::Axis;
use crate::report::{Aggregate, AxisAggregate, DirectoryPair, Unmatched};
use crate::severity::Severity;
use crate::stats::median;

/// Aggregates the per-pair reports of a directory diff.
pub fn aggregate(pairs: &[DirectoryPair], unmatched: &Unmatched) -> Aggregate {
    let axes = Axis::ALL
        .iter()
        .map(|&axis| {
            let mut a = AxisAggregate {
                axis,
                none: 0,
                minor: 0,
                moderate: 0,
                severe: 0,
                worst_severity: Severity::None,
                median_delta: 0.0,
            };
            let mut deltas = Vec::new();
            for p in pairs {
                if let Some(r) = p.report.axis(axis) {
                    match r.severity {
                        Severity::None => a.none += 1,
                        Severity::Minor => a.minor += 1,
                        Severity::Moderate => a.moderate += 1,
                        Severity::Severe => a.severe += 1,
                    }
                    a.worst_severity = a.worst_severity.max(r.severity);
                    deltas.push(r.delta);
                }
            }
            a.median_delta = median(&deltas);
            a
        })
        .collect::<Vec<_>>();
    Aggregate {
        trace_pairs: pairs.len(),
        unmatched: unmatched.baseline_only.len() + unmatched.candidate_only.len(),
        pair_count: pairs.iter().map(|p| p.report.pair_count).sum(),
        traces_with_divergence: pairs
            .iter()
            .filter(|p| p.report.first_divergence.is_some())
            .count(),
        worst_severity: axes
            .iter()
            .map(|a| a.worst_severity)
            .max()
            .unwrap_or(Severity::None),
        axes,
    }
}
