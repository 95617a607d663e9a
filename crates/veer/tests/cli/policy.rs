//! `veer check` and `veer policy validate`.

use crate::common::{veer, veer_ok};

const POLICY: &str = "tests/fixtures/shadow/refund-causal-diagnosis/policy.yaml";
const CANDIDATE: &str =
    "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces/s1.agentlog";
const BASELINE: &str = "tests/fixtures/shadow/refund-causal-diagnosis/baseline_traces/s1.agentlog";

#[test]
fn check_terminal_reports_then_gates() {
    let r = veer_ok(&["check", CANDIDATE, "--policy", POLICY], 1);
    insta::assert_snapshot!(r.stdout);
    assert_eq!(
        r.stderr.trim_end(),
        "fail: worst signal severity 3 >= --fail-on threshold severe (3); exiting 1 to gate the merge."
    );
}

#[test]
fn check_exit_code_per_fail_on_level() {
    for (level, code) in [
        ("never", 0),
        ("none", 0),
        ("minor", 1),
        ("moderate", 1),
        ("severe", 1),
    ] {
        veer_ok(
            &["check", CANDIDATE, "--policy", POLICY, "--fail-on", level],
            code,
        );
    }
    // A clean trace never trips.
    let r = veer_ok(
        &["check", BASELINE, "--policy", POLICY, "--fail-on", "minor"],
        0,
    );
    assert!(r.stdout.contains("no violations"), "{}", r.stdout);
}

#[test]
fn check_json_names() {
    let r = veer_ok(
        &["check", CANDIDATE, "--policy", POLICY, "--format", "json"],
        1,
    );
    insta::assert_snapshot!(r.stdout);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let keys: Vec<&str> = v["traces"][0]["violations"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "rule_id",
            "kind",
            "severity",
            "session",
            "pair_index",
            "detail",
            "tags"
        ]
    );
    assert_eq!(v["gate"]["tripped"], serde_json::json!(true));
}

#[test]
fn check_directory_markdown_and_junit() {
    let dir = "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces";
    let r = veer_ok(
        &[
            "check",
            dir,
            "--policy",
            POLICY,
            "--format",
            "markdown",
            "--fail-on",
            "never",
        ],
        0,
    );
    insta::assert_snapshot!(r.stdout);
    let r = veer_ok(&["check", dir, "--policy", POLICY, "--format", "junit"], 1);
    assert!(
        r.stdout
            .contains("<testsuites name=\"veer check\" tests=\"3\" failures=\"3\">"),
        "{}",
        r.stdout
    );
}

#[test]
fn check_writes_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let r = veer_ok(
        &[
            "check",
            CANDIDATE,
            "--policy",
            POLICY,
            "--format",
            "json",
            "-o",
            out.to_str().unwrap(),
            "--fail-on",
            "never",
        ],
        0,
    );
    assert!(r.stdout.is_empty());
    let text = std::fs::read_to_string(out).unwrap();
    assert!(text.contains("\"rule_id\": \"confirm-before-refund\""));
}

