//! `veer diff`: snapshots of the four formats on the six Shadow conformance pairs, parity of
//! the JSON through the binary (unpriced and priced), directory mode, determinism, and every
//! bad input of issue 3 (exit 2, clear message, no panic).

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

fn pair(name: &str) -> (String, String) {
    (
        format!("tests/fixtures/shadow/{name}/baseline.agentlog"),
        format!("tests/fixtures/shadow/{name}/candidate.agentlog"),
    )
}

fn diff_of(name: &str, format: &str) -> String {
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

fn run_with_threads(args: &[&str], threads: &str) -> String {
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

fn copy(from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(fixtures().join("shadow").join(from), to).unwrap();
}

fn directories() -> (tempfile::TempDir, PathBuf, PathBuf) {
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
            "gate"
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
    assert_eq!(j.matches("<testsuite ").count(), 2);
    assert_eq!(j.matches("<testcase ").count(), 18);
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

// ---- bad input: exit 2, a clear message, a hint, never a panic ----

fn fails(args: &[&str], needle: &str) -> String {
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

#[test]
fn top_k_zero_is_rejected() {
    let (b, c) = pair("demo");
    fails(&["diff", &b, &c, "--top-k", "0"], "must be at least 1");
    fails(&["diff", &b, &c, "--top-k", "many"], "not a whole number");
}

#[test]
fn mismatched_formats_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let case: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("traxr/analyzer_goldens/single_edit.json"))
            .unwrap(),
    )
    .unwrap();
    let traxr = dir.path().join("run.json");
    std::fs::write(
        &traxr,
        serde_json::to_string(&case["input"]["clean_trace"]).unwrap(),
    )
    .unwrap();
    let (b, _) = pair("demo");
    let e = fails(&["diff", &b, traxr.to_str().unwrap()], "mismatched formats");
    assert!(
        e.contains("is agentlog but") && e.contains("is traxr"),
        "{e}"
    );
    assert!(e.contains("hint:"), "{e}");
}

#[test]
fn file_against_directory_is_rejected() {
    let (b, _) = pair("demo");
    fails(
        &["diff", &b, "tests/fixtures/shadow/demo"],
        "mismatched inputs",
    );
}

#[test]
fn an_empty_side_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let only_metadata = dir.path().join("empty.agentlog");
    let first = std::fs::read_to_string(fixtures().join("shadow/demo/baseline.agentlog")).unwrap();
    std::fs::write(
        &only_metadata,
        format!("{}\n", first.lines().next().unwrap()),
    )
    .unwrap();
    let (b, _) = pair("demo");
    fails(
        &["diff", &b, only_metadata.to_str().unwrap()],
        "has no responses",
    );
    let zero = dir.path().join("zero.agentlog");
    std::fs::write(&zero, "").unwrap();
    let r = veer(&["diff", zero.to_str().unwrap(), &b]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn bad_pricing_files_name_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let (b, c) = pair("demo");
    for (body, needle) in [
        (
            r#"{"claude-opus-4-7": {"input": "cheap", "output": 0.1}}"#,
            "claude-opus-4-7.input: must be a non-negative number",
        ),
        (
            r#"{"m": {"input": 1e-6, "ouput": 2e-6}}"#,
            "m.ouput: unknown price field",
        ),
        (r#"{"m": [1e-6]}"#, "m: must be [input, output]"),
        (
            r#"{"m": {"input": -1}}"#,
            "m.input: must be a non-negative number",
        ),
        (
            r#"["not", "an", "object"]"#,
            "(file): must be a JSON object",
        ),
        ("{ not json", "(file): not valid JSON"),
    ] {
        let p = dir.path().join("pricing.json");
        std::fs::write(&p, body).unwrap();
        let e = fails(&["diff", &b, &c, "--pricing", p.to_str().unwrap()], needle);
        assert!(e.contains("pricing.json"), "{e}");
        assert!(e.contains("hint:"), "{e}");
    }
    fails(
        &["diff", &b, &c, "--pricing", "/no/such/pricing.json"],
        "cannot read pricing file",
    );
}

#[test]
fn unreadable_traces_are_rejected() {
    let (b, _) = pair("demo");
    fails(&["diff", &b, "/no/such/trace.agentlog"], "no such file");
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

#[test]
fn help_shows_an_example() {
    let r = veer_ok(&["diff", "--help"], 0);
    assert!(r
        .stdout
        .contains("veer diff baseline.agentlog candidate.agentlog"));
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

fn concat(parts: &[&str], to: &Path) {
    let mut text = String::new();
    for p in parts {
        text.push_str(&std::fs::read_to_string(fixtures().join("shadow").join(p)).unwrap());
    }
    std::fs::write(to, text).unwrap();
}

/// diff.md §8: index pairing restarts in every recorded session, so a surplus response in
/// session 0 does not shift the pairs of session 1 (Shadow pairs across the whole file).
#[test]
fn index_pairing_is_per_recorded_session() {
    let dir = tempfile::tempdir().unwrap();
    let (b, c) = (dir.path().join("b.agentlog"), dir.path().join("c.agentlog"));
    concat(
        &[
            "refund-causal-diagnosis/baseline_traces/s1.agentlog",
            "demo/baseline.agentlog",
        ],
        &b,
    );
    concat(
        &[
            "refund-causal-diagnosis/candidate_traces/s1.agentlog",
            "demo/candidate.agentlog",
        ],
        &c,
    );
    let r = veer_ok(
        &[
            "diff",
            b.to_str().unwrap(),
            c.to_str().unwrap(),
            "--format",
            "json",
            "--pair-by",
            "index",
        ],
        0,
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["pair_count"], 4);
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("session 0: baseline has 1 more response")),
        "{warnings:?}"
    );
    assert!(r.stderr.contains("warning: session 0"), "{}", r.stderr);
    // Session 1's pairs are demo's pairs: baseline turn k+2 with candidate turn k+1.
    let turns: Vec<(u64, u64)> = v["drill_down"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["baseline_turn"].as_u64().unwrap(),
                d["candidate_turn"].as_u64().unwrap(),
            )
        })
        .collect();
    for t in [(2, 1), (3, 2), (4, 3), (0, 0)] {
        assert!(turns.contains(&t), "{turns:?}");
    }
}

