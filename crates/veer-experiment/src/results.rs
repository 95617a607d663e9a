//! Whole experiments (spec `experiment.md` §10, §11): re-deriving every pair of a traxr results
//! file from its stored traces and answers, or building results from trace files (baseline,
//! clean re-runs, perturbed runs). Pairs are measured in parallel; output order is input order.

use crate::aggregates::aggregates;
use crate::divergence::{analyze, PreparedTrace};
use crate::export::trace_object;
use crate::noise_floor::noise_floor;
use crate::pair::{measure, PairInputs};
use crate::pair_report::aligned_detail;
use crate::status::{run_status, AgentKind};
use crate::token_overhead::{cost_from_events, token_overhead};
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use veer_contract::experiment::PairResult;
use veer_contract::experiment::{ExperimentReport, SummaryFacts};
use veer_trace::traxr::ExperimentResults;
use veer_trace::{Trace, TraceError};

/// An experiment that cannot be analysed at all (no baseline, nothing to compare).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}: {field}: {message}")]
pub struct ExperimentError {
    /// The input file or directory.
    pub source_name: String,
    /// What is missing or wrong (a JSON path or a file name).
    pub field: String,
    /// The problem in plain words.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl ExperimentError {
    fn new(source: &str, field: &str, message: impl Into<String>, hint: &str) -> Self {
        ExperimentError {
            source_name: source.to_string(),
            field: field.to_string(),
            message: message.into(),
            hint: Some(hint.to_string()),
        }
    }
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn summary_facts(
    fingerprint: &Map<String, Value>,
    pairs: &[PairResult],
    floor: Option<f64>,
) -> SummaryFacts {
    let measured: Vec<f64> = pairs.iter().filter_map(|p| p.d_norm).collect();
    SummaryFacts {
        agent_kind: fingerprint.get("agent_kind").map(veer_base::pystr::py_str),
        capture_tier: fingerprint
            .get("capture_tier")
            .map(veer_base::pystr::py_str),
        pairs: pairs.len(),
        scored: pairs.iter().filter(|p| p.scored()).count(),
        skipped: pairs.iter().filter(|p| !p.scored()).count(),
        measured: measured.len(),
        within_floor: floor.map_or(0, |f| measured.iter().filter(|&&d| d <= f).count()),
        order_nondeterministic: pairs.iter().any(|p| p.order_nondeterministic),
    }
}

fn exported_traces(prepared: &[(String, &PreparedTrace<'_>)]) -> BTreeMap<String, Value> {
    prepared
        .iter()
        .map(|(label, p)| (label.clone(), trace_object(p.trace, &p.events, label)))
        .collect()
}

/// Re-derives every pair of a traxr results file from its stored traces and answers. Stored
/// statuses, `delivery`, `item_id`, `perturbation`, `order_nondeterministic` and `warnings`
/// are kept; skipped pairs are kept as they are; every measured field is recomputed. For a
/// built-in agent the token totals are not in the traces, so the stored `token_overhead` is
/// kept (spec §8 **veer:**).
///
/// `include_traces` adds every run's events to the report (traxr's `include_traces=True`;
/// needed only by the JSON export); `include_alignment` keeps each measured pair's event
/// alignment in [`PairResult::alignment`] (the HTML report).
pub fn from_traxr_results(
    source: &str,
    results: &ExperimentResults,
    include_traces: bool,
    include_alignment: bool,
) -> Result<ExperimentReport, ExperimentError> {
    let baseline = results.trace("baseline").ok_or_else(|| {
        ExperimentError::new(
            source,
            "traces.baseline",
            "the results file has no baseline trace",
            "a traxr results file must hold the run labelled \"baseline\" in `traces`",
        )
    })?;
    let fingerprint = match results.raw.get("fingerprint") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let builtin = fingerprint.get("agent_kind").and_then(Value::as_str) == Some("builtin");
    let expected = fingerprint
        .get("expected_answer")
        .and_then(Value::as_str)
        .map(str::to_string);
    let base = PreparedTrace::new(baseline);
    let base_cost = cost_from_events(&base.events);
    let mut errors = Vec::new();

    let k = results.noise_floor_runs;
    let mut rerun_d = Vec::new();
    for i in 1..=k {
        let label = format!("noise_floor_{i}");
        match results.trace(&label) {
            Some(t) => rerun_d.push(Some(analyze(&base, &PreparedTrace::new(t)).d_norm())),
            None => {
                errors.push(format!(
                    "{source}: traces.{label}: missing (noise_floor_runs is {k}); counted as d_norm 0.0"
                ));
                rerun_d.push(None);
            }
        }
    }
    let floor = noise_floor(&rerun_d);

    let prepared: Vec<(String, PreparedTrace<'_>)> = results
        .traces
        .iter()
        .map(|(l, t)| (l.clone(), PreparedTrace::new(t)))
        .collect();
    let find = |label: &str| prepared.iter().find(|(l, _)| l == label).map(|(_, p)| p);

    let pairs: Vec<Result<PairResult, (PairResult, String)>> = results
        .pairs
        .par_iter()
        .enumerate()
        .map(|(index, stored)| {
            let mut pair = PairResult::unmeasured(
                str_field(stored, "item_id"),
                str_field(stored, "perturbation"),
                str_field(stored, "delivery"),
                str_field(stored, "status_baseline").unwrap_or_else(|| "ok".into()),
                str_field(stored, "status_perturbed").unwrap_or_else(|| "ok".into()),
            );
            pair.order_nondeterministic = stored
                .get("order_nondeterministic")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            if let Some(Value::Array(w)) = stored.get("warnings") {
                pair.warnings = w.iter().map(veer_base::pystr::py_str).collect();
            }
            if !pair.scored() {
                return Ok(pair);
            }
            let label = format!(
                "{}::{}",
                pair.item_id.as_deref().unwrap_or(""),
                pair.perturbation.as_deref().unwrap_or("")
            );
            let Some(perturbed) = find(&label) else {
                let message = format!(
                    "{source}: pairs[{index}]: no trace labelled \"{label}\" in `traces`; pair not measured"
                );
                pair.status_perturbed = "error".into();
                pair.warnings.push(message.clone());
                return Err((pair, message));
            };
            let answer = |l: &str| results.answers.get(l).cloned().flatten();
            let (ba, pa) = (answer("baseline"), answer(&label));
            let overhead = if builtin {
                stored.get("token_overhead").and_then(Value::as_f64)
            } else {
                token_overhead(base_cost.total_tokens, cost_from_events(&perturbed.events).total_tokens)
            };
            let divergence = analyze(&base, perturbed);
            let inputs = PairInputs {
                baseline_answer: ba.as_deref(),
                perturbed_answer: pa.as_deref(),
                expected_answer: expected.as_deref(),
                noise_floor: floor,
                token_overhead: overhead,
            };
            measure(&mut pair, &divergence, perturbed, &inputs);
            if include_alignment {
                pair.alignment = Some(aligned_detail(&divergence, &base, perturbed));
            }
            Ok(pair)
        })
        .collect();
    let mut pairs: Vec<PairResult> = pairs
        .into_iter()
        .map(|r| match r {
            Ok(p) => p,
            Err((p, message)) => {
                errors.push(message);
                p
            }
        })
        .collect();
    let clean: Vec<(&PreparedTrace<'_>, Option<String>)> = std::iter::once("baseline".to_string())
        .chain((1..=k).map(|i| format!("noise_floor_{i}")))
        .filter_map(|l| Some((find(&l)?, results.answers.get(&l).cloned().flatten())))
        .collect();
    let noise = crate::noise::label(&mut pairs, crate::noise::spread(&clean));
    let labelled: Vec<(String, &PreparedTrace<'_>)> =
        prepared.iter().map(|(l, p)| (l.clone(), p)).collect();
    Ok(ExperimentReport {
        schema_version: "1".into(),
        summary: summary_facts(&fingerprint, &pairs, floor),
        aggregates: aggregates(&pairs),
        fingerprint,
        noise_floor: floor,
        noise_floor_runs: k,
        pairs,
        answers: results.answers.clone(),
        traces: if include_traces {
            exported_traces(&labelled)
        } else {
            BTreeMap::new()
        },
        errors,
        noise,
    })
}

/// One run of a trace-file experiment: a name and the trace, or why it could not be read.
#[derive(Debug)]
pub struct RunInput {
    /// The perturbation name (file stem) or the re-run's file name.
    pub name: String,
    /// The file, as given by the user (for messages and the fingerprint).
    pub file: String,
    /// The trace, or the read error.
    pub trace: Result<Trace, TraceError>,
}

/// An experiment given as trace files.
#[derive(Debug)]
pub struct TraceExperiment {
    /// Where it came from (for messages).
    pub source: String,
    /// `item_id` of every pair (the experiment directory's name).
    pub item_id: String,
    /// The baseline trace and its file name.
    pub baseline: (String, Trace),
    /// Clean re-runs against the baseline (the noise floor).
    pub reruns: Vec<RunInput>,
    /// Perturbed runs.
    pub perturbed: Vec<RunInput>,
    /// The expected answer, when known.
    pub expected_answer: Option<String>,
    /// Add every run's events to the report (needed only by the JSON export).
    pub include_traces: bool,
    /// Keep each measured pair's event alignment in [`PairResult::alignment`] (the HTML
    /// report).
    pub include_alignment: bool,
}

/// Builds results from trace files (either format, mixed allowed). Runs that cannot be read
/// become pairs with status `error` and an entry in `errors`; the others are complete.
pub fn from_traces(exp: &TraceExperiment) -> Result<ExperimentReport, ExperimentError> {
    if exp.perturbed.is_empty() {
        return Err(ExperimentError::new(
            &exp.source,
            "perturbed",
            "no perturbed runs to compare with the baseline",
            "put one trace per perturbation under perturbed/<name>.<ext>",
        ));
    }
    let base = PreparedTrace::new(&exp.baseline.1);
    let kind = AgentKind::of_baseline(&base.events);
    let base_status = run_status(kind, &base.events);
    let base_cost = cost_from_events(&base.events);
    let base_answer = base.answer.scored();
    let mut errors = Vec::new();

    let mut reruns = Vec::new();
    for run in &exp.reruns {
        match &run.trace {
            Ok(t) => reruns.push((run, PreparedTrace::new(t))),
            Err(e) => errors.push(format!("re-run {}: {e}", run.file)),
        }
    }
    let rerun_d: Vec<Option<f64>> = reruns
        .iter()
        .map(|(_, p)| Some(analyze(&base, p).d_norm()))
        .collect();
    let floor = noise_floor(&rerun_d);

    let item = exp.item_id.clone();
    let prepared: Vec<Result<PreparedTrace<'_>, String>> = exp
        .perturbed
        .par_iter()
        .map(|run| match &run.trace {
            Ok(t) => Ok(PreparedTrace::new(t)),
            Err(e) => Err(e.to_string()),
        })
        .collect();
    let mut pairs: Vec<PairResult> = exp
        .perturbed
        .par_iter()
        .zip(prepared.par_iter())
        .map(|(run, prep)| {
            let mut pair = PairResult::unmeasured(
                Some(item.clone()),
                Some(run.name.clone()),
                None,
                base_status.to_string(),
                "error".to_string(),
            );
            let perturbed = match prep {
                Ok(p) => p,
                Err(message) => {
                    pair.warnings.push(message.clone());
                    return pair;
                }
            };
            pair.status_perturbed = run_status(kind, &perturbed.events).to_string();
            let divergence = analyze(&base, perturbed);
            let answer = perturbed.answer.scored();
            let inputs = PairInputs {
                baseline_answer: base_answer.as_deref(),
                perturbed_answer: answer.as_deref(),
                expected_answer: exp.expected_answer.as_deref(),
                noise_floor: floor,
                token_overhead: token_overhead(
                    base_cost.total_tokens,
                    cost_from_events(&perturbed.events).total_tokens,
                ),
            };
            measure(&mut pair, &divergence, perturbed, &inputs);
            if exp.include_alignment {
                pair.alignment = Some(aligned_detail(&divergence, &base, perturbed));
            }
            pair
        })
        .collect();
    for (run, prep) in exp.perturbed.iter().zip(&prepared) {
        if let Err(message) = prep {
            errors.push(format!("perturbed run {}: {message}", run.name));
        }
    }

    let clean: Vec<(&PreparedTrace<'_>, Option<String>)> =
        std::iter::once((&base, base_answer.clone()))
            .chain(reruns.iter().map(|(_, p)| (p, p.answer.scored())))
            .collect();
    let noise = crate::noise::label(&mut pairs, crate::noise::spread(&clean));

    let label_of = |name: &str| format!("{item}::{name}");
    let mut answers = BTreeMap::new();
    answers.insert("baseline".to_string(), base_answer.clone());
    let mut labelled: Vec<(String, &PreparedTrace<'_>)> = vec![("baseline".into(), &base)];
    for (i, (_, p)) in reruns.iter().enumerate() {
        let label = format!("noise_floor_{}", i + 1);
        answers.insert(label.clone(), p.answer.scored());
        labelled.push((label, p));
    }
    for (run, prep) in exp.perturbed.iter().zip(&prepared) {
        if let Ok(p) = prep {
            let label = label_of(&run.name);
            answers.insert(label.clone(), p.answer.scored());
            labelled.push((label, p));
        }
    }

    let mut models = BTreeSet::new();
    for (_, p) in &labelled {
        for e in p.events.iter().filter(|e| e.event_type() == "llm_call") {
            if let Some(veer_trace::Json::String(m)) = e.field("model").as_deref() {
                models.insert(m.to_string());
            }
        }
    }
    let mut fp = Map::new();
    fp.insert("agent_kind".into(), Value::from(kind.name()));
    fp.insert("capture_tier".into(), Value::from(kind.capture_tier()));
    fp.insert(
        "environment".into(),
        serde_json::json!({"veer_version": env!("CARGO_PKG_VERSION")}),
    );
    fp.insert(
        "expected_answer".into(),
        exp.expected_answer
            .clone()
            .map_or(Value::Null, Value::String),
    );
    let mut files = vec![exp.baseline.0.clone()];
    files.extend(exp.reruns.iter().map(|r| r.file.clone()));
    files.extend(exp.perturbed.iter().map(|r| r.file.clone()));
    fp.insert("files".into(), Value::from(files));
    fp.insert(
        "model_ids".into(),
        Value::from(models.into_iter().collect::<Vec<_>>()),
    );
    fp.insert("noise_floor_runs".into(), Value::from(reruns.len()));
    fp.insert(
        "perturbations".into(),
        Value::from(
            exp.perturbed
                .iter()
                .map(|r| r.name.clone())
                .collect::<Vec<_>>(),
        ),
    );
    fp.insert("scorer".into(), Value::from("check_answer_match"));

    Ok(ExperimentReport {
        schema_version: "1".into(),
        summary: summary_facts(&fp, &pairs, floor),
        aggregates: aggregates(&pairs),
        fingerprint: fp,
        noise_floor: floor,
        noise_floor_runs: reruns.len() as u64,
        pairs,
        answers,
        traces: if exp.include_traces {
            exported_traces(&labelled)
        } else {
            BTreeMap::new()
        },
        errors,
        noise,
    })
}
