//! `veer scan` and the redaction of secrets in every report.

use crate::common::{veer, veer_ok};

const KEY: &str = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123";

fn trace_with_secrets() -> String {
    let meta = r#"{"version":"0.1","id":"sha256:0","kind":"metadata","ts":"2026-01-01T00:00:00.000Z","parent":null,"payload":{"sdk":{"name":"t","version":"1"}}}"#;
    let resp = format!(
        r#"{{"version":"0.1","id":"sha256:1","kind":"chat_response","ts":"2026-01-01T00:00:00.000Z","parent":"sha256:0","payload":{{"model":"m","content":[{{"type":"text","text":"Mail dana.lee@example.com, key {KEY}, card 4111 1111 1111 1111"}}],"stop_reason":"end_turn","usage":{{"input_tokens":1,"output_tokens":2}},"latency_ms":3}}}}"#
    );
    format!("{meta}\n{resp}\n")
}

#[test]
fn scan_reports_location_and_kind_never_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.agentlog");
    std::fs::write(&p, trace_with_secrets()).unwrap();
    std::fs::write(dir.path().join("clean.agentlog"), "{}\n").unwrap();
    let r = veer_ok(&["scan", dir.path().to_str().unwrap()], 1);
    assert!(r.stdout.contains("t.agentlog:2:"), "{}", r.stdout);
    for kind in ["email", "anthropic_api_key", "credit_card"] {
        assert!(
            r.stdout.contains(&format!(": {kind}\n")),
            "{kind}: {}",
            r.stdout
        );
    }
    assert!(
        r.stdout.contains("3 secret(s) in 1 of 2 file(s)"),
        "{}",
        r.stdout
    );
    assert!(
        !r.stdout.contains(KEY) && !r.stdout.contains("dana.lee"),
        "{}",
        r.stdout
    );
    let r = veer_ok(&["scan", p.to_str().unwrap(), "--format", "json"], 1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["files_scanned"], 1);
    assert_eq!(v["findings"].as_array().unwrap().len(), 3);
    assert_eq!(v["findings"][0]["line"], 2);
}

