//! Unit tests of the plan, the markers, answers and statuses, and the results of a finished
//! experiment.

use super::*;
use serde_json::{json, Value};
use veer_base::format::Format;
use veer_experiment::status::AgentKind;
use veer_perturb::{derive_seed, perturb, FileKind, Operator, PerturbError, PerturbOutcome};
use veer_trace::Trace;

const CSV: &str =
    "name,amount,date\nalpha,10,2024-01-02\nbeta,20,2024-02-03\ngamma,30,2024-03-04\n";

#[test]
fn the_plan_uses_perturbs_seeds_and_outputs() {
    let p = plan(
        "sales.csv",
        CSV,
        FileKind::Delimited,
        &Operator::TABULAR,
        2,
        42,
    )
    .unwrap();
    let labels: Vec<&str> = p.runs.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(&labels[..3], ["baseline", "noise_floor_1", "noise_floor_2"]);
    assert_eq!(p.runs[1].trace_stem, "reruns/rerun-001");
    assert_eq!(p.runs[1].input, CSV);
    for r in &p.runs[3..] {
        let RunRole::Perturbed(op) = r.role else {
            panic!("perturbed")
        };
        let seed = derive_seed(42, "sales.csv", op.name());
        assert_eq!(r.seed, Some(seed));
        assert_eq!(
            perturb(CSV, FileKind::Delimited, op, seed).unwrap(),
            PerturbOutcome::Applied(r.input.clone())
        );
        assert_eq!(r.trace_stem, format!("perturbed/{}", op.name()));
        assert_eq!(r.run_dir, format!("runs/perturbed/{}", op.name()));
        assert_eq!(r.input_sha256, sha256_hex(r.input.as_bytes()));
    }
    assert_eq!(p.runs.len() + p.skipped.len(), 3 + 7);
}

#[test]
fn operators_that_do_not_apply_are_skipped_with_their_reason() {
    let p = plan("n.md", "short", FileKind::Text, &Operator::TEXT, 0, 42).unwrap();
    // Text under 10 characters: every operator but null_content skips.
    assert_eq!(p.runs.len(), 2);
    assert_eq!(p.skipped.len(), 6);
    assert!(p.skipped.iter().all(|s| !s.reason.is_empty()));
    assert!(matches!(
        plan(
            "a.csv",
            CSV,
            FileKind::Delimited,
            &[Operator::OcrNoise],
            0,
            1
        ),
        Err(PerturbError::WrongModality { .. })
    ));
}

#[test]
fn answers_are_the_last_non_blank_line() {
    assert_eq!(answer_from_stdout(b"a\nb \r\n\n  \n"), Some("b".into()));
    assert_eq!(answer_from_stdout(b"only"), Some("only".into()));
    assert_eq!(answer_from_stdout(b""), None);
    assert_eq!(answer_from_stdout(b"\n \t\n"), None);
    assert_eq!(answer_from_file(b"  42\n"), Some("42".into()));
    assert_eq!(answer_from_file(b"\n"), None);
}

#[test]
fn statuses_follow_the_exit_then_the_trace() {
    let empty = Trace::new("t", Format::Agentlog);
    let k = AgentKind::External;
    assert_eq!(status(Exit::TimedOut, true, k, &empty), "timeout");
    assert_eq!(status(Exit::Exited(3), true, k, &empty), "error");
    assert_eq!(status(Exit::Exited(0), false, k, &empty), "error");
    assert_eq!(status(Exit::Exited(0), true, k, &empty), "empty");
}

#[test]
fn markers_are_reused_only_for_the_same_input_and_settings() {
    let p = plan(
        "sales.csv",
        CSV,
        FileKind::Delimited,
        &[Operator::ColumnSwap],
        0,
        42,
    )
    .unwrap();
    let run = &p.runs[1];
    let m = RunMarker {
        schema_version: 1,
        label: run.label.clone(),
        input_sha256: run.input_sha256.clone(),
        settings_sha256: "s".into(),
        exit: Exit::Exited(0),
        trace: "perturbed/column_swap.agentlog".into(),
        answer: Some("60".into()),
        warnings: vec![],
    };
    assert!(m.matches(run, "s"));
    assert!(!m.matches(run, "t"));
    assert!(!m.matches(&p.runs[0], "s"));
    let text = serde_json::to_string(&m).unwrap();
    assert_eq!(serde_json::from_str::<RunMarker>(&text).unwrap(), m);
}

fn trace(calls: &[(&str, &[&str])]) -> Trace {
    let events: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (finish, tools))| {
            json!({"agent_name": "external", "content_hash": format!("{i:016x}"),
                   "event_type": "llm_call", "sequence_index": i, "step_num": i + 1,
                   "payload": {"model": "m", "finish_reason": finish, "tool_call_names": tools,
                               "usage": {"prompt_tokens": 10, "completion_tokens": 5}}})
        })
        .collect();
    let v = json!({"event_count": events.len(), "events": events, "run_label": "r"});
    veer_trace::traxr::trace_from_value("t", "t", v, None, &Default::default()).unwrap()
}

