//! `veer policy suggest --from REPORT`: rules written from a pair, a directory and a trials
//! report; every kept rule validates, trips `veer check` on the changed run and passes the
//! baseline; a policy file the user has is never replaced; bad inputs are clear errors.

use crate::common::{schema_violations, veer_ok};
use std::path::Path;

const BASE: &str = "examples/refund-agent/baseline.agentlog";
const CAND: &str = "examples/refund-agent/candidate.agentlog";
const SHADOW: &str = "tests/fixtures/shadow/refund-causal-diagnosis";

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_pair_report_gives_a_policy_that_catches_the_candidate_and_passes_the_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    veer_ok(
        &["diff", BASE, CAND, "--format", "json", "-o", s(&report)],
        0,
    );
    let policy = dir.path().join("new-rules.yaml");
    let r = veer_ok(
        &["policy", "suggest", "--from", s(&report), "-o", s(&policy)],
        0,
    );
    assert!(r.stderr.contains("rules kept of"), "{}", r.stderr);
    let text = std::fs::read_to_string(&policy).unwrap();
    assert!(
        text.starts_with("# Rules written by `veer policy suggest`"),
        "{text}"
    );
    // The refund amount changed from 42 to 50: the trajectory pins it, and the answer says it.
    assert!(text.contains("kind: trajectory_match"), "{text}");
    assert!(
        text.contains("argument `amount` is 50, expected 42"),
        "{text}"
    );
    assert!(text.contains("kind: forbidden_text"), "{text}");
    veer_ok(&["policy", "validate", s(&policy)], 0);
    let c = veer_ok(
        &["check", CAND, "--policy", s(&policy), "--format", "json"],
        1,
    );
    let v: serde_json::Value = serde_json::from_str(&c.stdout).unwrap();
    assert!(!v["traces"][0]["violations"].as_array().unwrap().is_empty());
    veer_ok(&["check", BASE, "--policy", s(&policy)], 0);

    // The file is the user's now: it is not replaced without --force.
    std::fs::write(&policy, "# my edits\n").unwrap();
    let r = veer_ok(
        &["policy", "suggest", "--from", s(&report), "-o", s(&policy)],
        2,
    );
    assert!(r.stderr.contains("already exists"), "{}", r.stderr);
    assert!(r.stderr.contains("--force"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), "# my edits\n");
    veer_ok(
        &[
            "policy",
            "suggest",
            "--from",
            s(&report),
            "-o",
            s(&policy),
            "--force",
        ],
        0,
    );
    assert!(std::fs::read_to_string(&policy).unwrap().contains("rules:"));

    // JSON: every proposal with what checking it found, valid against the published schema.
    let j = veer_ok(
        &[
            "policy",
            "suggest",
            "--from",
            s(&report),
            "--format",
            "json",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(
        schema_violations("policy-suggest.schema.json", &v),
        Vec::<String>::new()
    );
    assert_eq!(v["report_kind"], "pair");
    for rule in v["rules"].as_array().unwrap() {
        let fires = !rule["fires_on"].as_array().unwrap().is_empty();
        let silent = rule["fires_on_baseline"].as_array().unwrap().is_empty();
        assert_eq!(rule["kept"], fires && silent, "{rule}");
    }
}

#[test]
fn an_unchanged_pair_gives_an_empty_policy_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("same.json");
    veer_ok(
        &["diff", BASE, BASE, "--format", "json", "-o", s(&report)],
        0,
    );
    let r = veer_ok(&["policy", "suggest", "--from", s(&report)], 0);
    assert!(r.stdout.contains("rules: []"), "{}", r.stdout);
    assert!(r.stderr.contains("marks no run as changed"), "{}", r.stderr);
}

#[test]
fn a_directory_report_needs_its_directories_and_then_writes_an_order_rule() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("dir.json");
    let (b, c) = (
        format!("{SHADOW}/baseline_traces"),
        format!("{SHADOW}/candidate_traces"),
    );
    veer_ok(&["diff", &b, &c, "--format", "json", "-o", s(&report)], 0);
    let r = veer_ok(&["policy", "suggest", "--from", s(&report)], 2);
    assert!(
        r.stderr.contains("relative to the two directories"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("hint: pass them"), "{}", r.stderr);

    let policy = dir.path().join("p.yaml");
    veer_ok(
        &[
            "policy",
            "suggest",
            "--from",
            s(&report),
            "--baseline",
            &b,
            "--candidate",
            &c,
            "-o",
            s(&policy),
        ],
        0,
    );
    let text = std::fs::read_to_string(&policy).unwrap();
    assert!(
        text.contains("id: confirm-refund-amount-before-issue-refund"),
        "{text}"
    );
    veer_ok(&["check", &b, "--policy", s(&policy)], 0);
    veer_ok(&["check", &c, "--policy", s(&policy)], 1);

    let r = veer_ok(
        &[
            "policy",
            "suggest",
            "--from",
            s(&report),
            "--baseline",
            &b,
            "--candidate",
            &c,
            "--case",
            "nope.agentlog",
        ],
        2,
    );
    assert!(
        r.stderr.contains("--case nope.agentlog: no such case"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_trials_report_names_its_directories_and_its_changed_cases() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (side, src) in [("main", BASE), ("pr", CAND)] {
        for case in ["refund-a", "refund-b"] {
            let d = dir.path().join(side).join(case);
            std::fs::create_dir_all(&d).unwrap();
            // refund-b does not change: its candidate is the baseline's run.
            let from = if case == "refund-b" { BASE } else { src };
            for k in 1..=3 {
                std::fs::copy(root.join(from), d.join(format!("trial-{k}.agentlog"))).unwrap();
            }
        }
    }
    let (b, c) = (dir.path().join("main"), dir.path().join("pr"));
    let report = dir.path().join("trials.json");
    let d = crate::common::veer(&["diff", s(&b), s(&c), "--format", "json", "-o", s(&report)]);
    assert!(d.code == 0 || d.code == 1, "{}", d.stderr);
    let j = veer_ok(
        &[
            "policy",
            "suggest",
            "--from",
            s(&report),
            "--format",
            "json",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v["report_kind"], "trials");
    assert_eq!(v["regressed_cases"], serde_json::json!(["refund-a"]), "{v}");
    assert_eq!(v["baseline_runs"], 6);
    assert_eq!(v["candidate_runs"], 3);
    let kept: Vec<&serde_json::Value> = v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kept"] == true)
        .collect();
    assert!(!kept.is_empty(), "{v}");
    for r in &kept {
        assert_eq!(r["fires_on"].as_array().unwrap().len(), 3, "{r}");
    }
    // The terminal summary names the counts.
    let t = veer_ok(
        &[
            "policy",
            "suggest",
            "--from",
            s(&report),
            "--format",
            "terminal",
        ],
        0,
    );
    assert!(
        t.stdout
            .contains("1 changed case(s), 3 changed run(s), checked against 6 baseline run(s)"),
        "{}",
        t.stdout
    );
}

#[test]
fn bad_reports_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{not json").unwrap();
    let r = veer_ok(&["policy", "suggest", "--from", s(&bad)], 2);
    assert!(r.stderr.contains("not valid JSON"), "{}", r.stderr);
    let r = veer_ok(
        &[
            "policy",
            "suggest",
            "--from",
            s(&dir.path().join("none.json")),
        ],
        2,
    );
    assert!(r.stderr.contains("cannot read"), "{}", r.stderr);
}
