//! The divergence analysis of one clean/perturbed pair (traxr's `DivergenceReport`, spec
//! `experiment.md` §2–§6): edit distance, alignment, t*, control flow, statistics, answers.

use crate::answers::{report_answer_changed, trace_answer, TraceAnswer};
use crate::control_flow::{control_flow_changes, trace_stats, ControlFlowChanges, TraceStats};
use crate::diagonal::edit_script_diagonal;
use crate::events::{events, MetricEvent};
use crate::levenshtein::{edit_script, EditScript};
use crate::signatures::{signature, Interner};
use crate::tstar::{aligned_pairs, first_divergence, AlignedPair, FirstDivergence};
use veer_trace::Trace;

/// One trace prepared for comparison: its events and their signatures.
#[derive(Debug, Clone)]
pub struct PreparedTrace<'t> {
    /// The trace.
    pub trace: &'t Trace,
    /// Its events, in order.
    pub events: Vec<MetricEvent<'t>>,
    /// One signature per event.
    pub signatures: Vec<String>,
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
        let signatures = events.iter().map(|e| signature(e, &mut warnings)).collect();
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
pub struct Divergence {
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

impl Divergence {
    /// d_norm = distance / max(m, n), unrounded, in [0, 1]; 0 = identical signatures.
    pub fn d_norm(&self) -> f64 {
        self.script.normalized()
    }
}

/// Interns two signature lists with one shared table.
fn interned(clean: &[String], perturbed: &[String]) -> (Vec<u32>, Vec<u32>) {
    let mut interner = Interner::new();
    let a = clean.iter().map(|s| interner.intern(s)).collect();
    let b = perturbed.iter().map(|s| interner.intern(s)).collect();
    (a, b)
}

/// Tables up to this many cells are filled directly (faster than fronts for tiny traces).
const SMALL_TABLE: u64 = 1 << 16;

/// The edit script of two interned signature lists within a work budget of `max_cells`
/// (cells of the full table, 1 byte each, or a quarter as many 4-byte diagonal entries).
/// Every path gives the same script; None when the budget is too small for this pair.
pub fn bounded_script(a: &[u32], b: &[u32], max_cells: u64) -> Option<EditScript> {
    let full = (a.len() as u64 + 1).saturating_mul(b.len() as u64 + 1);
    if full <= SMALL_TABLE.min(max_cells) {
        return Some(edit_script(a, b));
    }
    edit_script_diagonal(a, b, max_cells / 4)
        .or_else(|| (full <= max_cells).then(|| edit_script(a, b)))
}

/// Analyses a prepared clean trace against a prepared perturbed trace (no work budget).
pub fn analyze(clean: &PreparedTrace<'_>, perturbed: &PreparedTrace<'_>) -> Divergence {
    let (a, b) = interned(&clean.signatures, &perturbed.signatures);
    let script = bounded_script(&a, &b, u64::MAX).unwrap_or_else(|| edit_script(&a, &b));
    finish(clean, perturbed, script)
}

/// [`analyze`] within a work budget (see [`bounded_script`]); None when over it.
pub fn analyze_within(
    clean: &PreparedTrace<'_>,
    perturbed: &PreparedTrace<'_>,
    max_cells: u64,
) -> Option<Divergence> {
    let (a, b) = interned(&clean.signatures, &perturbed.signatures);
    let script = bounded_script(&a, &b, max_cells)?;
    Some(finish(clean, perturbed, script))
}

/// Everything that follows from the edit script.
fn finish(
    clean: &PreparedTrace<'_>,
    perturbed: &PreparedTrace<'_>,
    script: EditScript,
) -> Divergence {
    let aligned = aligned_pairs(&script, &clean.events, &perturbed.events);
    let first = first_divergence(&aligned, &clean.events, &perturbed.events);
    let (clean_stats, perturbed_stats) = (clean.stats, perturbed.stats);
    let control_flow = control_flow_changes(
        &aligned,
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
    Divergence {
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

/// Analyses two traces (events and signatures derived on the spot).
pub fn analyze_traces(clean: &Trace, perturbed: &Trace) -> Divergence {
    analyze(&PreparedTrace::new(clean), &PreparedTrace::new(perturbed))
}
