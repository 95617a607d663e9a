//! The `structural` block of a diff report: the trace-level contamination metrics of one
//! baseline/candidate pair (spec `cli.md`, `experiment.md`) — normalised edit distance, the
//! first structural divergence t* and the control-flow changes.

use serde::{Deserialize, Serialize};

/// Control-flow changes of the perturbed run against the clean run. Field order is traxr's
/// `to_dict()` order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct ControlFlowChanges {
    /// Aligned substitutions of type `different_agent_routed`; ≥ 0.
    pub reroutes: usize,
    /// max(0, perturbed − clean routing turns).
    pub extra_routing_cycles: usize,
    /// max(0, clean − perturbed routing turns).
    pub missing_routing_cycles: usize,
    /// `tool_success_failure_change` pairs that went from success to failure.
    pub tool_failures_introduced: usize,
    /// `tool_success_failure_change` pairs that went from failure to success.
    pub tool_failures_avoided: usize,
    /// max(0, perturbed − clean `tool_invocation` count).
    pub tool_calls_added: usize,
    /// max(0, clean − perturbed `tool_invocation` count).
    pub tool_calls_removed: usize,
    /// The perturbed run has fewer distinct steps.
    pub early_termination: bool,
    /// The perturbed run has more distinct steps.
    pub extended_execution: bool,
    /// Sum of every count above plus one per true flag.
    pub total_changes: usize,
    /// tool_failures_introduced + tool_failures_avoided.
    pub tool_state_changes: usize,
}

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
