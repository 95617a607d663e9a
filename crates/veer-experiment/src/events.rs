//! The event sequence every experiment metric reads (spec `experiment.md` §12.1, §12.2).
//!
//! traxr-origin records contribute their original event unchanged. Native `.agentlog` records
//! are seen through traxr's external vocabulary: `chat_response` → `llm_call`, `tool_call` →
//! `tool_request`, `tool_result` → `tool_result` (name resolved through its call id), `error` →
//! `agent_error`, a `harness_event` of category `traxr` → its own type. Everything else is not
//! an event. Steps follow §12.2 (the *r*-th response is step *r*).

//!
//! Events borrow from the trace: an event is a 40-byte view of its record (a 100,000-turn
//! `.agentlog` has ~300,000 events a side), and each payload field is read from the record when
//! asked for ([`MetricEvent::field`]). Only the two derived fields of a native `llm_call`
//! (`tool_call_names`, `usage`) and an unresolved tool name (`?`) are built on demand.

use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use veer_trace::json::{Key, Object};
use veer_trace::views::Response;
use veer_trace::{Json, Kind, Record, Trace, TraxrOrigin};

/// Where an event's type and payload are read from.
#[derive(Debug, Clone, Copy)]
enum Source<'t> {
    /// A traxr-origin record: its original event.
    Origin(&'t TraxrOrigin),
    /// A `harness_event` of category `traxr`: type `name`, payload `attributes` (empty when
    /// not an object).
    Harness(&'t Record),
    /// A native `chat_response` as `llm_call`.
    LlmCall(&'t Record),
    /// A native `tool_call` as `tool_request`.
    ToolRequest(&'t Record),
    /// A native `tool_result` as `tool_result`, with the tool name resolved through its call
    /// id (`None`: unresolved, `?`).
    ToolResult(&'t Record, Option<&'t Json>),
    /// A native `error` as `agent_error`.
    AgentError(&'t Record),
}

/// One event as the metrics see it: a view of one record of the trace.
#[derive(Debug, Clone, Copy)]
pub struct MetricEvent<'t> {
    source: Source<'t>,
    /// Episode step (`step_num`), per §12.2 for native records.
    pub step: i64,
    /// Index of the record in [`Trace::records`].
    pub record_index: usize,
}

/// The keys of a native event's payload, in the order traxr writes them.
const LLM_CALL_KEYS: [&str; 4] = ["model", "finish_reason", "tool_call_names", "usage"];
const TOOL_REQUEST_KEYS: [&str; 2] = ["tool_name", "call_id"];
const TOOL_RESULT_KEYS: [&str; 2] = ["tool_name", "call_id"];
const AGENT_ERROR_KEYS: [&str; 2] = ["exc_type", "message"];

/// The tool name of an unresolved call: `?`.
fn unknown_name() -> Json {
    Json::String("?".into())
}

impl<'t> MetricEvent<'t> {
    /// traxr event type used for signatures and classification (`llm_call`,
    /// `routing_decision`, …).
    pub fn event_type(&self) -> &'t str {
        match self.source {
            Source::Origin(o) => &o.event_type,
            Source::Harness(r) => r.str_field("name").unwrap_or_default(),
            Source::LlmCall(_) => "llm_call",
            Source::ToolRequest(_) => "tool_request",
            Source::ToolResult(..) => "tool_result",
            Source::AgentError(_) => "agent_error",
        }
    }

    /// `payload[key]`, `None` when absent: borrowed from the record, except the derived
    /// fields of a native event.
    pub fn field(&self, key: &str) -> Option<Cow<'t, Json>> {
        let from = |r: &'t Record, k: &str| r.field(k).map(Cow::Borrowed);
        match self.source {
            Source::Origin(o) => o.payload.get(key).map(Cow::Borrowed),
            Source::Harness(r) => match r.field("attributes") {
                Some(Json::Object(m)) => m.get(key).map(Cow::Borrowed),
                _ => None,
            },
            Source::LlmCall(r) => match key {
                "model" => from(r, "model"),
                "finish_reason" => from(r, "stop_reason"),
                "tool_call_names" => Some(Cow::Owned(tool_call_names(r))),
                "usage" => Some(Cow::Owned(usage(r))),
                _ => None,
            },
            Source::ToolRequest(r) => match key {
                "tool_name" => from(r, "tool_name"),
                "call_id" => from(r, "tool_call_id"),
                _ => None,
            },
            Source::ToolResult(r, name) => match key {
                "tool_name" => Some(name.map_or_else(|| Cow::Owned(unknown_name()), Cow::Borrowed)),
                "call_id" => from(r, "tool_call_id"),
                _ => None,
            },
            Source::AgentError(r) => match key {
                "exc_type" => from(r, "code"),
                "message" => from(r, "message"),
                _ => None,
            },
        }
    }

    /// The whole payload as a `serde_json::Map`, in traxr's key order (allocates; for
    /// reports).
    pub fn payload_map(&self) -> Map<String, Value> {
        let keys: &[&str] = match self.source {
            Source::Origin(o) => return o.payload.to_map(),
            Source::Harness(r) => {
                return match r.field("attributes") {
                    Some(Json::Object(m)) => m.to_map(),
                    _ => Map::new(),
                }
            }
            Source::LlmCall(_) => &LLM_CALL_KEYS,
            Source::ToolRequest(_) => &TOOL_REQUEST_KEYS,
            Source::ToolResult(..) => &TOOL_RESULT_KEYS,
            Source::AgentError(_) => &AGENT_ERROR_KEYS,
        };
        keys.iter()
            .filter_map(|&k| self.field(k).map(|v| (k.to_owned(), v.to_value())))
            .collect()
    }
}

/// Whether `r` is a `harness_event` of category `traxr` with a string `name`.
fn is_traxr_harness_event(r: &Record) -> bool {
    r.kind == Kind::HarnessEvent
        && r.str_field("category") == Some("traxr")
        && r.str_field("name").is_some()
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
    // Pass 1: the response count at each record, and the step and tool name (`None`: `?`) of
    // each tool-use block id.
    let mut block_step: HashMap<&str, i64> = HashMap::new();
    let mut block_name: HashMap<&str, Option<&Json>> = HashMap::new();
    let mut r_at = Vec::with_capacity(records.len());
    let mut r: i64 = 0;
    for rec in records {
        if rec.origin.is_none() && rec.kind == Kind::ChatResponse {
            r += 1;
            for block in response_of(rec).tool_uses() {
                if let Some(id) = block.id {
                    block_step.entry(id).or_insert(r);
                    block_name
                        .entry(id)
                        .or_insert_with(|| tool_use_name(rec, id));
                }
            }
        }
        r_at.push(r);
    }
    // Pass 2: steps and names of native tool_call records, by call id.
    let mut call_step: HashMap<&str, i64> = HashMap::new();
    let mut call_name: HashMap<&str, Option<&Json>> = HashMap::new();
    for (i, rec) in records.iter().enumerate() {
        if rec.origin.is_none() && rec.kind == Kind::ToolCall {
            if let Some(id) = rec.str_field("tool_call_id") {
                let step = block_step.get(id).copied().unwrap_or(r_at[i]);
                call_step.entry(id).or_insert(step);
                call_name.entry(id).or_insert_with(|| rec.field("tool_name"));
            }
        }
    }
    let mut out = Vec::with_capacity(records.len());
    for (i, rec) in records.iter().enumerate() {
        let event = |source, step| MetricEvent {
            source,
            step,
            record_index: i,
        };
        if let Some(o) = &rec.origin {
            out.push(event(Source::Origin(o), o.step_num));
            continue;
        }
        if is_traxr_harness_event(rec) {
            out.push(event(Source::Harness(rec), r_at[i]));
            continue;
        }
        let call_id = rec.str_field("tool_call_id");
        let e = match rec.kind {
            Kind::ChatResponse => event(Source::LlmCall(rec), r_at[i]),
            Kind::ToolCall => {
                let step = call_id
                    .and_then(|id| block_step.get(id).copied())
                    .unwrap_or(r_at[i]);
                event(Source::ToolRequest(rec), step)
            }
            Kind::ToolResult => {
                let step = call_id
                    .and_then(|id| call_step.get(id).or_else(|| block_step.get(id)).copied())
                    .unwrap_or(r_at[i]);
                let name = call_id
                    .and_then(|id| call_name.get(id).or_else(|| block_name.get(id)))
                    .copied()
                    .flatten();
                event(Source::ToolResult(rec, name), step)
            }
            Kind::Error => event(Source::AgentError(rec), r_at[i]),
            _ => continue,
        };
        out.push(e);
    }
    out.shrink_to_fit();
    out
}

/// The `name` of the tool-use block with `id` in `rec` (`None`: `?`).
fn tool_use_name<'r>(rec: &'r Record, id: &str) -> Option<&'r Json> {
    let Some(Json::Array(parts)) = rec.field("content") else {
        return None;
    };
    parts
        .iter()
        .filter_map(Json::as_object)
        .find(|o| {
            o.get("type").and_then(Json::as_str) == Some("tool_use")
                && o.get("id").and_then(Json::as_str) == Some(id)
        })
        .and_then(|o| o.get("name"))
}

