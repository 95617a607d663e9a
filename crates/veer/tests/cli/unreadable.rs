//! Directory runs with inputs that cannot be read: a FIFO, a socket
//! or a dangling link inside a directory is named in a warning and never opened (every command
//! that walks a directory is run with one, under a time limit, so a regression fails instead
//! of hanging); a malformed pair, or a candidate without responses, is an error row in every
//! format of `diff DIR DIR`, `check DIR` and `scan DIR` while the others are measured, and
//! fails the gate (exit 1), or ends the run with exit 2 when no gate is set.
//!
//! This file holds the shared setup and `diff DIR DIR`; `check DIR` and `scan DIR` are in
//! `unreadable_check_scan.rs`, the other directory walks and symlinks in `unreadable_walk.rs`.

use crate::common::fixtures;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a run may take before it counts as hung (a FIFO opened for reading blocks forever).
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// What one run of `veer` gave.
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs `veer args` in `cwd` (so reports name `a/…`, `b/…`), killed after [`TIME_LIMIT`].
fn veer_in(cwd: &Path, args: &[&str]) -> Run {
    let out_dir = tempfile::tempdir().unwrap();
    let (out, err) = (out_dir.path().join("out"), out_dir.path().join("err"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("veer {args:?} did not finish in {TIME_LIMIT:?}: a FIFO was opened?");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: std::fs::read_to_string(out).unwrap(),
        stderr: std::fs::read_to_string(err).unwrap(),
    }
}

/// [`veer_in`], asserting the exit code.
pub(crate) fn veer_code(cwd: &Path, args: &[&str], code: i32) -> Run {
    let r = veer_in(cwd, args);
    assert_eq!(
        r.code, code,
        "veer {args:?}\nstdout:\n{}\nstderr:\n{}",
        r.stdout, r.stderr
    );
    r
}

pub(crate) fn copy(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(fixtures().join("shadow").join(from), to).unwrap();
}

pub(crate) fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

pub(crate) fn socket(path: &Path) {
    // The socket file stays after the listener is dropped; nobody accepts on it.
    drop(std::os::unix::net::UnixListener::bind(path).unwrap());
}

/// `<tmp>/a` and `<tmp>/b`: two good pairs (`demo`, `er`), a pair whose candidate is malformed
/// (`broken`), a pair whose candidate crashed before its first model call (`crashed`: only a
/// metadata record), a FIFO named like a trace on both sides and a socket on the candidate side.
pub(crate) fn directories() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    copy("demo/baseline.agentlog", &a.join("demo.agentlog"));
    copy("demo/candidate.agentlog", &b.join("demo.agentlog"));
    copy("er-triage/baseline.agentlog", &a.join("er.agentlog"));
    copy("er-triage/candidate.agentlog", &b.join("er.agentlog"));
    copy("demo/baseline.agentlog", &a.join("broken.agentlog"));
    std::fs::write(b.join("broken.agentlog"), "{oops\n").unwrap();
    copy("demo/baseline.agentlog", &a.join("crashed.agentlog"));
    let demo = std::fs::read_to_string(fixtures().join("shadow/demo/candidate.agentlog")).unwrap();
    let metadata = demo.lines().next().unwrap();
    assert!(metadata.contains("\"kind\":\"metadata\""));
    std::fs::write(b.join("crashed.agentlog"), format!("{metadata}\n")).unwrap();
    mkfifo(&a.join("pipe.agentlog"));
    mkfifo(&b.join("pipe.agentlog"));
    socket(&b.join("sock.agentlog"));
    tmp
}

/// The skipped FIFOs and socket are named on stderr.
fn assert_skipped_named(stderr: &str) {
    for needle in [
        "warning: a/pipe.agentlog: skipped: a FIFO is not a trace file",
        "warning: b/pipe.agentlog: skipped: a FIFO is not a trace file",
        "warning: b/sock.agentlog: skipped: a socket is not a trace file",
    ] {
        assert!(stderr.contains(needle), "{needle}\n{stderr}");
    }
}

/// The SARIF log validates against the vendored schema and holds the unreadable-input rule.
pub(crate) fn assert_valid_sarif(text: &str) {
    let log: Value = serde_json::from_str(text).unwrap();
    let errors: Vec<String> = crate::html::sarif_validator()
        .iter_errors(&log)
        .map(|e| e.to_string())
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    assert!(text.contains("\"ruleId\": \"input/unreadable\""), "{text}");
}

pub(crate) const FORMATS: [&str; 6] = ["terminal", "json", "markdown", "junit", "sarif", "github"];

#[test]
fn diff_directory_with_bad_pairs_reports_them_as_error_rows_in_every_format() {
    let tmp = directories();
    for format in FORMATS {
        let r = veer_code(tmp.path(), &["diff", "a", "b", "--format", format], 2);
        assert_skipped_named(&r.stderr);
        assert!(
            r.stderr.contains(
                "error: 2 of 4 trace pairs could not be read or compared (error rows in the report); first: b/broken.agentlog:1:"
            ),
            "{}",
            r.stderr
        );
        assert!(
            r.stderr
                .contains("error: b/crashed.agentlog: the trace has no responses"),
            "{}",
            r.stderr
        );
        if format == "sarif" {
            assert_valid_sarif(&r.stdout);
        }
        insta::assert_snapshot!(format!("diff_dir_errors_{format}"), r.stdout);
    }
    let html = veer_code(tmp.path(), &["diff", "a", "b", "--format", "html"], 2).stdout;
    for needle in [
        "<section id=\"errors\"><h2>2 trace pairs could not be read or compared</h2>",
        "b/broken.agentlog:1: (line): invalid JSON",
        "each line must be one JSON object",
        "b/crashed.agentlog: the trace has no responses",
        "Incomplete",
    ] {
        assert!(html.contains(needle), "{needle}");
    }
}

