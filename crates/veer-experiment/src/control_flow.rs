//! Per-trace statistics and control-flow changes between a clean and a perturbed run (spec
//! `experiment.md` §5).

use crate::events::MetricEvent;
use crate::tstar::AlignedPair;
use veer_base::pystr::truthy;
use veer_contract::structural::ControlFlowChanges;

/// Counts describing one trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TraceStats {
    /// Number of distinct `step_num` values (not the maximum).
    pub steps: usize,
    /// Number of events.
    pub events: usize,
    /// Number of `routing_decision` events.
    pub routing_turns: usize,
    /// Number of `tool_invocation` events (not tool requests, results or failures).
    pub tool_calls: usize,
}

/// The statistics of an event list.
pub(crate) fn trace_stats(events: &[MetricEvent<'_>]) -> TraceStats {
    let mut steps: Vec<i64> = events.iter().map(|e| e.step).collect();
    steps.sort_unstable();
    steps.dedup();
    TraceStats {
        steps: steps.len(),
        events: events.len(),
        routing_turns: events
            .iter()
            .filter(|e| e.event_type() == "routing_decision")
            .count(),
        tool_calls: events
            .iter()
            .filter(|e| e.event_type() == "tool_invocation")
            .count(),
    }
}

/// Success of a `tool_invocation` event: absent counts as true, otherwise Python truthiness.
fn succeeded(e: &MetricEvent<'_>) -> bool {
    match e.field("success") {
        None => true,
        Some(v) => truthy(&*v),
    }
}

/// The control-flow changes from the aligned pairs and both traces' statistics.
pub fn control_flow_changes(
    pairs: impl IntoIterator<Item = AlignedPair>,
    clean: &[MetricEvent<'_>],
    perturbed: &[MetricEvent<'_>],
    clean_stats: &TraceStats,
    perturbed_stats: &TraceStats,
) -> ControlFlowChanges {
    let mut c = ControlFlowChanges::default();
    for p in pairs {
        match p.divergence_type {
            Some("different_agent_routed") => c.reroutes += 1,
            Some("tool_success_failure_change") => {
                if let (Some(i), Some(j)) = (p.clean, p.perturbed) {
                    let (before, after) = (succeeded(&clean[i]), succeeded(&perturbed[j]));
                    if before && !after {
                        c.tool_failures_introduced += 1;
                    } else if !before && after {
                        c.tool_failures_avoided += 1;
                    }
                }
            }
            _ => {}
        }
    }
    let (b, q) = (clean_stats, perturbed_stats);
    c.extra_routing_cycles = q.routing_turns.saturating_sub(b.routing_turns);
    c.missing_routing_cycles = b.routing_turns.saturating_sub(q.routing_turns);
    c.tool_calls_added = q.tool_calls.saturating_sub(b.tool_calls);
    c.tool_calls_removed = b.tool_calls.saturating_sub(q.tool_calls);
    c.early_termination = q.steps < b.steps;
    c.extended_execution = q.steps > b.steps;
    c.tool_state_changes = c.tool_failures_introduced + c.tool_failures_avoided;
    c.total_changes = c.reroutes
        + c.extra_routing_cycles
        + c.missing_routing_cycles
        + c.tool_failures_introduced
        + c.tool_failures_avoided
        + c.tool_calls_added
        + c.tool_calls_removed
        + usize::from(c.early_termination)
        + usize::from(c.extended_execution);
    c
}
