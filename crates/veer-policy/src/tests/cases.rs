//! The test-pinned cases of spec §15 (numbers refer to the list there) on loading, basic
//! kinds, deduplication and the policy diff (1–12), and the "further behaviours" table. Cases
//! 13–21 are in `cases_sessions.rs`, 22–39 in `cases_conditions.rs`.

use super::*;
use crate::compare::compare;

#[test]
fn c01_shapes_load() {
    let a = policy(
        "{\"rules\": [{\"id\": \"r1\", \"kind\": \"no_call\", \"params\": {\"tool\": \"x\"}}]}",
    );
    assert_eq!(a.rules[0].id, "r1");
    assert!(a.warnings.iter().any(|w| w.contains("apiVersion")));
    let b = policy("- id: r1\n  kind: no_call\n  params: {tool: x}\n");
    assert_eq!(b.rules[0].id, "r1");
    assert!(b.warnings.iter().any(|w| w.contains("bare list")));
    let c = policy(
        "- kind: no_call\n  params: {tool: x}\n- id: 7\n  kind: no_call\n  params: {tool: y}\n",
    );
    assert_eq!(c.rules[0].id, "rule-0");
    assert_eq!(c.rules[1].id, "7");
}

#[test]
fn c02_api_version_and_shapes() {
    let e = load_error("apiVersion: shadow.dev/v99999\nrules: []\n");
    assert!(e.contains("apiVersion"), "{e}");
    assert!(load_error("42\n").contains("must be a mapping or list"));
    assert!(policy("rules: []\n").warnings[0].contains("apiVersion"));
}

#[test]
fn c03_severities() {
    let e = load_error(
        "rules:\n  - kind: no_call\n    severity: superduperhigh\n    params: {tool: x}\n",
    );
    assert!(e.contains("invalid severity"), "{e}");
    for s in ["info", "warning", "error", "critical", "CRITICAL"] {
        let p = policy(&format!(
            "rules:\n  - kind: no_call\n    severity: {s}\n    params: {{tool: x}}\n"
        ));
        assert_eq!(p.rules[0].severity.name(), s.to_ascii_lowercase());
    }
    assert_eq!(
        policy("rules:\n  - kind: no_call\n    params: {tool: x}\n").rules[0]
            .severity
            .name(),
        "error"
    );
    let e = load_error("rules:\n  - kind: no_call\n    severity: severe\n    params: {tool: x}\n");
    assert!(e.contains("'severe' is an axis severity"), "{e}");
}

#[test]
fn c04_to_c09_basic_kinds() {
    let p = rule(
        "must_call_before",
        "{first: backup_database, then: run_migration}",
        "",
    );
    let t = trace(&[
        meta(),
        req("user"),
        resp(&["run_migration"], "", "tool_use"),
        req("tool"),
        resp(&["backup_database"], "", "end_turn"),
    ]);
    assert_eq!(pairs(&run(&p, &t)), vec![Some(0)]);
    let t = trace(&[
        meta(),
        req("user"),
        resp(&["rm_rf"], "", "tool_use"),
        req("tool"),
        resp(&["rm_rf"], "", "end_turn"),
    ]);
    assert_eq!(
        pairs(&run(&rule("no_call", "{tool: rm_rf}", ""), &t)),
        vec![Some(0), Some(1)]
    );
}

#[test]
fn c10_dedup_is_order_independent() {
    let p = rule("no_call", "{tool: rm_rf}", "");
    let block = |id: &str| {
        resp_payload(
            json!({"content": [{"type": "tool_use", "id": id, "name": "rm_rf", "input": {}}], "stop_reason": "tool_use"}),
        )
    };
    let call = |id: &str| {
        (
            "tool_call",
            json!({"tool_name": "rm_rf", "tool_call_id": id, "arguments": {}}),
        )
    };
    let t = trace(&[meta(), req("user"), block("call_abc"), call("call_abc")]);
    assert_eq!(run(&p, &t).len(), 1);
    let t = trace(&[meta(), req("user"), block("call_one"), call("call_two")]);
    assert_eq!(run(&p, &t).len(), 2);
    let t = trace(&[meta(), call("call_abc"), req("user"), block("call_abc")]);
    assert_eq!(run(&p, &t).len(), 1);
    // A trailing tool_call belongs to the last response (pair n-1), in session scope too.
    let t = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "end_turn"),
        req("user"),
        resp(&[], "b", "end_turn"),
        call("late"),
    ]);
    assert_eq!(pairs(&run(&p, &t)), vec![Some(1)]);
    let v = run(
        &rule("no_call", "{tool: rm_rf}", "    scope: session\n"),
        &t,
    );
    assert_eq!(pairs(&v), vec![Some(1)]);
    assert_eq!(v[0].session, Some(1));
}

