//! The test-pinned cases of spec §15 (numbers refer to the list there) and the "further
//! behaviours" table.

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

#[test]
fn c22_to_c25_when() {
    let amt = |a: i64, m: &str| req_with(json!({"model": m, "params": {"amount": a}}));
    let t = trace(&[
        meta(),
        amt(100, "gpt-4"),
        resp(&[], "bad", "end_turn"),
        amt(1000, "gpt-5"),
        resp(&[], "bad", "end_turn"),
    ]);
    let p = rule(
        "forbidden_text",
        "{text: bad}",
        "    when: {path: request.params.amount, op: '>', value: 500}\n",
    );
    assert_eq!(pairs(&run(&p, &t)), vec![Some(1)]);
    let p = rule(
        "forbidden_text",
        "{text: bad}",
        "    when: {path: request.model, op: '==', value: gpt-5}\n",
    );
    assert_eq!(pairs(&run(&p, &t)), vec![Some(1)]);
    let p = rule(
        "forbidden_text",
        "{text: bad}",
        "    when: {path: model, op: '==', value: gpt-5}\n",
    );
    assert_eq!(pairs(&run(&p, &t)), vec![Some(1)]);

    let t2 = trace(&[meta(), req("user"), resp(&[], "sorry", "content_filter")]);
    let p = rule(
        "must_include_text",
        "{text: ESCALATED}",
        "    when: {path: stop_reason, op: in, value: [content_filter, refusal]}\n",
    );
    assert!(!run(&p, &t2).is_empty());

    let p = rule(
        "forbidden_text",
        "{text: bad}",
        "    when: {path: request.params.amount, op: '>', value: 5000}\n",
    );
    assert!(run(&p, &t).is_empty());
    let p = rule(
        "forbidden_text",
        "{text: bad}",
        "    when: {path: request.params.missing, op: '>', value: 5}\n",
    );
    assert!(run(&p, &t).is_empty());

    let t3 = trace(&[
        meta(),
        amt(1000, "gpt-4"),
        resp(&[], "bad", "end_turn"),
        amt(100, "gpt-4"),
        resp(&[], "bad", "end_turn"),
        amt(1000, "gpt-5"),
        resp(&[], "bad", "end_turn"),
    ]);
    let p = rule(
        "forbidden_text",
        "{text: bad}",
        "    when:\n      - {path: request.model, op: '==', value: gpt-4}\n      - {path: request.params.amount, op: '>', value: 500}\n",
    );
    assert_eq!(pairs(&run(&p, &t3)), vec![Some(0)]);
}

#[test]
fn c26_bad_conditions() {
    let e = load_error("rules:\n  - kind: no_call\n    params: {tool: x}\n    when: {path: a.b, op: matches, value: 1}\n");
    assert!(e.contains("invalid op"), "{e}");
    let e = load_error(
        "rules:\n  - kind: no_call\n    params: {tool: x}\n    when: {path: request.b, op: '=='}\n",
    );
    assert!(e.contains("value"), "{e}");
    let e = load_error("rules:\n  - kind: no_call\n    params: {tool: x}\n    when: x\n");
    assert!(e.contains("`when[0]` must be a mapping; got str"), "{e}");
    let e = load_error("rules:\n  - kind: no_call\n    params: {tool: x}\n    when: {path: request.b, op: in, value: 3}\n");
    assert!(e.contains("requires a list value"), "{e}");
    let e = load_error("rules:\n  - kind: no_call\n    params: {tool: x}\n    when: {path: request.b, op: '>', value: true}\n");
    assert!(e.contains("requires a number value"), "{e}");
    let e = load_error("rules:\n  - kind: no_call\n    params: {tool: x}\n    when: {path: metadata.foo, op: '==', value: 1}\n");
    assert!(e.contains("did you mean 'request.metadata.foo'?"), "{e}");
}

#[test]
fn c27_param_errors() {
    let e =
        load_error("rules:\n  - kind: must_call_before\n    params: {tool: a, before_text: b}\n");
    let lines: Vec<&str> = e.lines().filter(|l| !l.starts_with("  hint")).collect();
    assert!(
        lines[0].contains("kind must_call_before): missing required param 'first'"),
        "{e}"
    );
    assert!(lines[1].contains("missing required param 'then'"), "{e}");
    assert!(lines[2].contains("unknown param 'tool'"), "{e}");
    assert!(lines[3].contains("unknown param 'before_text'"), "{e}");
    assert!(
        e.contains("hint: required params for must_call_before are first, then"),
        "{e}"
    );
    let e = load_error("rules:\n  - kind: must_call_once\n    params: {tool: 42}\n");
    assert!(e.contains("param 'tool' must be str; got int"), "{e}");
    let e = load_error("rules:\n  - kind: forbidden_text\n    params: {}\n");
    assert!(e.contains("missing required param 'text'"), "{e}");
}

