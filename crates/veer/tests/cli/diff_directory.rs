//! `veer diff` in directory mode: pairing by relative path, a broken trace among good ones,
//! directories without common files, snapshots of the renderings and thread determinism.

use crate::common::{veer, veer_ok};
use crate::diff::{copy, diff_of, directories, fails, run_with_threads};
use serde_json::Value;
use std::path::Path;

#[test]
fn directory_mode_pairs_by_relative_path() {
    let (_keep, a, b) = directories();
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let v: Value =
        serde_json::from_str(&veer_ok(&["diff", &a, &b, "--format", "json"], 0).stdout).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "schema_version",
            "pairs",
            "unmatched",
            "aggregate",
            "fingerprint",
            "gate",
            // team/er.agentlog's tools changed (docs/tool-schema.md).
            "tool_schema"
        ]
    );
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    assert_eq!(pairs[0]["baseline"], "demo.agentlog");
    assert_eq!(pairs[1]["candidate"], "team/er.agentlog");
    assert_eq!(v["unmatched"]["baseline_only"][0], "only-baseline.agentlog");
    assert_eq!(
        v["unmatched"]["candidate_only"][0],
        "only-candidate.agentlog"
    );
    assert_eq!(v["aggregate"]["trace_pairs"], 2);
    assert_eq!(v["aggregate"]["pair_count"], 8);
    assert_eq!(v["aggregate"]["worst_severity"], "severe");
    // Each pair's report equals the single-file diff (paths aside).
    let single: Value = serde_json::from_str(&diff_of("demo", "json")).unwrap();
    assert_eq!(pairs[0]["report"]["axes"], single["axes"]);
    assert_eq!(pairs[0]["report"]["divergences"], single["divergences"]);

    let t = veer_ok(&["diff", &a, &b], 0).stdout;
    assert!(t.contains("2 trace pair(s)"), "{t}");
    assert!(
        t.contains("only-candidate.agentlog exists only in the candidate directory"),
        "{t}"
    );
    let m = veer_ok(&["diff", &a, &b, "--format", "markdown"], 0).stdout;
    assert!(
        m.contains("<details><summary><code>team/er.agentlog</code>"),
        "{m}"
    );
    let j = veer_ok(&["diff", &a, &b, "--format", "junit"], 0).stdout;
    // Two pairs' suites, and team/er.agentlog's tool-schema suite of two changes.
    assert_eq!(j.matches("<testsuite ").count(), 3);
    assert_eq!(j.matches("<testcase ").count(), 20);
}

#[test]
fn directory_with_a_broken_trace_reports_it_and_diffs_the_rest() {
    let (_keep, a, b) = directories();
    std::fs::write(b.join("demo.agentlog"), b"{oops\n").unwrap();
    let r = veer(&[
        "diff",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("demo.agentlog:1:"), "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["pairs"][0]["baseline"], "team/er.agentlog");
    assert_eq!(v["errors"][0]["baseline"], "demo.agentlog");
}

#[test]
fn directories_without_common_files_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    copy("demo/baseline.agentlog", &a.join("x.agentlog"));
    copy("demo/candidate.agentlog", &b.join("y.agentlog"));
    fails(
        &["diff", a.to_str().unwrap(), b.to_str().unwrap()],
        "no trace in",
    );
}

/// Directory-mode renderings show relative paths only, so they snapshot.
#[test]
fn directory_mode_snapshots() {
    let (_keep, a, b) = directories();
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let t = veer_ok(&["diff", &a, &b], 0).stdout;
    insta::assert_snapshot!("directory_terminal", t);
    let j = veer_ok(&["diff", &a, &b, "--format", "junit"], 0).stdout;
    insta::assert_snapshot!("directory_junit", j);
    let root = Path::new(&a).parent().unwrap().display().to_string();
    let m = veer_ok(&["diff", &a, &b, "--format", "markdown"], 0)
        .stdout
        .replace(&root, "<tmp>");
    insta::assert_snapshot!("directory_markdown", m);
}

#[test]
fn directory_json_is_byte_identical_across_thread_counts() {
    let (_keep, a, b) = directories();
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let args = ["diff", a.as_str(), b.as_str(), "--format", "json"];
    let first = run_with_threads(&args, "1");
    for threads in ["2", "4", "1"] {
        assert_eq!(first, run_with_threads(&args, threads));
    }
}
