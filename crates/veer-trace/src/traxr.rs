//! The traxr reader: a bare trace (`{run_label, events}`), an experiment results JSON
//! (`{traces, pairs, answers, …}`) and an analyzer golden case (`{input: {clean_trace, …}}`).
//!
//! Each traxr event becomes one [`Record`] with its original event kept in
//! [`Record::origin`]; LLM calls, tool requests/results and errors are also given an `.agentlog`
//! payload so the diff and the policy engine can run on traxr traces (spec
//! `trace-formats.md` §3, §4.3).

use crate::agentlog::reader::json_type;
use crate::error::TraceError;
use crate::json::Json;
use crate::model::Trace;
use crate::options::ReadOptions;
pub(crate) use crate::traxr_payload::build_records;
pub(crate) use crate::traxr_read::trace_from_json;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub(crate) const EVENT_KEYS: [&str; 7] = [
    "event_type",
    "sequence_index",
    "step_num",
    "agent_name",
    "payload",
    "content_hash",
    "timestamp",
];

/// A whole traxr experiment results file (`ExperimentResults.to_json()`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentResults {
    /// Every run's trace, by run label, in the file's key order (sorted by traxr).
    pub traces: Vec<(String, Trace)>,
    /// Raw answers by run label (`null` when the run gave none).
    pub answers: BTreeMap<String, Option<String>>,
    /// The stored per-pair results, as written by traxr.
    pub pairs: Vec<Value>,
    /// The stored noise floor (`null` when unmeasured).
    pub noise_floor: Option<f64>,
    /// Number of clean re-runs.
    pub noise_floor_runs: u64,
    /// The whole file, for fields veer does not model (fingerprint, aggregates).
    pub raw: Map<String, Value>,
}

impl ExperimentResults {
    /// The trace with run label `label`.
    pub fn trace(&self, label: &str) -> Option<&Trace> {
        self.traces.iter().find(|(l, _)| l == label).map(|(_, t)| t)
    }
}

/// One traxr analyzer golden case file.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalyzerCase {
    /// `case` name.
    pub case: String,
    /// `description`.
    pub description: String,
    /// `input.clean_trace`.
    pub clean: Trace,
    /// `input.perturbed_trace`.
    pub perturbed: Trace,
    /// `input.task_id`.
    pub task_id: Option<String>,
    /// The analyzer's expected `output` ({summary, detail}).
    pub output: Value,
}

/// What kind of traxr document a JSON value is, by content.
pub(crate) enum TraxrShape {
    /// `{events: [...]}`.
    Trace,
    /// `{traces: {...}, pairs: [...]}`.
    Results,
    /// `{input: {clean_trace: ...}}`.
    AnalyzerCase,
}

/// Classifies a parsed JSON document (spec `trace-formats.md` §3.7).
pub(crate) fn shape_of(value: &Value) -> Option<TraxrShape> {
    let obj = value.as_object()?;
    if obj.contains_key("events") {
        Some(TraxrShape::Trace)
    } else if obj.contains_key("traces") && obj.contains_key("pairs") {
        Some(TraxrShape::Results)
    } else if obj
        .get("input")
        .and_then(Value::as_object)
        .is_some_and(|i| i.contains_key("clean_trace"))
    {
        Some(TraxrShape::AnalyzerCase)
    } else {
        None
    }
}

pub(crate) struct Ctx<'a> {
    pub(crate) source: &'a str,
    pub(crate) options: &'a ReadOptions,
}

impl Ctx<'_> {
    pub(crate) fn err(&self, path: &str, message: impl Into<String>) -> TraceError {
        TraceError::new(self.source, None, path, message)
    }
}

/// Reads a bare traxr trace object. `path` is the JSON path prefix used in messages (`""` for
/// a whole file). The events are read from the compact tree (`trace_from_json`).
pub fn trace_from_value(
    source: &str,
    path: &str,
    value: Value,
    fallback_label: Option<&str>,
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    trace_from_json(source, path, Json::from(value), fallback_label, options)
}

/// The payload of the synthetic root `metadata` record of a traxr-origin trace.
pub(crate) fn root_payload(run_label: &str) -> Value {
    json!({
        "sdk": {"name": "veer", "version": env!("CARGO_PKG_VERSION")},
        "tags": {"run_label": run_label, "source_format": "traxr"}
    })
}

