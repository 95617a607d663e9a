//! Directory mode's summary for a front end that reads the pairs itself (the Spark job): a
//! [`PairSummary`] per pair, merged associatively, then finished into the report's `aggregate`
//! block — with each axis's median taken from the whole set of deltas, or from the middle
//! element(s) the job found with a distributed sort ([`finish_with_middles`]).

use veer_contract::axis::Axis;
use veer_contract::diff::{Aggregate, DiffReport};
use veer_contract::tool_schema::{SchemaClass, SchemaCounts, ToolSchemaSummary};

/// What one or more trace pairs contribute to a directory summary (merge with
/// [`PairSummary::merge`]; `PairSummary::default()` is the empty summary).
pub use veer_diff::aggregate::PairSummary;

/// The `aggregate` block of `summary` with `unmatched` files found on one side only. Each
/// axis's median delta is the median of the middle values given for it in `middles` (one for
/// an odd count of deltas, the two middle ones for an even count, none for no deltas — median
/// 0); an axis missing from `middles` has median 0. Work is linear in the summary's size.
pub fn finish_with_middles(
    summary: PairSummary,
    unmatched: usize,
    middles: &[(Axis, Vec<f64>)],
) -> Aggregate {
    summary.finish_with_medians(unmatched, |axis, _| {
        let mut values = middles
            .iter()
            .find(|(a, _)| *a == axis)
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        veer_diff::stats::median_in_place(&mut values)
    })
}

/// The directory's tool-schema summary, folded pair by pair in path order
/// ([`SchemaFold::pair`]) and finished into the report's `tool_schema` block.
#[derive(Debug, Clone, Default)]
pub struct SchemaFold {
    pairs_with_changes: usize,
    counts: SchemaCounts,
    tripped_pairs: Vec<String>,
}

impl SchemaFold {
    /// Adds one measured pair (by relative path).
    pub fn pair(&mut self, name: &str, report: &DiffReport) {
        let Some(block) = &report.tool_schema else {
            return;
        };
        self.pairs_with_changes += 1;
        self.counts
            .add(SchemaClass::Breaking, block.counts.breaking);
        self.counts
            .add(SchemaClass::Compatible, block.counts.compatible);
        self.counts
            .add(SchemaClass::Cosmetic, block.counts.cosmetic);
        if block.tripped {
            self.tripped_pairs.push(name.to_string());
        }
    }

    /// The summary block at the gate's threshold; None when no pair's tools changed.
    pub fn finish(self, fail_on: Option<SchemaClass>) -> Option<ToolSchemaSummary> {
        (self.pairs_with_changes > 0).then(|| ToolSchemaSummary {
            pairs_with_changes: self.pairs_with_changes,
            worst: self.counts.worst(),
            counts: self.counts,
            fail_on,
            tripped_pairs: self.tripped_pairs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_come_from_the_middles_given() {
        let middles = vec![
            (Axis::Semantic, vec![0.25, 0.75]),
            (Axis::Trajectory, vec![3.0]),
        ];
        let a = finish_with_middles(PairSummary::default(), 2, &middles);
        let median = |axis: Axis| {
            a.axes
                .iter()
                .find(|x| x.axis == axis)
                .map(|x| x.median_delta)
        };
        assert_eq!(median(Axis::Semantic), Some(0.5));
        assert_eq!(median(Axis::Trajectory), Some(3.0));
        assert_eq!(median(Axis::ALL[8]), Some(0.0));
    }
}