#[test]
fn diff_directory_error_rows_json_shape_and_schema() {
    let tmp = directories();
    let r = veer_code(tmp.path(), &["diff", "a", "b", "--format", "json"], 2);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        crate::common::diff_schema_violations(&v),
        Vec::<String>::new()
    );
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "schema_version",
            "pairs",
            "errors",
            "unmatched",
            "aggregate",
            "fingerprint",
            "gate",
            // A measured pair's tools changed (docs/tool-schema.md).
            "tool_schema"
        ]
    );
    let measured: Vec<&str> = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["baseline"].as_str().unwrap())
        .collect();
    assert_eq!(measured, ["demo.agentlog", "er.agentlog"]);
    assert_eq!(v["errors"][0]["baseline"], "broken.agentlog");
    assert_eq!(v["errors"][0]["file"], "b/broken.agentlog");
    assert_eq!(v["errors"][0]["line"], 1);
    assert_eq!(v["errors"][1]["candidate"], "crashed.agentlog");
    assert_eq!(v["errors"][1]["line"], Value::Null);
    assert!(v["errors"][1]["hint"]
        .as_str()
        .unwrap()
        .contains("recording"));
    // The aggregate and the pooled test count the two measured pairs only.
    assert_eq!(v["aggregate"]["trace_pairs"], 2);
    assert_eq!(v["aggregate"]["error_pairs"], 2);
    assert_eq!(v["aggregate"]["pair_count"], 8);
    assert_eq!(v["fingerprint"]["n1"], 8);
    assert_eq!(v["unmatched"]["baseline_only"], serde_json::json!([]));
    assert_eq!(
        v["gate"],
        serde_json::json!({"fail_on": "never", "worst": "severe", "tripped": false, "errors": 2})
    );
    // Whatever the thread count, the same bytes.
    let one = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(["diff", "a", "b", "--format", "json"])
        .current_dir(tmp.path())
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(one.stdout).unwrap(), r.stdout);
    // The same report through `-o`: written (the run is complete), exit 2 all the same.
    let r = veer_code(
        tmp.path(),
        &["diff", "a", "b", "--format", "json", "-o", "report.json"],
        2,
    );
    assert_eq!(r.stdout, "");
    let saved = std::fs::read_to_string(tmp.path().join("report.json")).unwrap();
    assert_eq!(saved, serde_json::to_string_pretty(&v).unwrap() + "\n");
}

#[test]
fn diff_directory_bad_pairs_trip_a_set_gate_and_never_means_exit_2() {
    let tmp = directories();
    for level in ["minor", "moderate", "severe"] {
        let r = veer_code(tmp.path(), &["diff", "a", "b", "--fail-on", level], 1);
        assert!(
            r.stderr
                .contains("fail: 2 inputs could not be read or compared;"),
            "{}",
            r.stderr
        );
        // The errors are named before the gate line.
        assert!(
            r.stderr.contains("error: 2 of 4 trace pairs"),
            "{}",
            r.stderr
        );
    }
    for never in ["never", "none"] {
        let r = veer_code(tmp.path(), &["diff", "a", "b", "--fail-on", never], 2);
        assert!(r.stdout.contains("broken.agentlog"), "{}", r.stdout);
    }
    // A gate that the measured pairs pass still trips on an error row alone.
    let same = tempfile::tempdir().unwrap();
    for side in ["a", "b"] {
        copy(
            "demo/baseline.agentlog",
            &same.path().join(side).join("demo.agentlog"),
        );
    }
    std::fs::write(same.path().join("b/broken.agentlog"), "{oops\n").unwrap();
    copy(
        "demo/baseline.agentlog",
        &same.path().join("a/broken.agentlog"),
    );
    let r = veer_code(
        same.path(),
        &["diff", "a", "b", "--fail-on", "severe", "--format", "json"],
        1,
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["gate"],
        serde_json::json!({"fail_on": "severe", "worst": "none", "tripped": true, "errors": 1})
    );
    veer_code(
        same.path(),
        &["diff", "a", "b", "--fail-on", "severe", "--format", "junit"],
        1,
    );
    // Every pair bad: still a report, with no measured pair.
    std::fs::write(same.path().join("b/demo.agentlog"), "").unwrap();
    let r = veer_code(same.path(), &["diff", "a", "b", "--format", "json"], 2);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["pairs"], serde_json::json!([]));
    assert_eq!(v["errors"].as_array().unwrap().len(), 2);
    assert_eq!(
        crate::common::diff_schema_violations(&v),
        Vec::<String>::new()
    );
}

#[test]
fn gate_on_a_saved_directory_report_with_error_rows_exits_as_the_diff_did() {
    let tmp = directories();
    veer_code(
        tmp.path(),
        &["diff", "a", "b", "--format", "json", "-o", "report.json"],
        2,
    );
    let r = veer_code(tmp.path(), &["gate", "report.json"], 1);
    assert!(
        r.stdout
            .contains("2 trace pairs could not be read or compared"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("fail: 2 inputs could not be read"),
        "{}",
        r.stderr
    );
    veer_code(
        tmp.path(),
        &["gate", "report.json", "--fail-on", "minor"],
        1,
    );
    let r = veer_code(
        tmp.path(),
        &["gate", "report.json", "--fail-on", "never"],
        2,
    );
    assert!(
        r.stderr.contains("incomplete: 2 inputs could not be read"),
        "{}",
        r.stderr
    );
    let j = veer_code(tmp.path(), &["gate", "report.json", "--format", "json"], 1).stdout;
    let v: Value = serde_json::from_str(&j).unwrap();
    assert_eq!(v["gate"]["errors"], 2);
}
