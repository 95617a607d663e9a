//! `veer diff`: snapshots of the four formats on the six Shadow conformance pairs, parity of
//! the JSON through the binary (unpriced and priced), key order, flags, determinism and the
//! schema. Directory mode is in `diff_directory.rs`, bad input in `diff_bad_input.rs`,
//! per-session pairing and traxr input in `diff_inputs.rs`.

use crate::common::{fixtures, veer, veer_ok};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const EXAMPLES: [&str; 6] = [
    "demo",
    "customer-support",
    "devops-agent",
    "er-triage",
    "harmful-content-judge",
    "refund-agent-audit",
];

pub(crate) fn pair(name: &str) -> (String, String) {
    (
        format!("tests/fixtures/shadow/{name}/baseline.agentlog"),
        format!("tests/fixtures/shadow/{name}/candidate.agentlog"),
    )
}

pub(crate) fn diff_of(name: &str, format: &str) -> String {
    let (b, c) = pair(name);
    veer_ok(&["diff", &b, &c, "--format", format], 0).stdout
}

#[test]
fn terminal_snapshots() {
    for name in EXAMPLES {
        insta::assert_snapshot!(format!("terminal_{name}"), diff_of(name, "terminal"));
    }
}

#[test]
fn json_snapshots() {
    for name in EXAMPLES {
        insta::assert_snapshot!(format!("json_{name}"), diff_of(name, "json"));
    }
}

#[test]
fn markdown_snapshots() {
    for name in EXAMPLES {
        insta::assert_snapshot!(format!("markdown_{name}"), diff_of(name, "markdown"));
    }
}

#[test]
fn junit_snapshots() {
    for name in EXAMPLES {
        insta::assert_snapshot!(format!("junit_{name}"), diff_of(name, "junit"));
    }
}

/// The priced goldens' table (diff.md §5.6) as a pricing file.
const PRICING: &str = r#"{
  "_comment": "two entries of Shadow's pricing.json",
  "claude-opus-4-7": {"input": 0.000015, "output": 0.000075, "cached_input": 0.0000015,
                      "cached_write_5m": 0.00001875, "cached_write_1h": 0.00003,
                      "reasoning": 0.000075, "batch_discount": 0.5},
  "claude-haiku-4-5": {"input": 0.0000008, "output": 0.000004, "cached_input": 0.00000008,
                       "cached_write_5m": 0.000001, "cached_write_1h": 0.0000016,
                       "reasoning": 0.000004, "batch_discount": 0.5}
}"#;

fn close(a: &Value, b: &Value, what: &str) {
    let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
    assert!((a - b).abs() <= 1e-9, "{what}: {a} vs {b}");
}

/// Through the binary, `axes` equals Shadow's `rows` (medians, deltas, CI, severity, n,
/// flags) for every fixture, without and with `--pricing`.
#[test]
fn json_rows_match_shadow_unpriced_and_priced() {
    let dir = tempfile::tempdir().unwrap();
    let pricing = dir.path().join("pricing.json");
    std::fs::write(&pricing, PRICING).unwrap();
    for name in EXAMPLES {
        for priced in [false, true] {
            let (b, c) = pair(name);
            // The reference pairs by index (veer's default is auto).
            let mut args = vec!["diff", &b, &c, "--format", "json", "--pair-by", "index"];
            let p = pricing.display().to_string();
            if priced {
                args.extend(["--pricing", p.as_str()]);
            }
            let ours: Value = serde_json::from_str(&veer_ok(&args, 0).stdout).unwrap();
            let file = if priced {
                "expected-diff.priced.seed42.json"
            } else {
                "expected-diff.seed42.json"
            };
            let expected: Value = serde_json::from_str(
                &std::fs::read_to_string(fixtures().join("shadow").join(name).join(file)).unwrap(),
            )
            .unwrap();
            for (o, e) in ours["axes"]
                .as_array()
                .unwrap()
                .iter()
                .zip(expected["rows"].as_array().unwrap())
            {
                let what = format!("{name} priced={priced} {}", e["axis"]);
                for f in [
                    "baseline_median",
                    "candidate_median",
                    "delta",
                    "ci95_low",
                    "ci95_high",
                ] {
                    close(&o[f], &e[f], &format!("{what} {f}"));
                }
                for f in ["axis", "severity", "n", "flags"] {
                    assert_eq!(o[f], e[f], "{what} {f}");
                }
            }
            let fd = &ours["first_divergence"];
            let ed = &expected["first_divergence"];
            assert_eq!(fd["explanation"], ed["explanation"], "{name}");
            assert_eq!(
                fd["kind"].as_str().unwrap(),
                ed["kind"].as_str().unwrap().trim_end_matches("_drift")
            );
            assert_eq!(ours["pair_count"], expected["pair_count"]);
            assert_eq!(ours["schema_version"], "2");
            assert_eq!(ours["seed"], 42);
            assert_eq!(ours["pairing"], "index");
            assert_eq!(ours["semantic_backend"], "lexical");
        }
    }
}