/// Reads an experiment results object.
pub(crate) fn results_from_value(
    source: &str,
    value: Value,
    options: &ReadOptions,
) -> Result<ExperimentResults, TraceError> {
    let ctx = Ctx { source, options };
    let Value::Object(mut obj) = value else {
        return Err(ctx.err("(file)", "a results file must be a JSON object"));
    };
    let traces_v = obj.remove("traces").unwrap_or(Value::Null);
    let Value::Object(traces_map) = traces_v else {
        return Err(ctx.err(
            "traces",
            format!(
                "must be an object of run label → trace, found {}",
                json_type(&traces_v)
            ),
        ));
    };
    // Every run's events count toward `--max-records`, checked before any run is read.
    let events: usize = traces_map
        .values()
        .map(|t| {
            t.get("events")
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        })
        .sum();
    crate::traxr_read::check_event_count(&ctx, events)?;
    let mut traces = Vec::with_capacity(traces_map.len());
    for (label, t) in traces_map {
        let path = format!("traces.{label}");
        let trace = trace_from_value(source, &path, t, Some(&label), options)?;
        traces.push((label, trace));
    }
    let pairs = match obj.get("pairs") {
        Some(Value::Array(a)) => a.clone(),
        Some(other) => {
            return Err(ctx.err(
                "pairs",
                format!("must be an array, found {}", json_type(other)),
            ))
        }
        None => Vec::new(),
    };
    let mut answers = BTreeMap::new();
    match obj.get("answers") {
        None | Some(Value::Null) => {}
        Some(Value::Object(a)) => {
            for (k, v) in a {
                let ans = match v {
                    Value::Null => None,
                    Value::String(s) => Some(s.clone()),
                    other => {
                        return Err(ctx.err(
                            &format!("answers.{k}"),
                            format!("must be a string or null, found {}", json_type(other)),
                        ))
                    }
                };
                answers.insert(k.clone(), ans);
            }
        }
        Some(other) => {
            return Err(ctx.err(
                "answers",
                format!("must be an object, found {}", json_type(other)),
            ))
        }
    }
    let noise_floor = match obj.get("noise_floor") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => {
            return Err(ctx.err(
                "noise_floor",
                format!("must be a number or null, found {}", json_type(other)),
            ))
        }
    };
    let noise_floor_runs = match obj.get("noise_floor_runs") {
        None | Some(Value::Null) => 0,
        Some(v) => v.as_u64().ok_or_else(|| {
            ctx.err(
                "noise_floor_runs",
                format!("must be a non-negative integer, found {}", json_type(v)),
            )
        })?,
    };
    Ok(ExperimentResults {
        traces,
        answers,
        pairs,
        noise_floor,
        noise_floor_runs,
        raw: obj,
    })
}

