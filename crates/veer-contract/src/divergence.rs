//! Where two runs part: the alignment events of a diff (first divergence and the ranked
//! divergences), how the responses were paired and whether the alignment was exact (spec
//! `diff.md` §6–§8).

use crate::axis::Axis;
use serde::{Deserialize, Serialize};

/// What kind of behaviour change an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DivergenceKind {
    /// Tool calls changed: added, dropped, reshaped, repeated; or whole turns inserted/dropped.
    Structural,
    /// Same tools, different decision: stop reason, an argument value, or the text's content.
    Decision,
    /// Cosmetic wording change only.
    Style,
}

impl DivergenceKind {
    /// Ranking weight: structural 3, decision 2, style 1.
    pub fn rank(self) -> u8 {
        match self {
            DivergenceKind::Structural => 3,
            DivergenceKind::Decision => 2,
            DivergenceKind::Style => 1,
        }
    }

    /// The wire label (`structural`, `decision`, `style`).
    pub fn label(self) -> &'static str {
        match self {
            DivergenceKind::Structural => "structural",
            DivergenceKind::Decision => "decision",
            DivergenceKind::Style => "style",
        }
    }
}

/// One divergence event between the traces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Divergence {
    /// Baseline turn (0-based; may equal the baseline length for insertions at the end).
    pub baseline_turn: usize,
    /// Candidate turn (0-based; may equal the candidate length for deletions at the end).
    pub candidate_turn: usize,
    /// Kind of change.
    pub kind: DivergenceKind,
    /// The axis the change shows on (`trajectory`, `safety` or `semantic`).
    pub primary_axis: Axis,
    /// One sentence naming what changed.
    pub explanation: String,
    /// Confidence in [0, 1]: 1.0 for gaps, `(cost − 0.12) / 0.88` for pairs, `1 − sim` for
    /// style events.
    pub confidence: f64,
}

/// How the turn alignment behind `first_divergence` and `divergences` was computed.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AlignmentKind {
    /// veer's exact Gotoh optimum (or no alignment: a side is empty).
    #[default]
    Exact,
    /// Past `--max-align-cells`: anchored on turns identical on both sides, exact between
    /// them ([`anchored`]).
    Anchored,
}

impl AlignmentKind {
    /// True for [`AlignmentKind::Exact`] (the report omits the field then).
    pub(crate) fn is_exact(&self) -> bool {
        *self == AlignmentKind::Exact
    }
}

/// How responses are paired.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum PairBy {
    /// Index pairing when the alignment pairs every turn one-to-one in order (then both give
    /// the same pairs), alignment pairing otherwise. The default; a report never says `auto`
    /// in `pairing` (it names the pairing used).
    #[default]
    Auto,
    /// The i-th response of baseline session k with the i-th of candidate session k (the
    /// reference tool's numbers).
    Index,
    /// The `Match` steps of the first-divergence alignment, in path order.
    Alignment,
}

impl PairBy {
    /// The wire label (`auto`, `index`, `alignment`).
    pub fn label(self) -> &'static str {
        match self {
            PairBy::Auto => "auto",
            PairBy::Index => "index",
            PairBy::Alignment => "alignment",
        }
    }
}
