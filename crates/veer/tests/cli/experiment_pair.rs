//! `veer experiment pair`: parity with traxr's analyzer goldens (§14.1), the `.agentlog`
//! fixtures and the `.agentlog` vectors of spec `experiment.md` §12.4, with snapshots.

use crate::common::{fixtures, veer_ok};
use crate::experiment::shadow;
use serde_json::Value;

/// `veer experiment pair CASE.json` equals the analyzer's `output.summary` on every §6 key.
#[test]
fn pair_on_analyzer_goldens() {
    for case in ["known_tstar", "single_edit"] {
        let path = format!("tests/fixtures/traxr/analyzer_goldens/{case}.json");
        let json = veer_ok(&["experiment", "pair", &path, "--format", "json"], 0).stdout;
        insta::assert_snapshot!(format!("pair_{case}_json"), json);
        let terminal = veer_ok(&["experiment", "pair", &path], 0).stdout;
        insta::assert_snapshot!(format!("pair_{case}_terminal"), terminal);

        let ours: Value = serde_json::from_str(&json).unwrap();
        let case_file: Value = serde_json::from_str(
            &std::fs::read_to_string(
                fixtures().join(format!("traxr/analyzer_goldens/{case}.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let summary = case_file["output"]["summary"].as_object().unwrap();
        for (key, expected) in summary {
            assert_eq!(&ours[key], expected, "{case}: {key}");
        }
    }
}

#[test]
fn pair_on_agentlog_fixtures() {
    let (b, c) = (shadow("demo", "baseline"), shadow("demo", "candidate"));
    let json = veer_ok(&["experiment", "pair", &b, &c, "--format", "json"], 0);
    insta::assert_snapshot!("pair_demo_json", json.stdout);
    let terminal = veer_ok(&["experiment", "pair", &b, &c], 0);
    insta::assert_snapshot!("pair_demo_terminal", terminal.stdout);
    assert!(
        terminal
            .stdout
            .contains("noise floor (d_norm): UNMEASURED — divergence below the (unknown)"),
        "{}",
        terminal.stdout
    );
    assert!(
        terminal.stderr.contains("warning: noise floor unmeasured"),
        "{}",
        terminal.stderr
    );
    // With a clean re-run the floor is measured and the warning is gone.
    let with_rerun = veer_ok(&["experiment", "pair", &b, &c, "--rerun", &b], 0);
    assert!(
        with_rerun.stdout.contains(
            "noise floor (d_norm): 0.0000 over 1 clean re-run(s); this pair is above the floor"
        ),
        "{}",
        with_rerun.stdout
    );
    assert!(
        !with_rerun.stderr.contains("noise floor"),
        "{}",
        with_rerun.stderr
    );
}

/// (fixture, d_norm, t*, divergence type, token overhead).
type Vector = (&'static str, f64, Option<i64>, Option<&'static str>, f64);

/// The `.agentlog` vectors of spec §12.4 through the binary.
#[test]
fn pair_agentlog_vectors() {
    let cases: [Vector; 6] = [
        (
            "demo",
            0.2,
            Some(3),
            Some("llm_finish_reason_change"),
            1.097938144329897,
        ),
        (
            "customer-support",
            0.3333333333333333,
            Some(1),
            Some("different_tool_requested"),
            1.079696394686907,
        ),
        (
            "devops-agent",
            1.0,
            Some(1),
            Some("different_tool_requested"),
            0.9152432231711846,
        ),
        (
            "er-triage",
            0.8,
            Some(1),
            Some("different_tool_requested"),
            1.070498242712425,
        ),
        ("harmful-content-judge", 1.0, None, None, 1.1721311475409837),
        (
            "refund-agent-audit",
            1.0,
            Some(1),
            Some("event_missing_in_perturbed"),
            1.3717498243148278,
        ),
    ];
    for (name, d_norm, t_star, kind, tokens) in cases {
        let out = veer_ok(
            &[
                "experiment",
                "pair",
                &shadow(name, "baseline"),
                &shadow(name, "candidate"),
                "--format",
                "json",
            ],
            0,
        );
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["d_norm"].as_f64(), Some(d_norm), "{name}");
        assert_eq!(v["t_star"].as_i64(), t_star, "{name}");
        assert_eq!(v["divergence_type"].as_str(), kind, "{name}");
        assert_eq!(v["token_overhead"].as_f64(), Some(tokens), "{name}");
        assert_eq!(
            v["manifestation"], "structural_divergence_with_outcome_change",
            "{name}"
        );
        assert_eq!(v["answer_changed"], true, "{name}");
        assert_eq!(v["recovery"], false, "{name}");
        assert_eq!(v["task_success"], Value::Null, "{name}");
    }
}
