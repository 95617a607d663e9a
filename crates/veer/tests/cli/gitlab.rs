//! `--format gitlab`: GitLab's Code Quality report for `veer diff` (a pair, a directory with an
//! unreadable pair) and `veer check`, validated against a JSON Schema of the fields GitLab
//! documents (`gitlab_code_quality.schema.json`), with severities following the verdict and
//! fingerprints unique and stable.

use crate::common::{examples, veer, veer_ok};
use serde_json::Value;
use std::collections::HashSet;

fn violations(instance: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(include_str!("gitlab_code_quality.schema.json"))
        .expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Parses a report, checks it against the schema and that fingerprints are unique.
fn valid(text: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(text).expect("the report is JSON");
    assert_eq!(violations(&v), Vec::<String>::new(), "{text}");
    let issues = v.as_array().expect("an array").clone();
    let fps: HashSet<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    assert_eq!(fps.len(), issues.len(), "fingerprints are unique: {text}");
    issues
}

fn refund(file: &str) -> String {
    examples()
        .join("refund-agent")
        .join(file)
        .display()
        .to_string()
}

#[test]
fn the_schema_rejects_what_gitlab_would() {
    let good = serde_json::json!([{"description": "d", "check_name": "c", "fingerprint": "f",
        "severity": "major", "location": {"path": "a", "lines": {"begin": 1}}}]);
    assert!(violations(&good).is_empty());
    for (key, bad) in [
        ("severity", serde_json::json!("error")),
        ("fingerprint", Value::Null),
        ("location", serde_json::json!({"path": "a"})),
    ] {
        let mut v = good.clone();
        v[0][key] = bad;
        assert!(!violations(&v).is_empty(), "{key}");
    }
}

#[test]
fn a_pair_diff_with_a_tripped_policy_is_critical() {
    let args = [
        "diff",
        &refund("baseline.agentlog"),
        &refund("candidate.agentlog"),
        "--policy",
        &refund("policy.yaml"),
        "--fail-on",
        "severe",
        "--format",
        "gitlab",
    ]
    .map(String::from);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let first = veer_ok(&args, 1);
    let issues = valid(&first.stdout);
    assert!(!issues.is_empty());
    // What tripped the gate is critical; the candidate file is the location.
    assert!(issues
        .iter()
        .any(|i| i["severity"] == "critical"
            && i["check_name"].as_str().unwrap().starts_with("policy/")));
    for i in &issues {
        assert!(i["location"]["path"]
            .as_str()
            .unwrap()
            .ends_with("candidate.agentlog"));
    }
    // Same inputs, same bytes (the fingerprints are stable).
    assert_eq!(veer_ok(&args, 1).stdout, first.stdout);
    // Without a gate nothing trips: no issue is critical.
    let never: Vec<&str> = args
        .iter()
        .map(|a| if *a == "severe" { "never" } else { a })
        .collect();
    let calm = valid(&veer_ok(&never, 0).stdout);
    assert!(!calm.is_empty());
    assert!(calm.iter().all(|i| i["severity"] != "critical"), "{calm:?}");
}

#[test]
fn check_and_a_directory_with_an_unreadable_pair() {
    let r = veer(&[
        "check",
        &refund("candidate.agentlog"),
        "--policy",
        &refund("policy.yaml"),
        "--format",
        "gitlab",
    ]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let issues = valid(&r.stdout);
    assert!(issues
        .iter()
        .all(|i| i["check_name"].as_str().unwrap().starts_with("policy/")));

    let tmp = tempfile::tempdir().unwrap();
    let (b, c) = (tmp.path().join("base"), tmp.path().join("cand"));
    std::fs::create_dir_all(&b).unwrap();
    std::fs::create_dir_all(&c).unwrap();
    std::fs::copy(refund("baseline.agentlog"), b.join("a.agentlog")).unwrap();
    std::fs::copy(refund("candidate.agentlog"), c.join("a.agentlog")).unwrap();
    std::fs::copy(refund("baseline.agentlog"), b.join("b.agentlog")).unwrap();
    std::fs::write(c.join("b.agentlog"), "not a trace\n").unwrap();
    let r = veer(&[
        "diff",
        b.to_str().unwrap(),
        c.to_str().unwrap(),
        "--trials",
        "off",
        "--policy",
        &refund("policy.yaml"),
        "--format",
        "gitlab",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let issues = valid(&r.stdout);
    let unreadable: Vec<&Value> = issues
        .iter()
        .filter(|i| i["check_name"] == "input/unreadable")
        .collect();
    assert_eq!(unreadable.len(), 1, "{issues:?}");
    assert_eq!(unreadable[0]["severity"], "critical");
    assert!(unreadable[0]["location"]["path"]
        .as_str()
        .unwrap()
        .ends_with("b.agentlog"));
}
