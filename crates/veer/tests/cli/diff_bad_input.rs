//! `veer diff` on every bad input (unreadable, empty, malformed, of an unknown format): exit 2, a clear message, a hint, never a panic.

use crate::common::{fixtures, veer, veer_ok};
use crate::diff::{fails, pair};
use serde_json::Value;

#[test]
fn top_k_zero_is_rejected() {
    let (b, c) = pair("demo");
    fails(&["diff", &b, &c, "--top-k", "0"], "must be at least 1");
    fails(&["diff", &b, &c, "--top-k", "many"], "not a whole number");
}

#[test]
fn mismatched_formats_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let case: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("traxr/analyzer_goldens/single_edit.json"))
            .unwrap(),
    )
    .unwrap();
    let traxr = dir.path().join("run.json");
    std::fs::write(
        &traxr,
        serde_json::to_string(&case["input"]["clean_trace"]).unwrap(),
    )
    .unwrap();
    let (b, _) = pair("demo");
    let e = fails(&["diff", &b, traxr.to_str().unwrap()], "mismatched formats");
    assert!(
        e.contains("is agentlog but") && e.contains("is traxr"),
        "{e}"
    );
    assert!(e.contains("hint:"), "{e}");
}

#[test]
fn file_against_directory_is_rejected() {
    let (b, _) = pair("demo");
    fails(
        &["diff", &b, "tests/fixtures/shadow/demo"],
        "mismatched inputs",
    );
}

#[test]
fn an_empty_side_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let only_metadata = dir.path().join("empty.agentlog");
    let first = std::fs::read_to_string(fixtures().join("shadow/demo/baseline.agentlog")).unwrap();
    std::fs::write(
        &only_metadata,
        format!("{}\n", first.lines().next().unwrap()),
    )
    .unwrap();
    let (b, _) = pair("demo");
    fails(
        &["diff", &b, only_metadata.to_str().unwrap()],
        "has no responses",
    );
    let zero = dir.path().join("zero.agentlog");
    std::fs::write(&zero, "").unwrap();
    let r = veer(&["diff", zero.to_str().unwrap(), &b]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn bad_pricing_files_name_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let (b, c) = pair("demo");
    for (body, needle) in [
        (
            r#"{"claude-opus-4-7": {"input": "cheap", "output": 0.1}}"#,
            "claude-opus-4-7.input: must be a non-negative number",
        ),
        (
            r#"{"m": {"input": 1e-6, "ouput": 2e-6}}"#,
            "m.ouput: unknown price field",
        ),
        (r#"{"m": [1e-6]}"#, "m: must be [input, output]"),
        (
            r#"{"m": {"input": -1}}"#,
            "m.input: must be a non-negative number",
        ),
        (
            r#"["not", "an", "object"]"#,
            "(file): must be a JSON object",
        ),
        ("{ not json", "(file): not valid JSON"),
    ] {
        let p = dir.path().join("pricing.json");
        std::fs::write(&p, body).unwrap();
        let e = fails(&["diff", &b, &c, "--pricing", p.to_str().unwrap()], needle);
        assert!(e.contains("pricing.json"), "{e}");
        assert!(e.contains("hint:"), "{e}");
    }
    fails(
        &["diff", &b, &c, "--pricing", "/no/such/pricing.json"],
        "cannot read pricing file",
    );
}

#[test]
fn unreadable_traces_are_rejected() {
    let (b, _) = pair("demo");
    fails(&["diff", &b, "/no/such/trace.agentlog"], "no such file");
}

#[test]
fn help_shows_an_example() {
    let r = veer_ok(&["diff", "--help"], 0);
    assert!(r
        .stdout
        .contains("veer diff baseline.agentlog candidate.agentlog"));
}