#[test]
fn check_rejects_bad_input_with_exit_2() {
    let r = veer(&["check", CANDIDATE, "--policy", POLICY, "--fail-on", "bogus"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("never, minor, moderate or severe"),
        "{}",
        r.stderr
    );
    let r = veer(&["check", "no/such/trace.agentlog", "--policy", POLICY]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no/such/trace.agentlog"), "{}", r.stderr);
    let r = veer(&["check", CANDIDATE, "--policy", "no/such/policy.yaml"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("no/such/policy.yaml: no such file"),
        "{}",
        r.stderr
    );
}

#[test]
fn validate_accepts_shadow_packs() {
    let r = veer_ok(
        &[
            "policy",
            "validate",
            "tests/fixtures/shadow/policy-packs/pii.yaml",
        ],
        0,
    );
    assert_eq!(
        r.stdout,
        "tests/fixtures/shadow/policy-packs/pii.yaml: valid (6 rules)\n"
    );
    veer_ok(&["policy", "validate", POLICY], 0);
}

#[test]
fn validate_reports_every_problem_with_position_and_hint() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.yaml");
    std::fs::write(
        &p,
        "apiVersion: shadow.dev/v1alpha1\nrules:\n  - id: a\n    kind: no_cal\n    params: {tool: x}\n  - id: b\n    kind: forbidden_text\n    sevrity: error\n    params: {text: ''}\n  - id: c\n    kind: ltl_formula\n    params: {formula: '(tool_call:a'}\n",
    )
    .unwrap();
    let r = veer(&["policy", "validate", p.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let shown = r.stderr.replace(dir.path().to_str().unwrap(), "<dir>");
    insta::assert_snapshot!(shown);
    // The same policy makes `check` fail before reading any trace.
    let r = veer(&[
        "check",
        "no/such/trace.agentlog",
        "--policy",
        p.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown kind 'no_cal'"), "{}", r.stderr);
}

#[test]
fn validate_against_traces_names_rules_that_can_never_fire() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("dead.yaml");
    std::fs::write(
        &p,
        "apiVersion: shadow.dev/v1alpha1\nrules:\n  - {id: no-delete, kind: no_call, params: {tool: delete_ordr}}\n  - {id: lookup-first, kind: must_call_before, params: {first: lookup_order, then: isue_refund}}\n  - {id: big, kind: max_turns, params: {limit: 3}, when: {path: request.params.max_tokns, op: '>', value: 100}}\n  - {id: once, kind: must_call_once, params: {tool: issue_refund}}\n",
    )
    .unwrap();
    let policy = p.to_str().unwrap();
    let examples = "examples/refund-agent";
    let r = veer(&["policy", "validate", policy, "--against", examples]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let shown = r.stdout.replace(dir.path().to_str().unwrap(), "<dir>");
    insta::assert_snapshot!(shown);
    // The same rules warn on stderr in `check` and `diff`, which still run.
    let trace = "examples/refund-agent/candidate.agentlog";
    let r = veer(&["check", trace, "--policy", policy, "--fail-on", "never"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("policy rule `lookup-first` names the tool `isue_refund`")
            && r.stderr
                .contains("did you mean `request.params.max_tokens`?"),
        "{}",
        r.stderr
    );
    let base = "examples/refund-agent/baseline.agentlog";
    let r = veer(&[
        "diff",
        base,
        trace,
        "--policy",
        policy,
        "--fail-on",
        "never",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("did you mean `issue_refund`?"),
        "{}",
        r.stderr
    );
    // A policy whose rules all can fire passes, and says on what.
    let r = veer(&[
        "policy",
        "validate",
        "examples/refund-agent/policy.yaml",
        "--against",
        examples,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("every rule can fire on the 2 traces"),
        "{}",
        r.stdout
    );
    // A path that does not exist is exit 2.
    let r = veer(&["policy", "validate", policy, "--against", "no/such/dir"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn json_policies_load() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.JSON");
    std::fs::write(
        &p,
        r#"{"apiVersion": "shadow.dev/v1alpha1", "rules": [{"id": "no-issue", "kind": "no_call", "params": {"tool": "issue_refund"}, "severity": "warning"}]}"#,
    )
    .unwrap();
    let r = veer_ok(
        &[
            "check",
            CANDIDATE,
            "--policy",
            p.to_str().unwrap(),
            "--fail-on",
            "moderate",
        ],
        1,
    );
    assert!(
        r.stdout
            .contains("[warning] no-issue @ turn #0: forbidden tool `issue_refund` called"),
        "{}",
        r.stdout
    );
    veer_ok(&["check", CANDIDATE, "--policy", p.to_str().unwrap()], 0);
}

const EXPECTED: &str = "tests/fixtures/shadow/refund-causal-diagnosis/expected";

#[test]
fn gate_reapplies_the_gate_to_a_saved_report() {
    for (level, code) in [("never", 0), ("minor", 1), ("moderate", 1), ("severe", 1)] {
        let report = format!("{EXPECTED}/policy_s2_{level}.json");
        let r = veer_ok(&["gate", &report, "--fail-on", level], code);
        assert!(
            r.stdout.contains("policy regressions (report): 1"),
            "{}",
            r.stdout
        );
    }
    let r = veer_ok(
        &[
            "gate",
            &format!("{EXPECTED}/policy_s1_severe.json"),
            "--format",
            "json",
        ],
        1,
    );
    insta::assert_snapshot!(r.stdout);
    assert_eq!(
        r.stderr.trim_end(),
        "fail: worst signal severity 3 >= --fail-on threshold severe (3); exiting 1 to gate the merge."
    );
}

#[test]
fn gate_recomputes_the_policy_diff_with_both_traces() {
    let report = format!("{EXPECTED}/policy_s1_severe.json");
    let r = veer(&["gate", &report, "--policy", POLICY]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("error: --policy requires --baseline and --candidate."),
        "{}",
        r.stderr
    );
    // Swapped sides: the regression becomes a fix, so the policy adds nothing to the gate.
    let r = veer_ok(
        &[
            "gate",
            &report,
            "--policy",
            POLICY,
            "--baseline",
            CANDIDATE,
            "--candidate",
            BASELINE,
            "--format",
            "json",
        ],
        1,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["policy_source"], "recomputed");
    assert_eq!(v["regressions"], serde_json::json!([]));
    let r = veer(&["gate", "no/such/report.json"]);
    assert_eq!(r.code, 2);
}

#[test]
fn remote_schema_refs_are_refused_without_touching_the_network() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.yaml");
    std::fs::write(
        &p,
        "apiVersion: shadow.dev/v1alpha1\nrules:\n  - id: s\n    kind: must_match_json_schema\n    params:\n      schema: {$ref: 'https://example.com/schema.json'}\n",
    )
    .unwrap();
    let r = veer(&["policy", "validate", p.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("p.yaml:6:15: rules[0] (id s, kind must_match_json_schema)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("refusing to fetch 'https://example.com/schema.json'"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("hint: veer never fetches schemas"),
        "{}",
        r.stderr
    );
}

#[test]
fn session_scope_names_sessions_and_absolute_turns() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.yaml");
    std::fs::write(
        &p,
        "apiVersion: shadow.dev/v1alpha1\nrules:\n  - id: short\n    kind: max_turns\n    params: {limit: 1}\n    scope: session\n    severity: info\n  - id: text\n    kind: must_include_text_each\n    params: {text: refund, ignore_case: true}\n    scope: session\n    severity: warning\n",
    )
    .unwrap();
    let r = veer_ok(
        &[
            "check",
            "tests/fixtures/shadow/refund-agent-audit/baseline.agentlog",
            "--policy",
            p.to_str().unwrap(),
            "--fail-on",
            "moderate",
        ],
        1,
    );
    insta::assert_snapshot!(r.stdout.replace(dir.path().to_str().unwrap(), "<dir>"));
    assert!(
        r.stderr
            .contains("worst signal severity 2 >= --fail-on threshold moderate (2)"),
        "{}",
        r.stderr
    );
}