fn marker(run: &PlannedRun, exit: Exit, answer: &str, warnings: &[&str]) -> RunMarker {
    RunMarker {
        schema_version: 1,
        label: run.label.clone(),
        input_sha256: run.input_sha256.clone(),
        settings_sha256: "s".into(),
        exit,
        trace: String::new(),
        answer: Some(answer.into()),
        warnings: warnings.iter().map(|w| w.to_string()).collect(),
    }
}

#[test]
fn skipped_operators_become_skipped_pairs_in_matrix_order() {
    // No data row: every operator but null_content is skipped (traxr's only tabular skip).
    let p = plan(
        "t.csv",
        "a,b\n",
        FileKind::Delimited,
        &[Operator::ColumnSwap, Operator::NullContent],
        0,
        42,
    )
    .unwrap();
    assert_eq!(p.skipped.len(), 1);
    let one: &[(&str, &[&str])] = &[("stop", &[])];
    let markers = [
        marker(&p.runs[0], Exit::Exited(0), "2", &[]),
        marker(&p.runs[1], Exit::Exited(0), "2", &[]),
    ];
    let runs: Vec<FinishedRun<'_>> = p
        .runs
        .iter()
        .zip(&markers)
        .map(|(run, marker)| FinishedRun {
            run,
            marker,
            trace: trace(one),
            trace_readable: true,
        })
        .collect();
    let r = results(&p, runs, &ResultsOptions::default()).unwrap();
    assert_eq!(r.pairs[0].perturbation.as_deref(), Some("column_swap"));
    assert_eq!(r.pairs[0].status_perturbed, "skipped");
    assert_eq!(
        r.pairs[0].warnings,
        ["Perturbation column_swap skipped for 't.csv': \
          Insufficient data (need header + at least 1 row)"]
    );
    assert_eq!(r.pairs[1].status_perturbed, "ok");
}

#[test]
fn results_keep_matrix_order_statuses_warnings_and_recorded_tokens() {
    // unit_change finds no numeric column: applied as traxr counts it, the copy equals the
    // input, and the pair says so (skipped pairs: the test above).
    let csv = "a,b\nx,y\nz,w\n";
    let ops = [
        Operator::ColumnSwap,
        Operator::UnitChange,
        Operator::NullContent,
    ];
    let p = plan("t.csv", csv, FileKind::Delimited, &ops, 1, 42).unwrap();
    assert!(p.skipped.is_empty(), "{:?}", p.skipped);
    assert_eq!(p.runs[3].role, RunRole::Perturbed(Operator::UnitChange));
    assert_eq!(p.runs[3].input, csv);
    assert_eq!(p.runs[3].note, Some(veer_perturb::UNCHANGED_NOTE));
    assert_eq!(p.runs[2].note, None);
    let one: &[(&str, &[&str])] = &[("stop", &[])];
    let two: &[(&str, &[&str])] = &[("tool_calls", &["read"]), ("stop", &[])];
    let markers = [
        marker(&p.runs[0], Exit::Exited(0), "2", &[]),
        marker(&p.runs[1], Exit::Exited(0), "2", &[]),
        marker(&p.runs[2], Exit::Exited(0), "2", &[]),
        marker(&p.runs[3], Exit::Exited(0), "2", &[]),
        marker(&p.runs[4], Exit::Exited(2), "0", &["exited with code 2"]),
    ];
    let traces = [one, one, one, one, two];
    let runs: Vec<FinishedRun<'_>> = p
        .runs
        .iter()
        .zip(&markers)
        .zip(traces)
        .map(|((run, marker), calls)| FinishedRun {
            run,
            marker,
            trace: trace(calls),
            trace_readable: true,
        })
        .collect();
    let r = results(&p, runs, &ResultsOptions::default()).unwrap();
    let names: Vec<&str> = r
        .pairs
        .iter()
        .filter_map(|p| p.perturbation.as_deref())
        .collect();
    assert_eq!(names, ["column_swap", "unit_change", "null_content"]);
    let swap = &r.pairs[0];
    assert_eq!(swap.status_perturbed, "ok");
    assert_eq!(swap.d_norm, Some(0.0));
    assert_eq!(swap.token_overhead, Some(1.0));
    assert_eq!(r.pairs[1].status_perturbed, "ok");
    assert_eq!(
        r.pairs[1].warnings,
        [format!("unit_change: {}", veer_perturb::UNCHANGED_NOTE)]
    );
    assert!(swap.warnings.is_empty());
    let null = &r.pairs[2];
    assert_eq!(null.status_perturbed, "error");
    assert_eq!(null.warnings, ["null_content: exited with code 2"]);
    // 30 recorded tokens against 15.
    assert_eq!(null.token_overhead, Some(2.0));
    // The final `stop` calls align; the tool-calling call is one insertion over two.
    assert_eq!(null.d_norm, Some(0.5));
    assert_eq!(null.recovery, None);
    assert_eq!(r.noise_floor, Some(0.0));
    assert_eq!(
        r.answers.get("t.csv::null_content"),
        Some(&Some("0".into()))
    );
    assert_eq!(r.fingerprint.get("seed"), Some(&json!(42)));
}
