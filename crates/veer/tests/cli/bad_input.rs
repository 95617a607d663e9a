//! Bad input never panics: each case exits 2 with a message naming file, line and field.

use crate::common::veer;
use std::path::Path;

const GOOD: &str = r#"{"version":"0.1","id":"sha256:0000000000000000000000000000000000000000000000000000000000000000","kind":"metadata","ts":"2026-01-01T00:00:00.000Z","parent":null,"payload":{"sdk":{"name":"t","version":"1"}}}"#;

fn response(payload: &str) -> String {
    format!(
        r#"{{"version":"0.1","id":"sha256:1","kind":"chat_response","ts":"2026-01-01T00:00:00.000Z","parent":"sha256:0","payload":{payload}}}"#
    )
}

/// Writes `bytes` to a temp file and runs `veer inspect` on it; returns stderr after checking
/// the exit code is 2, nothing went to stdout, and no panic message appeared.
fn inspect_bytes(name: &str, bytes: &[u8], extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    inspect_path(&path, extra)
}

fn inspect_path(path: &Path, extra: &[&str]) -> String {
    let p = path.to_str().unwrap();
    let mut args = vec!["inspect", p];
    args.extend_from_slice(extra);
    let r = veer(&args);
    assert_eq!(r.code, 2, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    r.stderr
}

#[test]
fn empty_file() {
    let e = inspect_bytes("t.agentlog", b"", &[]);
    assert!(
        e.contains("t.agentlog: (file): empty trace: no records"),
        "{e}"
    );
    let e = inspect_bytes("t.agentlog", b"\n\n  \n", &[]);
    assert!(e.contains("empty trace: no records"), "{e}");
}

#[test]
fn truncated_last_line() {
    let text = format!("{GOOD}\n{}", &GOOD[..60]);
    let e = inspect_bytes("t.agentlog", text.as_bytes(), &[]);
    assert!(
        e.contains("t.agentlog:2: (line): invalid JSON: EOF while parsing"),
        "{e}"
    );
}

#[test]
fn invalid_json() {
    let e = inspect_bytes(
        "t.agentlog",
        format!("{GOOD}\n{{not json}}\n").as_bytes(),
        &[],
    );
    assert!(e.contains("t.agentlog:2: (line): invalid JSON"), "{e}");
    assert!(e.contains("hint:"), "{e}");
}

#[test]
fn record_not_an_object() {
    let e = inspect_bytes("t.agentlog", format!("{GOOD}\n[1,2]\n").as_bytes(), &[]);
    assert!(
        e.contains("t.agentlog:2: (line): record is an array, not a JSON object"),
        "{e}"
    );
}

#[test]
fn missing_required_field() {
    let line = GOOD.replace(r#""kind":"metadata","#, "");
    let e = inspect_bytes("t.agentlog", line.as_bytes(), &[]);
    assert!(
        e.contains("t.agentlog:1: kind: missing required field"),
        "{e}"
    );
}

#[test]
fn mistyped_fields() {
    let e = inspect_bytes(
        "t.agentlog",
        GOOD.replace(r#""ts":"2026-01-01T00:00:00.000Z""#, r#""ts":5"#)
            .as_bytes(),
        &[],
    );
    assert!(
        e.contains("t.agentlog:1: ts: must be a string, found a number"),
        "{e}"
    );
    let text = format!("{GOOD}\n{}\n", response(r#"{"content":[],"usage":"lots"}"#));
    let e = inspect_bytes("t.agentlog", text.as_bytes(), &[]);
    assert!(
        e.contains(
            "t.agentlog:2: payload.usage: chat_response field must be an object, found a string"
        ),
        "{e}"
    );
    let text = format!("{GOOD}\n{}\n", response(r#"{"content":7}"#));
    let e = inspect_bytes("t.agentlog", text.as_bytes(), &[]);
    assert!(e.contains(":2: payload.content:"), "{e}");
    let text = format!("{GOOD}\n{}\n", response("3"));
    let e = inspect_bytes("t.agentlog", text.as_bytes(), &[]);
    assert!(
        e.contains(":2: payload: must be an object, found a number"),
        "{e}"
    );
}

#[test]
fn non_utf8_bytes() {
    let mut bytes = format!("{GOOD}\n").into_bytes();
    bytes.extend_from_slice(b"{\"version\":\"\xff\xfe\"}\n");
    let e = inspect_bytes("t.agentlog", &bytes, &[]);
    assert!(
        e.contains("t.agentlog:2: (line): line is not valid UTF-8"),
        "{e}"
    );
}

#[test]
fn line_over_the_limit() {
    let text = format!("{GOOD}\n{GOOD}\n");
    let e = inspect_bytes("t.agentlog", text.as_bytes(), &["--max-line-bytes", "100"]);
    assert!(
        e.contains("t.agentlog:1: (line): line is longer than the limit of 100 bytes"),
        "{e}"
    );
    assert!(e.contains("--max-line-bytes"), "{e}");
}

#[test]
fn huge_line_over_the_default_limit() {
    // 65 MiB on one line: over the 64 MiB default, rejected without reading it all.
    let mut bytes = Vec::with_capacity(65 << 20);
    bytes.extend_from_slice(b"{\"x\":\"");
    bytes.resize(65 << 20, b'a');
    let e = inspect_bytes("t.agentlog", &bytes, &[]);
    assert!(
        e.contains("t.agentlog:1: (line): line is longer than the limit of 67108864 bytes"),
        "{e}"
    );
}

#[test]
fn nonexistent_path() {
    let r = veer(&["inspect", "no/such/trace.agentlog"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("no/such/trace.agentlog: (file): no such file or directory"),
        "{}",
        r.stderr
    );
}

#[test]
fn directory_with_no_traces() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let e = inspect_path(dir.path(), &[]);
    assert!(e.contains("(file): directory holds no traces"), "{e}");
}

#[test]
fn binary_garbage() {
    let bytes: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    inspect_bytes("t.agentlog", &bytes, &[]);
    let mut gz = vec![0x1f, 0x8b, 0x08, 0x00];
    gz.extend_from_slice(&bytes[..100]);
    let e = inspect_bytes("t.agentlog.gz", &gz, &[]);
    assert!(e.contains("t.agentlog.gz"), "{e}");
}

#[test]
fn deeply_nested_json() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let text = format!(
        "{GOOD}\n{}\n",
        response(&format!(r#"{{"content":{deep}}}"#))
    );
    let e = inspect_bytes("t.agentlog", text.as_bytes(), &[]);
    assert!(
        e.contains("t.agentlog:2: (line): JSON nested deeper than 128 levels"),
        "{e}"
    );
    // A pretty-printed traxr document nested as deeply.
    let doc = format!("{{\n\"events\": {deep}\n}}");
    inspect_bytes("t.json", doc.as_bytes(), &[]);
}

#[test]
fn traxr_event_errors_name_the_json_path() {
    let doc = r#"{
  "run_label": "r",
  "events": [
    {"event_type": "llm_call", "sequence_index": 0, "step_num": "one", "agent_name": "a", "payload": {}}
  ]
}"#;
    let e = inspect_bytes("t.json", doc.as_bytes(), &[]);
    assert!(
        e.contains("t.json: events[0].step_num: must be an integer, found a string"),
        "{e}"
    );
}

#[test]
fn unknown_kind_is_a_warning_by_default_and_an_error_when_strict() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.agentlog");
    let odd = GOOD.replace(r#""kind":"metadata""#, r#""kind":"telemetry""#);
    std::fs::write(&path, format!("{GOOD}\n{odd}\n{odd}\n")).unwrap();
    let r = veer(&["inspect", path.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr
            .matches("unknown record kind \"telemetry\"")
            .count(),
        1,
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("t.agentlog:2: kind:"), "{}", r.stderr);
    let e = inspect_path(&path, &["--strict"]);
    assert!(e.contains("t.agentlog:1: id: content id mismatch"), "{e}");
}

#[test]
fn directory_reports_unreadable_files_and_shows_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let good =
        std::fs::read(crate::common::fixtures().join("shadow/demo/baseline.agentlog")).unwrap();
    std::fs::write(dir.path().join("sub/b.agentlog"), &good).unwrap();
    std::fs::write(dir.path().join("a.agentlog"), &good).unwrap();
    std::fs::write(dir.path().join("broken.jsonl"), b"{oops\n").unwrap();
    std::fs::write(dir.path().join("README.md"), b"not a trace").unwrap();
    let r = veer(&["inspect", dir.path().to_str().unwrap(), "--format", "json"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("1 of 3 traces could not be read"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("broken.jsonl:1: (line): invalid JSON"),
        "{}",
        r.stderr
    );
    let shown: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let sources: Vec<&str> = shown["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["source"].as_str().unwrap())
        .collect();
    assert!(
        sources[0].ends_with("a.agentlog") && sources[1].ends_with("sub/b.agentlog"),
        "{sources:?}"
    );
}
