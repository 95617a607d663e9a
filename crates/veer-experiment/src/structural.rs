//! The `structural` block of `veer diff` (spec `cli.md`): the trace-level contamination
//! metrics of one baseline/candidate pair as a plain serde struct.

use crate::control_flow::ControlFlowChanges;
use crate::divergence::{structural_parts, Divergence, PreparedTrace, DIAGONAL_BUDGET};
use crate::levenshtein::EditScript;
use crate::tstar::FirstDivergence;
use serde::{Deserialize, Serialize};
use veer_trace::Trace;

/// Edit distance over structural signatures and its decomposition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EditDistance {
    /// Levenshtein distance, in edits; ≥ 0.
    pub distance: usize,
    /// Substitutions on traxr's backtrack path.
    pub substitutions: usize,
    /// Events present only in the candidate.
    pub insertions: usize,
    /// Events present only in the baseline.
    pub deletions: usize,
}

/// Structural divergence of a candidate trace from its baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StructuralBlock {
    /// distance / longer length, in [0, 1]; 0 = identical signatures, 1 = nothing shared
    /// (or one side empty).
    pub d_norm: f64,
    /// Step of the first structural divergence (t*); null when nothing diverged.
    pub t_star: Option<i64>,
    /// t*/T: aligned position / alignment length, in [0, 1); null when nothing diverged.
    pub t_star_norm: Option<f64>,
    /// Divergence type at t* (`different_tool_requested`, `event_missing_in_clean`, …).
    pub first_divergence_type: Option<String>,
    /// Distance and decomposition.
    pub edit_distance: EditDistance,
    /// Control-flow changes (traxr's counters).
    pub control_flow: ControlFlowChanges,
    /// True when the event sequences were past the exact budget (the bit-parallel table would
    /// take more than `BITPARALLEL_WORDS` word operations): the block is read off the
    /// anchored alignment, whose distance is an upper bound. Absent from JSON when false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub approximate: bool,
}

/// serde's `skip_serializing_if` for [`StructuralBlock::approximate`].
fn is_false(b: &bool) -> bool {
    !*b
}

impl StructuralBlock {
    /// The block of an already computed divergence.
    pub fn from_divergence(d: &Divergence) -> Self {
        Self::from_parts(&d.script, d.first, d.control_flow)
    }

    /// The block of an edit script, its first divergence and its control-flow changes.
    pub fn from_parts(
        script: &EditScript,
        first: Option<FirstDivergence>,
        control_flow: ControlFlowChanges,
    ) -> Self {
        StructuralBlock {
            d_norm: script.normalized(),
            t_star: first.map(|f| f.step),
            t_star_norm: first.map(|f| f.normalized_position),
            first_divergence_type: first.map(|f| f.divergence_type.to_string()),
            edit_distance: EditDistance {
                distance: script.distance,
                substitutions: script.substitutions,
                insertions: script.insertions,
                deletions: script.deletions,
            },
            control_flow,
            approximate: false,
        }
    }
}

/// The structural block of `candidate` against `baseline` (either format, or mixed).
pub fn structural(baseline: &Trace, candidate: &Trace) -> StructuralBlock {
    structural_within(baseline, candidate, DIAGONAL_BUDGET)
}

/// [`structural`] with the fast path's work budget set to `max_cells` (`--max-align-cells`):
/// the block is the same for every budget, only time and memory differ (the anchored
/// fallback past `BITPARALLEL_WORDS` does not depend on `max_cells`).
pub fn structural_within(baseline: &Trace, candidate: &Trace, max_cells: u64) -> StructuralBlock {
    let (b, c) = rayon::join(
        || PreparedTrace::new(baseline),
        || PreparedTrace::new(candidate),
    );
    let (script, first, control_flow, exact) = structural_parts(&b, &c, max_cells);
    StructuralBlock {
        approximate: !exact,
        ..StructuralBlock::from_parts(&script, first, control_flow)
    }
}
