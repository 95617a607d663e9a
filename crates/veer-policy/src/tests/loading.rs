//! Strict loading: positions, rule ids, did-you-mean hints, every problem at once.

use super::*;

#[test]
fn problems_name_file_line_column_rule_and_hint() {
    let e = load_error(
        "apiVersion: shadow.dev/v1alpha1\nrules:\n  - id: a\n    kind: no_call\n    sevrity: error\n    params: {tool: x}\n",
    );
    assert_eq!(
        e,
        "test.yaml:5:5: rules[0] (id a, kind no_call): unknown key 'sevrity'\n  hint: did you mean 'severity'?"
    );
    let e = load_error("rules:\n  - kind: no_cal\n    params: {tool: x}\n");
    assert_eq!(
        e,
        "test.yaml:2:11: rules[0] (id rule-0): unknown kind 'no_cal'\n  hint: did you mean 'no_call'?"
    );
    let e = load_error("rules:\n  - kind: no_call\n    when_: {}\n    params: {tool: x}\n");
    assert!(e.contains("did you mean 'when'?"), "{e}");
    let e = load_error("rulez: []\n");
    assert!(
        e.contains("unknown top-level key 'rulez'") && e.contains("did you mean 'rules'?"),
        "{e}"
    );
}

#[test]
fn every_problem_is_reported_in_rule_order() {
    let e = load_error(
        "rules:\n  - kind: no_call\n    params: {tool: ''}\n  - kind: forbidden_text\n    params: {text: ''}\n  - id: dup\n    kind: max_turns\n    params: {limit: -1}\n  - id: dup\n    kind: max_turns\n    params: {limit: true}\n    scope: sesion\n",
    );
    let lines: Vec<&str> = e.lines().filter(|l| !l.starts_with("  hint")).collect();
    assert_eq!(lines.len(), 6, "{e}");
    assert!(
        lines[0].starts_with("test.yaml:3:20: rules[0]")
            && lines[0].contains("param 'tool' must not be empty"),
        "{e}"
    );
    assert!(
        lines[1].contains("empty needle would match every response"),
        "{e}"
    );
    assert!(lines[2].contains("rules[2] (id dup, kind max_turns): param 'limit' must be a non-negative integer; got -1"), "{e}");
    assert!(lines[3].contains("duplicate rule id 'dup'"), "{e}");
    assert!(lines[4].contains("invalid scope 'sesion'"), "{e}");
    assert!(
        lines[5].contains("param 'limit' must be int; got bool"),
        "{e}"
    );
}

#[test]
fn parameter_types_and_values() {
    for (params, msg) in [
        ("{limit: 2.5}", "must be a non-negative integer"),
        ("{limit: '3'}", "param 'limit' must be int; got str"),
        ("[1]", "params must be a mapping; got list"),
    ] {
        let e = load_error(&format!(
            "rules:\n  - kind: max_turns\n    params: {params}\n"
        ));
        assert!(e.contains(msg), "{params}: {e}");
    }
    let e = load_error("rules:\n  - kind: must_call_before\n    params: {first: a, then: a}\n");
    assert!(e.contains("first and then name the same tool"), "{e}");
    let e = load_error(
        "rules:\n  - kind: must_call_before\n    params: {first: a, then: b, second: c}\n",
    );
    assert!(
        e.contains("'then' and its alias 'second' are both set"),
        "{e}"
    );
    let e = load_error(
        "rules:\n  - kind: required_stop_reason\n    params: {allowed: [end_turn, 3]}\n",
    );
    assert!(
        e.contains("param 'allowed[1]' must be a non-empty str; got int"),
        "{e}"
    );
    let e =
        load_error("rules:\n  - kind: forbidden_text\n    params: {text: a, ignore_case: yes}\n");
    assert!(
        e.contains("param 'ignore_case' must be bool; got str"),
        "{e}"
    );
    let e = load_error("rules:\n  - kind: must_be_grounded\n    params: {retrieval_path: request.x, min_unigram_precision: true}\n");
    assert!(e.contains("must be number; got bool"), "{e}");
    let e = load_error("rules:\n  - kind: no_call\n    params: {tool: x}\n    tags: pii\n");
    assert!(e.contains("tags must be list"), "{e}");
    let e = load_error("rules:\n  - id: ''\n    kind: no_call\n    params: {tool: x}\n");
    assert!(e.contains("id must not be empty"), "{e}");
    let e = load_error("rules:\n  - kind: no_call\n    params: {tool: x, tol: y}\n");
    assert!(
        e.contains("unknown param 'tol'") && e.contains("did you mean 'tool'?"),
        "{e}"
    );
    let e =
        load_error("rules:\n  - kind: must_remain_consistent\n    params: {path: 'request..x'}\n");
    assert!(e.contains("empty segment"), "{e}");
}

#[test]
fn tags_are_kept_on_violations() {
    let p = policy("rules:\n  - id: t\n    kind: forbidden_text\n    params: {text: bad}\n    tags: [pii, money]\n");
    let t = trace(&[meta(), req("user"), resp(&[], "bad", "end_turn")]);
    assert_eq!(
        run(&p, &t)[0].tags,
        vec!["pii".to_string(), "money".to_string()]
    );
}

#[test]
fn json_policies_load_and_errors_name_positions() {
    let json_text = "{\n  \"apiVersion\": \"shadow.dev/v1alpha1\",\n  \"rules\": [\n    {\"id\": \"a\", \"kind\": \"no_call\", \"params\": {\"tool\": \"x\"}}\n  ]\n}\n";
    let p = Policy::load_str(json_text, "p.json", true, std::path::Path::new(".")).unwrap();
    assert_eq!(p.rules.len(), 1);
    let e = Policy::load_str(
        "{\"rules\": [1,]}",
        "p.json",
        true,
        std::path::Path::new("."),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("p.json:1:"), "{e}");
    let e = Policy::load_str(
        "{\"rules\": [\n  {\"kind\": \"no_call\", \"params\": {\"tool\": 1}}\n]}",
        "p.json",
        true,
        std::path::Path::new("."),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("p.json:2:"), "{e}");
    assert!(e.contains("param 'tool' must be str; got int"), "{e}");
}

#[test]
fn yaml_syntax_errors_and_duplicates() {
    let e = load_error("rules:\n  - kind: no_call\n    kind: no_call\n");
    assert!(e.contains("test.yaml:3:"), "{e}");
    let e = load_error("rules: [\n");
    assert!(e.starts_with("test.yaml:"), "{e}");
    assert!(load_error("").contains("must be a mapping or list; got null"));
}

#[test]
fn anchors_and_aliases_are_allowed() {
    let p = policy("rules:\n  - {id: a, kind: no_call, params: &p {tool: rm}}\n  - {id: b, kind: no_call, params: *p}\n");
    assert_eq!(p.rules.len(), 2);
}

#[test]
fn a_byte_order_mark_is_ignored() {
    let dir = std::env::temp_dir().join(format!("veer-policy-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, body) in [
        ("p.json", "\u{feff}{\"rules\": []}"),
        ("p.yaml", "\u{feff}rules: []\n"),
    ] {
        std::fs::write(dir.join(name), body).unwrap();
        assert!(Policy::load(&dir.join(name)).is_ok(), "{name}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
