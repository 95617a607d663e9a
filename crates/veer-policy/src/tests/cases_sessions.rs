//! The test-pinned session cases of spec §15 (13–21): scope ordering, counts, absolute pair
//! indices, boundaries from stop reasons and metadata sessions.

use super::*;

/// OpenAI-style tickets: first request ends with a user message, continuations with `tool`.
fn ticket(tools: &[&str]) -> Vec<(&'static str, Value)> {
    let mut out = vec![req("user")];
    for (i, t) in tools.iter().enumerate() {
        if i > 0 {
            out.push(req("tool"));
        }
        out.push(resp(&[t], "", "tool_use"));
    }
    if !tools.is_empty() {
        out.push(req("tool"));
    }
    out.push(resp(&[], "done", "end_turn"));
    out
}

fn tickets(list: &[Vec<(&'static str, Value)>]) -> Trace {
    let mut recs = vec![meta()];
    for t in list {
        recs.extend(t.iter().cloned());
    }
    trace(&recs)
}

#[test]
fn c13_session_scope_ordering() {
    let mut list = Vec::new();
    for _ in 0..4 {
        list.push(ticket(&["search_kb", "escalate"]));
    }
    for _ in 0..6 {
        list.push(ticket(&["escalate"]));
    }
    let t = tickets(&list);
    let trace_p = rule("must_call_before", "{first: search_kb, then: escalate}", "");
    assert_eq!(run(&trace_p, &t).len(), 0);
    let sess = rule(
        "must_call_before",
        "{first: search_kb, then: escalate}",
        "    scope: session\n",
    );
    assert_eq!(run(&sess, &t).len(), 6);
}

#[test]
fn c14_to_c17_session_counts() {
    let t = tickets(&[
        ticket(&["a", "b", "c", "d"]),
        ticket(&[]),
        ticket(&[]),
        ticket(&[]),
    ]);
    let v = run(&rule("max_turns", "{limit: 3}", "    scope: session\n"), &t);
    assert_eq!(v.len(), 1);
    assert!(v[0].detail.contains("5 turns"), "{}", v[0].detail);
    assert_eq!(v[0].detail, "session has 5 turns; max is 3");

    let t = tickets(&[
        ticket(&["login"]),
        ticket(&["login", "login"]),
        ticket(&["login"]),
    ]);
    let v = run(
        &rule("must_call_once", "{tool: login}", "    scope: session\n"),
        &t,
    );
    assert_eq!(v.len(), 1);
    assert!(v[0].detail.contains("2 times"));

    let mut mid = ticket(&[]);
    mid[1] = resp(&[], "no", "content_filter");
    let t = tickets(&[ticket(&[]), mid, ticket(&[])]);
    let v = run(
        &rule(
            "required_stop_reason",
            "{allowed: [end_turn]}",
            "    scope: session\n",
        ),
        &t,
    );
    assert_eq!(v.len(), 1);
    assert!(v[0].detail.contains("content_filter"));

    let usage = |n: u64| {
        vec![
            req("user"),
            resp_payload(
                json!({"content": [], "stop_reason": "end_turn", "usage": {"input_tokens": n, "output_tokens": 0}}),
            ),
        ]
    };
    let t = tickets(&[usage(100), usage(10000), usage(100)]);
    let v = run(
        &rule("max_total_tokens", "{limit: 500}", "    scope: session\n"),
        &t,
    );
    assert_eq!(v.len(), 1);
    assert!(v[0].detail.contains("10000"));
}

#[test]
fn c18_session_pair_indices_are_absolute() {
    let one = || vec![req("user"), resp(&["escalate"], "", "end_turn")];
    let t = tickets(&[one(), one()]);
    let v = run(
        &rule(
            "must_call_before",
            "{first: search, then: escalate}",
            "    scope: session\n",
        ),
        &t,
    );
    assert_eq!(pairs(&v), vec![Some(0), Some(1)]);
}

#[test]
fn c19_boundaries_from_stop_reasons() {
    // Every request ends with role tool; tickets end with end_turn.
    let t = trace(&[
        meta(),
        req("tool"),
        resp(&["login"], "", "tool_use"),
        req("tool"),
        resp(&[], "done", "end_turn"),
        req("tool"),
        resp(&[], "done", "end_turn"),
        req("tool"),
        resp(&["login"], "", "tool_use"),
        req("tool"),
        resp(&[], "done", "end_turn"),
    ]);
    let v = run(
        &rule("must_call_once", "{tool: login}", "    scope: session\n"),
        &t,
    );
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].session, Some(1));
}

#[test]
fn c20_c21_metadata_sessions() {
    let t = trace(&[
        meta(),
        req("user"),
        resp(&["foo"], "", "tool_use"),
        req("tool"),
        resp(&[], "a", "end_turn"),
        meta(),
        req("user"),
        resp(&[], "b", "tool_use"),
        req("tool"),
        resp(&[], "c", "end_turn"),
    ]);
    let v = run(
        &rule("must_call_once", "{tool: foo}", "    scope: session\n"),
        &t,
    );
    assert_eq!(v.len(), 1);
    assert!(v[0].detail.contains("0 times"));
    let t = trace(&[meta(), req("user"), resp(&["foo"], "", "end_turn")]);
    assert!(run(
        &rule("must_call_once", "{tool: foo}", "    scope: session\n"),
        &t
    )
    .is_empty());
    // The call recorded after session 0's response belongs to pair 0.
    let t = trace(&[
        meta(),
        meta(),
        req("user"),
        resp(&[], "a", "end_turn"),
        (
            "tool_call",
            json!({"tool_name": "foo", "tool_call_id": "x", "arguments": {}}),
        ),
    ]);
    assert!(run(
        &rule("must_call_once", "{tool: foo}", "    scope: session\n"),
        &t
    )
    .is_empty());
}
