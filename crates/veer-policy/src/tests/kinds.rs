//! Each rule kind on a passing and a failing trace, plus `when:` and scope behaviour.

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
        "`backup_database` must be called before `run_migration` (was: first_idx=1, then_idx=0)"
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

#[test]
fn json_schema_kind() {
    let p = rule(
        "must_match_json_schema",
        "{schema: {type: object, properties: {decision: {type: string}, amount: {type: number}}}}",
        "",
    );
    let t = trace(&[
        meta(),
        req("user"),
        resp(
            &[],
            r#"{"decision": "refund", "amount": 49.99}"#,
            "end_turn",
        ),
        req("user"),
        resp(&[], "plain prose", "end_turn"),
        req("user"),
        resp(&[], r#"{"amount": "forty-nine"}"#, "end_turn"),
        req("user"),
        resp(&["lookup"], "", "tool_use"),
        req("user"),
        resp(&[], "NaN", "end_turn"),
        req("user"),
        resp(&[], r#"{"amount": Infinity}"#, "end_turn"),
        req("user"),
        resp(&[], "-Infinity", "end_turn"),
    ]);
    let v = run(&p, &t);
    assert_eq!(
        pairs(&v),
        vec![Some(1), Some(2), Some(3), Some(4), Some(5), Some(6)]
    );
    assert!(
        v[0].detail.starts_with("response text is not valid JSON"),
        "{}",
        v[0].detail
    );
    assert!(
        v[1].detail.starts_with("json schema mismatch at amount: "),
        "{}",
        v[1].detail
    );
    assert_eq!(v[2].detail, "response has no text content to validate");
    for x in &v[3..] {
        assert!(
            x.detail.starts_with("response text is not valid JSON"),
            "{}",
            x.detail
        );
    }
}

#[test]
fn json_schema_from_a_file_next_to_the_policy() {
    let dir = std::env::temp_dir().join(format!("veer-policy-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("s.json"),
        r#"{"type": "object", "required": ["ok"]}"#,
    )
    .unwrap();
    let yaml =
        "rules:\n  - id: s\n    kind: must_match_json_schema\n    params: {schema_path: s.json}\n";
    std::fs::write(dir.join("p.yaml"), yaml).unwrap();
    let p = Policy::load(&dir.join("p.yaml")).unwrap();
    let t = trace(&[meta(), req("user"), resp(&[], "{}", "end_turn")]);
    assert_eq!(run(&p, &t).len(), 1);
    std::fs::write(dir.join("bad.yaml"), yaml.replace("s.json", "missing.json")).unwrap();
    let e = Policy::load(&dir.join("bad.yaml")).unwrap_err().to_string();
    assert!(e.contains("schema_path not found"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn must_remain_consistent_kind() {
    let amount = |a: Option<i64>| match a {
        Some(x) => req_with(json!({"params": {"amount": x}})),
        None => req_with(json!({"params": {}})),
    };
    let p = rule(
        "must_remain_consistent",
        "{path: request.params.amount}",
        "",
    );
    let t = trace(&[
        meta(),
        amount(Some(500)),
        resp(&[], "a", "end_turn"),
        amount(Some(500)),
        resp(&[], "b", "end_turn"),
        amount(Some(700)),
        resp(&[], "c", "end_turn"),
    ]);
    let v = run(&p, &t);
    assert_eq!(pairs(&v), vec![Some(2)]);
    assert!(
        v[0].detail.contains("500") && v[0].detail.contains("700"),
        "{}",
        v[0].detail
    );
    let t = trace(&[
        meta(),
        amount(Some(500)),
        resp(&[], "a", "end_turn"),
        amount(None),
        resp(&[], "b", "end_turn"),
        amount(Some(500)),
        resp(&[], "c", "end_turn"),
    ]);
    assert!(run(&p, &t).is_empty());
    let p = rule("must_remain_consistent", "{path: response.stop_reason}", "");
    let t = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "end_turn"),
        req("user"),
        resp(&[], "b", "end_turn"),
        req("user"),
        resp(&["x"], "", "tool_use"),
    ]);
    assert_eq!(pairs(&run(&p, &t)), vec![Some(2)]);
    // W3: under `when`, the anchor comes from the first gated pair.
    let p = rule(
        "must_remain_consistent",
        "{path: request.params.amount}",
        "    when: {path: request.params.amount, op: '>', value: 500}\n",
    );
    let t = trace(&[
        meta(),
        amount(Some(1)),
        resp(&[], "a", "end_turn"),
        amount(Some(900)),
        resp(&[], "b", "end_turn"),
        amount(Some(901)),
        resp(&[], "c", "end_turn"),
    ]);
    assert_eq!(pairs(&run(&p, &t)), vec![Some(2)]);
}

#[test]
fn must_followup_kind() {
    let p = rule(
        "must_followup",
        "{trigger: {path: stop_reason, op: '==', value: end_turn}, must: {kind: tool_call, tool_name: send_followup_email}}",
        "",
    );
    let t = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "end_turn"),
        req("user"),
        resp(&["send_followup_email"], "", "tool_use"),
    ]);
    assert!(run(&p, &t).is_empty());
    let p = rule(
        "must_followup",
        "{trigger: {path: stop_reason, op: '==', value: tool_use}, must: {kind: tool_call, tool_name: x}}",
        "",
    );
    let t = trace(&[
        meta(),
        req("user"),
        resp(&["y"], "", "tool_use"),
        req("tool"),
        resp(&[], "plain", "end_turn"),
    ]);
    let v = run(&p, &t);
    assert_eq!(pairs(&v), vec![Some(1)]);
    assert!(
        v[0].detail
            .starts_with("trigger fired at pair 0; pair 1 did not satisfy must=tool_call {"),
        "{}",
        v[0].detail
    );
    let p = rule(
        "must_followup",
        "{trigger: {path: stop_reason, op: '==', value: end_turn}, must: {kind: text_includes, text: thanks}}",
        "",
    );
    let t = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "end_turn"),
        req("user"),
        resp(&[], "b", "end_turn"),
    ]);
    let v = run(&p, &t);
    assert_eq!(pairs(&v), vec![Some(1), Some(1)]);
    assert!(v[1].detail.starts_with("trigger fired on the final pair"));
    // A standalone tool_call record satisfies a tool_call obligation.
    let p = rule(
        "must_followup",
        "{must: {kind: tool_call, tool_name: z}}",
        "",
    );
    let t = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "tool_use"),
        req("tool"),
        resp(&[], "b", "end_turn"),
        (
            "tool_call",
            json!({"tool_name": "z", "tool_call_id": "q", "arguments": {}}),
        ),
    ]);
    let v = run(&p, &t);
    assert_eq!(pairs(&v), vec![Some(1)], "{v:?}");
}

