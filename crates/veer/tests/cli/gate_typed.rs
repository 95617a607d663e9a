//! `veer gate` reads a saved report into its type and decides through the engine's verdict
//!: on the same inputs and `--fail-on`, `veer gate REPORT` exits as
//! the `veer diff` that wrote REPORT did; a malformed report is exit 2 naming the file, the
//! line, the JSON path and a hint.

use crate::common::{veer, Run};
use crate::golden::CASES;
use std::path::Path;
use std::process::Command;

const LEVELS: [&str; 4] = ["never", "minor", "moderate", "severe"];

/// `args` without `--format json`, `-o FILE` and any `--fail-on LEVEL`.
fn without_format_and_gate(args: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match *a {
            "--format" | "--fail-on" | "-o" => {
                it.next();
            }
            other => out.push(other.to_string()),
        }
    }
    out
}

#[test]
fn gate_exits_as_the_diff_that_wrote_the_report_for_every_diff_golden() {
    let mut compared = 0;
    for case in CASES
        .iter()
        .filter(|c| c.command == "diff" || c.command == "diff-directory")
    {
        let report = format!("tests/golden/{}/{}.json", case.command, case.case);
        let diff_args = without_format_and_gate(case.args);
        for level in LEVELS {
            let mut args: Vec<&str> = diff_args.iter().map(String::as_str).collect();
            args.extend(["--fail-on", level, "--format", "json"]);
            let diff = veer(&args);
            let gate = veer(&["gate", &report, "--fail-on", level, "--format", "json"]);
            assert_eq!(
                gate.code, diff.code,
                "{report} at --fail-on {level}: gate exits {}, diff exited {}\ngate stdout:\n{}\ngate stderr:\n{}\ndiff stderr:\n{}",
                gate.code, diff.code, gate.stdout, gate.stderr, diff.stderr
            );
            // The gate block the diff wrote at this level is the one the gate decides, and the
            // gate line on stderr is the same.
            let written: serde_json::Value = serde_json::from_str(&diff.stdout).unwrap();
            let decided: serde_json::Value = serde_json::from_str(&gate.stdout).unwrap();
            assert_eq!(decided["gate"], written["gate"], "{report} at {level}");
            if level != "never" {
                assert_eq!(
                    gate.stderr.trim_end(),
                    diff.stderr.trim_end().lines().last().unwrap_or_default(),
                    "{report} at {level}"
                );
            }
            compared += 1;
        }
    }
    assert!(compared >= 60, "{compared}");
}

/// Runs `veer` in `cwd`.
fn veer_at(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .expect("veer runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `veer gate report.json` on `text` (in a temporary directory): exit 2, nothing on stdout,
/// the error on stderr.
fn gate_error(text: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("report.json"), text).unwrap();
    let r = veer_at(tmp.path(), &["gate", "report.json"]);
    assert_eq!(r.code, 2, "stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "");
    r.stderr
}

fn golden(path: &str) -> String {
    std::fs::read_to_string(crate::common::fixtures().join("../golden").join(path)).unwrap()
}

#[test]
fn a_malformed_directory_report_names_the_json_path() {
    // A rule id that is a number, deep in the third pair's policy regressions.
    let text = golden("diff-directory/refund-causal-policy.json");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pairs = v["pairs"].as_array().unwrap();
    let (i, _) = pairs
        .iter()
        .enumerate()
        .find(|(_, p)| {
            p["report"]["policy"]["regressions"]
                .as_array()
                .is_some_and(|r| !r.is_empty())
        })
        .expect("a pair with a regression");
    let id = pairs[i]["report"]["policy"]["regressions"][0]["rule_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Replace the first occurrence of that regression's rule id after the pair starts.
    let start = text
        .match_indices("\"baseline\": \"")
        .filter(|(at, _)| text[..*at].ends_with("{\n      "))
        .nth(i)
        .map(|(at, _)| at)
        .unwrap();
    let regressions = start + text[start..].find("\"regressions\": [").unwrap();
    let at = regressions
        + text[regressions..]
            .find(&format!("\"rule_id\": \"{id}\""))
            .unwrap();
    let bad = format!(
        "{}\"rule_id\": 7{}",
        &text[..at],
        &text[at + format!("\"rule_id\": \"{id}\"").len()..]
    );
    let err = gate_error(&bad);
    assert!(
        err.contains(&format!(".pairs[{i}].report.policy.regressions[0].rule_id")),
        "{err}"
    );
    insta::assert_snapshot!(err);
}

#[test]
fn a_pair_report_with_an_unknown_severity_names_the_axis_row() {
    let text = golden("diff/demo.json");
    let bad = text.replacen("\"severity\": \"", "\"severity\": \"catastrophic-", 1);
    insta::assert_snapshot!(gate_error(&bad));
}

#[test]
fn a_report_missing_a_field_names_it() {
    let text = golden("diff/refund-agent-policy.json");
    let bad = text.replacen("\"pair_count\":", "\"pair_total\":", 1);
    insta::assert_snapshot!(gate_error(&bad));
}

#[test]
fn a_report_of_another_version_or_shape_is_refused_with_a_hint() {
    let text = golden("diff/demo.json");
    let other = text.replacen("\"schema_version\": \"2\"", "\"schema_version\": \"9\"", 1);
    insta::assert_snapshot!("other_version", gate_error(&other));
    insta::assert_snapshot!(
        "check_report",
        gate_error(&golden("check/refund-agent.json"))
    );
    insta::assert_snapshot!("array", gate_error("[1, 2]\n"));
    insta::assert_snapshot!("not_json", gate_error("{\"schema_version\": \"2\",\n"));
}

#[test]
fn a_directory_report_cannot_have_its_policy_recomputed_from_two_traces() {
    let r = veer(&[
        "gate",
        "tests/golden/diff-directory/refund-causal-policy.json",
        "--policy",
        "tests/fixtures/shadow/refund-causal-diagnosis/policy.yaml",
        "--baseline",
        "tests/fixtures/shadow/refund-causal-diagnosis/baseline_traces/s1.agentlog",
        "--candidate",
        "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces/s1.agentlog",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("this is a directory report"),
        "{}",
        r.stderr
    );
}