/// Two traxr traces (llm_call events become responses) diff like two .agentlog traces; a
/// traxr trace without llm_call events is a clear input error.
#[test]
fn traxr_traces_can_be_diffed() {
    let dir = tempfile::tempdir().unwrap();
    let results: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("traxr/goldens/external_mock.json")).unwrap(),
    )
    .unwrap();
    let (b, c) = (dir.path().join("base.json"), dir.path().join("pert.json"));
    std::fs::write(
        &b,
        serde_json::to_string(&results["traces"]["baseline"]).unwrap(),
    )
    .unwrap();
    std::fs::write(
        &c,
        serde_json::to_string(&results["traces"]["sample.csv::column_swap"]).unwrap(),
    )
    .unwrap();
    let r = veer_ok(
        &[
            "diff",
            b.to_str().unwrap(),
            c.to_str().unwrap(),
            "--format",
            "json",
        ],
        0,
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["axes"].as_array().unwrap().len(), 9);
    assert!(v["pair_count"].as_u64().unwrap() > 0, "{v}");

    let case: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("traxr/analyzer_goldens/single_edit.json"))
            .unwrap(),
    )
    .unwrap();
    let routing = dir.path().join("routing.json");
    std::fs::write(
        &routing,
        serde_json::to_string(&case["input"]["clean_trace"]).unwrap(),
    )
    .unwrap();
    fails(
        &["diff", routing.to_str().unwrap(), b.to_str().unwrap()],
        "has no responses",
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
