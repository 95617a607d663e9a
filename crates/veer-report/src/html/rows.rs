//! Which lane row a divergence, a drill-down pair or a policy finding points at, so the HTML
//! diff can link to it and mark it. A lookup over the rows already built; nothing is measured.

use std::collections::{BTreeMap, BTreeSet};
use veer_contract::divergence::Divergence;
use veer_contract::lanes::{LaneRow, Lanes};

/// One step row, named by its turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum RowKey {
    /// Baseline turn `.0` paired with candidate turn `.1`.
    Pair(usize, usize),
    /// Candidate turn `.0`, inserted.
    Inserted(usize),
    /// Baseline turn `.0`, dropped.
    Dropped(usize),
}

impl RowKey {
    /// The key of a step row.
    pub fn of(row: &LaneRow) -> Option<RowKey> {
        match row {
            LaneRow::Step {
                baseline,
                candidate,
                ..
            } => match (baseline, candidate) {
                (Some(b), Some(c)) => Some(RowKey::Pair(b.turn, c.turn)),
                (None, Some(c)) => Some(RowKey::Inserted(c.turn)),
                (Some(b), None) => Some(RowKey::Dropped(b.turn)),
                (None, None) => None,
            },
            LaneRow::Collapsed { .. } | LaneRow::NotDrawn { .. } => None,
        }
    }

    /// The element id of the row (without the page prefix): `c<j>` when it has a candidate
    /// turn, else `b<i>`.
    pub fn id(self) -> String {
        match self {
            RowKey::Pair(_, j) | RowKey::Inserted(j) => format!("c{j}"),
            RowKey::Dropped(i) => format!("b{i}"),
        }
    }
}

/// The step rows of a lanes view, found by their turns.
#[derive(Debug, Default)]
pub(crate) struct RowIndex {
    keys: BTreeSet<RowKey>,
    by_candidate: BTreeMap<usize, RowKey>,
    by_baseline: BTreeMap<usize, RowKey>,
}

impl RowIndex {
    /// Indexes the step rows of `lanes` (empty without lanes).
    pub fn new(lanes: Option<&Lanes>) -> RowIndex {
        let mut index = RowIndex::default();
        for key in lanes
            .into_iter()
            .flat_map(|l| &l.rows)
            .filter_map(RowKey::of)
        {
            index.keys.insert(key);
            match key {
                RowKey::Pair(i, j) => {
                    index.by_baseline.insert(i, key);
                    index.by_candidate.insert(j, key);
                }
                RowKey::Inserted(j) => {
                    index.by_candidate.insert(j, key);
                }
                RowKey::Dropped(i) => {
                    index.by_baseline.insert(i, key);
                }
            }
        }
        index
    }

    /// The row of a divergence event: the pair row of both its turns, else the inserted row of
    /// its candidate turn, else the dropped row of its baseline turn (gap events carry the
    /// other side's cursor).
    pub fn divergence(&self, d: &Divergence) -> Option<RowKey> {
        [
            RowKey::Pair(d.baseline_turn, d.candidate_turn),
            RowKey::Inserted(d.candidate_turn),
            RowKey::Dropped(d.baseline_turn),
        ]
        .into_iter()
        .find(|k| self.keys.contains(k))
    }

    /// The row showing candidate turn `j`.
    pub fn candidate(&self, j: usize) -> Option<RowKey> {
        self.by_candidate.get(&j).copied()
    }

    /// The row showing baseline turn `i`.
    pub fn baseline(&self, i: usize) -> Option<RowKey> {
        self.by_baseline.get(&i).copied()
    }
}
