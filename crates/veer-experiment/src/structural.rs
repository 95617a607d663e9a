//! The `structural` block of `veer diff` (spec `cli.md`): the trace-level contamination
//! metrics of one baseline/candidate pair as a plain serde struct.

use crate::divergence::{structural_parts, PreparedTrace, DIAGONAL_BUDGET};
use crate::tstar::FirstDivergence;
use veer_base::edit_script::EditScript;
use veer_contract::structural::ControlFlowChanges;
use veer_contract::structural::{EditDistance, StructuralBlock};
use veer_trace::Trace;

#[cfg(test)]
/// The block of an already computed divergence.
pub(crate) fn block_of_divergence(d: &crate::divergence::DivergenceAnalysis) -> StructuralBlock {
    block_of_parts(&d.script, d.first, d.control_flow)
}

/// The block of an edit script, its first divergence and its control-flow changes.
pub(crate) fn block_of_parts(
    script: &EditScript,
    first: Option<FirstDivergence>,
    control_flow: ControlFlowChanges,
) -> StructuralBlock {
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
        ..block_of_parts(&script, first, control_flow)
    }
}
