//! Each rule kind on a passing and a failing trace: the tool-call, turn, stop-reason, token and
//! text kinds. The structured kinds are in `kinds_structured.rs`, `when:` and scope in
//! `rule_scope.rs`.

use super::*;

#[test]
fn must_call_before_pass_and_fail() {
    let p = rule(
        "must_call_before",
        "{first: backup_database, then: run_migration}",
        "",
    );
    let bad = trace(&[
        meta(),
        req("user"),
        resp(&["run_migration"], "", "tool_use"),
        req("tool"),
        resp(&["backup_database"], "", "end_turn"),
    ]);
    let v = run(&p, &bad);
    assert_eq!(pairs(&v), vec![Some(0)]);
    assert_eq!(
        v[0].detail,
        "`run_migration` was called (call 1) before `backup_database` (call 2)"
    );
    let good = trace(&[
        meta(),
        req("user"),
        resp(&["backup_database"], "", "tool_use"),
        req("tool"),
        resp(&["run_migration"], "", "end_turn"),
    ]);
    assert!(run(&p, &good).is_empty());
    // Block order inside one response matters.
    let same = trace(&[
        meta(),
        req("user"),
        resp(&["run_migration", "backup_database"], "", "end_turn"),
    ]);
    assert_eq!(run(&p, &same).len(), 1);
    // The `second` alias.
    let p2 = rule(
        "must_call_before",
        "{first: backup_database, second: run_migration}",
        "",
    );
    assert_eq!(run(&p2, &bad).len(), 1);
}

#[test]
fn must_call_before_when_keeps_confirmations_from_other_pairs() {
    let p = rule(
        "must_call_before",
        "{first: confirm, then: refund}",
        "    when: {path: request.params.amount, op: '>', value: 100}\n",
    );
    let t = trace(&[
        meta(),
        req_with(json!({"params": {"amount": 5}})),
        resp(&["confirm"], "", "tool_use"),
        req_with(json!({"params": {"amount": 500}})),
        resp(&["refund"], "", "end_turn"),
    ]);
    assert!(
        run(&p, &t).is_empty(),
        "W4: the confirmation in a non-matching pair counts"
    );
}

#[test]
fn must_call_once_no_call_max_turns() {
    let t = trace(&[
        meta(),
        req("user"),
        resp(&["login", "rm_rf"], "", "tool_use"),
        req("tool"),
        resp(&["login", "rm_rf"], "", "tool_use"),
        req("tool"),
        resp(&[], "done", "end_turn"),
    ]);
    let v = run(&rule("must_call_once", "{tool: login}", ""), &t);
    assert_eq!(v.len(), 1);
    assert!(v[0].detail.contains("2 times"));
    assert_eq!(v[0].pair_index, None);
    assert!(run(&rule("must_call_once", "{tool: nothing}", ""), &t)[0]
        .detail
        .contains("0 times"));
    let v = run(&rule("no_call", "{tool: rm_rf}", ""), &t);
    assert_eq!(pairs(&v), vec![Some(0), Some(1)]);
    assert!(run(&rule("no_call", "{tool: other}", ""), &t).is_empty());
    let v = run(&rule("max_turns", "{limit: 2}", ""), &t);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].detail, "trace has 3 turns; max is 2");
    assert!(run(&rule("max_turns", "{limit: 3}", ""), &t).is_empty());
    assert!(run(&rule("max_turns", "{limit: 3.0}", ""), &t).is_empty());
}

