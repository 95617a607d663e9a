//! `veer check` with `trajectory_match` rules: a passing and a failing rule on one trace.

use crate::common::veer_ok;

const CANDIDATE: &str =
    "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces/s1.agentlog";

const POLICY: &str = "apiVersion: shadow.dev/v1alpha1
rules:
  - id: refund-called
    kind: trajectory_match
    params:
      mode: superset
      calls:
        - {tool: issue_refund, args: {order: 'Refund order #[0-9]+ .*'}, match: regex}
  - id: refund-path
    kind: trajectory_match
    params:
      mode: strict
      calls:
        - {tool: lookup_order}
        - {tool: issue_refund}
";

#[test]
fn check_reports_the_failing_trajectory_rule_only() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("policy.yaml");
    std::fs::write(&policy, POLICY).unwrap();
    let policy = policy.to_str().unwrap();
    let r = veer_ok(
        &["check", CANDIDATE, "--policy", policy, "--format", "json"],
        1,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let violations = v["traces"][0]["violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1, "{}", r.stdout);
    assert_eq!(violations[0]["rule_id"], "refund-path");
    assert_eq!(violations[0]["kind"], "trajectory_match");
    assert_eq!(
        violations[0]["detail"],
        "trajectory_match (strict): call 1 `lookup_order`: is `issue_refund`, expected `lookup_order`"
    );
    // With only the passing rule the trace is clean.
    let only_pass = POLICY.split("  - id: refund-path").next().unwrap();
    std::fs::write(dir.path().join("pass.yaml"), only_pass).unwrap();
    let pass = dir.path().join("pass.yaml");
    let r = veer_ok(&["check", CANDIDATE, "--policy", pass.to_str().unwrap()], 0);
    assert!(r.stdout.contains("no violations"), "{}", r.stdout);
}
