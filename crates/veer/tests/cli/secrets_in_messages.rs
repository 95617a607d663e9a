//! No secret is ever printed: every kind the built-in patterns know, planted in every field a
//! warning, an error or a preview quotes, must reach neither stdout nor stderr.

use crate::common::veer;
use serde_json::json;
use std::path::Path;

/// One sample of every built-in kind: the text planted, and the part that must never show.
const SAMPLES: [(&str, &str); 14] = [
    ("-----BEGIN PRIVATE KEY-----", "BEGIN PRIVATE KEY"),
    (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGciOiJIUzI1NiJ9",
    ),
    ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123", "sk-ant-api03"),
    ("sk-proj-abcdefghijklmnopqrstuvwxyz012345", "sk-proj-abcd"),
    ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7"),
    (
        "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI",
    ),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefgh"),
    ("AIzaSyA-1234567890abcdefghijklmnopqrstu", "AIzaSyA-1234"),
    (
        "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
        "pdFZKVeTuE8sk7oOcBrzbqgy",
    ),
    ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjt"),
    (
        "Authorization: Bearer ya29.a0AfH6SMBx3kq9Zr7T",
        "a0AfH6SMBx3kq9Zr7T",
    ),
    ("dana.lee@example.com", "dana.lee"),
    ("+1 415 555 0134", "415 555 0134"),
    ("4111 1111 1111 1111", "4111 1111"),
];

fn record(
    id: &str,
    kind: &str,
    parent: Option<&str>,
    payload: serde_json::Value,
) -> serde_json::Value {
    json!({"version": "0.1", "id": id, "kind": kind, "ts": "2026-01-01T00:00:00.000Z",
           "parent": parent, "payload": payload})
}

/// A two-record trace (metadata, one response) with `edit` applied to the response record.
fn trace(dir: &Path, name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let meta = record(
        "sha256:0",
        "metadata",
        None,
        json!({"sdk": {"name": "t", "version": "1"}}),
    );
    let mut resp = record(
        "sha256:1",
        "chat_response",
        Some("sha256:0"),
        json!({"model": "m", "content": [{"type": "text", "text": "hello there"}],
               "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 2},
               "latency_ms": 3}),
    );
    edit(&mut resp);
    let path = dir.join(name);
    std::fs::write(&path, format!("{meta}\n{resp}\n")).unwrap();
    path.to_str().unwrap().to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// The commands to run for one sample (the `i`-th): every planted field read permissively and
/// strictly, and compared; previews in one report format each (rotating, so every format sees
/// several kinds); every non-trace file with the value in its fields.
fn runs(i: usize, secret: &str, d: &Path) -> Vec<Vec<String>> {
    let base = "tests/fixtures/shadow/demo/baseline.agentlog";
    let s = json!(secret);
    let fields: Vec<String> = vec![
        trace(d, "version.agentlog", |r| r["version"] = s.clone()),
        trace(d, "kind.agentlog", |r| r["kind"] = s.clone()),
        trace(d, "ts.agentlog", |r| r["ts"] = s.clone()),
        trace(d, "parent.agentlog", |r| r["parent"] = s.clone()),
        trace(d, "id.agentlog", |r| r["id"] = s.clone()),
        trace(d, "model.agentlog", |r| r["payload"]["model"] = s.clone()),
        trace(d, "stop.agentlog", |r| {
            r["payload"]["stop_reason"] = s.clone()
        }),
        trace(d, "usage.agentlog", |r| {
            r["payload"]["usage"]["input_tokens"] = s.clone()
        }),
        trace(d, "block.agentlog", |r| {
            r["payload"]["content"][0]["type"] = s.clone()
        }),
        write(d, "garbage.agentlog", &format!("{{\"version\": {secret}\n")),
    ];
    let text = trace(d, "text.agentlog", |r| {
        r["payload"]["content"][0]["text"] = json!(format!("note {secret} end"))
    });
    let policy_kind = write(
        d,
        "p1.yaml",
        &format!("rules:\n  - id: r1\n    kind: {s}\n"),
    );
    let policy_fields = write(
        d,
        "p2.yaml",
        &format!("rules:\n  - id: {s}\n    kind: no_call\n    params: {{tool: {s}}}\n    severity: {s}\n"),
    );
    let policy_json = write(
        d,
        "p3.json",
        &format!("{{\"rules\": [{{\"id\": {s}, \"kind\": \"no_call\", \"params\": {{\"tool\": 5, {s}: 1}}}}]}}"),
    );
    let pricing = write(d, "pricing.json", &format!("{{{s}: {{\"input\": {s}}}}}"));
    let patterns = write(
        d,
        "pat.yaml",
        &format!("patterns:\n  - name: {s}\n    regex: \"x\"\n"),
    );
    let report = write(
        d,
        "report.json",
        &format!("{{\"schema_version\": {s}, \"worst_severity\": {s}}}"),
    );
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    let mut runs = Vec::new();
    for t in &fields {
        runs.push(v(&["inspect", "--strict", t]));
        runs.push(v(&["diff", base, t]));
    }
    let format = [
        "markdown", "json", "html", "sarif", "junit", "github", "terminal",
    ][i % 7];
    runs.push(v(&["inspect", &text]));
    runs.push(v(&["diff", base, &text, "--format", format]));
    runs.push(v(&["diff", base, &fields[5], "--format", format]));
    for p in [&policy_kind, &policy_fields, &policy_json] {
        runs.push(v(&["policy", "validate", p]));
        runs.push(v(&["check", base, "--policy", p]));
    }
    runs.push(v(&["diff", base, base, "--pricing", &pricing]));
    runs.push(v(&["scan", "--patterns", &patterns, base]));
    runs.push(v(&["gate", &report]));
    if !secret.contains('/') {
        // A file name is quoted by every message about its file.
        let missing = d.join(format!("{secret}.agentlog"));
        let missing = missing.to_str().unwrap();
        runs.push(v(&["inspect", missing]));
        runs.push(v(&["diff", missing, base]));
    }
    runs
}

#[test]
fn no_message_or_preview_prints_a_planted_secret() {
    std::thread::scope(|scope| {
        for (i, (secret, shown)) in SAMPLES.into_iter().enumerate() {
            scope.spawn(move || {
                let dir = tempfile::tempdir().unwrap();
                for args in runs(i, secret, dir.path()) {
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    let r = veer(&args);
                    assert!(
                        (0..=2).contains(&r.code),
                        "{secret}: veer {args:?} exited {}",
                        r.code
                    );
                    for (stream, out) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
                        assert!(
                            !out.contains(shown),
                            "{secret}: veer {args:?} printed it on {stream}:\n{out}"
                        );
                    }
                }
            });
        }
    });
}

#[test]
fn no_redact_shows_the_value_a_user_asked_to_see() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
    let t = trace(dir.path(), "t.agentlog", |r| r["version"] = json!(key));
    let r = veer(&["inspect", &t]);
    assert!(
        r.stderr.contains("[REDACTED:openai_api_key]"),
        "{}",
        r.stderr
    );
    let r = veer(&["--no-redact", "inspect", &t]);
    assert!(r.stderr.contains(key), "{}", r.stderr);
}
