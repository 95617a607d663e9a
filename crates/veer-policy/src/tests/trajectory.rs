//! `trajectory_match` end to end (traces and policy files), its loading errors, properties of
//! the four modes, and parity with agentevals' own examples.
//!
//! Parity source: github.com/langchain-ai/agentevals, commit
//! 946ad15b9f2ce9bc9843edd2bb773bd07d78ca7e, `python/agentevals/trajectory/{strict,unordered,
//! subset,superset,utils}.py` and `python/tests/test_trajectory.py`. Their trajectories are
//! translated into the flat call lists the matcher takes (tool name and arguments in order).

use super::{load_error, meta, pairs, policy, req, resp_payload, run, trace};
use crate::model::{Check, RefCall, Trajectory, TrajectoryMode};
use crate::rules::trajectory_match::{first_problem, Actual, ArgMatcher};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn call_resp(calls: &[(&str, Value)]) -> (&'static str, Value) {
    let content: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (n, a))| json!({"type": "tool_use", "id": format!("c{i}-{n}"), "name": n, "input": a}))
        .collect();
    resp_payload(
        json!({"model": "m", "content": content, "stop_reason": "tool_use",
        "usage": {"input_tokens": 1, "output_tokens": 1}}),
    )
}

const REFUND: &str = "rules:
  - id: refund-path
    kind: trajectory_match
    params:
      mode: strict
      calls:
        - {tool: lookup_order, args: {order_id: A7}}
        - {tool: issue_refund, args: {order_id: A7, amount: 40}, ignore: [request_id]}
";

#[test]
fn strict_refund_path_on_traces() {
    let p = policy(REFUND);
    let good = trace(&[
        meta(),
        req("user"),
        call_resp(&[("lookup_order", json!({"order_id": "A7"}))]),
        req("tool"),
        call_resp(&[(
            "issue_refund",
            json!({"order_id": "A7", "amount": 40, "request_id": "r-1"}),
        )]),
    ]);
    assert!(run(&p, &good).is_empty());
    let bad = trace(&[
        meta(),
        req("user"),
        call_resp(&[("lookup_order", json!({"order_id": "A7"}))]),
        req("tool"),
        call_resp(&[("issue_refund", json!({"order_id": "A7", "amount": 84}))]),
    ]);
    let v = run(&p, &bad);
    assert_eq!(v.len(), 1);
    assert_eq!(
        v[0].detail,
        "trajectory_match (strict): call 2 `issue_refund`: argument `amount` is 84, expected 40"
    );
    assert_eq!(pairs(&v), vec![Some(1)]);
    let short = trace(&[meta(), req("user"), call_resp(&[])]);
    let v = run(&p, &short);
    assert_eq!(
        v[0].detail,
        "trajectory_match (strict): missing call `lookup_order` (reference call 1)"
    );
    assert_eq!(pairs(&v), vec![None]);
}

#[test]
fn tool_args_apply_per_tool_and_calls_override() {
    let p = policy(
        "rules:
  - kind: trajectory_match
    params:
      mode: unordered
      tool_args: {search: {match: subset}}
      calls:
        - {tool: search, args: {q: shoes}}
        - {tool: pay, args: {amount: 10}, tolerance: 0.05}
",
    );
    let Check::TrajectoryMatch(t) = &p.rules[0].check else {
        panic!("kind")
    };
    assert_eq!(t.mode, TrajectoryMode::Unordered);
    let tr = trace(&[
        meta(),
        req("user"),
        call_resp(&[
            ("pay", json!({"amount": 10.04})),
            ("search", json!({"q": "shoes", "page": 2})),
        ]),
    ]);
    assert!(run(&p, &tr).is_empty());
}

#[test]
fn loading_rejects_bad_params_with_positions() {
    let e =
        load_error("rules:\n  - kind: trajectory_match\n    params: {mode: sloppy, calls: []}\n");
    assert!(e.contains("test.yaml:3:"), "{e}");
    assert!(e.contains("unknown trajectory mode 'sloppy'"), "{e}");
    let e =
        load_error("rules:\n  - kind: trajectory_match\n    params: {calls: [{args: {a: 1}}]}\n");
    assert!(e.contains("calls[0] has no `tool`"), "{e}");
    let e = load_error(
        "rules:\n  - kind: trajectory_match\n    params: {calls: [{tool: t, match: regex, args: {a: '('}}]}\n",
    );
    assert!(e.contains("bad regular expression"), "{e}");
    let e = load_error(
        "rules:\n  - kind: trajectory_match\n    params: {calls: [{tool: t, tolerance: -1}]}\n",
    );
    assert!(e.contains("tolerance must be a non-negative number"), "{e}");
    let e = load_error("rules:\n  - kind: trajectory_match\n    params: {mode: strict}\n");
    assert!(e.contains("missing required param 'calls'"), "{e}");
    let e = load_error(
        "rules:\n  - kind: trajectory_match\n    params: {calls: [{tool: t, match: fuzzy}]}\n",
    );
    assert!(e.contains("unknown argument matcher 'fuzzy'"), "{e}");
}

