//! Pairing (by index, along the alignment, auto) through the binary, on the refund-agent pairs of
//! `tests/fixtures/pairing/` (written by its `generate.py`): auto pairing follows a dropped,
//! added or reordered call; a change in one turn of three is reported; a faster candidate is
//! an improvement that never trips the gate; recommendations cite their turns and never
//! contradict them (metamorphic checks); every format's headline names the first divergence.

use crate::common::{veer, veer_ok};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const CANDIDATES: [&str; 5] = ["dropped", "added", "reordered", "one-turn", "faster"];

fn path(name: &str) -> String {
    format!("tests/fixtures/pairing/{name}.agentlog")
}

fn diff(candidate: &str, extra: &[&str]) -> String {
    let (b, c) = (path("baseline"), path(candidate));
    let mut args = vec!["diff", b.as_str(), c.as_str()];
    args.extend(extra);
    veer_ok(&args, 0).stdout
}

fn json(candidate: &str, extra: &[&str]) -> Value {
    let mut args = vec!["--format", "json"];
    args.extend(extra);
    serde_json::from_str(&diff(candidate, &args)).unwrap()
}

fn axis<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["axes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["axis"] == name)
        .unwrap()
}

fn messages(v: &Value) -> Vec<String> {
    v["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn terminal_and_markdown_snapshots() {
    for name in CANDIDATES {
        insta::assert_snapshot!(format!("pairing_terminal_{name}"), diff(name, &[]));
        insta::assert_snapshot!(
            format!("pairing_markdown_{name}"),
            diff(name, &["--format", "markdown"])
        );
    }
}

#[test]
fn auto_pairs_by_index_only_when_the_alignment_is_one_to_one() {
    for (name, used) in [
        ("dropped", "alignment"),
        ("added", "alignment"),
        ("reordered", "index"),
        ("one-turn", "index"),
        ("faster", "index"),
        ("baseline", "index"),
    ] {
        let v = json(name, &[]);
        assert_eq!(v["pairing"], used, "{name}");
        assert_eq!(v["pairing_requested"], "auto", "{name}");
        let forced = json(name, &["--pair-by", "index"]);
        assert_eq!(forced["pairing"], "index", "{name}");
        assert_eq!(forced["pairing_requested"], "index", "{name}");
    }
}

#[test]
fn a_dropped_call_is_never_invisible_and_never_a_retry_loop() {
    let v = json("dropped", &[]);
    let t = axis(&v, "trajectory");
    assert_eq!(t["changed_pairs"], 1, "{t}");
    assert_eq!(
        t["largest_change"],
        serde_json::json!({"delta": 1.0, "baseline_turn": 0, "candidate_turn": null})
    );
    assert!(v["headline"].as_str().unwrap().contains("dropped"), "{v}");
    // Metamorphic: fewer calls never read as a retry loop, whatever the pairing.
    for extra in [
        &[][..],
        &["--pair-by", "index"],
        &["--pair-by", "alignment"],
    ] {
        let v = json("dropped", extra);
        assert!(
            messages(&v).iter().all(|m| !m.contains("retry loop")),
            "{extra:?}: {:?}",
            messages(&v)
        );
    }
    let restore = &v["recommendations"][0];
    assert_eq!(restore["action"], "restore");
    assert_eq!(
        restore["evidence"],
        serde_json::json!([{"baseline_turn": 0, "candidate_turn": null}])
    );
}

#[test]
fn an_added_call_counts_at_its_candidate_turn() {
    let v = json("added", &[]);
    let t = axis(&v, "trajectory");
    assert_eq!(t["changed_pairs"], 1, "{t}");
    assert_eq!(t["largest_change"]["baseline_turn"], Value::Null);
    assert_eq!(t["largest_change"]["candidate_turn"], 1);
    assert_eq!(
        v["recommendations"][0]["evidence"],
        serde_json::json!([{"baseline_turn": null, "candidate_turn": 1}])
    );
}

#[test]
fn one_changed_turn_of_three_shows_in_every_format() {
    let v = json("one-turn", &[]);
    let verbosity = axis(&v, "verbosity");
    assert_eq!(verbosity["severity"], "none");
    assert_eq!(verbosity["changed_pairs"], 1);
    assert_eq!(
        verbosity["largest_change"],
        serde_json::json!({"delta": 55.0, "baseline_turn": 2, "candidate_turn": 2})
    );
    let headline = v["headline"].as_str().unwrap();
    assert!(
        headline.starts_with("diverges at baseline turn #2 ↔ candidate turn #2"),
        "{headline}"
    );
    let terminal = diff("one-turn", &[]);
    assert!(
        terminal.contains("1 of 3 pairs; turn 2: +55 tokens"),
        "{terminal}"
    );
    assert_eq!(terminal.lines().nth(1), Some(headline));
    let markdown = diff("one-turn", &["--format", "markdown"]);
    assert!(markdown.contains(&format!("**{headline}**")), "{markdown}");
    let html = diff("one-turn", &["--format", "html"]);
    assert!(
        html.contains("diverges at baseline turn #2 ↔ candidate turn #2"),
        "no headline in the HTML"
    );
    assert!(html.contains("1 of 3 pairs; turn 2: +55 tokens"));
    // The recommendation cites the turn it is about.
    assert_eq!(
        v["recommendations"][0]["evidence"],
        serde_json::json!([{"baseline_turn": 2, "candidate_turn": 2}])
    );
}

#[test]
fn a_faster_candidate_is_an_improvement_that_never_trips_the_gate() {
    let v = json("faster", &["--fail-on", "minor"]);
    let latency = axis(&v, "latency");
    assert_eq!(latency["severity"], "severe");
    assert_eq!(latency["direction"], "improvement");
    assert_eq!(v["worst_severity"], "severe");
    assert_eq!(v["worst_regression"], "none");
    assert_eq!(v["gate"]["tripped"], false);
    // Metamorphic: no latency regression and no hint of one.
    assert!(v["recommendations"].as_array().unwrap().is_empty(), "{v}");
    let terminal = diff("faster", &[]);
    assert!(terminal.contains("severe (improvement)"), "{terminal}");
    let junit = diff("faster", &["--format", "junit"]);
    assert!(junit.contains("failures=\"0\""), "{junit}");
    let github = diff("faster", &["--format", "github"]);
    assert!(!github.contains("::error"), "{github}");
    // `veer gate` on the saved report agrees.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    std::fs::write(&report, v.to_string()).unwrap();
    let r = veer(&["gate", report.to_str().unwrap(), "--fail-on", "minor"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // The slower side is a regression and does trip it.
    let (b, c) = (path("faster"), path("baseline"));
    let r = veer(&["diff", &b, &c, "--fail-on", "severe", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(axis(&v, "latency")["direction"], "regression");
}

#[test]
fn identical_runs_give_no_recommendation_and_say_so() {
    for extra in [
        &[][..],
        &["--pair-by", "index"],
        &["--pair-by", "alignment"],
    ] {
        let v = json("baseline", extra);
        assert!(v["recommendations"].as_array().unwrap().is_empty());
        assert_eq!(v["first_divergence"], Value::Null);
        assert_eq!(
            v["headline"],
            "no divergence above the noise floor; no axis regressed"
        );
        for a in v["axes"].as_array().unwrap() {
            assert_eq!(a["changed_pairs"], 0, "{a}");
            assert_eq!(a["direction"], "none", "{a}");
        }
    }
}

#[test]
fn the_semantic_axis_is_called_wording_similarity() {
    let markdown = diff("one-turn", &["--format", "markdown"]);
    assert!(markdown.contains("wording similarity"), "{markdown}");
    assert!(!markdown.contains("response meaning"), "{markdown}");
}

#[test]
fn json_is_byte_identical_across_thread_counts_with_unpaired_turns() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let run = |threads: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_veer"))
            .args([
                "diff",
                &path("baseline"),
                &path("dropped"),
                "--format",
                "json",
            ])
            .current_dir(&root)
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        out.stdout
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    assert_eq!(one, run("4"));
}
