//! One Inspect sample-epoch (`samples/{id}_epoch_{n}.json`, or an element of a JSON log's
//! `samples`) as a trace: the metadata record carries the case (sample id), trial (epoch),
//! scores and outcome; each assistant message is a turn (request, response, tool calls), each
//! tool message a tool result; usage, stop reason and timing come from the sample's `model`
//! and `tool` events, matched by message and call id (docs/formats.md §Inspect AI).

use super::{InspectSample, LogInfo, CASE_KEY, OUTCOME_KEY, SCORES_KEY, SCORE_KEY, TRIAL_KEY};
use crate::error::TraceError;
use crate::formats::assemble::{
    arguments_of, count, ms_of, request_payload, stop_reason_of, text_of, tool_call_payload,
    tool_result_payload, Answer, Assembler,
};
use crate::formats::type_name;
use crate::model::Kind;
use crate::options::ReadOptions;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use veer_base::format::Format;

/// Where a sample sits in its log, for messages: a `.eval` member or a JSON log's index.
#[derive(Debug, Clone)]
pub(super) enum Place {
    /// `samples/{id}_epoch_{n}.json`.
    Member(String),
    /// `samples[i]`.
    Index(usize),
}

impl Place {
    /// The field name of `path` inside the sample: `MEMBER#path` or `samples[i].path`.
    fn field(&self, path: &str) -> String {
        match (self, path.is_empty()) {
            (Place::Member(m), true) => m.clone(),
            (Place::Member(m), false) => format!("{m}#{path}"),
            (Place::Index(i), true) => format!("samples[{i}]"),
            (Place::Index(i), false) => format!("samples[{i}].{path}"),
        }
    }
}

/// How sample ids sort: integers numerically, then strings by bytes, then anything else.
pub(super) type IdKey = (u8, i64, String);

/// The order of samples in a log: by id, then epoch.
pub(super) fn order_key(id: Option<&Value>, epoch: Option<&Value>) -> (IdKey, u64) {
    let id = match id {
        Some(Value::Number(n)) if n.is_i64() => (0, n.as_i64().unwrap_or(0), String::new()),
        Some(Value::String(s)) => (1, 0, s.clone()),
        Some(other) => (2, 0, other.to_string()),
        None => (3, 0, String::new()),
    };
    (id, epoch.and_then(Value::as_u64).unwrap_or(u64::MAX))
}

/// A score value as a number, as Inspect's `value_to_float` reads it: `C` 1, `P` 0.5, `I` and
/// `N` 0, `yes`/`true` 1, `no`/`false` 0, numeric text, booleans and numbers; `None` for
/// anything else (lists, objects, other text).
pub(crate) fn score_of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::String(s) => match s.as_str() {
            "C" => Some(1.0),
            "P" => Some(0.5),
            "I" | "N" => Some(0.0),
            other => match other.to_ascii_lowercase().as_str() {
                "yes" | "true" => Some(1.0),
                "no" | "false" => Some(0.0),
                t => t.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
            },
        },
        _ => None,
    }
}

/// A sample's outcome: `error` when it ended in an error, else `pass` when its first scorer's
/// value reads as 1 (full marks: `C`, `true`, 1), `fail` when it reads as 0 (`I`, `N`,
/// `false`, 0); `None` when it has no score that reads as a number, or a partial one (`P`,
/// 0.5, …): whether that passes is the user's threshold (`veer diff --outcome-threshold`),
/// read from the `score` key.
pub(crate) fn outcome_of(first_score: Option<&Value>, errored: bool) -> Option<&'static str> {
    if errored {
        return Some("error");
    }
    let s = score_of(first_score?)?;
    if s == 1.0 {
        Some("pass")
    } else if s == 0.0 {
        Some("fail")
    } else {
        None
    }
}

/// What a `model` event says about one generation.
#[derive(Debug, Default, Clone)]
struct Generation {
    usage: Option<[u64; 4]>,
    seconds: Option<f64>,
    start_ms: Option<i64>,
    stop_reason: Option<String>,
}

