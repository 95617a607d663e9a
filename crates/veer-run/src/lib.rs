//! The plan and bookkeeping of `veer experiment run` (spec `experiment.md` §10, §11, §13.6):
//! which runs an experiment has (the clean baseline, N clean re-runs, one run per applicable
//! operator with the seed `veer experiment perturb` uses), where each run's files go inside the
//! experiment directory, what a finished run's marker holds and when it can be reused, a run's
//! answer and status, and how the finished runs become a traxr results file measured by
//! [`from_traxr_results`] — the same function `veer experiment analyze` runs on that file, so
//! both derive the same pairs.
//!
//! Everything here is pure: the CLI reads and writes the files and runs the agents. (A crate of
//! its own because it joins the operators of `veer-perturb` and the metrics of
//! `veer-experiment`, and `veer-perturb` already depends on the metrics side.)

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[doc(hidden)]
pub mod fuzzing;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use veer_experiment::divergence::PreparedTrace;
use veer_experiment::results::{from_traxr_results, ExperimentError, ExperimentReport};
use veer_experiment::status::{run_status, AgentKind};
use veer_perturb::{derive_seed, perturb, FileKind, Operator, Outcome, PerturbError};
use veer_trace::traxr::ExperimentResults;
use veer_trace::Trace;

/// What a run is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The clean input, compared with every other run.
    Baseline,
    /// A clean re-run (1-based); the noise floor.
    Rerun(usize),
    /// The input perturbed by this operator.
    Perturbed(Operator),
}

/// One agent run of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRun {
    /// What the run is for.
    pub role: Role,
    /// traxr's run label: `baseline`, `noise_floor_<i>`, `<item_id>::<operator>`.
    pub label: String,
    /// Where its trace goes, relative to the experiment directory and without extension:
    /// `baseline`, `reruns/rerun-001`, `perturbed/<operator>` (the layout `experiment
    /// analyze` reads).
    pub trace_stem: String,
    /// Its own directory, relative to the experiment directory: the input copy, stdout,
    /// stderr and the finished-run marker (`runs/baseline`, `runs/reruns/rerun-001`,
    /// `runs/perturbed/<operator>`).
    pub run_dir: String,
    /// The operator's seed (perturbed runs only), in `0..2^32`.
    pub seed: Option<u32>,
    /// The content of this run's copy of the input.
    pub input: String,
    /// Lower-case hex SHA-256 of `input`.
    pub input_sha256: String,
    /// A perturbed run whose copy equals the clean input byte for byte (the operator applied,
    /// as traxr counts it, but had nothing to change): [`veer_perturb::UNCHANGED_NOTE`].
    pub note: Option<&'static str>,
}

/// An operator that does not apply to this input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedOperator {
    /// The operator.
    pub operator: Operator,
    /// Its seed.
    pub seed: u32,
    /// Why it does not apply (the operator's own words).
    pub reason: String,
}

/// The runs of one experiment, in the order they are started.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The input's file name: `item_id` of every pair, and part of each operator's seed.
    pub file_name: String,
    /// The experiment's base seed.
    pub base_seed: u64,
    /// The operators asked for that belong to this kind of file, in matrix order.
    pub operators: Vec<Operator>,
    /// Baseline, re-runs, then the applicable operators in matrix order.
    pub runs: Vec<PlannedRun>,
    /// Operators that do not apply to this content.
    pub skipped: Vec<SkippedOperator>,
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The file name of re-run `i` (1-based) without extension: `rerun-001`; at least three
/// digits so that names sort in run order.
pub fn rerun_name(i: usize) -> String {
    format!("rerun-{i:03}")
}

fn planned(
    role: Role,
    label: String,
    stem: String,
    seed: Option<u32>,
    input: String,
) -> PlannedRun {
    PlannedRun {
        role,
        label,
        run_dir: format!("runs/{stem}"),
        trace_stem: stem,
        seed,
        input_sha256: sha256_hex(input.as_bytes()),
        input,
        note: None,
    }
}

/// Plans an experiment on `content` (the input file named `file_name`, of `kind`): the
/// baseline, `reruns` clean re-runs, and one run per operator of `operators` that applies, with
/// the seed [`derive_seed`]`(base_seed, file_name, operator)` — exactly what `veer experiment
/// perturb` writes. Operators of another kind of file are an error; operators that do not apply
/// to this content are listed in [`Plan::skipped`].
pub fn plan(
    file_name: &str,
    content: &str,
    kind: FileKind,
    operators: &[Operator],
    reruns: usize,
    base_seed: u64,
) -> Result<Plan, PerturbError> {
    let mut runs = vec![planned(
        Role::Baseline,
        "baseline".into(),
        "baseline".into(),
        None,
        content.to_string(),
    )];
    for i in 1..=reruns {
        runs.push(planned(
            Role::Rerun(i),
            format!("noise_floor_{i}"),
            format!("reruns/{}", rerun_name(i)),
            None,
            content.to_string(),
        ));
    }
    let mut skipped = Vec::new();
    for &op in operators {
        let seed = derive_seed(base_seed, file_name, op.name());
        let outcome = perturb(content, kind, op, seed)?;
        let note = outcome.unchanged_note(content);
        match outcome {
            Outcome::Applied(text) => runs.push(PlannedRun {
                note,
                ..planned(
                    Role::Perturbed(op),
                    format!("{file_name}::{}", op.name()),
                    format!("perturbed/{}", op.name()),
                    Some(seed),
                    text,
                )
            }),
            Outcome::Skipped(reason) => skipped.push(SkippedOperator {
                operator: op,
                seed,
                reason,
            }),
        }
    }
    Ok(Plan {
        file_name: file_name.to_string(),
        base_seed,
        operators: operators.to_vec(),
        runs,
        skipped,
    })
}