#[test]
fn required_stop_reason_and_tokens() {
    let bad = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "end_turn"),
        req("user"),
        resp(&[], "b", "content_filter"),
    ]);
    let good = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "end_turn"),
        req("user"),
        resp(&[], "b", "end_turn"),
    ]);
    let p = rule("required_stop_reason", "{allowed: [end_turn]}", "");
    let v = run(&p, &bad);
    assert_eq!(v.len(), 1);
    assert_eq!(
        v[0].detail,
        "final stop_reason \"content_filter\" not in allowed set [\"end_turn\"]"
    );
    assert!(run(&p, &good).is_empty());
    // A string `allowed` is a one-element list (Shadow: silent no-op).
    assert_eq!(
        run(
            &rule("required_stop_reason", "{allowed: end_turn}", ""),
            &bad
        )
        .len(),
        1
    );
    let empty = trace(&[meta()]);
    assert_eq!(run(&p, &empty)[0].detail, "trace has no responses");

    let usage = |i: u64, o: u64| {
        resp_payload(
            json!({"content": [], "stop_reason": "end_turn", "usage": {"input_tokens": i, "output_tokens": o}}),
        )
    };
    let t = trace(&[
        meta(),
        req("user"),
        usage(200, 200),
        req("user"),
        usage(200, 50),
    ]);
    let v = run(&rule("max_total_tokens", "{limit: 500}", ""), &t);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].detail, "total token usage 650 exceeds max 500");
    assert!(run(&rule("max_total_tokens", "{limit: 650}", ""), &t).is_empty());
    let s = trace(&[
        meta(),
        req("user"),
        resp_payload(
            json!({"content": [], "usage": {"input_tokens": "300", "output_tokens": 0.5, "thinking_tokens": "x"}}),
        ),
    ]);
    assert_eq!(
        run(&rule("max_total_tokens", "{limit: 300}", ""), &s)[0].detail,
        "total token usage 300.5 exceeds max 300"
    );
    let e = crate::evaluate_with_warnings(&rule("max_total_tokens", "{limit: 300}", ""), &s);
    assert_eq!(
        e.warnings,
        vec!["pair 0: usage.thinking_tokens is not a number (\"x\"); counted as 0".to_string()]
    );
}

#[test]
fn text_kinds() {
    let t = trace(&[
        meta(),
        req("user"),
        resp(&[], "SOURCE: a", "end_turn"),
        req("user"),
        resp(&[], "nothing", "end_turn"),
        req("user"),
        resp(&[], "SOURCE: c", "end_turn"),
    ]);
    let v = run(&rule("must_include_text_each", "{text: 'SOURCE:'}", ""), &t);
    assert_eq!(pairs(&v), vec![Some(1)]);
    assert_eq!(
        v[0].detail,
        "required text \"SOURCE:\" not found in response"
    );
    assert!(run(&rule("must_include_text", "{text: 'SOURCE:'}", ""), &t).is_empty());
    let v = run(&rule("must_include_text", "{text: 'ESCALATED'}", ""), &t);
    assert_eq!(
        v[0].detail,
        "required text \"ESCALATED\" not found in any response"
    );
    let v = run(&rule("forbidden_text", "{text: nothing}", ""), &t);
    assert_eq!(pairs(&v), vec![Some(1)]);
    assert!(run(&rule("forbidden_text", "{text: NOTHING}", ""), &t).is_empty());
    assert_eq!(
        run(
            &rule("forbidden_text", "{text: NOTHING, ignore_case: true}", ""),
            &t
        )
        .len(),
        1
    );
    // Needles never span two responses (W19).
    let split = trace(&[
        meta(),
        req("user"),
        resp(&[], "SOUR", "end_turn"),
        req("user"),
        resp(&[], "CE:", "end_turn"),
    ]);
    assert_eq!(
        run(
            &rule("must_include_text", "{text: \"SOUR\\nCE:\"}", ""),
            &split
        )
        .len(),
        1
    );
    // A string content is the response's text.
    let s = trace(&[
        meta(),
        req("user"),
        resp_payload(json!({"content": "a bad word", "stop_reason": "end_turn"})),
    ]);
    assert_eq!(run(&rule("forbidden_text", "{text: bad}", ""), &s).len(), 1);
    let ws = trace(&[meta(), req("user"), resp(&[], "thank\n  you", "end_turn")]);
    assert_eq!(
        run(
            &rule(
                "must_include_text",
                "{text: thank you, collapse_whitespace: true}",
                ""
            ),
            &ws
        )
        .len(),
        0
    );
}