// --- matcher-level helpers ---------------------------------------------------------------

fn refs(calls: &[(&str, Value)]) -> Vec<RefCall> {
    calls
        .iter()
        .map(|(n, a)| RefCall {
            tool: n.to_string(),
            args: a.as_object().cloned(),
            matcher: ArgMatcher::default(),
        })
        .collect()
}

fn holds(mode: TrajectoryMode, reference: Vec<RefCall>, actual: &[(&str, Value)]) -> bool {
    let maps: Vec<Map<String, Value>> = actual
        .iter()
        .map(|(_, a)| a.as_object().cloned().unwrap_or_default())
        .collect();
    let acts: Vec<Actual<'_>> = actual
        .iter()
        .zip(&maps)
        .map(|((n, _), a)| Actual { name: n, args: a })
        .collect();
    first_problem(
        &Trajectory {
            mode,
            calls: reference,
        },
        &acts,
    )
    .is_none()
}

use TrajectoryMode::{Strict, Subset, Superset, Unordered};

fn city(c: &str) -> Value {
    json!({ "city": c })
}

/// agentevals `test_trajectory_match`: identical single call, every mode passes.
#[test]
fn parity_same_call() {
    let a = [("get_weather", city("San Francisco"))];
    for m in [Strict, Unordered, Subset, Superset] {
        assert!(holds(m, refs(&a), &a), "{m:?}");
    }
}

/// agentevals `test_trajectory_with_different_message_count`: the same two calls spread over
/// two messages against one message in the other order; strict fails, the others pass.
#[test]
fn parity_different_message_count() {
    let out = [("get_weather", city("SF")), ("get_weather", city("London"))];
    let reference = [("get_weather", city("London")), ("get_weather", city("SF"))];
    assert!(!holds(Strict, refs(&reference), &out));
    for m in [Unordered, Subset, Superset] {
        assert!(holds(m, refs(&reference), &out), "{m:?}");
    }
}

/// agentevals `test_trajectory_with_different_tool_message_order`: agentevals' strict passes
/// because it compares the tool calls of one assistant message as a multiset; veer's strict
/// compares the flat call sequence, so it fails here (a documented difference). The other
/// modes agree.
#[test]
fn parity_parallel_calls_in_other_order() {
    let out = [("get_weather", city("SF")), ("get_weather", city("London"))];
    let reference = [("get_weather", city("London")), ("get_weather", city("SF"))];
    assert!(
        !holds(Strict, refs(&reference), &out),
        "documented difference"
    );
    for m in [Unordered, Subset, Superset] {
        assert!(holds(m, refs(&reference), &out), "{m:?}");
    }
}

/// agentevals `test_trajectory_subset_tool_call`: one of two reference calls made; only subset
/// passes.
#[test]
fn parity_subset_tool_call() {
    let out = [("get_weather", city("SF"))];
    let reference = [("get_weather", city("London")), ("get_weather", city("SF"))];
    assert!(!holds(Strict, refs(&reference), &out));
    assert!(!holds(Unordered, refs(&reference), &out));
    assert!(holds(Subset, refs(&reference), &out));
    assert!(!holds(Superset, refs(&reference), &out));
}

/// agentevals `test_exact_matcher_with_different_called_tools`: another tool; every mode fails.
#[test]
fn parity_different_tools() {
    let out = [("get_weather", city("SF"))];
    let reference = [("accuweather_forecast", city("San Francisco"))];
    for m in [Strict, Unordered, Subset, Superset] {
        assert!(!holds(m, refs(&reference), &out), "{m:?}");
    }
}

/// agentevals `test_trajectory_with_extra_tool_calls_and_override` (`get_weather: ignore`,
/// here a call without `args`): two actual calls against one reference; only superset passes.
#[test]
fn parity_extra_calls_with_ignored_args() {
    let out = [
        ("get_weather", city("San Francisco")),
        ("get_weather", city("London")),
    ];
    let reference = refs(&[("get_weather", Value::Null)]);
    assert!(!holds(Strict, reference.clone(), &out));
    assert!(!holds(Unordered, reference.clone(), &out));
    assert!(!holds(Subset, reference.clone(), &out));
    assert!(holds(Superset, reference, &out));
}