/// How a run's agent process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit {
    /// It exited with this code (128 + signal when a signal ended it).
    Exited(i32),
    /// It ran past the time limit and was stopped.
    TimedOut,
}

/// The marker of a finished run (`run.json` in its run directory), written last: a run
/// directory without a valid marker is an unfinished run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMarker {
    /// Marker layout version (1).
    pub schema_version: u32,
    /// traxr's run label.
    pub label: String,
    /// SHA-256 of the input copy the agent ran on.
    pub input_sha256: String,
    /// SHA-256 of the experiment's settings that change a run's outcome (the command, where
    /// the trace and answer come from, the upstreams, the time limit); a marker of other
    /// settings is not reused.
    pub settings_sha256: String,
    /// How the agent ended.
    pub exit: Exit,
    /// The trace file, relative to the experiment directory.
    pub trace: String,
    /// The run's answer (see [`answer_from_stdout`]); `None` when it gave none.
    pub answer: Option<String>,
    /// Problems of this run (no answer, no trace, exit code, time limit), one line each.
    pub warnings: Vec<String>,
}

impl RunMarker {
    /// Whether this marker records `run` under the same settings (so the run can be reused).
    pub fn matches(&self, run: &PlannedRun, settings_sha256: &str) -> bool {
        self.records(&run.label, &run.input_sha256, settings_sha256)
    }

    /// Whether this marker records the run labelled `label` on an input of SHA-256
    /// `input_sha256` under the settings `settings_sha256` (any runner's runs, e.g.
    /// `veer bisect`'s).
    pub fn records(&self, label: &str, input_sha256: &str, settings_sha256: &str) -> bool {
        self.schema_version == 1
            && self.label == label
            && self.input_sha256 == input_sha256
            && self.settings_sha256 == settings_sha256
    }
}

/// The answer of a run from its standard output: the last line that is not blank, without
/// surrounding whitespace; `None` when every line is blank. Invalid UTF-8 is replaced.
pub fn answer_from_stdout(stdout: &[u8]) -> Option<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// The answer written to an `--answer-from` file: its content without surrounding whitespace;
/// `None` when that is empty.
pub fn answer_from_file(content: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(content);
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// A run's status: `timeout` when it ran past the limit, `error` when it exited non-zero or
/// its trace could not be read, else the trace's own status (`ok`, `empty` — no model call —,
/// `crashed`; spec §11.1).
pub fn status(exit: Exit, trace_readable: bool, kind: AgentKind, trace: &Trace) -> String {
    match exit {
        Exit::TimedOut => "timeout".into(),
        Exit::Exited(code) if code != 0 => "error".into(),
        Exit::Exited(_) if !trace_readable => "error".into(),
        Exit::Exited(_) => run_status(kind, &PreparedTrace::new(trace).events).into(),
    }
}

/// One finished run, as the results are built from it.
#[derive(Debug)]
pub struct FinishedRun<'a> {
    /// The planned run.
    pub run: &'a PlannedRun,
    /// Its marker.
    pub marker: &'a RunMarker,
    /// Its trace (an empty trace when it wrote none).
    pub trace: Trace,
    /// Whether the trace file could be read (an unreadable one is replaced by an empty trace
    /// and makes the run an `error`).
    pub trace_readable: bool,
}

/// What the results need beyond the runs.
#[derive(Debug, Clone, Default)]
pub struct ResultsOptions {
    /// The expected answer (enables task_success).
    pub expected_answer: Option<String>,
    /// Add every run's events to the report (the results file needs them).
    pub include_traces: bool,
}

