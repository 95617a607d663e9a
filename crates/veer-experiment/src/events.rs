//! The event sequence every experiment metric reads (spec `experiment.md` §12.1, §12.2).
//!
//! traxr-origin records contribute their original event unchanged. Native `.agentlog` records
//! are seen through traxr's external vocabulary: `chat_response` → `llm_call`, `tool_call` →
//! `tool_request`, `tool_result` → `tool_result` (name resolved through its call id), `error` →
//! `agent_error`, a `harness_event` of category `traxr` → its own type. Everything else is not
//! an event. Steps follow §12.2 (the *r*-th response is step *r*).

use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use veer_trace::views::Response;
use veer_trace::{Json, Kind, Record, Trace};

/// One event as the metrics see it.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricEvent<'t> {
    /// traxr event type used for signatures and classification (`llm_call`, `routing_decision`, …).
    pub event_type: Cow<'t, str>,
    /// Episode step (`step_num`), per §12.2 for native records.
    pub step: i64,
    /// The traxr payload: the original one for traxr-origin records, a derived one otherwise.
    pub payload: Cow<'t, Map<String, Value>>,
    /// Index of the record in [`Trace::records`].
    pub record_index: usize,
}

impl MetricEvent<'_> {
    /// `payload[key]`, `None` when absent.
    pub fn field(&self, key: &str) -> Option<&Value> {
        self.payload.get(key)
    }
}

/// Which traxr type a record stands for, without building its payload.
fn native_type(r: &Record) -> Option<&'static str> {
    match r.kind {
        Kind::ChatResponse => Some("llm_call"),
        Kind::ToolCall => Some("tool_request"),
        Kind::ToolResult => Some("tool_result"),
        Kind::Error => Some("agent_error"),
        _ => None,
    }
}

fn traxr_harness_event(r: &Record) -> Option<(&str, Map<String, Value>)> {
    if r.kind != Kind::HarnessEvent || r.str_field("category") != Some("traxr") {
        return None;
    }
    let name = r.str_field("name")?;
    let attrs = match r.field("attributes") {
        Some(Json::Object(m)) => m.to_map(),
        _ => Map::new(),
    };
    Some((name, attrs))
}

fn response_of(r: &Record) -> Response<'_> {
    Response {
        record: r,
        record_index: 0,
        turn: 0,
    }
}

/// The events of `trace`, in record order.
pub fn events(trace: &Trace) -> Vec<MetricEvent<'_>> {
    let records = &trace.records;
    // Pass 1: the response count at each record, and the step of each tool-use block id.
    let mut block_step: HashMap<&str, i64> = HashMap::new();
    let mut block_name: HashMap<&str, Value> = HashMap::new();
    let mut r_at = Vec::with_capacity(records.len());
    let mut r: i64 = 0;
    for rec in records {
        if rec.origin.is_none() && rec.kind == Kind::ChatResponse {
            r += 1;
            for block in response_of(rec).tool_uses() {
                if let Some(id) = block.id {
                    block_step.entry(id).or_insert(r);
                    let name = tool_use_name(rec, id);
                    block_name.entry(id).or_insert(name);
                }
            }
        }
        r_at.push(r);
    }
    // Pass 2: steps and names of native tool_call records, by call id.
    let mut call_step: HashMap<&str, i64> = HashMap::new();
    let mut call_name: HashMap<&str, Value> = HashMap::new();
    for (i, rec) in records.iter().enumerate() {
        if rec.origin.is_none() && rec.kind == Kind::ToolCall {
            if let Some(id) = rec.str_field("tool_call_id") {
                let step = block_step.get(id).copied().unwrap_or(r_at[i]);
                call_step.entry(id).or_insert(step);
                call_name.entry(id).or_insert_with(|| {
                    rec.field("tool_name")
                        .map(Json::to_value)
                        .unwrap_or_else(|| Value::String("?".into()))
                });
            }
        }
    }
    let mut out = Vec::new();
    for (i, rec) in records.iter().enumerate() {
        if let Some(o) = &rec.origin {
            out.push(MetricEvent {
                event_type: Cow::Borrowed(o.event_type.as_str()),
                step: o.step_num,
                payload: Cow::Owned(o.payload.to_map()),
                record_index: i,
            });
            continue;
        }
        if let Some((name, attrs)) = traxr_harness_event(rec) {
            out.push(MetricEvent {
                event_type: Cow::Borrowed(name),
                step: r_at[i],
                payload: Cow::Owned(attrs),
                record_index: i,
            });
            continue;
        }
        let Some(event_type) = native_type(rec) else {
            continue;
        };
        let call_id = rec.str_field("tool_call_id");
        let (step, payload) = match rec.kind {
            Kind::ChatResponse => (r_at[i], llm_call_payload(rec)),
            Kind::ToolCall => {
                let step = call_id
                    .and_then(|id| block_step.get(id).copied())
                    .unwrap_or(r_at[i]);
                let mut p = Map::with_capacity(2);
                copy(rec, "tool_name", &mut p, "tool_name");
                copy(rec, "tool_call_id", &mut p, "call_id");
                (step, p)
            }
            Kind::ToolResult => {
                let step = call_id
                    .and_then(|id| call_step.get(id).or_else(|| block_step.get(id)).copied())
                    .unwrap_or(r_at[i]);
                let name = call_id
                    .and_then(|id| call_name.get(id).or_else(|| block_name.get(id)))
                    .cloned()
                    .unwrap_or_else(|| Value::String("?".into()));
                let mut p = Map::with_capacity(2);
                p.insert("tool_name".into(), name);
                copy(rec, "tool_call_id", &mut p, "call_id");
                (step, p)
            }
            _ => {
                let mut p = Map::with_capacity(2);
                copy(rec, "code", &mut p, "exc_type");
                copy(rec, "message", &mut p, "message");
                (r_at[i], p)
            }
        };
        out.push(MetricEvent {
            event_type: Cow::Borrowed(event_type),
            step,
            payload: Cow::Owned(payload),
            record_index: i,
        });
    }
    out
}

