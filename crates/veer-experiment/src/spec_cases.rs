//! The concrete cases of spec `experiment.md` §14.3 (t*, control flow, outcome and report,
//! cost), on traxr traces built in memory.

use crate::divergence::analyze_traces;
use crate::pair_report::{pair_report, PairOptions};
use crate::token_overhead::cost_from_events;
use serde_json::{json, Value};
use veer_contract::experiment::PairReport;
use veer_trace::traxr::trace_from_value;
use veer_trace::{ReadOptions, Trace};

/// A traxr trace from `(event_type, step, payload)` triples.
pub(crate) fn trace(label: &str, events: &[(&str, i64, Value)]) -> Trace {
    let list: Vec<Value> = events
        .iter()
        .enumerate()
        .map(|(i, (t, s, p))| {
            json!({"event_type": t, "sequence_index": i, "step_num": s, "agent_name": "a", "payload": p})
        })
        .collect();
    trace_from_value(
        "mem",
        "",
        json!({"run_label": label, "events": list}),
        None,
        &ReadOptions::default(),
    )
    .unwrap()
}

fn route(agent: &str, step: i64) -> (&'static str, i64, Value) {
    (
        "routing_decision",
        step,
        json!({"chosen_agent": agent, "reasoning_hash": "r"}),
    )
}

fn tool(success: bool, step: i64) -> (&'static str, i64, Value) {
    (
        "tool_invocation",
        step,
        json!({"tool_name": "csv", "operation": "read", "success": success}),
    )
}

fn final_answer(answer: &str, hash: &str, step: i64) -> (&'static str, i64, Value) {
    (
        "final_answer",
        step,
        json!({"answer": answer, "answer_hash": hash}),
    )
}

fn llm(names: &[&str], finish: &str, step: i64) -> (&'static str, i64, Value) {
    (
        "llm_call",
        step,
        json!({"model": "m", "finish_reason": finish, "tool_call_names": names}),
    )
}

fn report(a: &[(&str, i64, Value)], b: &[(&str, i64, Value)]) -> PairReport {
    pair_report(
        &trace("clean", a),
        &trace("perturbed", b),
        &[],
        &PairOptions::default(),
    )
}