/// The traxr results of a finished experiment: `runs` holds one entry per run of `plan`, in
/// plan order. The pairs are measured by [`from_traxr_results`] from the traces and answers
/// stored here, exactly as `veer experiment analyze` re-derives them from the written file.
/// No wall-clock time and no path outside the experiment directory enters the results.
pub fn results(
    plan: &Plan,
    runs: Vec<FinishedRun<'_>>,
    options: &ResultsOptions,
) -> Result<ExperimentReport, ExperimentError> {
    let source = format!("experiment on {}", plan.file_name);
    let baseline = runs.iter().find(|r| r.run.role == Role::Baseline);
    let kind = baseline.map_or(AgentKind::External, |b| {
        AgentKind::of_baseline(&PreparedTrace::new(&b.trace).events)
    });
    let statuses: Vec<String> = runs
        .iter()
        .map(|r| status(r.marker.exit, r.trace_readable, kind, &r.trace))
        .collect();
    let base_index = runs.iter().position(|r| r.run.role == Role::Baseline);
    let base_status = base_index
        .and_then(|i| statuses.get(i).cloned())
        .unwrap_or_else(|| "error".into());
    let base_warnings: Vec<String> = base_index
        .and_then(|i| runs.get(i))
        .map(|b| {
            b.marker
                .warnings
                .iter()
                .map(|w| format!("baseline: {w}"))
                .collect()
        })
        .unwrap_or_default();

    let mut models = BTreeSet::new();
    for r in &runs {
        for e in PreparedTrace::new(&r.trace).events.iter() {
            if e.event_type() == "llm_call" {
                if let Some(veer_trace::Json::String(m)) = e.field("model").as_deref() {
                    models.insert(m.to_string());
                }
            }
        }
    }

    let mut pairs: Vec<(Operator, Value)> = Vec::new();
    let mut answers = BTreeMap::new();
    let mut reruns = 0u64;
    for (r, status) in runs.iter().zip(&statuses) {
        answers.insert(r.run.label.clone(), r.marker.answer.clone());
        match r.run.role {
            Role::Baseline => {}
            Role::Rerun(_) => reruns += 1,
            Role::Perturbed(op) => {
                let mut warnings = base_warnings.clone();
                warnings.extend(r.run.note.map(|n| format!("{}: {n}", op.name())));
                warnings.extend(
                    r.marker
                        .warnings
                        .iter()
                        .map(|w| format!("{}: {w}", op.name())),
                );
                pairs.push((
                    op,
                    json!({
                        "item_id": plan.file_name,
                        "perturbation": op.name(),
                        "delivery": "round_trip",
                        "status_baseline": base_status,
                        "status_perturbed": status,
                        "order_nondeterministic": false,
                        "warnings": warnings,
                    }),
                ));
            }
        }
    }
    for s in &plan.skipped {
        pairs.push((
            s.operator,
            json!({
                "item_id": plan.file_name,
                "perturbation": s.operator.name(),
                "delivery": "round_trip",
                "status_baseline": base_status,
                "status_perturbed": "skipped",
                "order_nondeterministic": false,
                "warnings": [format!(
                    "Perturbation {} skipped for '{}': {}",
                    s.operator.name(),
                    plan.file_name,
                    s.reason
                )],
            }),
        ));
    }
    // Pairs in the order the operators were asked for (matrix order), skipped ones included.
    pairs.sort_by_key(|(op, _)| plan.operators.iter().position(|o| o == op));

    let mut fp = Map::new();
    fp.insert("agent_kind".into(), Value::from(kind.name()));
    fp.insert("capture_tier".into(), Value::from(kind.capture_tier()));
    fp.insert(
        "environment".into(),
        json!({"veer_version": env!("CARGO_PKG_VERSION")}),
    );
    fp.insert(
        "expected_answer".into(),
        options
            .expected_answer
            .clone()
            .map_or(Value::Null, Value::String),
    );
    fp.insert("files".into(), json!([plan.file_name]));
    fp.insert("llm_client".into(), Value::Null);
    fp.insert(
        "model_ids".into(),
        Value::from(models.into_iter().collect::<Vec<_>>()),
    );
    fp.insert("noise_floor_runs".into(), Value::from(reruns));
    fp.insert(
        "perturbations".into(),
        Value::from(plan.operators.iter().map(|o| o.name()).collect::<Vec<_>>()),
    );
    fp.insert("question".into(), Value::Null);
    fp.insert("scorer".into(), Value::from("check_answer_match"));
    fp.insert("seed".into(), Value::from(plan.base_seed));

    let mut raw = Map::new();
    raw.insert("fingerprint".into(), Value::Object(fp));
    let mut traces: Vec<(String, Trace)> = runs
        .into_iter()
        .map(|r| {
            let mut t = r.trace;
            t.run_label = Some(r.run.label.clone());
            (r.run.label.clone(), t)
        })
        .collect();
    traces.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let exp = ExperimentResults {
        traces,
        answers,
        pairs: pairs.into_iter().map(|(_, v)| v).collect(),
        noise_floor: None,
        noise_floor_runs: reruns,
        raw,
    };
    from_traxr_results(&source, &exp, options.include_traces, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_trace::Format;

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
            let Role::Perturbed(op) = r.role else {
                panic!("perturbed")
            };
            let seed = derive_seed(42, "sales.csv", op.name());
            assert_eq!(r.seed, Some(seed));
            assert_eq!(
                perturb(CSV, FileKind::Delimited, op, seed).unwrap(),
                Outcome::Applied(r.input.clone())
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
        assert_eq!(p.runs[3].role, Role::Perturbed(Operator::UnitChange));
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
}
