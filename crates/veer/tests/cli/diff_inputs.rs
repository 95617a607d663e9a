//! What `veer diff` reads: index pairing restarts in every recorded session, and traxr traces
//! diff like `.agentlog` traces.

use crate::common::{fixtures, veer_ok};
use crate::diff::fails;
use serde_json::Value;
use std::path::Path;

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
