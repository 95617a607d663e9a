//! Parity with traxr's own outputs: every analyzer golden case and every pair of both
//! experiment goldens re-derived from the stored traces and answers (spec `experiment.md`
//! §14.1, §14.2), and the `.agentlog` vectors of §12.4.

use crate::pair_report::{pair_report, PairOptions};
use crate::results::from_traxr_results;
use serde_json::Value;
use std::path::PathBuf;
use veer_trace::{load_file, load_trace, Document, ReadOptions};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// Asserts `ours` equals `theirs` (floats within 1e-12), naming the path of a difference.
fn assert_json_eq(ours: &Value, theirs: &Value, path: &str) {
    match (ours, theirs) {
        (Value::Number(a), Value::Number(b)) => {
            let (x, y) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            assert!((x - y).abs() <= 1e-12, "{path}: {x} != {y}");
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                let Some(mine) = a.get(k) else {
                    panic!("{path}.{k}: missing in veer's output");
                };
                assert_json_eq(mine, v, &format!("{path}.{k}"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{path}: lengths differ");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_json_eq(x, y, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(ours, theirs, "{path}"),
    }
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

#[test]
fn every_analyzer_golden_case() {
    let dir = fixtures().join("traxr/analyzer_goldens");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().and_then(|n| n.to_str()) == Some("manifest.json") {
            continue;
        }
        let Document::AnalyzerCase(case) = load_file(&path, &ReadOptions::default()).unwrap()
        else {
            panic!("{}: not an analyzer case", path.display());
        };
        let options = PairOptions {
            task_id: case.task_id.clone(),
            expected_answer: None,
            detail: true,
        };
        let report = to_value(&pair_report(&case.clean, &case.perturbed, &[], &options));
        let name = path.display().to_string();
        assert_json_eq(
            &report,
            &case.output["summary"],
            &format!("{name}: summary"),
        );
        assert_json_eq(&report, &case.output["detail"], &format!("{name}: detail"));
        seen += 1;
    }
    assert_eq!(seen, 6);
}

fn golden(name: &str) -> (veer_contract::experiment::ExperimentReport, Value) {
    let path = fixtures().join("traxr/goldens").join(name);
    let Document::Results(results) = load_file(&path, &ReadOptions::default()).unwrap() else {
        panic!("{name}: not a results file");
    };
    let report = from_traxr_results(name, &results, true, false).unwrap();
    let raw: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    (report, raw)
}

#[test]
fn every_pair_of_both_experiment_goldens() {
    for name in ["builtin_stub.json", "external_mock.json"] {
        let (report, raw) = golden(name);
        assert!(report.errors.is_empty(), "{name}: {:?}", report.errors);
        let ours = to_value(&report);
        assert_json_eq(&ours["pairs"], &raw["pairs"], &format!("{name}: pairs"));
        assert_json_eq(
            &ours["aggregates"],
            &raw["aggregates"],
            &format!("{name}: aggregates"),
        );
        assert_json_eq(
            &ours["noise_floor"],
            &raw["noise_floor"],
            &format!("{name}: noise_floor"),
        );
        assert_json_eq(
            &ours["answers"],
            &raw["answers"],
            &format!("{name}: answers"),
        );
        assert_json_eq(&ours["traces"], &raw["traces"], &format!("{name}: traces"));
        assert_json_eq(
            &ours["fingerprint"],
            &raw["fingerprint"],
            &format!("{name}: fingerprint"),
        );
    }
}

#[test]
fn builtin_null_content_pair_values() {
    let (report, _) = golden("builtin_stub.json");
    let p = &report.pairs[1];
    assert_eq!(p.d_norm, Some(33.0 / 42.0));
    assert_eq!(p.t_star, Some(0));
    assert_eq!(p.t_star_norm, Some(0.0));
    assert_eq!(p.t_star_event_type.as_deref(), Some("routing_decision"));
    assert_eq!(
        report.aggregates.divergence_summary.mean_d_norm,
        Some(0.39285714285714285)
    );
}

/// Spec §12.4: the Shadow example fixtures analysed as experiment pairs.
#[test]
fn agentlog_vectors() {
    type Row = (
        &'static str,
        usize,
        (usize, usize, usize),
        f64,
        Option<i64>,
        Option<f64>,
        Option<&'static str>,
        f64,
    );
    let rows: [Row; 6] = [
        (
            "demo",
            1,
            (1, 0, 0),
            0.2,
            Some(3),
            Some(0.8),
            Some("llm_finish_reason_change"),
            1.097938144329897,
        ),
        (
            "customer-support",
            1,
            (1, 0, 0),
            1.0 / 3.0,
            Some(1),
            Some(0.0),
            Some("different_tool_requested"),
            1.079696394686907,
        ),
        (
            "devops-agent",
            5,
            (5, 0, 0),
            1.0,
            Some(1),
            Some(0.0),
            Some("different_tool_requested"),
            0.9152432231711846,
        ),
        (
            "er-triage",
            4,
            (4, 0, 0),
            0.8,
            Some(1),
            Some(0.0),
            Some("different_tool_requested"),
            1.070498242712425,
        ),
        (
            "harmful-content-judge",
            1,
            (1, 0, 0),
            1.0,
            None,
            None,
            None,
            1.1721311475409837,
        ),
        (
            "refund-agent-audit",
            6,
            (5, 0, 1),
            1.0,
            Some(1),
            Some(0.0),
            Some("event_missing_in_perturbed"),
            1.3717498243148278,
        ),
    ];
    let normalized = [0.2, 0.3333, 1.0, 0.8, 1.0, 1.0];
    for ((name, d, (s, i, del), d_norm, t, tn, ty, tok), norm) in rows.into_iter().zip(normalized) {
        let dir = fixtures().join("shadow").join(name);
        let b = load_trace(&dir.join("baseline.agentlog"), &ReadOptions::default()).unwrap();
        let c = load_trace(&dir.join("candidate.agentlog"), &ReadOptions::default()).unwrap();
        let r = pair_report(&b, &c, &[], &PairOptions::default());
        let e = &r.edit_distance;
        assert_eq!(
            (e.distance, e.substitutions, e.insertions, e.deletions),
            (d, s, i, del),
            "{name}"
        );
        assert_eq!(e.normalized, norm, "{name}");
        assert!(
            (r.d_norm - d_norm).abs() < 1e-12,
            "{name}: d_norm {}",
            r.d_norm
        );
        assert_eq!(r.t_star, t, "{name}");
        assert_eq!(r.t_star_norm, tn, "{name}");
        assert_eq!(r.divergence_type.as_deref(), ty, "{name}");
        assert!(r.pair_answer_changed, "{name}");
        assert!(r.answer_changed, "{name}");
        assert_eq!(r.control_flow_changes.total_changes, 0, "{name}");
        assert_eq!(r.recovery, Some(false), "{name}");
        assert_eq!(r.task_success, None, "{name}");
        assert_eq!(
            r.manifestation,
            veer_contract::experiment::Manifestation::StructuralDivergenceWithOutcomeChange,
            "{name}"
        );
        let overhead = r.token_overhead.unwrap_or(f64::NAN);
        assert!(
            (overhead - tok).abs() < 1e-12,
            "{name}: token_overhead {overhead}"
        );
        assert_eq!(
            (r.status_baseline.as_str(), r.status_perturbed.as_str()),
            ("ok", "ok")
        );
    }
}