#[test]
fn json_key_order_follows_cli_md() {
    let v: Value = serde_json::from_str(&diff_of("demo", "json")).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "schema_version",
            "baseline",
            "candidate",
            "pair_count",
            "statistical_power",
            "low_statistical_power",
            "recommended_sample_size",
            "semantic_backend",
            "pairing",
            "pairing_requested",
            "seed",
            "axes",
            "worst_severity",
            "worst_regression",
            "headline",
            "first_divergence",
            "divergences",
            "recommendations",
            "drill_down",
            "structural",
            "fingerprint",
            "gate",
            "warnings"
        ]
    );
    let axis: Vec<&str> = v["axes"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        axis,
        [
            "axis",
            "baseline_median",
            "candidate_median",
            "delta",
            "ci95_low",
            "ci95_high",
            "severity",
            "n",
            "flags",
            "direction",
            "changed_pairs",
            "largest_change"
        ]
    );
    assert_eq!(
        v["baseline"]["trace_id"],
        "sha256:66cac08a874b806aa83d083fd04584c653eba80f1c533306d2126a618d45c03d"
    );
}

#[test]
fn top_k_limits_json_and_terminal_shows_three() {
    let (b, c) = pair("refund-agent-audit");
    let v: Value = serde_json::from_str(
        &veer_ok(&["diff", &b, &c, "--format", "json", "--top-k", "2"], 0).stdout,
    )
    .unwrap();
    assert_eq!(v["divergences"].as_array().unwrap().len(), 2);
    let v: Value = serde_json::from_str(
        &veer_ok(&["diff", &b, &c, "--format", "json", "--top-k", "50"], 0).stdout,
    )
    .unwrap();
    assert_eq!(v["divergences"].as_array().unwrap().len(), 6);
    let t = veer_ok(&["diff", &b, &c, "--top-k", "50"], 0).stdout;
    assert!(t.contains("top divergences (3 of 6 shown"), "{t}");
}

#[test]
fn seed_changes_intervals_not_medians() {
    let (b, c) = pair("demo");
    let a: Value = serde_json::from_str(
        &veer_ok(&["diff", &b, &c, "--format", "json", "--seed", "7"], 0).stdout,
    )
    .unwrap();
    let d: Value = serde_json::from_str(&diff_of("demo", "json")).unwrap();
    assert_eq!(a["seed"], 7);
    for (x, y) in a["axes"]
        .as_array()
        .unwrap()
        .iter()
        .zip(d["axes"].as_array().unwrap())
    {
        assert_eq!(x["delta"], y["delta"]);
    }
}