/// agentevals `test_tool_args_match_mode_{exact,subset,superset}` on `get_flight_info`.
/// agentevals' `subset` means actual ⊆ reference and `superset` reference ⊆ actual; veer's
/// names are the other way round (they say what the *reference* is), so the modes swap here.
#[test]
fn parity_argument_modes() {
    use crate::model::ArgMode;
    let with = |mode: ArgMode, r: Value| {
        let mut c = refs(&[("get_flight_info", r)]);
        c[0].matcher.mode = mode;
        c
    };
    let small = json!({"flight_no": "LX0112"});
    let big = json!({"flight_no": "LX0112", "foo": "bar"});
    // Output has more keys than the reference: agentevals superset passes, exact fails.
    let out_big = [("get_flight_info", big.clone())];
    assert!(holds(
        Strict,
        with(ArgMode::Subset, small.clone()),
        &out_big
    ));
    assert!(!holds(
        Strict,
        with(ArgMode::Exact, small.clone()),
        &out_big
    ));
    // Output has fewer keys: agentevals subset passes.
    let out_small = [("get_flight_info", small.clone())];
    assert!(holds(
        Strict,
        with(ArgMode::Superset, big.clone()),
        &out_small
    ));
    assert!(!holds(Strict, with(ArgMode::Subset, big), &out_small));
    // Equal arguments pass exact.
    assert!(holds(
        Strict,
        with(ArgMode::Exact, small.clone()),
        &out_small
    ));
}

// --- properties --------------------------------------------------------------------------

fn calls_strategy() -> impl Strategy<Value = Vec<(u8, u8)>> {
    prop::collection::vec((0u8..3, 0u8..2), 0..5)
}

fn to_calls(xs: &[(u8, u8)]) -> Vec<(String, Value)> {
    xs.iter()
        .map(|(t, a)| (format!("t{t}"), json!({ "a": a })))
        .collect()
}

fn check(mode: TrajectoryMode, reference: &[(String, Value)], actual: &[(String, Value)]) -> bool {
    let r: Vec<(&str, Value)> = reference
        .iter()
        .map(|(n, a)| (n.as_str(), a.clone()))
        .collect();
    let a: Vec<(&str, Value)> = actual
        .iter()
        .map(|(n, a)| (n.as_str(), a.clone()))
        .collect();
    holds(mode, refs(&r), &a)
}

proptest! {
    #[test]
    fn strict_implies_unordered_implies_subset_and_superset(
        r in calls_strategy(), a in calls_strategy()
    ) {
        let (r, a) = (to_calls(&r), to_calls(&a));
        if check(Strict, &r, &a) {
            prop_assert!(check(Unordered, &r, &a));
        }
        if check(Unordered, &r, &a) {
            prop_assert!(check(Subset, &r, &a));
            prop_assert!(check(Superset, &r, &a));
        }
        // Unordered is exactly subset and superset together.
        prop_assert_eq!(
            check(Unordered, &r, &a),
            check(Subset, &r, &a) && check(Superset, &r, &a)
        );
    }

    #[test]
    fn superset_is_subset_with_sides_swapped(r in calls_strategy(), a in calls_strategy()) {
        let (r, a) = (to_calls(&r), to_calls(&a));
        prop_assert_eq!(check(Superset, &r, &a), check(Subset, &a, &r));
    }

    #[test]
    fn unordered_ignores_order(r in calls_strategy(), a in calls_strategy()) {
        let (r, a) = (to_calls(&r), to_calls(&a));
        let mut rev = a.clone();
        rev.reverse();
        prop_assert_eq!(check(Unordered, &r, &a), check(Unordered, &r, &rev));
        prop_assert_eq!(check(Superset, &r, &a), check(Superset, &r, &rev));
    }
}

#[test]
fn session_scope_judges_each_session() {
    let p = policy(
        "rules:
  - kind: trajectory_match
    scope: session
    params: {mode: superset, calls: [{tool: login}]}
",
    );
    let t = trace(&[meta(), req("user"), call_resp(&[("login", json!({}))])]);
    assert!(run(&p, &t).is_empty());
    let none = trace(&[meta(), req("user"), call_resp(&[("search", json!({}))])]);
    let v = run(&p, &none);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].session, Some(0));
}

#[test]
fn a_when_that_selects_no_pair_leaves_the_unit_unjudged() {
    let p = policy(
        "rules:
  - id: refund-path
    kind: trajectory_match
    when: {path: request.messages.0.content, op: ==, value: refund A7}
    params:
      calls: [{tool: lookup_order}, {tool: issue_refund}]
",
    );
    let case = |user: &str, calls: &[(&str, Value)]| {
        trace(&[
            meta(),
            (
                "chat_request",
                json!({"model": "m", "messages": [{"role": "user", "content": user}], "params": {}}),
            ),
            call_resp(calls),
        ])
    };
    // Another case: `when` selects none of its pairs, so the reference does not apply.
    assert!(run(&p, &case("where is B9", &[("lookup_order", json!({}))])).is_empty());
    // The case itself, with a call missing: judged.
    let v = run(&p, &case("refund A7", &[("issue_refund", json!({}))]));
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(run(
        &p,
        &case(
            "refund A7",
            &[("lookup_order", json!({})), ("issue_refund", json!({}))]
        )
    )
    .is_empty());
}