#[test]
fn c28_path_lookup() {
    let t = trace(&[
        meta(),
        (
            "chat_request",
            json!({"model": "m", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi there"}]}),
        ),
        resp(&[], "x", "end_turn"),
    ]);
    let view = crate::context::TraceView::new(&t);
    let ctx = &view.pairs[0].context;
    let get = |p: &str| {
        crate::path::Path::parse(p)
            .unwrap()
            .resolve(ctx)
            .map(veer_trace::Json::to_value)
    };
    assert_eq!(get("request.messages.0.role"), Some(json!("system")));
    assert_eq!(get("request.messages.1.content"), Some(json!("hi there")));
    assert_eq!(get("request.messages.99.role"), None);
    assert_eq!(get("request.messages.foo.role"), None);
}

#[test]
fn c30_c31_c33_c35_load_time_errors() {
    assert!(
        load_error("rules:\n  - kind: must_remain_consistent\n    params: {}\n")
            .contains("missing required param 'path'")
    );
    assert!(load_error(
        "rules:\n  - kind: must_followup\n    params: {must: {kind: wave_a_magic_wand}}\n"
    )
    .contains("unknown"));
    assert!(load_error("rules:\n  - kind: must_be_grounded\n    params: {retrieval_path: request.x, min_unigram_precision: 1.5}\n").contains("min_unigram_precision"));
    let e = load_error("rules:\n  - kind: ltl_formula\n    params: {formula: G}\n");
    assert!(e.contains("parse"), "{e}");
    assert!(load_error("rules:\n  - kind: ltl_formula\n    params: {}\n").contains("formula"));
    let e = load_error("rules:\n  - kind: ltl_formula\n    params: {formula: '(a'}\n");
    assert!(e.contains("LTL parse error at column 3: expected ')' to close '(' at column 1, found end of formula"), "{e}");
    let e = load_error("rules:\n  - kind: ltl_formula\n    params: {formula: 'G TRUE'}\n");
    assert!(
        e.contains("unknown LTL atom 'TRUE'") && e.contains("did you mean 'true'?"),
        "{e}"
    );
}

#[test]
fn c34_schema_load_errors() {
    let e = load_error("rules:\n  - kind: must_match_json_schema\n    params: {schema: {type: object}, schema_path: x.json}\n");
    assert!(e.contains("exactly one"), "{e}");
    let e = load_error("rules:\n  - kind: must_match_json_schema\n    params: {}\n");
    assert!(e.contains("exactly one"), "{e}");
    let e = load_error("rules:\n  - kind: must_match_json_schema\n    params: {schema_path: definitely-missing.json}\n");
    assert!(e.contains("schema_path not found"), "{e}");
    let e = load_error(
        "rules:\n  - kind: must_match_json_schema\n    params: {schema: {type: not-a-real-type}}\n",
    );
    assert!(e.contains("schema is invalid"), "{e}");
    let e = load_error("rules:\n  - kind: must_match_json_schema\n    params: {schema: {$ref: 'https://example.com/x.json'}}\n");
    assert!(e.contains("refusing to fetch"), "{e}");
    // Candidate prose vs baseline JSON → one regression of kind must_match_json_schema.
    let p = rule("must_match_json_schema", "{schema: {type: object}}", "");
    let b = trace(&[meta(), req("user"), resp(&[], "{}", "end_turn")]);
    let c = trace(&[meta(), req("user"), resp(&[], "prose", "end_turn")]);
    let d = compare(&p, &b, &c);
    assert_eq!(d.regressions.len(), 1);
    assert_eq!(d.regressions[0].kind, crate::RuleKind::MustMatchJsonSchema);
}

#[test]
fn c39_pii_pack() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/shadow/policy-packs/pii.yaml");
    let p = Policy::load(&path).unwrap();
    assert_eq!(p.rules.len(), 6);
    let t = trace(&[
        meta(),
        req("user"),
        resp(&[], "your email is alice@acme.com", "end_turn"),
    ]);
    let v = run(&p, &t);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].rule_id, "no-email-in-response");
    let t = trace(&[
        meta(),
        req("user"),
        resp(&[], "Hello! How can I help you today?", "end_turn"),
    ]);
    assert!(run(&p, &t).is_empty());
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
