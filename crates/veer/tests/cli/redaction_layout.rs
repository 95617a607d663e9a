//! Redaction on values: a report holding a secret is the report without
//! redaction with each secret replaced by `[REDACTED:<kind>]` in place — same keys, same order,
//! same indentation, same number forms — for veer's own layout and for traxr's Python layout
//! (`experiment analyze --format json`: sorted keys, Python float repr, `\uXXXX` escapes).

use crate::common::{examples, veer};
use std::path::Path;

/// The planted secrets and what the redactor writes for each.
const SECRETS: [(&str, &str); 2] = [
    ("dana.lee@example.com", "[REDACTED:email]"),
    ("AKIAIOSFODNN7EXAMPLE", "[REDACTED:aws_access_key_id]"),
];

/// `examples/refund-agent/candidate.agentlog` with both secrets in its last answer, in a
/// directory named by a secret (so every report naming the file holds one).
fn leaky_candidate(dir: &Path) -> String {
    let dir = dir.join("dana.lee@example.com");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(examples().join("refund-agent/candidate.agentlog")).unwrap();
    let text = text.replace(
        "I'm sorry, I can't help with questions about refund amounts.",
        "Write to dana.lee@example.com with key AKIAIOSFODNN7EXAMPLE \u{e9} 1e-05.",
    );
    assert!(text.contains("AKIAIOSFODNN7EXAMPLE"));
    let p = dir.join("candidate.agentlog");
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// Runs `args` with and without `--no-redact`; the redacted output must be the raw one with
/// every secret replaced in place, and must differ from it (a secret was there to redact).
fn assert_layout_kept(args: &[&str]) {
    let redacted = veer(args);
    let mut raw_args = args.to_vec();
    raw_args.push("--no-redact");
    let raw = veer(&raw_args);
    assert!(
        redacted.code == 0 || redacted.code == 1,
        "{args:?}: {}",
        redacted.stderr
    );
    assert_eq!(redacted.code, raw.code, "{args:?}");
    let mut expected = raw.stdout.clone();
    for (secret, mark) in SECRETS {
        expected = expected.replace(secret, mark);
    }
    assert_ne!(
        raw.stdout, expected,
        "{args:?}: no secret reached the report"
    );
    assert!(
        redacted.stdout == expected,
        "{args:?}: the redacted report is not the raw one with the secrets replaced in place\n\
         redacted:\n{}\nexpected:\n{}",
        redacted.stdout,
        expected
    );
}

#[test]
fn a_secret_in_a_report_is_replaced_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let candidate = leaky_candidate(tmp.path());
    let baseline = examples().join("refund-agent/baseline.agentlog");
    let baseline = baseline.to_str().unwrap();
    let policy = examples().join("refund-agent/policy.yaml");
    let policy = policy.to_str().unwrap();
    assert_layout_kept(&["inspect", &candidate, "--format", "json"]);
    assert_layout_kept(&[
        "experiment",
        "pair",
        baseline,
        &candidate,
        "--detail",
        "--format",
        "json",
    ]);
    assert_layout_kept(&["check", &candidate, "--policy", policy, "--format", "json"]);
    // traxr's Python layout: an experiment directory whose perturbed run answers with secrets.
    let exp = tmp.path().join("exp");
    std::fs::create_dir_all(exp.join("perturbed")).unwrap();
    std::fs::copy(baseline, exp.join("baseline.agentlog")).unwrap();
    std::fs::copy(&candidate, exp.join("perturbed/leak.agentlog")).unwrap();
    let exp = exp.to_str().unwrap();
    assert_layout_kept(&["experiment", "analyze", exp, "--format", "json"]);
}
