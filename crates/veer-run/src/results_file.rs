//! The traxr results file of a finished experiment, built from its runs in plan order and
//! measured by the same function `veer experiment analyze` runs on that file.

use crate::{status, PlannedRun, RunMarker, RunPlan, RunRole};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use veer_contract::experiment::ExperimentReport;
use veer_experiment::divergence::PreparedTrace;
use veer_experiment::results::{from_traxr_results, ExperimentError};
use veer_experiment::status::AgentKind;
use veer_perturb::Operator;
use veer_trace::traxr::ExperimentResults;
use veer_trace::Trace;

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
    plan: &RunPlan,
    runs: Vec<FinishedRun<'_>>,
    options: &ResultsOptions,
) -> Result<ExperimentReport, ExperimentError> {
    let source = format!("experiment on {}", plan.file_name);
    let baseline = runs.iter().find(|r| r.run.role == RunRole::Baseline);
    let kind = baseline.map_or(AgentKind::External, |b| {
        AgentKind::of_baseline(&PreparedTrace::new(&b.trace).events)
    });
    let statuses: Vec<String> = runs
        .iter()
        .map(|r| status(r.marker.exit, r.trace_readable, kind, &r.trace))
        .collect();
    let base_index = runs.iter().position(|r| r.run.role == RunRole::Baseline);
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
            RunRole::Baseline => {}
            RunRole::Rerun(_) => reruns += 1,
            RunRole::Perturbed(op) => {
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