/// What a `tool` event says about one tool run.
#[derive(Debug, Default, Clone)]
struct ToolRun {
    seconds: Option<f64>,
    end_ms: Option<i64>,
}

/// Reads one sample-epoch.
pub(super) fn read(
    source: &str,
    at: &Place,
    info: &LogInfo,
    v: &Value,
    options: &ReadOptions,
) -> Result<InspectSample, TraceError> {
    let err = |path: &str, message: String| TraceError::new(source, None, at.field(path), message);
    let Value::Object(s) = v else {
        return Err(err(
            "",
            format!("a sample must be an object, found {}", type_name(v)),
        ));
    };
    let case = match s.get("id") {
        Some(Value::String(id)) => id.clone(),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
        Some(other) => {
            return Err(err(
                "id",
                format!("must be a string or an integer, found {}", type_name(other)),
            ))
        }
        None => return Err(err("id", "missing required field".into())),
    };
    let trial = match s.get("epoch") {
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64().unwrap_or(0),
        Some(other) => {
            return Err(err(
                "epoch",
                format!("must be a non-negative integer, found {}", type_name(other)),
            ))
        }
        None => return Err(err("epoch", "missing required field".into())),
    };
    let messages = match s.get("messages") {
        Some(Value::Array(m)) => m.as_slice(),
        None | Some(Value::Null) => &[],
        Some(other) => {
            return Err(err(
                "messages",
                format!("must be an array of messages, found {}", type_name(other)),
            ))
        }
    };
    let (generations, in_order, tool_runs) = events_of(s.get("events"));

    let mut a = Assembler::new(source, Format::Inspect, "inspect-ai");
    let error = s.get("error").filter(|e| !e.is_null()).map(|e| match e {
        Value::Object(o) => o
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("error")
            .to_string(),
        Value::String(t) => t.clone(),
        other => other.to_string(),
    });
    let scores = match s.get("scores") {
        Some(Value::Object(o)) => o.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(other) => {
            return Err(err(
                "scores",
                format!(
                    "must be an object of scores by scorer, found {}",
                    type_name(other)
                ),
            ))
        }
    };
    let mut score_values = Map::new();
    for (name, score) in &scores {
        let value = match score {
            Value::Object(o) => o.get("value").cloned().unwrap_or(Value::Null),
            other => other.clone(),
        };
        score_values.insert(name.clone(), value);
    }
    let first = score_values.values().next();
    let mut extra = Map::new();
    extra.insert(CASE_KEY.into(), json!(case));
    extra.insert(TRIAL_KEY.into(), json!(trial));
    if let Some(o) = outcome_of(first, error.is_some()) {
        extra.insert(OUTCOME_KEY.into(), json!(o));
    }
    if let Some(f) = first.and_then(score_of) {
        extra.insert(SCORE_KEY.into(), json!(f));
    }
    extra.insert(SCORES_KEY.into(), Value::Object(score_values));
    if let Some(e) = &error {
        extra.insert("error".into(), json!(e));
    }
    let mut timing = Map::new();
    for k in ["total_time", "working_time"] {
        if let Some(t) = s.get(k).filter(|t| t.is_number()) {
            timing.insert(k.into(), t.clone());
        }
    }
    if !timing.is_empty() {
        extra.insert("timing_s".into(), Value::Object(timing));
    }
    let start_ms = ms_of(s.get("started_at")).or_else(|| in_order.iter().find_map(|g| g.start_ms));
    a.session_with(
        vec![
            ("task", info.task.clone()),
            ("model", info.model.clone()),
            ("eval_id", info.eval_id.clone()),
            ("run_id", info.run_id.clone()),
        ],
        extra,
        s.get("uuid").and_then(Value::as_str),
        start_ms,
        None,
    );

    let assistant_count = messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .count();
    let by_order = assistant_count == in_order.len();
    let mut pending: Vec<Value> = Vec::new();
    let mut turn = 0usize;
    for (i, m) in messages.iter().enumerate() {
        let path = format!("messages[{i}]");
        let Value::Object(m) = m else {
            return Err(err(
                &path,
                format!("a message must be an object, found {}", type_name(m)),
            ));
        };
        let role = match m.get("role") {
            Some(Value::String(r)) => r.as_str(),
            Some(other) => {
                return Err(err(
                    &format!("{path}.role"),
                    format!("must be a string, found {}", type_name(other)),
                ))
            }
            None => {
                return Err(err(
                    &format!("{path}.role"),
                    "missing required field".into(),
                ))
            }
        };
        match role {
            "assistant" => {
                let gen = m
                    .get("id")
                    .and_then(Value::as_str)
                    .and_then(|id| generations.get(id))
                    .or_else(|| by_order.then(|| &in_order[turn]))
                    .cloned()
                    .or_else(|| {
                        (turn + 1 == assistant_count).then(|| final_output(s.get("output")))
                    })
                    .unwrap_or_default();
                turn += 1;
                let model = m
                    .get("model")
                    .and_then(Value::as_str)
                    .unwrap_or(&info.model)
                    .to_string();
                let mut ans = Answer {
                    model: model.clone(),
                    usage: gen.usage,
                    stop_reason: gen.stop_reason.clone(),
                    latency_ms: gen
                        .seconds
                        .map_or(0, |t| (t.max(0.0) * 1000.0).round() as u64),
                    ..Answer::default()
                };
                content_into(m.get("content"), &mut ans);
                if let Some(calls) = m.get("tool_calls").filter(|c| !c.is_null()) {
                    let Value::Array(calls) = calls else {
                        return Err(err(
                            &format!("{path}.tool_calls"),
                            format!("must be an array, found {}", type_name(calls)),
                        ));
                    };
                    for (j, c) in calls.iter().enumerate() {
                        let cpath = format!("{path}.tool_calls[{j}]");
                        let (name, args) = match c.get("function") {
                            Some(Value::String(f)) => (f.clone(), c.get("arguments")),
                            Some(Value::Object(f)) => (
                                f.get("name")
                                    .and_then(Value::as_str)
                                    .unwrap_or("")
                                    .to_string(),
                                f.get("arguments").or_else(|| c.get("arguments")),
                            ),
                            Some(other) => {
                                return Err(err(
                                    &format!("{cpath}.function"),
                                    format!("must be the tool's name, found {}", type_name(other)),
                                ))
                            }
                            None => {
                                return Err(err(
                                    &format!("{cpath}.function"),
                                    "missing required field".into(),
                                ))
                            }
                        };
                        let id = c.get("id").and_then(Value::as_str).map(str::to_string);
                        ans.tool_uses.push((id, name, arguments_of(args)));
                    }
                }
                let end_ms = gen
                    .start_ms
                    .map(|s| s.saturating_add(ans.latency_ms.min(i64::MAX as u64) as i64));
                a.push(
                    Kind::ChatRequest,
                    request_payload(&model, std::mem::take(&mut pending), Vec::new()),
                    gen.start_ms,
                    None,
                );
                a.push(Kind::ChatResponse, ans.payload(), end_ms, None);
                for (id, name, input) in &ans.tool_uses {
                    a.push(
                        Kind::ToolCall,
                        tool_call_payload(name, id.as_deref().unwrap_or(""), input.clone()),
                        end_ms,
                        None,
                    );
                }
            }
            "tool" => {
                let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
                if id.is_empty() {
                    if options.strict {
                        return Err(err(
                            &format!("{path}.tool_call_id"),
                            "a tool message needs the id of the call it answers".into(),
                        ));
                    }
                    a.warn(
                        None,
                        "tool_call_id",
                        "tool messages without a tool_call_id were read with an empty id",
                    );
                }
                let text = text_of(m.get("content")).unwrap_or_default();
                let failed = m.get("error").filter(|e| !e.is_null());
                let output = match failed {
                    Some(e) if text.is_empty() => e
                        .get("message")
                        .and_then(Value::as_str)
                        .map_or_else(|| e.to_string(), str::to_string),
                    _ => text.clone(),
                };
                let run = tool_runs.get(id).cloned().unwrap_or_default();
                let latency = run
                    .seconds
                    .map_or(0, |t| (t.max(0.0) * 1000.0).round() as u64);
                a.push(
                    Kind::ToolResult,
                    tool_result_payload(id, json!(output), failed.is_some(), latency),
                    run.end_ms,
                    None,
                );
                pending.push(json!({"role": "tool", "tool_call_id": id, "content": text}));
            }
            "system" | "user" => {
                let text = text_of(m.get("content")).unwrap_or_default();
                pending.push(json!({"role": role, "content": text}));
            }
            other => a.warn(
                None,
                "messages.role",
                format!("messages with role {other:?} (first: {path}) are not read"),
            ),
        }
    }
    if let Some(e) = &error {
        let end = ms_of(s.get("completed_at"));
        a.push(
            Kind::Error,
            json!({"source": "user", "code": "sample_error", "message": e, "retriable": false}),
            end,
            None,
        );
    }
    let mut trace = a.finish("Inspect AI sample").map_err(|mut e| {
        e.field = at.field("messages");
        e
    })?;
    trace.run_label = Some(format!("{case}/trial-{trial}"));
    Ok(InspectSample { case, trial, trace })
}

