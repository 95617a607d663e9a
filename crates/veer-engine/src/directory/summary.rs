//! Directory mode's summary for a front end that reads the pairs itself (the Spark job): a
//! [`PairSummary`] per pair, merged associatively, then finished into the report's `aggregate`
//! block — with each axis's median taken from the whole set of deltas, or from the middle
//! element(s) the job found with a distributed sort ([`finish_with_middles`]).

use veer_contract::axis::Axis;
use veer_contract::diff::{Aggregate, DirectoryPair};
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
    /// Adds one measured pair; a quarantined pair's changes are counted but never listed as
    /// tripping the gate.
    pub fn pair(&mut self, pair: &DirectoryPair) {
        let Some(block) = &pair.report.tool_schema else {
            return;
        };
        self.pairs_with_changes += 1;
        let c = &block.counts;
        self.counts.add(SchemaClass::Breaking, c.breaking);
        self.counts.add(SchemaClass::Compatible, c.compatible);
        self.counts.add(SchemaClass::Cosmetic, c.cosmetic);
        if block.tripped && pair.quarantined.is_none() {
            self.tripped_pairs.push(pair.baseline.clone());
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

    #[test]
    fn the_schema_summary_counts_every_pair_and_lists_the_tripping_ones_not_quarantined() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/tool-schema"
        );
        let read = |side: &str| {
            veer_trace::load_trace(
                std::path::Path::new(&format!("{dir}/{side}.agentlog")),
                &veer_trace::ReadOptions::default(),
            )
            .unwrap()
        };
        let options = crate::DiffOptions {
            fail_on_schema: Some(SchemaClass::Breaking),
            ..crate::DiffOptions::default()
        };
        let (b, c) = (read("baseline"), read("candidate"));
        let pair = |name: &str, same: bool, quarantined: bool| {
            let other = if same { &b } else { &c };
            let (report, _) =
                crate::diff::diff(&b, other, ("b", "c"), &options, veer_base::Level::None);
            DirectoryPair {
                baseline: name.into(),
                candidate: name.into(),
                report,
                quarantined: quarantined.then(|| veer_contract::quarantine::QuarantineMark {
                    reason: "flaky".into(),
                    expires: "2099-01-01".into(),
                }),
            }
        };
        let mut fold = SchemaFold::default();
        fold.pair(&pair("a", false, false));
        fold.pair(&pair("same", true, false));
        fold.pair(&pair("q", false, true));
        let s = fold.finish(Some(SchemaClass::Breaking)).unwrap();
        assert_eq!(s.pairs_with_changes, 2);
        assert_eq!(s.counts.breaking, 4);
        assert_eq!(s.tripped_pairs, ["a"]);
        assert!(SchemaFold::default().finish(None).is_none());
    }
}
