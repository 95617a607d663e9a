//! The divergence analysis of one clean/perturbed pair (traxr's `DivergenceReport`, spec
//! `experiment.md` §2–§6): edit distance, alignment, t*, control flow, statistics, answers.

use crate::answers::{report_answer_changed, trace_answer, TraceAnswer};
use crate::bitparallel::edit_script_bitparallel;
use crate::control_flow::{control_flow_changes, trace_stats, TraceStats};
use crate::diagonal::edit_script_diagonal;
use crate::events::{events, MetricEvent};
use crate::signatures::{shared_ids, Signatures};
use crate::tstar::{
    aligned_iter, aligned_pairs, divergence_at, first_divergence, AlignedPair, FirstDivergence,
};
use veer_base::edit_script::{edit_script, EditScript};
use veer_contract::structural::ControlFlowChanges;
use veer_trace::Trace;

/// One trace prepared for comparison: its events and their signatures.
#[derive(Debug, Clone)]
pub struct PreparedTrace<'t> {
    /// The trace.
    pub trace: &'t Trace,
    /// Its events, in order.
    pub events: Vec<MetricEvent<'t>>,
    /// One signature per event, interned.
    pub signatures: Signatures,
    /// Rendering warnings (unusual values in signature fields).
    pub warnings: Vec<String>,
    /// Step, event, routing and tool-call counts.
    pub stats: TraceStats,
    /// The run's answer (report level).
    pub answer: TraceAnswer,
}

impl<'t> PreparedTrace<'t> {
    /// Derives the events and signatures of `trace`.
    pub fn new(trace: &'t Trace) -> Self {
        let events = events(trace);
        let mut warnings = Vec::new();
        let signatures = Signatures::of(&events, &mut warnings);
        PreparedTrace {
            trace,
            stats: trace_stats(&events),
            answer: trace_answer(trace, &events),
            events,
            signatures,
            warnings: warnings
                .into_iter()
                .map(|w| format!("{}: {w}", trace.source))
                .collect(),
        }
    }
}

/// Everything traxr's analyzer reports about one pair.
#[derive(Debug, Clone)]
pub struct DivergenceAnalysis {
    /// Distance, decomposition and alignment over signatures.
    pub script: EditScript,
    /// The aligned pairs, in forward order.
    pub aligned: Vec<AlignedPair>,
    /// The first structural divergence, if any.
    pub first: Option<FirstDivergence>,
    /// Control-flow changes.
    pub control_flow: ControlFlowChanges,
    /// Statistics of the clean trace.
    pub clean_stats: TraceStats,
    /// Statistics of the perturbed trace.
    pub perturbed_stats: TraceStats,
    /// The clean run's answer (report level).
    pub clean_answer: TraceAnswer,
    /// The perturbed run's answer (report level).
    pub perturbed_answer: TraceAnswer,
    /// Report-level `answer_changed` (§6).
    pub answer_changed: bool,
    /// Warnings raised while rendering signatures.
    pub warnings: Vec<String>,
}

impl DivergenceAnalysis {
    /// d_norm = distance / max(m, n), unrounded, in [0, 1]; 0 = identical signatures.
    pub fn d_norm(&self) -> f64 {
        self.script.normalized()
    }
}

/// Tables up to this many cells are filled directly (faster than fronts for tiny traces).
const SMALL_TABLE: u64 = 1 << 16;

/// Most row numbers the diagonal fronts may hold whatever the budget (2^22: 16 MiB, distances
/// up to about 2,000). Past that the banded bit-parallel table is as fast (its band is about
/// as wide as the distance) in a fraction of the memory: on two 200,000-event traces 9,600
/// edits apart the fronts gave up at the default budget after filling 67 MB.
const DIAGONAL_CAP: u64 = 1 << 22;

/// The edit script of two interned signature lists, exact at any length and distance. The
/// paths differ only in speed and memory, never in the script: a small table is filled
/// directly; otherwise the diagonal fronts are tried while they hold at most `max_cells / 4`
/// entries and at most [`DIAGONAL_CAP`] (near-identical traces: milliseconds), and past that the bit-parallel table with a
/// checkpointed backtrack ([`crate::bitparallel`]) computes it in O(m·n/64) word operations.
pub(crate) fn bounded_script(a: &[u32], b: &[u32], max_cells: u64) -> EditScript {
    let full = (a.len() as u64 + 1).saturating_mul(b.len() as u64 + 1);
    if full <= SMALL_TABLE {
        return edit_script(a, b);
    }
    edit_script_diagonal(a, b, (max_cells / 4).min(DIAGONAL_CAP))
        .unwrap_or_else(|| edit_script_bitparallel(a, b))
}

