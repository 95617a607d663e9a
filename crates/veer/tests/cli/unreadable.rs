//! Directory runs with inputs that cannot be read (issue 26, items 3 and 7): a FIFO, a socket
//! or a dangling link inside a directory is named in a warning and never opened (every command
//! that walks a directory is run with one, under a time limit, so a regression fails instead
//! of hanging); a malformed pair, or a candidate without responses, is an error row in every
//! format of `diff DIR DIR`, `check DIR` and `scan DIR` while the others are measured, and
//! fails the gate (exit 1), or ends the run with exit 2 when no gate is set.

use crate::common::{fixtures, schema_violations};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a run may take before it counts as hung (a FIFO opened for reading blocks forever).
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// What one run of `veer` gave.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
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
fn veer_code(cwd: &Path, args: &[&str], code: i32) -> Run {
    let r = veer_in(cwd, args);
    assert_eq!(
        r.code, code,
        "veer {args:?}\nstdout:\n{}\nstderr:\n{}",
        r.stdout, r.stderr
    );
    r
}

fn copy(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(fixtures().join("shadow").join(from), to).unwrap();
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

fn socket(path: &Path) {
    // The socket file stays after the listener is dropped; nobody accepts on it.
    drop(std::os::unix::net::UnixListener::bind(path).unwrap());
}

/// `<tmp>/a` and `<tmp>/b`: two good pairs (`demo`, `er`), a pair whose candidate is malformed
/// (`broken`), a pair whose candidate crashed before its first model call (`crashed`: only a
/// metadata record), a FIFO named like a trace on both sides and a socket on the candidate side.
fn directories() -> tempfile::TempDir {
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
fn assert_valid_sarif(text: &str) {
    let log: Value = serde_json::from_str(text).unwrap();
    let errors: Vec<String> = crate::html::sarif_validator()
        .iter_errors(&log)
        .map(|e| e.to_string())
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    assert!(text.contains("\"ruleId\": \"input/unreadable\""), "{text}");
}

const FORMATS: [&str; 6] = ["terminal", "json", "markdown", "junit", "sarif", "github"];

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
            "gate"
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

#[test]
fn inspect_and_experiment_directories_skip_fifos() {
    let tmp = directories();
    let r = veer_code(tmp.path(), &["inspect", "a", "--format", "json"], 0);
    assert!(
        r.stderr.contains("warning: a/pipe.agentlog: skipped"),
        "{}",
        r.stderr
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["traces"].as_array().unwrap().len(), 4);

    let exp = tmp.path().join("exp");
    copy("demo/baseline.agentlog", &exp.join("baseline.agentlog"));
    copy(
        "demo/candidate.agentlog",
        &exp.join("perturbed/changed.agentlog"),
    );
    mkfifo(&exp.join("perturbed/pipe.agentlog"));
    socket(&exp.join("perturbed/sock.agentlog"));
    mkfifo(&exp.join("reruns.agentlog"));
    let r = veer_code(
        tmp.path(),
        &["experiment", "analyze", "exp", "--format", "json"],
        0,
    );
    assert!(
        r.stderr
            .contains("warning: exp/perturbed/pipe.agentlog: skipped: not a regular file"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("exp/perturbed/sock.agentlog: skipped"),
        "{}",
        r.stderr
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["pairs"].as_array().unwrap().len(), 1);
}

#[test]
fn symlinks_are_followed_to_regular_files_and_skipped_otherwise() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    copy("demo/baseline.agentlog", &d.join("real.agentlog"));
    std::os::unix::fs::symlink("real.agentlog", d.join("link.agentlog")).unwrap();
    std::os::unix::fs::symlink("nowhere.agentlog", d.join("dangling.agentlog")).unwrap();
    mkfifo(&tmp.path().join("fifo"));
    std::os::unix::fs::symlink("../fifo", d.join("to-fifo.agentlog")).unwrap();
    let r = veer_code(tmp.path(), &["inspect", "d", "--format", "json"], 0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let sources: Vec<&str> = v["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["source"].as_str().unwrap())
        .collect();
    assert_eq!(sources, ["d/link.agentlog", "d/real.agentlog"]);
    assert!(
        r.stderr.contains(
            "warning: d/dangling.agentlog: skipped: a dangling symlink is not a trace file"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "warning: d/to-fifo.agentlog: skipped: a symlink to a FIFO is not a trace file"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn a_fifo_named_as_an_argument_is_read_as_a_stream() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("run.agentlog");
    mkfifo(&fifo);
    let text = std::fs::read(fixtures().join("shadow/demo/baseline.agentlog")).unwrap();
    let writer = {
        let fifo = fifo.clone();
        // Opening a FIFO for writing waits for its reader: veer.
        std::thread::spawn(move || std::fs::write(fifo, text))
    };
    let r = veer_code(
        tmp.path(),
        &["inspect", "run.agentlog", "--format", "json"],
        0,
    );
    writer.join().unwrap().unwrap();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["traces"][0]["source"], "run.agentlog");
    assert!(!v["traces"][0]["turns"].as_array().unwrap().is_empty());
}