#[test]
fn t_star_cases_10_to_21() {
    let base = [
        route("planner", 1),
        tool(true, 2),
        route("analyst", 3),
        final_answer("42", "h", 4),
    ];
    let r = report(&base, &base);
    assert_eq!(
        (
            r.edit_distance.distance,
            r.t_star,
            r.first_divergence_type.clone()
        ),
        (0, None, None)
    );
    assert_eq!((r.t_star_norm, r.answer_changed), (None, false));

    let mut rerouted = base.clone();
    rerouted[2] = route("critic", 3);
    let r = report(&base, &rerouted);
    assert_eq!(r.t_star, Some(3));
    assert_eq!(r.divergence_type.as_deref(), Some("different_agent_routed"));
    assert_eq!(r.t_star_norm, Some(0.5));

    let a = [(
        "routing_decision",
        1,
        json!({"chosen_agent": "p", "reasoning_hash": "x"}),
    )];
    let b = [(
        "routing_decision",
        1,
        json!({"chosen_agent": "p", "reasoning_hash": "y"}),
    )];
    assert_eq!(report(&a, &b).t_star, None);

    let r = report(
        &[route("planner", 1), tool(true, 2)],
        &[route("planner", 1)],
    );
    assert_eq!(
        (r.t_star, r.divergence_type.as_deref()),
        (Some(2), Some("event_missing_in_perturbed"))
    );
    let r = report(
        &[route("planner", 1)],
        &[
            route("planner", 1),
            ("memory_write", 2, json!({"entry_type": "note"})),
        ],
    );
    assert_eq!(
        (r.t_star, r.divergence_type.as_deref()),
        (Some(2), Some("event_missing_in_clean"))
    );

    let r = report(
        &[llm(&["search"], "tool_calls", 1)],
        &[llm(&["calc"], "tool_calls", 1)],
    );
    assert_eq!(
        r.divergence_type.as_deref(),
        Some("different_tool_requested")
    );
    let r = report(&[llm(&[], "tool_calls", 1)], &[llm(&[], "stop", 1)]);
    assert_eq!(
        r.divergence_type.as_deref(),
        Some("llm_finish_reason_change")
    );
    let r = report(
        &[("tool_result", 1, json!({"tool_name": "search"}))],
        &[("tool_result", 1, json!({"tool_name": "calc"}))],
    );
    assert_eq!(r.divergence_type.as_deref(), Some("different_tool_result"));
    let r = report(
        &[llm(&[], "stop", 1)],
        &[
            llm(&[], "stop", 1),
            ("agent_error", 2, json!({"exc_type": "TimeoutError"})),
        ],
    );
    assert_eq!(
        (r.t_star, r.divergence_type.as_deref()),
        (Some(2), Some("agent_error_introduced"))
    );

    let chain = |n: &str| {
        vec![
            llm(&[n], "tool_calls", 1),
            ("tool_request", 1, json!({"tool_name": n})),
            ("tool_result", 1, json!({"tool_name": n})),
        ]
    };
    let r = report(&chain("search"), &chain("calc"));
    assert_eq!((r.edit_distance.distance, r.d_norm), (3, 1.0));

    let r = report(&[route("A", 1)], &[route("A", 5), route("A", 6)]);
    assert_eq!((r.t_star, r.t_star_norm), (Some(5), Some(0.0)));
    let r = report(
        &[route("A", 1), route("B", 2)],
        &[route("A", 1), route("B", 2), route("C", 3)],
    );
    assert_eq!(r.t_star_norm, Some(2.0 / 3.0));
    let r = report(
        &[route("A", 1), route("B", 2)],
        &[route("B", 1), route("A", 2)],
    );
    assert_eq!(
        (
            r.edit_distance.substitutions,
            r.control_flow_changes.reroutes
        ),
        (2, 2)
    );

    let m = |model: &str| {
        (
            "llm_call",
            1,
            json!({"model": model, "finish_reason": "stop"}),
        )
    };
    let r = report(&[m("m1")], &[m("m2")]);
    assert_eq!(
        (r.d_norm, r.t_star, r.control_flow_changes.total_changes),
        (1.0, None, 0)
    );
    let r = report(&[("foo", 1, json!({}))], &[("bar", 1, json!({}))]);
    assert_eq!(r.divergence_type.as_deref(), Some("event_type_differs"));
    let t = |s: Value| {
        (
            "tool_invocation",
            1,
            json!({"tool_name": "t", "operation": "o", "success": s}),
        )
    };
    let r = report(&[t(Value::Null)], &[t(json!(false))]);
    assert_eq!((r.d_norm, r.t_star), (0.0, None));
}

#[test]
fn control_flow_cases_22_to_30() {
    let r = report(
        &[route("planner", 1), route("analyst", 2)],
        &[route("planner", 1), route("critic", 2)],
    );
    let c = r.control_flow_changes;
    assert_eq!(
        (c.reroutes, c.extra_routing_cycles, c.total_changes),
        (1, 0, 1)
    );

    let r = report(
        &[route("planner", 1)],
        &[
            route("planner", 1),
            route("planner", 2),
            route("planner", 3),
        ],
    );
    assert_eq!(r.control_flow_changes.extra_routing_cycles, 2);
    assert!(r.control_flow_changes.extended_execution);

    let r = report(
        &[route("planner", 1), route("planner", 2)],
        &[route("planner", 1)],
    );
    assert_eq!(r.control_flow_changes.missing_routing_cycles, 1);
    assert!(r.control_flow_changes.early_termination);

    let r = report(
        &[tool(true, 1), tool(false, 2)],
        &[tool(false, 1), tool(true, 2)],
    );
    let c = r.control_flow_changes;
    assert_eq!(
        (
            c.tool_failures_introduced,
            c.tool_failures_avoided,
            c.tool_state_changes
        ),
        (1, 1, 2)
    );

    let r = report(&[tool(true, 1)], &[tool(true, 1), tool(true, 2)]);
    assert_eq!(r.control_flow_changes.tool_calls_added, 1);
    let r = report(&[tool(true, 1), tool(true, 2)], &[tool(true, 1)]);
    assert_eq!(r.control_flow_changes.tool_calls_removed, 1);

    let base = [
        route("a", 1),
        tool(true, 2),
        route("b", 3),
        final_answer("x", "h", 4),
    ];
    let shifted = [
        llm(&[], "stop", 1),
        route("a", 2),
        tool(true, 3),
        route("b", 4),
        final_answer("x", "h", 5),
    ];
    let d = analyze_traces(&trace("c", &base), &trace("p", &shifted));
    assert_eq!((d.script.distance, d.script.insertions), (1, 1));
    assert_eq!(d.aligned.iter().filter(|p| p.is_match).count(), 4);
    let misses: Vec<_> = d.aligned.iter().filter(|p| !p.is_match).collect();
    assert_eq!(misses.len(), 1);
    assert_eq!(misses[0].divergence_type, Some("event_missing_in_clean"));

    let r = report(
        &[route("planner", 1), route("analyst", 2)],
        &[route("planner", 1), route("critic", 2), route("analyst", 3)],
    );
    assert_eq!(
        (
            r.control_flow_changes.reroutes,
            r.control_flow_changes.extra_routing_cycles
        ),
        (0, 1)
    );

    let r = report(
        &[route("a", 1), route("b", 2)],
        &[route("a", 1), route("b", 1)],
    );
    assert_eq!(r.d_norm, 0.0);
    assert!(r.control_flow_changes.early_termination);
    assert_eq!(r.control_flow_changes.total_changes, 1);
}

