//! `veer diff -o FORMAT=PATH`: one run writes several documents, each the same bytes a run
//! with that `--format` alone writes — for a pair, a directory and repeated trials.

use crate::common::{examples, veer};
use crate::diff::directories;
use veer_engine::trials::scripted::{agentlog, Script};

/// Runs `veer diff A B` once with the terminal on stdout and JSON, SARIF and Markdown files,
/// then each format alone, and compares the files with the single runs' stdout.
fn same_as_single_runs(a: &str, b: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let (json, sarif, md) = (path("r.json"), path("r.sarif"), path("r.md"));
    let once = veer(&[
        "diff",
        a,
        b,
        "--fail-on",
        "severe",
        "-o",
        &format!("json={json}"),
        "-o",
        &format!("sarif={sarif}"),
        "--output",
        &format!("markdown={md}"),
    ]);
    let alone = veer(&["diff", a, b, "--fail-on", "severe"]);
    assert_eq!(once.code, alone.code, "{}", once.stderr);
    let code = alone.code;
    assert_eq!(
        once.stdout, alone.stdout,
        "the terminal report is unchanged"
    );
    for (format, file) in [("json", &json), ("sarif", &sarif), ("markdown", &md)] {
        let single = veer(&["diff", a, b, "--fail-on", "severe", "--format", format]);
        assert_eq!(single.code, code);
        let written = std::fs::read_to_string(file).unwrap();
        assert_eq!(written, single.stdout, "{format} for {a} {b}");
    }
}

#[test]
fn one_run_writes_every_format_asked_for() {
    let ex = examples().join("refund-agent");
    let (b, c) = (ex.join("baseline.agentlog"), ex.join("candidate.agentlog"));
    same_as_single_runs(b.to_str().unwrap(), c.to_str().unwrap());
    let (_keep, a, b) = directories();
    same_as_single_runs(a.to_str().unwrap(), b.to_str().unwrap());
    // Repeated trials: 3 cases of 3 trials a side.
    let tmp = tempfile::tempdir().unwrap();
    for (side, seed) in [("b", 5), ("c", 6)] {
        for case in 0..3 {
            let key = format!("case-{case}");
            let dir = tmp.path().join(side).join(&key);
            std::fs::create_dir_all(&dir).unwrap();
            for t in 1..=3 {
                let text = agentlog(&key, t, seed, &Script::default());
                std::fs::write(dir.join(format!("run-{t}.agentlog")), text).unwrap();
            }
        }
    }
    let (b, c) = (tmp.path().join("b"), tmp.path().join("c"));
    same_as_single_runs(b.to_str().unwrap(), c.to_str().unwrap());
}

#[test]
fn a_plain_file_and_format_files_together_and_bad_values() {
    let ex = examples().join("refund-agent");
    let (b, c) = (ex.join("baseline.agentlog"), ex.join("candidate.agentlog"));
    let (b, c) = (b.to_str().unwrap(), c.to_str().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("report.md").display().to_string();
    let json = dir.path().join("report.json").display().to_string();
    let r = veer(&[
        "diff",
        b,
        c,
        "--format",
        "markdown",
        "-o",
        &main,
        "-o",
        &format!("json={json}"),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.is_empty());
    let md = veer(&["diff", b, c, "--format", "markdown"]).stdout;
    assert_eq!(std::fs::read_to_string(&main).unwrap(), md);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(v["schema_version"].is_string());
    // A name that is not a format is a file; a format with no file is a clear error.
    let r = veer(&["diff", b, c, "-o", "json="]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("names no file after `json=`"),
        "{}",
        r.stderr
    );
    // An input named as an output is refused before anything is written.
    let r = veer(&["diff", b, c, "-o", &format!("json={c}")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}
