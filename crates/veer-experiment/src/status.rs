//! Agent kind and run status for trace-file inputs (spec `experiment.md` §11.1 **veer:**).

use crate::events::MetricEvent;

/// Event types only traxr's built-in multi-agent runner emits.
pub(crate) const BUILTIN_ONLY_TYPES: [&str; 8] = [
    "routing_decision",
    "tool_invocation",
    "memory_write",
    "memory_read",
    "retrieval_shown",
    "agent_output",
    "tool_failure",
    "agent_halt",
];

/// Which kind of agent produced a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    /// traxr's built-in agent (capture tier `builtin`).
    Builtin,
    /// An external agent (capture tier `tier0`); every `.agentlog` run is external.
    External,
}

impl AgentKind {
    /// `builtin` when the baseline has any built-in-vocabulary event, else `external`.
    pub fn of_baseline(events: &[MetricEvent<'_>]) -> AgentKind {
        if events
            .iter()
            .any(|e| BUILTIN_ONLY_TYPES.contains(&e.event_type()))
        {
            AgentKind::Builtin
        } else {
            AgentKind::External
        }
    }

    /// `builtin` / `external`.
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Builtin => "builtin",
            AgentKind::External => "external",
        }
    }

    /// `builtin` / `tier0`.
    pub fn capture_tier(self) -> &'static str {
        match self {
            AgentKind::Builtin => "builtin",
            AgentKind::External => "tier0",
        }
    }
}

/// A run's status: `crashed` when the last event is an `agent_error`; `empty` (built-in: no
/// events; external: no LLM call); else `ok`.
pub fn run_status(kind: AgentKind, events: &[MetricEvent<'_>]) -> &'static str {
    let empty = match kind {
        AgentKind::Builtin => events.is_empty(),
        AgentKind::External => !events.iter().any(|e| e.event_type() == "llm_call"),
    };
    if events
        .last()
        .is_some_and(|e| e.event_type() == "agent_error")
    {
        "crashed"
    } else if empty {
        "empty"
    } else {
        "ok"
    }
}