/// Text, reasoning and (as text) other parts of an assistant message's content.
fn content_into(content: Option<&Value>, ans: &mut Answer) {
    match content {
        Some(Value::String(t)) if !t.is_empty() => ans.text.push(t.clone()),
        Some(Value::Array(parts)) => {
            for p in parts {
                match p.get("type").and_then(Value::as_str) {
                    Some("reasoning") => {
                        if let Some(r) = p.get("reasoning").and_then(Value::as_str) {
                            ans.thinking.push(r.to_string());
                        }
                    }
                    _ => {
                        if let Some(t) = text_of(Some(&Value::Array(vec![p.clone()]))) {
                            ans.text.push(t);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// The `model` events by the id of the message they produced, the same in event order, and the
/// `tool` events by call id.
fn events_of(
    events: Option<&Value>,
) -> (
    HashMap<String, Generation>,
    Vec<Generation>,
    HashMap<String, ToolRun>,
) {
    let mut by_id = HashMap::new();
    let mut in_order = Vec::new();
    let mut tools = HashMap::new();
    let Some(Value::Array(events)) = events else {
        return (by_id, in_order, tools);
    };
    for e in events {
        match e.get("event").and_then(Value::as_str) {
            Some("model") => {
                let output = e.get("output");
                let mut g = generation_of(output);
                g.start_ms = ms_of(e.get("timestamp"));
                if let Some(id) = output
                    .and_then(|o| o.get("choices"))
                    .and_then(|c| c.get(0))
                    .and_then(|c| c.get("message"))
                    .and_then(|m| m.get("id"))
                    .and_then(Value::as_str)
                {
                    by_id.insert(id.to_string(), g.clone());
                }
                in_order.push(g);
            }
            Some("tool") => {
                if let Some(id) = e.get("id").and_then(Value::as_str) {
                    tools.insert(
                        id.to_string(),
                        ToolRun {
                            seconds: e.get("working_time").and_then(Value::as_f64),
                            end_ms: ms_of(e.get("completed")).or_else(|| ms_of(e.get("timestamp"))),
                        },
                    );
                }
            }
            _ => {}
        }
    }
    (by_id, in_order, tools)
}

/// Usage, time and stop reason of a `ModelOutput`.
fn generation_of(output: Option<&Value>) -> Generation {
    let Some(o) = output else {
        return Generation::default();
    };
    let usage = o.get("usage").and_then(Value::as_object).map(|u| {
        [
            count(u.get("input_tokens")),
            count(u.get("output_tokens")),
            count(u.get("input_tokens_cache_read")),
            count(u.get("input_tokens_cache_write")),
        ]
    });
    Generation {
        usage,
        seconds: o.get("time").and_then(Value::as_f64),
        start_ms: None,
        stop_reason: o
            .get("choices")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("stop_reason"))
            .and_then(Value::as_str)
            .map(|r| match r {
                "model_length" => "max_tokens".to_string(),
                other => stop_reason_of(other),
            }),
    }
}

/// The sample's `output` (its last generation), for a log without `model` events.
fn final_output(output: Option<&Value>) -> Generation {
    generation_of(output)
}
