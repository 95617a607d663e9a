//! The kinds that look inside values on a passing and a failing trace: JSON Schema (inline and
//! from a file), consistency, follow-ups, groundedness and LTL formulas.

use super::*;

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