#[test]
fn outcome_cases_31_to_34() {
    let r = report(
        &[final_answer("42", "h1", 1)],
        &[final_answer("41", "h2", 1)],
    );
    assert_eq!(
        (r.baseline_answer, r.perturbed_answer),
        (Some(json!("42")), Some(json!("41")))
    );
    assert!(r.answer_changed);
    let r = report(&[route("a", 1)], &[]);
    assert_eq!(
        (
            r.baseline_answer.clone(),
            r.perturbed_answer.clone(),
            r.answer_changed
        ),
        (None, None, false)
    );
    let r = report(&[], &[]);
    assert_eq!(r.perturbation_type.as_deref(), Some("perturbed"));
    assert_eq!(
        (r.d_norm, r.t_star, r.edit_distance.distance),
        (0.0, None, 0)
    );
    let r = report(&[route("a", 1), tool(true, 2)], &[]);
    assert_eq!(
        (
            r.baseline_steps,
            r.perturbed_steps,
            r.baseline_events,
            r.perturbed_events
        ),
        (2, 0, 2, 0)
    );
    assert_eq!((r.baseline_routing_turns, r.baseline_tool_calls), (1, 1));
    // Raw on one side, hash-only on the other, equal hashes → unchanged at report level.
    let r = report(
        &[final_answer("42", "h", 1)],
        &[("final_answer", 1, json!({"answer_hash": "h"}))],
    );
    assert!(!r.answer_changed);
}

#[test]
fn cost_cases_45_to_46() {
    let t = trace(
        "c",
        &[
            (
                "llm_call",
                1,
                json!({"usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 99}}),
            ),
            ("tool_request", 1, json!({"tool_name": "x"})),
            (
                "llm_call",
                2,
                json!({"usage": {"prompt_tokens": 20, "completion_tokens": 7}}),
            ),
        ],
    );
    let cost = cost_from_events(&crate::events::events(&t));
    assert_eq!((cost.total_steps, cost.total_tokens), (2, 42.0));
    let null = trace("p", &[("llm_call", 1, json!({"usage": null}))]);
    let cost = cost_from_events(&crate::events::events(&null));
    assert_eq!((cost.total_steps, cost.total_tokens), (1, 0.0));
    let r = pair_report(&t, &null, &[], &PairOptions::default());
    assert_eq!(r.token_overhead, None);
}

#[test]
fn noise_floor_from_reruns() {
    let base = [llm(&["a"], "tool_calls", 1), llm(&[], "stop", 2)];
    let drift = [llm(&["b"], "tool_calls", 1), llm(&[], "stop", 2)];
    let r = pair_report(
        &trace("c", &base),
        &trace("p", &drift),
        &[trace("r1", &base), trace("r2", &drift)],
        &PairOptions::default(),
    );
    assert_eq!(
        (r.noise_floor, r.noise_floor_runs, r.within_noise_floor),
        (Some(0.5), 2, Some(true))
    );
    let r = report(&base, &drift);
    assert_eq!(r.within_noise_floor, None);
    assert!(r.warnings.iter().any(|w| w.contains("UNMEASURED")));
}