fn copy(rec: &Record, from: &str, to: &mut Map<String, Value>, key: &str) {
    if let Some(v) = rec.field(from) {
        to.insert(key.into(), v.to_value());
    }
}

/// The `name` of the tool-use block with `id` in `rec` (`?` when absent).
fn tool_use_name(rec: &Record, id: &str) -> Value {
    let Some(Json::Array(parts)) = rec.field("content") else {
        return Value::String("?".into());
    };
    parts
        .iter()
        .filter_map(Json::as_object)
        .find(|o| {
            o.get("type").and_then(Json::as_str) == Some("tool_use")
                && o.get("id").and_then(Json::as_str) == Some(id)
        })
        .and_then(|o| o.get("name").map(Json::to_value))
        .unwrap_or_else(|| Value::String("?".into()))
}

/// The traxr `llm_call` payload of a native `chat_response`: `model` and `finish_reason`
/// (= `stop_reason`, verbatim) when present, `tool_call_names` from the tool-use blocks, and
/// `usage` in traxr's shape (or `null` when absent).
fn llm_call_payload(rec: &Record) -> Map<String, Value> {
    // Events live for the whole structural analysis: maps and lists at their final size.
    let mut p = Map::with_capacity(4);
    copy(rec, "model", &mut p, "model");
    copy(rec, "stop_reason", &mut p, "finish_reason");
    let mut names = Vec::new();
    if let Some(Json::Array(parts)) = rec.field("content") {
        for part in parts.iter().filter_map(Json::as_object) {
            if part.get("type").and_then(Json::as_str) == Some("tool_use") {
                names.push(
                    part.get("name")
                        .map(Json::to_value)
                        .unwrap_or_else(|| Value::String("?".into())),
                );
            }
        }
    }
    names.shrink_to_fit();
    p.insert("tool_call_names".into(), Value::Array(names));
    let usage = match rec.field("usage") {
        Some(Json::Object(u)) => {
            let count = |k: &str| u.get(k).filter(|v| v.is_number()).map(Json::to_value);
            let prompt = count("input_tokens").unwrap_or(Value::from(0));
            let completion = count("output_tokens").unwrap_or(Value::from(0));
            let total = match (prompt.as_i64(), completion.as_i64()) {
                (Some(a), Some(b)) => Value::from(a.saturating_add(b)),
                _ => serde_json::Number::from_f64(
                    prompt.as_f64().unwrap_or(0.0) + completion.as_f64().unwrap_or(0.0),
                )
                .map_or(Value::Null, Value::Number),
            };
            let mut m = Map::with_capacity(3);
            m.insert("prompt_tokens".into(), prompt);
            m.insert("completion_tokens".into(), completion);
            m.insert("total_tokens".into(), total);
            Value::Object(m)
        }
        _ => Value::Null,
    };
    p.insert("usage".into(), usage);
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use veer_trace::Format;

    fn rec(kind: Kind, payload: Value) -> Record {
        Record {
            line: None,
            kind,
            version: "0.1".into(),
            id: "".into(),
            ts: "".into(),
            parent: None,
            meta: None,
            payload: payload.into(),
            extra_envelope: None,
            origin: None,
        }
    }

    #[test]
    fn steps_and_names_follow_the_response_count() {
        let mut t = Trace::new("t", Format::Agentlog);
        t.records = vec![
            rec(Kind::Metadata, json!({})),
            rec(
                Kind::ToolCall,
                json!({"tool_name": "early", "tool_call_id": "x"}),
            ),
            rec(
                Kind::ChatResponse,
                json!({"model": "m", "stop_reason": "tool_use",
                       "content": [{"type": "tool_use", "id": "t1", "name": "search", "input": {}}]}),
            ),
            rec(
                Kind::ToolResult,
                json!({"tool_call_id": "t1", "output": "ok"}),
            ),
            rec(Kind::ChatResponse, json!({"model": "m", "content": []})),
            rec(
                Kind::ToolCall,
                json!({"tool_name": "search", "tool_call_id": "t1"}),
            ),
            rec(Kind::ToolResult, json!({"tool_call_id": "zz"})),
            rec(Kind::Error, json!({"code": "Timeout"})),
        ];
        let ev = events(&t);
        let view: Vec<(&str, i64)> = ev.iter().map(|e| (&*e.event_type, e.step)).collect();
        assert_eq!(
            view,
            vec![
                ("tool_request", 0),
                ("llm_call", 1),
                ("tool_result", 1),
                ("llm_call", 2),
                ("tool_request", 1),
                ("tool_result", 2),
                ("agent_error", 2),
            ]
        );
        assert_eq!(ev[2].field("tool_name"), Some(&json!("search")));
        assert_eq!(ev[5].field("tool_name"), Some(&json!("?")));
        assert_eq!(ev[3].field("finish_reason"), None);
        assert_eq!(ev[3].field("usage"), Some(&Value::Null));
    }
}
