//! What decides which pairs a rule judges: `when:` on every kind, session scope on every
//! stateful kind, the gate's ranking by severity, and tool names and text roots in conditions.

use super::*;

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
    use veer_base::Level;
    use veer_contract::policy::gate_violations;
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
