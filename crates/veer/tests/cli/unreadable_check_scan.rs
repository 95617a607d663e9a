//! `check DIR` and `scan DIR` with inputs that cannot be read: a
//! malformed trace is an error row in every format of `check`, FIFOs are skipped and unscannable
//! files are rows of `scan`.

use crate::common::{fixtures, schema_violations};
use crate::unreadable::{assert_valid_sarif, copy, mkfifo, socket, veer_code, FORMATS};
use serde_json::Value;

/// `<tmp>/c`: the three refund-causal candidate traces, a malformed one, a FIFO and a socket.
fn check_directory() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().join("c");
    for s in ["s1", "s2", "s3"] {
        copy(
            &format!("refund-causal-diagnosis/candidate_traces/{s}.agentlog"),
            &c.join(format!("{s}.agentlog")),
        );
    }
    std::fs::write(c.join("broken.agentlog"), "{\"version\": \"0.1\"\n").unwrap();
    mkfifo(&c.join("pipe.agentlog"));
    socket(&c.join("sock.agentlog"));
    std::fs::copy(
        fixtures().join("shadow/refund-causal-diagnosis/policy.yaml"),
        tmp.path().join("policy.yaml"),
    )
    .unwrap();
    tmp
}

#[test]
fn check_directory_with_a_bad_trace_reports_it_in_every_format() {
    let tmp = check_directory();
    for format in FORMATS {
        // The default gate (severe) counts the error row: exit 1.
        let args = ["check", "c", "--policy", "policy.yaml", "--format", format];
        let r = veer_code(tmp.path(), &args, 1);
        for needle in [
            "warning: c/pipe.agentlog: skipped: a FIFO is not a trace file",
            "warning: c/sock.agentlog: skipped: a socket is not a trace file",
            "error: c/broken.agentlog:",
            "fail: 1 input could not be read or compared;",
        ] {
            assert!(r.stderr.contains(needle), "{needle}\n{}", r.stderr);
        }
        if format == "sarif" {
            assert_valid_sarif(&r.stdout);
        }
        insta::assert_snapshot!(format!("check_dir_errors_{format}"), r.stdout);
    }
    let html = veer_code(
        tmp.path(),
        &["check", "c", "--policy", "policy.yaml", "--format", "html"],
        1,
    )
    .stdout;
    assert!(html.contains("<section id=\"errors\"><h2>Traces that could not be read</h2>"));
    assert!(html.contains("c/broken.agentlog"));
    // No gate: the report, then exit 2.
    let r = veer_code(
        tmp.path(),
        &[
            "check",
            "c",
            "--policy",
            "policy.yaml",
            "--format",
            "json",
            "--fail-on",
            "never",
        ],
        2,
    );
    assert!(
        r.stderr.contains("incomplete: 1 input could not be read"),
        "{}",
        r.stderr
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        schema_violations("check.schema.json", &v),
        Vec::<String>::new()
    );
    assert_eq!(v["traces"].as_array().unwrap().len(), 3);
    assert_eq!(v["errors"][0]["trace"], "broken.agentlog");
    assert_eq!(v["errors"][0]["file"], "c/broken.agentlog");
    assert_eq!(v["gate"]["errors"], 1);
}

#[test]
fn check_json_without_errors_validates_and_is_unchanged() {
    let tmp = check_directory();
    std::fs::remove_file(tmp.path().join("c/broken.agentlog")).unwrap();
    let args = [
        "check",
        "c",
        "--policy",
        "policy.yaml",
        "--format",
        "json",
        "--fail-on",
        "never",
    ];
    let v: Value = serde_json::from_str(&veer_code(tmp.path(), &args, 0).stdout).unwrap();
    assert_eq!(
        schema_violations("check.schema.json", &v),
        Vec::<String>::new()
    );
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["schema_version", "policy", "traces", "gate"]);
    assert_eq!(v["gate"].as_object().unwrap().len(), 3);
    let one = veer_code(
        tmp.path(),
        &[
            "check",
            "c/s1.agentlog",
            "--policy",
            "policy.yaml",
            "--format",
            "json",
        ],
        1,
    );
    let v: Value = serde_json::from_str(&one.stdout).unwrap();
    assert_eq!(
        schema_violations("check.schema.json", &v),
        Vec::<String>::new()
    );
}

#[test]
fn scan_directory_skips_fifos_and_lists_unscannable_files_as_rows() {
    let tmp = check_directory();
    let long = format!("{{\"k\": \"{}\"}}\n", "x".repeat(3000));
    std::fs::write(tmp.path().join("c/long.agentlog"), long).unwrap();
    let r = veer_code(tmp.path(), &["scan", "c", "--max-line-bytes", "2000"], 2);
    assert!(
        r.stderr.contains("warning: c/pipe.agentlog: skipped"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("hint: raise the limit with --max-line-bytes"),
        "{}",
        r.stderr
    );
    insta::assert_snapshot!("scan_dir_errors_terminal", r.stdout);
    let r = veer_code(
        tmp.path(),
        &["scan", "c", "--max-line-bytes", "2000", "--format", "json"],
        2,
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["files_scanned"], 4);
    assert_eq!(
        v["errors"],
        serde_json::json!([{
            "file": "c/long.agentlog",
            "error": "c/long.agentlog:1: (line): line is longer than the limit of 2000 bytes",
            "hint": "raise the limit with --max-line-bytes"
        }])
    );
    // Without the long file every file is scanned; the FIFO and the socket are only named.
    std::fs::remove_file(tmp.path().join("c/long.agentlog")).unwrap();
    let r = veer_code(tmp.path(), &["scan", "c", "--format", "json"], 0);
    assert!(
        r.stderr.contains("warning: c/sock.agentlog: skipped"),
        "{}",
        r.stderr
    );
}