#[test]
fn pair_by_alignment_pairs_the_matched_turns() {
    let (b, c) = pair("refund-agent-audit");
    let v: Value = serde_json::from_str(
        &veer_ok(
            &["diff", &b, &c, "--format", "json", "--pair-by", "alignment"],
            0,
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(v["pairing"], "alignment");
    // Path M M M I M D: four matched pairs.
    assert_eq!(v["pair_count"], 4);
}

pub(crate) fn run_with_threads(args: &[&str], threads: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(args)
        .current_dir(root)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn json_is_byte_identical_across_runs_and_thread_counts() {
    let (b, c) = pair("devops-agent");
    let args = ["diff", b.as_str(), c.as_str(), "--format", "json"];
    let first = run_with_threads(&args, "1");
    for threads in ["1", "2", "4", "8", "3"] {
        assert_eq!(first, run_with_threads(&args, threads));
    }
}

#[test]
fn output_file_is_written_and_stdout_stays_empty() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.md");
    let (b, c) = pair("demo");
    let r = veer_ok(
        &[
            "diff",
            &b,
            &c,
            "--format",
            "markdown",
            "-o",
            out.to_str().unwrap(),
        ],
        0,
    );
    assert!(r.stdout.is_empty());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("## veer diff"), "{text}");
}

pub(crate) fn copy(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(fixtures().join("shadow").join(from), to).unwrap();
}

pub(crate) fn directories() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("base"), dir.path().join("cand"));
    copy("demo/baseline.agentlog", &a.join("demo.agentlog"));
    copy("demo/candidate.agentlog", &b.join("demo.agentlog"));
    copy("er-triage/baseline.agentlog", &a.join("team/er.agentlog"));
    copy("er-triage/candidate.agentlog", &b.join("team/er.agentlog"));
    copy(
        "customer-support/baseline.agentlog",
        &a.join("only-baseline.agentlog"),
    );
    copy(
        "customer-support/candidate.agentlog",
        &b.join("only-candidate.agentlog"),
    );
    (dir, a, b)
}

#[test]
fn identical_traces_show_no_change() {
    let (b, _) = pair("customer-support");
    let v: Value =
        serde_json::from_str(&veer_ok(&["diff", &b, &b, "--format", "json"], 0).stdout).unwrap();
    assert_eq!(v["worst_severity"], "none");
    assert!(v["first_divergence"].is_null());
    assert!(v["recommendations"].as_array().unwrap().is_empty());
    for a in v["axes"].as_array().unwrap() {
        assert_eq!(a["delta"].as_f64(), Some(0.0), "{a}");
    }
    let t = veer_ok(&["diff", &b, &b], 0).stdout;
    assert!(t.contains("the candidate behaves like the baseline"), "{t}");
}

/// Runs a `veer` command that must fail with exit 2, a message holding `needle` and no panic.
pub(crate) fn fails(args: &[&str], needle: &str) -> String {
    let r = veer(args);
    assert_eq!(
        r.code, 2,
        "veer {args:?}\nstdout:{}\nstderr:{}",
        r.stdout, r.stderr
    );
    assert!(r.stderr.contains(needle), "veer {args:?}: {}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    r.stderr
}

pub(crate) fn schema_errors(instance: &Value) -> Vec<String> {
    crate::common::diff_schema_violations(instance)
}

/// Every report the six fixtures, alignment pairing and directory mode produce validates
/// against the published schema.
#[test]
fn json_output_validates_against_the_schema() {
    for name in EXAMPLES {
        let v: Value = serde_json::from_str(&diff_of(name, "json")).unwrap();
        assert_eq!(schema_errors(&v), Vec::<String>::new(), "{name}");
        let (b, c) = pair(name);
        let v: Value = serde_json::from_str(
            &veer_ok(
                &["diff", &b, &c, "--format", "json", "--pair-by", "alignment"],
                0,
            )
            .stdout,
        )
        .unwrap();
        assert_eq!(schema_errors(&v), Vec::<String>::new(), "{name} alignment");
    }
    let (_keep, a, b) = directories();
    let v: Value = serde_json::from_str(
        &veer_ok(
            &[
                "diff",
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                "--format",
                "json",
            ],
            0,
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(schema_errors(&v), Vec::<String>::new(), "directory");
    let mut broken = v.clone();
    broken["pairs"][0]["report"]["axes"][0]["severity"] = Value::from("huge");
    assert!(!schema_errors(&broken).is_empty());
}

/// `veer demo` is the diff of the bundled refund-agent traces.
#[test]
fn demo_shows_the_diff_report() {
    let r = veer_ok(&["demo"], 0);
    insta::assert_snapshot!("demo_terminal", r.stdout);
    let v: Value = serde_json::from_str(&veer_ok(&["demo", "--format", "json"], 0).stdout).unwrap();
    assert_eq!(
        v["baseline"]["path"],
        "examples/refund-agent/baseline.agentlog"
    );
    assert_eq!(v["axes"].as_array().unwrap().len(), 9);
}
