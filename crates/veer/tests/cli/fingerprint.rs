//! `veer diff`'s behaviour-fingerprint block: the reference example (60% of answers gaining an error message) rejects and names
//! the error-token flag, a powered rejection trips `--fail-on moderate`, a near pair does not
//! reject, directory mode pools every response of every pair, and the block is the same
//! whatever the thread count.

use crate::common::{fixtures, veer_ok};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn pair(name: &str) -> (String, String) {
    let d = format!("tests/fixtures/fingerprint/pairs/{name}");
    (
        format!("{d}/baseline.agentlog.gz"),
        format!("{d}/candidate.agentlog.gz"),
    )
}

fn json(args: &[&str], code: i32) -> Value {
    serde_json::from_str(&veer_ok(args, code).stdout).unwrap()
}

#[test]
fn the_issue_example_rejects_and_names_the_error_flag() {
    let (b, c) = pair("issue-example-200");
    let v = json(&["diff", &b, &c, "--format", "json"], 0);
    assert_eq!(crate::diff::schema_errors(&v), Vec::<String>::new());
    let f = &v["fingerprint"];
    assert_eq!(f["decision"], "reject");
    assert_eq!(f["method"], "f_distribution");
    assert_eq!((f["n1"].as_u64(), f["n2"].as_u64()), (Some(200), Some(200)));
    assert!(f["p_value"].as_f64().unwrap() < 1e-30);
    let dims = f["dimensions"].as_array().unwrap();
    assert_eq!(dims.len(), 12);
    let top = dims
        .iter()
        .max_by(|a, b| {
            a["contribution"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["contribution"].as_f64().unwrap())
        })
        .unwrap();
    assert_eq!(top["name"], "error_token_flag");
    // Tokens and latency did not move, and no axis is above minor: the joint test alone
    // carries the change to the gate.
    assert_eq!(v["worst_severity"], "minor");
    assert_eq!(v["gate"]["worst"], "moderate");
    let r = veer_ok(&["diff", &b, &c, "--fail-on", "moderate"], 1);
    assert!(
        r.stdout.contains("reject — behaviour differs"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("moved most: error_token_flag 0.005 → 0.520"),
        "{}",
        r.stdout
    );
    veer_ok(&["diff", &b, &c, "--fail-on", "severe"], 0);
    let md = veer_ok(&["diff", &b, &c, "--format", "markdown"], 0).stdout;
    assert!(
        md.contains("**Behaviour fingerprint (Hotelling T²):** reject"),
        "{md}"
    );
    let html = veer_ok(&["diff", &b, &c, "--format", "html"], 0).stdout;
    assert!(
        html.contains("Behaviour fingerprint (Hotelling T²)")
            && html.contains("reject — behaviour differs")
            && html.contains("moved most: error_token_flag 0.005 → 0.520"),
        "the HTML report shows the fingerprint verdict and what moved"
    );
}

#[test]
fn a_near_pair_does_not_reject() {
    let (b, c) = pair("near-100");
    let v = json(&["diff", &b, &c, "--format", "json"], 0);
    assert_eq!(v["fingerprint"]["decision"], "fail_to_reject");
    assert!(v["fingerprint"]["p_value"].as_f64().unwrap() > 0.5);
}

fn copy(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(fixtures().join("..").join("..").join(from), to).unwrap();
}

/// Two pairs in a directory: one test over all 300 + 300 responses, its means the
/// response-weighted means of the two pairs' means.
#[test]
fn directory_mode_pools_every_response() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b): (PathBuf, PathBuf) = (dir.path().join("a"), dir.path().join("b"));
    for name in ["issue-example-200", "near-100"] {
        let (pb, pc) = pair(name);
        copy(&pb, &a.join(format!("{name}.agentlog.gz")));
        copy(&pc, &b.join(format!("{name}.agentlog.gz")));
    }
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let v = json(&["diff", &a, &b, "--format", "json"], 0);
    assert_eq!(crate::diff::schema_errors(&v), Vec::<String>::new());
    let f = &v["fingerprint"];
    assert_eq!((f["n1"].as_u64(), f["n2"].as_u64()), (Some(300), Some(300)));
    let pairs = v["pairs"].as_array().unwrap();
    for (j, d) in f["dimensions"].as_array().unwrap().iter().enumerate() {
        let weighted: f64 = pairs
            .iter()
            .map(|p| {
                let pf = &p["report"]["fingerprint"];
                pf["n1"].as_f64().unwrap() * pf["dimensions"][j]["baseline_mean"].as_f64().unwrap()
            })
            .sum::<f64>()
            / 300.0;
        assert!((d["baseline_mean"].as_f64().unwrap() - weighted).abs() < 1e-12);
    }
    assert_eq!(f["decision"], "reject");
    let text = veer_ok(&["diff", &a, &b], 0).stdout;
    assert!(
        text.contains("every response of every pair pooled"),
        "{text}"
    );
}

/// The fingerprint block (and the whole report) is byte-identical with 1 and 4 threads.
#[test]
fn same_bytes_whatever_the_thread_count() {
    let (b, c) = pair("shifted-tools-300");
    let run = |threads: &str| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = Command::new(env!("CARGO_BIN_EXE_veer"))
            .args(["diff", &b, &c, "--format", "json"])
            .current_dir(root)
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        out.stdout
    };
    assert_eq!(run("1"), run("4"));
}

/// `--fingerprint-scale` moves a saturation point: with latency saturating at 1 ms every
/// response's latency_log is 1; a bad key or value exits 2 naming the keys.
#[test]
fn scales_are_configurable() {
    let (b, c) = pair("near-100");
    let v = json(
        &[
            "diff",
            &b,
            &c,
            "--format",
            "json",
            "--fingerprint-scale",
            "latency_ms=1",
        ],
        0,
    );
    let latency = &v["fingerprint"]["dimensions"][6];
    assert_eq!(latency["name"], "latency_log");
    assert_eq!(latency["baseline_mean"], 1.0);
    let r = crate::common::veer(&["diff", &b, &c, "--fingerprint-scale", "latency=5"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown scale `latency`"), "{}", r.stderr);
    assert!(
        r.stderr.contains("output_tokens, latency_ms"),
        "{}",
        r.stderr
    );
    let r = crate::common::veer(&["diff", &b, &c, "--fingerprint-scale", "arg_keys=-3"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not a positive number"), "{}", r.stderr);
}

/// `veer gate` on a saved report applies the same fingerprint rule as `veer diff --fail-on`.
#[test]
fn gate_on_a_saved_report_counts_the_fingerprint() {
    let (b, c) = pair("issue-example-200");
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("report.json");
    let saved = saved.display().to_string();
    veer_ok(&["diff", &b, &c, "--format", "json", "-o", &saved], 0);
    let r = veer_ok(&["gate", &saved, "--fail-on", "moderate"], 1);
    assert!(
        r.stdout.contains("worst axis severity: minor"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("behaviour fingerprint: moderate"),
        "{}",
        r.stdout
    );
    veer_ok(&["gate", &saved, "--fail-on", "severe"], 0);
    let (b, c) = pair("near-100");
    let near = dir.path().join("near.json").display().to_string();
    veer_ok(&["diff", &b, &c, "--format", "json", "-o", &near], 0);
    let r = veer_ok(
        &["gate", &near, "--format", "json", "--fail-on", "never"],
        0,
    );
    assert!(!r.stdout.contains("fingerprint"), "{}", r.stdout);
}