/// `tool_call_names` of a native `chat_response`: the `name` of each tool-use block (`?`
/// when absent).
fn tool_call_names(rec: &Record) -> Json {
    let Some(Json::Array(parts)) = rec.field("content") else {
        return Json::Array(Box::default());
    };
    let names = parts
        .iter()
        .filter_map(Json::as_object)
        .filter(|part| part.get("type").and_then(Json::as_str) == Some("tool_use"))
        .map(|part| part.get("name").cloned().unwrap_or_else(unknown_name))
        .collect::<Vec<_>>();
    Json::Array(names.into_boxed_slice())
}

/// `usage` of a native `chat_response` in traxr's shape (`prompt_tokens`,
/// `completion_tokens`, `total_tokens`; a count that is not a number is 0), or `null` when the
/// response has no usage object.
fn usage(rec: &Record) -> Json {
    let Some(Json::Object(u)) = rec.field("usage") else {
        return Json::Null;
    };
    let count = |k: &str| {
        u.get(k)
            .filter(|v| v.is_number())
            .cloned()
            .unwrap_or(Json::Number(0.into()))
    };
    let (prompt, completion) = (count("input_tokens"), count("output_tokens"));
    let total = match (prompt.as_i64(), completion.as_i64()) {
        (Some(a), Some(b)) => Json::Number(a.saturating_add(b).into()),
        _ => serde_json::Number::from_f64(
            prompt.as_f64().unwrap_or(0.0) + completion.as_f64().unwrap_or(0.0),
        )
        .map_or(Json::Null, Json::Number),
    };
    Json::Object(Object::from_entries(vec![
        (Key::from("prompt_tokens"), prompt),
        (Key::from("completion_tokens"), completion),
        (Key::from("total_tokens"), total),
    ]))
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
        let view: Vec<(&str, i64)> = ev.iter().map(|e| (e.event_type(), e.step)).collect();
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
        let field = |e: usize, k: &str| ev[e].field(k).map(|v| v.to_value());
        assert_eq!(field(2, "tool_name"), Some(json!("search")));
        assert_eq!(field(5, "tool_name"), Some(json!("?")));
        assert_eq!(field(3, "finish_reason"), None);
        assert_eq!(field(3, "usage"), Some(Value::Null));
    }
}
