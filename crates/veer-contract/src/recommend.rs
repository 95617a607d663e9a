//! The recommendations and drill-down of a diff report: what to look at first, and the pairs
//! with the highest regression score (spec `diff.md` §9–§10).

use crate::axis::{Axis, Position};
use serde::{Deserialize, Serialize};

/// How urgent a recommendation is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RecSeverity {
    /// Informational.
    Info,
    /// Worth a look.
    Warning,
    /// Likely a regression.
    Error,
}

/// What the recommendation asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Put back something the candidate lost.
    Restore,
    /// Remove something the candidate added.
    Remove,
    /// Revert a changed value.
    Revert,
    /// Look at a change.
    Review,
    /// Confirm a change was intended.
    Verify,
    /// A likely cause behind several axes.
    RootCause,
}

/// One recommendation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Recommendation {
    /// Urgency.
    pub severity: RecSeverity,
    /// What to do.
    pub action: Action,
    /// The baseline turn concerned (0 for trace-wide advice).
    pub turn: usize,
    /// Baseline turn.
    pub baseline_turn: usize,
    /// Candidate turn.
    pub candidate_turn: usize,
    /// One sentence for the reader.
    pub message: String,
    /// Why.
    pub rationale: String,
    /// The axis concerned.
    pub axis: Axis,
    /// Confidence in [0, 1].
    pub confidence: f64,
    /// The turns the recommendation derives from: the divergence's turns, or the largest
    /// single-pair change of each axis a root-cause rule reads (one side null for a dropped
    /// or inserted turn). Empty only when the cited axes report no per-pair change.
    pub evidence: Vec<Position>,
}

/// One axis of one pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairAxisScore {
    /// The axis.
    pub axis: Axis,
    /// Baseline value (axis unit).
    pub baseline_value: f64,
    /// Candidate value (axis unit).
    pub candidate_value: f64,
    /// `candidate_value − baseline_value`.
    pub delta: f64,
    /// The change scaled to a common range, in [0, 4].
    pub normalized_delta: f64,
}

/// The drill-down of one pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairDrilldown {
    /// Index of the pair in the pair list.
    pub pair_index: usize,
    /// Baseline turn of the pair.
    pub baseline_turn: usize,
    /// Candidate turn of the pair.
    pub candidate_turn: usize,
    /// Eight scores in axis order (judge omitted).
    pub axis_scores: Vec<PairAxisScore>,
    /// Sum of the normalised deltas, in [0, 32].
    pub regression_score: f64,
    /// The axis with the largest normalised delta (the last one on ties).
    pub dominant_axis: Axis,
}