#[test]
fn c12_policy_diff() {
    let p = rule("no_call", "{tool: rm_rf}", "");
    let clean = trace(&[meta(), req("user"), resp(&[], "ok", "end_turn")]);
    let bad = trace(&[meta(), req("user"), resp(&["rm_rf"], "", "end_turn")]);
    let d = compare(&p, &clean, &bad);
    assert_eq!((d.regressions.len(), d.fixes.len()), (1, 0));
    let d = compare(&p, &bad, &clean);
    assert_eq!((d.regressions.len(), d.fixes.len()), (0, 1));
}

#[test]
fn further_behaviours() {
    // Session-scope forbidden_text in session 1's first pair: pair 1, session 1.
    let t = trace(&[
        meta(),
        req("user"),
        resp(&[], "ok", "end_turn"),
        req("user"),
        resp(&[], "bad", "end_turn"),
    ]);
    let v = run(
        &rule("forbidden_text", "{text: bad}", "    scope: session\n"),
        &t,
    );
    assert_eq!((v[0].pair_index, v[0].session), (Some(1), Some(1)));
    // `!=` with a missing path does not match; `== true` does not match 1.
    let p = rule(
        "forbidden_text",
        "{text: ok}",
        "    when: {path: request.x, op: '!=', value: 5}\n",
    );
    assert!(run(&p, &t).is_empty());
    let t1 = trace(&[
        meta(),
        req_with(json!({"x": 1})),
        resp(&[], "ok", "end_turn"),
    ]);
    let p = rule(
        "forbidden_text",
        "{text: ok}",
        "    when: {path: request.x, op: '==', value: true}\n",
    );
    assert!(run(&p, &t1).is_empty());
    // Integers accept 1.0; format: email is enforced.
    let p = rule("must_match_json_schema", "{schema: {type: integer}}", "");
    assert!(run(
        &p,
        &trace(&[meta(), req("user"), resp(&[], "1.0", "end_turn")])
    )
    .is_empty());
    let p = rule(
        "must_match_json_schema",
        "{schema: {type: string, format: email}}",
        "",
    );
    assert_eq!(
        run(
            &p,
            &trace(&[meta(), req("user"), resp(&[], "\"nope\"", "end_turn")])
        )
        .len(),
        1
    );
    // Required-property error wins over a nested type error.
    let p = rule(
        "must_match_json_schema",
        "{schema: {type: object, required: [a], properties: {b: {type: integer}}}}",
        "",
    );
    let v = run(
        &p,
        &trace(&[meta(), req("user"), resp(&[], r#"{"b": "x"}"#, "end_turn")]),
    );
    assert!(
        v[0].detail.starts_with("json schema mismatch at <root>:"),
        "{}",
        v[0].detail
    );
}

#[test]
fn regressions_are_multisets_not_detail_text() {
    let p = rule("no_call", "{tool: rm}", "");
    let one = trace(&[meta(), req("user"), resp(&["rm"], "", "end_turn")]);
    let two = trace(&[meta(), req("user"), resp(&["rm", "rm"], "", "end_turn")]);
    let d = compare(&p, &one, &two);
    assert_eq!((d.regressions.len(), d.fixes.len()), (1, 0));
    let p = rule("max_turns", "{limit: 2}", "");
    let three = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "end_turn"),
        req("user"),
        resp(&[], "b", "end_turn"),
        req("user"),
        resp(&[], "c", "end_turn"),
    ]);
    let four = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "end_turn"),
        req("user"),
        resp(&[], "b", "end_turn"),
        req("user"),
        resp(&[], "c", "end_turn"),
        req("user"),
        resp(&[], "d", "end_turn"),
    ]);
    let d = compare(&p, &three, &four);
    assert_eq!((d.regressions.len(), d.fixes.len()), (0, 0));
    let p = rule("forbidden_text", "{text: bad}", "");
    let at0 = trace(&[
        meta(),
        req("user"),
        resp(&[], "bad", "end_turn"),
        req("user"),
        resp(&[], "ok", "end_turn"),
    ]);
    let at1 = trace(&[
        meta(),
        req("user"),
        resp(&[], "ok", "end_turn"),
        req("user"),
        resp(&[], "bad", "end_turn"),
    ]);
    let d = compare(&p, &at0, &at1);
    assert_eq!((d.regressions.len(), d.fixes.len()), (1, 1));
}
