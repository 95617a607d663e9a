//! Divergence types of aligned events (spec `experiment.md` §3): what kind of difference a
//! substitution, insertion or deletion is.

use crate::events::MetricEvent;
use std::borrow::Cow;
use veer_base::pystr::{py_eq, py_eq_opt};
use veer_trace::Json;

/// The 13 divergence types that count as structural for t* with the built-in vocabulary,
/// sorted by name.
pub(crate) const STRUCTURAL_DIVERGENCE_TYPES: [&str; 13] = [
    "agent_error_introduced",
    "different_action",
    "different_agent_routed",
    "different_entry_type",
    "different_operation",
    "different_tool",
    "different_tool_requested",
    "different_tool_result",
    "event_missing_in_clean",
    "event_missing_in_perturbed",
    "event_type_differs",
    "llm_finish_reason_change",
    "tool_success_failure_change",
];

/// Whether `t` is one of [`STRUCTURAL_DIVERGENCE_TYPES`].
pub(crate) fn is_structural(t: &str) -> bool {
    STRUCTURAL_DIVERGENCE_TYPES.binary_search(&t).is_ok()
}

fn differs(a: &MetricEvent<'_>, b: &MetricEvent<'_>, key: &str) -> bool {
    !py_eq_opt(a.field(key).as_deref(), b.field(key).as_deref())
}

/// `tool_call_names` as traxr compares it: null or absent is `[]`.
fn names<'t>(e: &MetricEvent<'t>) -> Cow<'t, Json> {
    match e.field("tool_call_names") {
        None => Cow::Owned(Json::Array(Box::default())),
        Some(v) if v.is_null() => Cow::Owned(Json::Array(Box::default())),
        Some(v) => v,
    }
}

/// The type of a substitution of `clean` by `perturbed`; `None` when the classifier finds
/// no structural difference (then the pair counts as a match in the alignment).
pub(crate) fn substitution_type(
    clean: &MetricEvent<'_>,
    perturbed: &MetricEvent<'_>,
) -> Option<&'static str> {
    if clean.event_type() != perturbed.event_type() {
        return Some("event_type_differs");
    }
    let (a, b) = (clean, perturbed);
    match clean.event_type() {
        "routing_decision" => differs(a, b, "chosen_agent").then_some("different_agent_routed"),
        "tool_invocation" => {
            if differs(a, b, "tool_name") {
                Some("different_tool")
            } else if differs(a, b, "operation") {
                Some("different_operation")
            } else if differs(a, b, "success") {
                Some("tool_success_failure_change")
            } else {
                None
            }
        }
        "memory_write" => differs(a, b, "entry_type").then_some("different_entry_type"),
        "agent_output" => differs(a, b, "action").then_some("different_action"),
        "tool_failure" => differs(a, b, "tool_name").then_some("different_tool"),
        "llm_call" => {
            if !py_eq(&*names(a), &*names(b)) {
                Some("different_tool_requested")
            } else if differs(a, b, "finish_reason") {
                Some("llm_finish_reason_change")
            } else {
                None
            }
        }
        "tool_request" => differs(a, b, "tool_name").then_some("different_tool_requested"),
        "tool_result" => differs(a, b, "tool_name").then_some("different_tool_result"),
        _ => None,
    }
}

/// The type of an event present only in the perturbed trace.
pub(crate) fn insertion_type(perturbed: &MetricEvent<'_>) -> &'static str {
    if perturbed.event_type() == "agent_error" {
        "agent_error_introduced"
    } else {
        "event_missing_in_clean"
    }
}

/// The type of an event present only in the clean trace.
pub(crate) const DELETION_TYPE: &str = "event_missing_in_perturbed";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::events;
    use crate::spec_cases::trace;
    use serde_json::{json, Value};

    /// The one event of a traxr trace holding `(t, p)` (the trace is leaked: tests only).
    fn ev(t: &'static str, p: Value) -> MetricEvent<'static> {
        let trace: &'static _ = Box::leak(Box::new(trace("t", &[(t, 1, p)])));
        events(trace)[0]
    }

    #[test]
    fn classifiers() {
        let l = |p| ev("llm_call", p);
        assert_eq!(
            substitution_type(
                &l(json!({"tool_call_names": ["search"]})),
                &l(json!({"tool_call_names": ["calc"]}))
            ),
            Some("different_tool_requested")
        );
        assert_eq!(
            substitution_type(
                &l(json!({"finish_reason": "tool_calls"})),
                &l(json!({"finish_reason": "stop", "tool_call_names": null}))
            ),
            Some("llm_finish_reason_change")
        );
        assert_eq!(
            substitution_type(&l(json!({"model": "m1"})), &l(json!({"model": "m2"}))),
            None
        );
        assert_eq!(
            substitution_type(&ev("foo", json!({})), &ev("bar", json!({}))),
            Some("event_type_differs")
        );
        let t = |p| ev("tool_invocation", p);
        assert_eq!(
            substitution_type(
                &t(json!({"tool_name": "a", "success": true})),
                &t(json!({"tool_name": "a", "success": false}))
            ),
            Some("tool_success_failure_change")
        );
        assert_eq!(
            substitution_type(
                &t(json!({"tool_name": "a", "success": 1})),
                &t(json!({"tool_name": "a", "success": true}))
            ),
            None
        );
        assert_eq!(
            insertion_type(&ev("agent_error", json!({}))),
            "agent_error_introduced"
        );
        assert!(is_structural("different_tool"));
        assert!(!is_structural("custom"));
    }
}
