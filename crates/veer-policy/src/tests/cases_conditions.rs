//! The test-pinned `when:`, parameter and load-time cases of spec §15 (22–39): conditions, bad
//! conditions, parameter errors, path lookup, load-time and schema errors and the PII pack.

use super::*;
use crate::compare::compare;

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
    assert_eq!(
        d.regressions[0].kind,
        veer_contract::policy::RuleKind::MustMatchJsonSchema
    );
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