/// Reads an analyzer golden case object.
pub(crate) fn case_from_value(
    source: &str,
    value: Value,
    options: &ReadOptions,
) -> Result<AnalyzerCase, TraceError> {
    let ctx = Ctx { source, options };
    let Value::Object(mut obj) = value else {
        return Err(ctx.err("(file)", "an analyzer case must be a JSON object"));
    };
    let Some(Value::Object(mut input)) = obj.remove("input") else {
        return Err(ctx.err("input", "missing or not an object"));
    };
    let events: usize = ["clean_trace", "perturbed_trace"]
        .iter()
        .filter_map(|k| input.get(*k)?.get("events")?.as_array().map(Vec::len))
        .sum();
    crate::traxr_read::check_event_count(&ctx, events)?;
    let mut take_trace = |key: &str, label: &str| -> Result<Trace, TraceError> {
        let v = input
            .remove(key)
            .ok_or_else(|| ctx.err(&format!("input.{key}"), "missing required field"))?;
        trace_from_value(source, &format!("input.{key}"), v, Some(label), options)
    };
    let clean = take_trace("clean_trace", "clean")?;
    let perturbed = take_trace("perturbed_trace", "perturbed")?;
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    Ok(AnalyzerCase {
        case: text(obj.get("case")).unwrap_or_default(),
        description: text(obj.get("description")).unwrap_or_default(),
        clean,
        perturbed,
        task_id: text(input.get("task_id")),
        output: obj.remove("output").unwrap_or(Value::Null),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Kind, Record};
    use veer_base::pyjson::traxr_content_hash;

    fn ev(event_type: &str, payload: Value) -> Value {
        json!({"event_type": event_type, "step_num": 1, "agent_name": "a", "payload": payload})
    }

    fn read(events: Vec<Value>, options: &ReadOptions) -> Result<Trace, TraceError> {
        let doc = json!({"run_label": "r", "events": events});
        trace_from_value("t.json", "", doc, None, options)
    }

    fn ids(r: &Record) -> Vec<Value> {
        r.payload["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| b.get("id").map_or(Value::Null, Json::to_value))
            .collect()
    }

    /// Each tool name of an `llm_call` takes the first unused `tool_request` of that name
    /// before the next `llm_call`; names without one get a block without id.
    #[test]
    fn llm_calls_take_their_tool_requests_in_order() {
        let req = |name: &str, id: &str| {
            ev(
                "tool_request",
                json!({"tool_name": name, "call_id": id, "arguments": {"q": id}}),
            )
        };
        let llm = |names: Value| ev("llm_call", json!({"model": "m", "tool_call_names": names}));
        let events = vec![
            llm(json!(["a", "b", "a", "c"])),
            req("a", "1"),
            req("b", "2"),
            req("a", "3"),
            llm(json!(["a", "a"])),
            req("a", "4"),
            ev("tool_result", json!({"call_id": "4", "content": "x"})),
            llm(json!("not a list")),
            req("a", "5"),
        ];
        let t = read(events, &ReadOptions::default()).unwrap();
        assert_eq!(
            ids(&t.records[0]),
            [json!("1"), json!("2"), json!("3"), Value::Null]
        );
        assert_eq!(
            t.records[0].payload["content"][0]["input"],
            json!({"q": "1"})
        );
        assert_eq!(t.records[0].payload["content"][3]["input"], json!({}));
        assert_eq!(ids(&t.records[4]), [json!("4"), Value::Null]);
        assert!(ids(&t.records[7]).is_empty());
        assert_eq!(t.records[6].kind, Kind::ToolResult);
        // the parent chain runs through the records in list order
        for w in t.records.windows(2) {
            assert_eq!(w[1].parent.as_ref(), Some(&w[0].id));
        }
    }

    /// Events are read in parallel but judged in list order: the first bad event is the error,
    /// the first unknown key the one warning, and the result is the same on 1 and 3 threads.
    #[test]
    fn events_are_judged_in_list_order_on_any_thread_count() {
        let mut events: Vec<Value> = (0..500)
            .map(|i| {
                let payload = json!({"i": i});
                let mut e = ev("routing_decision", payload.clone());
                e["sequence_index"] = json!(i);
                e["content_hash"] = json!(traxr_content_hash(&payload));
                if i % 97 == 5 {
                    e[format!("extra_{i}")] = json!(i);
                }
                e
            })
            .collect();
        let on = |threads: usize, events: &Vec<Value>, options: &ReadOptions| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| format!("{:?}", read(events.clone(), options)))
        };
        let one = on(1, &events, &ReadOptions::default());
        assert_eq!(on(3, &events, &ReadOptions::default()), one);
        let t = read(events.clone(), &ReadOptions::default()).unwrap();
        assert_eq!(t.warnings.len(), 1);
        assert_eq!(t.warnings[0].field, "events[5].extra_5");
        assert_eq!(t.records.len(), 500);

        events[300]["sequence_index"] = json!(0);
        events[400]["payload"] = json!([]);
        events[450] = json!(7);
        let e = read(events.clone(), &ReadOptions::default()).unwrap_err();
        assert_eq!(e.field, "events[400].payload");
        assert_eq!(
            on(3, &events, &ReadOptions::default()),
            on(1, &events, &ReadOptions::default())
        );
        let strict = ReadOptions {
            strict: true,
            ..ReadOptions::default()
        };
        // strict: the unknown key of event 5 comes first
        let e = read(events.clone(), &strict).unwrap_err();
        assert_eq!(e.field, "events[5].extra_5");
        for e in &mut events {
            if let Some(o) = e.as_object_mut() {
                o.retain(|k, _| !k.starts_with("extra_"));
            }
        }
        // then the sequence index that does not increase, before the later bad events
        let e = read(events.clone(), &strict).unwrap_err();
        assert_eq!(e.field, "events[300].sequence_index");
        assert_eq!(on(3, &events, &strict), on(1, &events, &strict));
    }
}