#[test]
fn must_be_grounded_kind() {
    let p = rule(
        "must_be_grounded",
        "{retrieval_path: request.metadata.retrieved_chunks}",
        "",
    );
    let chunks = |c: Value| req_with(json!({"metadata": {"retrieved_chunks": c}}));
    let t = trace(&[
        meta(),
        chunks(json!([
            "Your refund window is thirty days from the date of purchase."
        ])),
        resp(
            &[],
            "the refund window is thirty days from purchase",
            "end_turn",
        ),
        chunks(json!([
            "Your refund window is thirty days from the date of purchase."
        ])),
        resp(
            &[],
            "one million dollars will be wired to your account",
            "end_turn",
        ),
        req("user"),
        resp(&[], "no retrieval here", "end_turn"),
        chunks(json!("alpha bravo charlie delta")),
        resp(&[], "alpha bravo", "end_turn"),
        chunks(json!(["   "])),
        resp(&[], "whitespace chunk only", "end_turn"),
    ]);
    let v = run(&p, &t);
    assert_eq!(pairs(&v), vec![Some(1)]);
    assert!(v[0].detail.contains("precision"));
    assert_eq!(
        v[0].detail,
        "response unigram precision 0.11 < 0.50 threshold; likely hallucinated past retrieved context"
    );
}

#[test]
fn ltl_formula_kind() {
    let p = rule("ltl_formula", "{formula: 'G !tool_call:delete'}", "");
    let t = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "tool_use"),
        req("tool"),
        resp(&["delete"], "", "tool_use"),
        req("tool"),
        resp(&[], "c", "end_turn"),
    ]);
    let v = run(&p, &t);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].pair_index, None);
    assert_eq!(
        v[0].detail,
        "LTL formula violated: G !tool_call:delete (false at pairs 0\u{2013}1)"
    );
    let ok = trace(&[meta(), req("user"), resp(&["read"], "", "end_turn")]);
    assert!(run(&p, &ok).is_empty());
    assert!(run(&p, &trace(&[meta()])).is_empty());
    // Standalone tool_call records are states' calls too (W13).
    let rec = trace(&[
        meta(),
        req("user"),
        resp(&[], "a", "tool_use"),
        (
            "tool_call",
            json!({"tool_name": "delete", "tool_call_id": "d", "arguments": {}}),
        ),
    ]);
    assert_eq!(run(&p, &rec).len(), 1);
}