/// Word operations (m·n/64) up to which [`budgeted_script`] still takes the exact bit-parallel
/// route: 2^28 (about a second); past it the anchored alignment of
/// [`veer_base::edit_script::anchored`] is used. Independent of `--max-align-cells`.
pub(crate) const BITPARALLEL_WORDS: u64 = 1 << 28;

/// [`bounded_script`] with a budget on its last, quadratic, route: when the diagonal fronts
/// give up and the bit-parallel table would take more than [`BITPARALLEL_WORDS`] word
/// operations, the anchored alignment (an upper bound of the distance, near-linear time) is
/// returned instead, with `false` (not exact).
pub(crate) fn budgeted_script(a: &[u32], b: &[u32], max_cells: u64) -> (EditScript, bool) {
    let full = (a.len() as u64 + 1).saturating_mul(b.len() as u64 + 1);
    if full <= SMALL_TABLE {
        return (edit_script(a, b), true);
    }
    if let Some(script) = edit_script_diagonal(a, b, (max_cells / 4).min(DIAGONAL_CAP)) {
        return (script, true);
    }
    if (a.len() as u64).saturating_mul(b.len() as u64) / 64 <= BITPARALLEL_WORDS {
        return (edit_script_bitparallel(a, b), true);
    }
    (
        veer_base::edit_script::anchored::anchored_script(a, b),
        false,
    )
}

/// Analyses a prepared clean trace against a prepared perturbed trace.
pub fn analyze(clean: &PreparedTrace<'_>, perturbed: &PreparedTrace<'_>) -> DivergenceAnalysis {
    analyze_within(clean, perturbed, DIAGONAL_BUDGET)
}

/// Default work budget of the diagonal fronts (`--max-align-cells`): 2^26 cells.
pub(crate) const DIAGONAL_BUDGET: u64 = 1 << 26;

/// [`analyze`] with the diagonal fronts limited to `max_cells / 4` entries (see
/// [`bounded_script`]); the result is the same for every budget.
pub(crate) fn analyze_within(
    clean: &PreparedTrace<'_>,
    perturbed: &PreparedTrace<'_>,
    max_cells: u64,
) -> DivergenceAnalysis {
    let (a, b) = shared_ids(&clean.signatures, &perturbed.signatures);
    let script = bounded_script(a, &b, max_cells);
    drop(b);
    finish(clean, perturbed, script)
}

/// What the `structural` block needs of a pair — the edit script, the first divergence, the
/// control-flow changes and whether the script is exact — as `analyze_within` finds them
/// (below `BITPARALLEL_WORDS`; past it from `budgeted_script`'s anchored alignment), in
/// one pass over the alignment instead of holding its pairs (64 bytes each).
pub fn structural_parts(
    clean: &PreparedTrace<'_>,
    perturbed: &PreparedTrace<'_>,
    max_cells: u64,
) -> (
    EditScript,
    Option<FirstDivergence>,
    ControlFlowChanges,
    bool,
) {
    let (a, b) = shared_ids(&clean.signatures, &perturbed.signatures);
    let (script, exact) = budgeted_script(a, &b, max_cells);
    drop(b);
    let (c, p) = (&clean.events[..], &perturbed.events[..]);
    let total = script.ops.len();
    let mut first = None;
    let pairs = aligned_iter(&script, c, p).inspect(|pair| {
        if first.is_none() {
            first = divergence_at(pair, total, c, p);
        }
    });
    let control_flow = control_flow_changes(pairs, c, p, &clean.stats, &perturbed.stats);
    (script, first, control_flow, exact)
}

/// Everything that follows from the edit script.
fn finish(
    clean: &PreparedTrace<'_>,
    perturbed: &PreparedTrace<'_>,
    script: EditScript,
) -> DivergenceAnalysis {
    let aligned = aligned_pairs(&script, &clean.events, &perturbed.events);
    let first = first_divergence(&aligned, &clean.events, &perturbed.events);
    let (clean_stats, perturbed_stats) = (clean.stats, perturbed.stats);
    let control_flow = control_flow_changes(
        aligned.iter().copied(),
        &clean.events,
        &perturbed.events,
        &clean_stats,
        &perturbed_stats,
    );
    let clean_answer = clean.answer.clone();
    let perturbed_answer = perturbed.answer.clone();
    let answer_changed = report_answer_changed(&clean_answer, &perturbed_answer);
    let mut warnings = clean.warnings.clone();
    warnings.extend(perturbed.warnings.iter().cloned());
    DivergenceAnalysis {
        script,
        aligned,
        first,
        control_flow,
        clean_stats,
        perturbed_stats,
        clean_answer,
        perturbed_answer,
        answer_changed,
        warnings,
    }
}

#[cfg(test)]
/// Analyses two traces (events and signatures derived on the spot).
pub(crate) fn analyze_traces(clean: &Trace, perturbed: &Trace) -> DivergenceAnalysis {
    analyze(&PreparedTrace::new(clean), &PreparedTrace::new(perturbed))
}