#[test]
fn scan_clean_paths_exit_zero_and_bad_paths_exit_two() {
    veer_ok(&["scan", "tests/fixtures/shadow/demo"], 0);
    let r = veer(&["scan", "no/such/file.agentlog"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("no/such/file.agentlog: (file): cannot read"),
        "{}",
        r.stderr
    );
}

#[test]
fn scan_extra_patterns_and_bad_pattern_files() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.agentlog");
    std::fs::write(&t, "token itk_abcd1234 here\n").unwrap();
    let pats = dir.path().join("p.yaml");
    std::fs::write(
        &pats,
        "patterns:\n  - name: internal_token\n    regex: 'itk_[a-z0-9]{8}'\n",
    )
    .unwrap();
    let r = veer_ok(
        &[
            "scan",
            t.to_str().unwrap(),
            "--patterns",
            pats.to_str().unwrap(),
        ],
        1,
    );
    assert!(
        r.stdout.contains("t.agentlog:1:7: internal_token"),
        "{}",
        r.stdout
    );
    std::fs::write(&pats, "patterns:\n  - name: bad\n    regex: '(unclosed'\n").unwrap();
    let r = veer(&[
        "scan",
        t.to_str().unwrap(),
        "--patterns",
        pats.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("p.yaml: patterns: pattern 0 (bad): invalid regex"),
        "{}",
        r.stderr
    );
    std::fs::write(&pats, "patterns:\n  - name: x\n    regexp: 'a'\n").unwrap();
    let r = veer(&[
        "scan",
        t.to_str().unwrap(),
        "--patterns",
        pats.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("regexp"), "{}", r.stderr);
}

#[test]
fn reports_redact_secrets_unless_asked_not_to() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.agentlog");
    std::fs::write(&p, trace_with_secrets()).unwrap();
    let p = p.to_str().unwrap();
    let r = veer_ok(&["inspect", p, "--format", "json"], 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("still valid JSON");
    assert_eq!(
        v["traces"][0]["turns"][0]["text"],
        "Mail [REDACTED:email], key [REDACTED:anthropic_api_key], card [REDACTED:credit_card]"
    );
    let r = veer_ok(&["inspect", p], 0);
    assert!(
        !r.stdout.contains("dana.lee") && r.stdout.contains("[REDACTED:email]"),
        "{}",
        r.stdout
    );
    let r = veer_ok(&["inspect", p, "--format", "json", "--no-redact"], 0);
    assert!(r.stdout.contains(KEY), "{}", r.stdout);
    // -o files are redacted too.
    let out = dir.path().join("o.json");
    veer_ok(
        &[
            "inspect",
            p,
            "--format",
            "json",
            "-o",
            out.to_str().unwrap(),
        ],
        0,
    );
    let written = std::fs::read_to_string(out).unwrap();
    assert!(!written.contains(KEY) && written.contains("[REDACTED:anthropic_api_key]"));
}

#[test]
fn convert_redacts_by_default_with_content_ids_of_the_redacted_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.agentlog");
    std::fs::write(&p, trace_with_secrets()).unwrap();
    let p = p.to_str().unwrap();
    let out = dir.path().join("c.agentlog");
    let o = out.to_str().unwrap();
    veer_ok(&["convert", p, "-o", o], 0);
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        !written.contains(KEY) && !written.contains("dana.lee"),
        "{written}"
    );
    assert!(
        written.contains("[REDACTED:anthropic_api_key]"),
        "{written}"
    );
    // The redacted record's id is the content id of its written payload; the metadata record's
    // placeholder id (`sha256:0`) becomes its content id too, and stays the response's parent.
    let lines: Vec<serde_json::Value> = written
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[1]["id"],
        veer_trace::canonical::content_id(&lines[1]["payload"])
    );
    assert_eq!(
        lines[0]["id"],
        veer_trace::canonical::content_id(&lines[0]["payload"])
    );
    assert_eq!(lines[1]["parent"], lines[0]["id"]);
    veer_ok(&["inspect", "--strict", o], 0);
    veer_ok(&["inspect", o], 0);
    // --no-redact keeps the content verbatim.
    let r = veer_ok(&["--no-redact", "convert", p], 0);
    assert!(r.stdout.contains(KEY), "{}", r.stdout);
}

#[test]
fn convert_renames_a_redacted_parent_in_its_children() {
    // A request that carries a secret is the parent of a clean response: redaction gives the
    // request the content id of its redacted payload, and the response's `parent` follows it
    // (the placeholder ids of the fixture become content ids as well).
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.agentlog");
    let meta = r#"{"version":"0.1","id":"sha256:0","kind":"metadata","ts":"2026-01-01T00:00:00.000Z","parent":null,"payload":{"sdk":{"name":"t","version":"1"}}}"#;
    let req = format!(
        r#"{{"version":"0.1","id":"sha256:a","kind":"chat_request","ts":"2026-01-01T00:00:00.000Z","parent":"sha256:0","payload":{{"model":"m","messages":[{{"role":"user","content":"use key {KEY}"}}]}}}}"#
    );
    let resp = r#"{"version":"0.1","id":"sha256:b","kind":"chat_response","ts":"2026-01-01T00:00:01.000Z","parent":"sha256:a","payload":{"model":"m","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},"latency_ms":3}}"#;
    std::fs::write(&p, format!("{meta}\n{req}\n{resp}\n")).unwrap();
    let r = veer_ok(&["convert", p.to_str().unwrap()], 0);
    let lines: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(!r.stdout.contains(KEY), "{}", r.stdout);
    let request_id = veer_trace::canonical::content_id(&lines[1]["payload"]);
    assert_ne!(request_id, "sha256:a");
    assert_eq!(lines[1]["id"], request_id.as_str());
    assert_eq!(lines[2]["parent"], request_id.as_str(), "{}", r.stdout);
    assert_eq!(
        lines[2]["id"],
        veer_trace::canonical::content_id(&lines[2]["payload"])
    );
    // The parent chain still reads: inspect accepts the converted trace.
    let out = dir.path().join("c.agentlog");
    std::fs::write(&out, &r.stdout).unwrap();
    veer_ok(&["inspect", out.to_str().unwrap()], 0);
}