#[test]
fn when_on_every_kind_never_crashes_on_missing_paths() {
    let kinds = [
        ("must_call_before", "{first: a, then: b}"),
        ("must_call_once", "{tool: a}"),
        ("no_call", "{tool: a}"),
        ("max_turns", "{limit: 0}"),
        ("required_stop_reason", "{allowed: [x]}"),
        ("max_total_tokens", "{limit: 0}"),
        ("must_include_text", "{text: zz}"),
        ("must_include_text_each", "{text: zz}"),
        ("forbidden_text", "{text: a}"),
        ("must_match_json_schema", "{schema: {type: object}}"),
        ("must_remain_consistent", "{path: request.x}"),
        ("must_followup", "{must: {kind: tool_call, tool_name: q}}"),
        ("must_be_grounded", "{retrieval_path: request.r}"),
        ("ltl_formula", "{formula: 'G false'}"),
    ];
    let t = trace(&[
        meta(),
        req("user"),
        resp(&["a", "b"], "a", "end_turn"),
        req("user"),
        resp(&["b"], "b", "end_turn"),
    ]);
    for (k, params) in kinds {
        let missing = rule(
            k,
            params,
            "    when: {path: request.params.amount, op: '>', value: 500}\n",
        );
        assert!(
            run(&missing, &t).is_empty(),
            "{k}: a missing path never matches"
        );
        let deep = rule(
            k,
            params,
            "    when: {path: request.messages.0.content.9.x, op: '!=', value: 1}\n",
        );
        assert!(run(&deep, &t).is_empty(), "{k}");
        for scope in ["trace", "session"] {
            let gated = rule(
                k,
                params,
                &format!("    scope: {scope}\n    when: {{path: text, op: '==', value: b}}\n"),
            );
            for v in run(&gated, &t) {
                assert!(matches!(v.pair_index, None | Some(1)), "{k}/{scope}: {v:?}");
            }
        }
    }
}

#[test]
fn session_scope_for_every_stateful_kind() {
    // Two tickets: OpenAI-style tool continuations stay in the session.
    let t = trace(&[
        meta(),
        req("user"),
        resp(&["lookup"], "", "tool_use"),
        req("tool"),
        resp(&[], "bad answer 1", "end_turn"),
        req("user"),
        resp(&[], "bad answer 2", "end_turn"),
    ]);
    let v = run(
        &rule("forbidden_text", "{text: bad}", "    scope: session\n"),
        &t,
    );
    assert_eq!(pairs(&v), vec![Some(1), Some(2)]);
    assert_eq!(
        v.iter().map(|x| x.session).collect::<Vec<_>>(),
        vec![Some(0), Some(1)]
    );
    let v = run(
        &rule(
            "ltl_formula",
            "{formula: 'F tool_call:lookup'}",
            "    scope: session\n",
        ),
        &t,
    );
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].session, Some(1));
    let v = run(
        &rule(
            "must_followup",
            "{must: {kind: text_includes, text: answer}}",
            "    scope: session\n",
        ),
        &t,
    );
    // Session 0: pair 0 → pair 1 ok, pair 1 is final; session 1: pair 2 final.
    assert_eq!(pairs(&v), vec![Some(1), Some(2)]);
    let amounts = trace(&[
        meta(),
        req_with(json!({"params": {"amount": 1}})),
        resp(&[], "", "end_turn"),
        req_with(json!({"params": {"amount": 2}})),
        resp(&[], "", "end_turn"),
    ]);
    assert!(run(
        &rule(
            "must_remain_consistent",
            "{path: request.params.amount}",
            "    scope: session\n"
        ),
        &amounts
    )
    .is_empty());
    assert_eq!(
        run(
            &rule(
                "must_remain_consistent",
                "{path: request.params.amount}",
                ""
            ),
            &amounts
        )
        .len(),
        1
    );
}

#[test]
fn check_gate_ranks_violations_by_severity() {
    use crate::gate::{gate_violations, Level};
    let t = trace(&[meta(), req("user"), resp(&["rm"], "bad", "end_turn")]);
    for (sev, trips_at) in [
        ("info", Level::Minor),
        ("warning", Level::Moderate),
        ("error", Level::Severe),
        ("critical", Level::Severe),
    ] {
        let p = rule("no_call", "{tool: rm}", &format!("    severity: {sev}\n"));
        let v = run(&p, &t);
        for level in [Level::Minor, Level::Moderate, Level::Severe] {
            let g = gate_violations(level, &v);
            assert_eq!(g.tripped, level <= trips_at, "{sev} at {level:?}");
        }
        assert!(!gate_violations(Level::None, &v).tripped);
    }
}

#[test]
fn tool_names_and_text_roots_gate_rules() {
    let t = trace(&[
        meta(),
        req("user"),
        resp(&["quote"], "quote_total: 5", "tool_use"),
        req("tool"),
        resp(&[], "done", "end_turn"),
    ]);
    let p = rule(
        "must_followup",
        "{trigger: {path: text, op: contains, value: quote_total}, must: {kind: tool_call, tool_name: send_followup_email}}",
        "",
    );
    assert_eq!(pairs(&run(&p, &t)), vec![Some(1)]);
    let p = rule(
        "forbidden_text",
        "{text: done}",
        "    when: {path: tool_names, op: contains, value: quote}\n",
    );
    assert!(run(&p, &t).is_empty());
    let p = rule(
        "forbidden_text",
        "{text: quote}",
        "    when: {path: tool_names.0, op: '==', value: quote}\n",
    );
    assert_eq!(pairs(&run(&p, &t)), vec![Some(0)]);
}
