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

    /// For a native `llm_call`, the items of its `tool_call_names` without building the list
    /// (`None` items stand for `?`); `None` for every other event.
    pub(crate) fn native_tool_call_names(&self) -> Option<impl Iterator<Item = Option<&'t Json>>> {
        match self.source {
            Source::LlmCall(r) => Some(tool_use_names(r)),
            _ => None,
        }
    }

    /// The whole payload as a `serde_json::Map`, in traxr's key order (allocates; for
    /// reports).
    pub(crate) fn payload_map(&self) -> Map<String, Value> {
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

/// Tool call ids to what the events need of them; hashed with foldhash, seeded per process
/// (ids are input, so collisions cannot be aimed at the table).
type ById<'t, V> = HashMap<&'t str, V, foldhash::fast::RandomState>;

/// Whether `rec` is an event: traxr-origin, a traxr harness event, or a native response,
/// tool call, tool result or error.
fn is_event(rec: &Record) -> bool {
    rec.origin.is_some()
        || is_traxr_harness_event(rec)
        || matches!(
            rec.kind,
            Kind::ChatResponse | Kind::ToolCall | Kind::ToolResult | Kind::Error
        )
}

/// The events of `trace`, in record order.
pub fn events(trace: &Trace) -> Vec<MetricEvent<'_>> {
    let records = &trace.records;
    let native_response = |rec: &Record| rec.origin.is_none() && rec.kind == Kind::ChatResponse;
    // Pass 1: the number of events, and the step (the response count) and the tool name
    // (`None`: `?`) of each tool-use block id, first occurrence kept.
    let mut blocks: ById<'_, (i64, Option<&Json>)> = ById::default();
    let mut count = 0usize;
    let mut r: i64 = 0;
    for rec in records {
        count += usize::from(is_event(rec));
        if native_response(rec) {
            r += 1;
            let Some(Json::Array(parts)) = rec.field("content") else {
                continue;
            };
            for part in parts.iter().filter_map(Json::as_object) {
                if part.get("type").and_then(Json::as_str) != Some("tool_use") {
                    continue;
                }
                if let Some(id) = part.get("id").and_then(Json::as_str) {
                    blocks.entry(id).or_insert((r, part.get("name")));
                }
            }
        }
    }
    // Pass 2: the step and tool name of each native tool_call record, by call id, first
    // occurrence kept.
    let mut calls: ById<'_, (i64, Option<&Json>)> = ById::default();
    let mut r: i64 = 0;
    for rec in records {
        r += i64::from(native_response(rec));
        if rec.origin.is_none() && rec.kind == Kind::ToolCall {
            if let Some(id) = rec.str_field("tool_call_id") {
                calls.entry(id).or_insert_with(|| {
                    let step = blocks.get(id).map_or(r, |b| b.0);
                    (step, rec.field("tool_name"))
                });
            }
        }
    }
    let mut out = Vec::with_capacity(count);
    let mut r: i64 = 0;
    for (i, rec) in records.iter().enumerate() {
        r += i64::from(native_response(rec));
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
            out.push(event(Source::Harness(rec), r));
            continue;
        }
        let call_id = rec.str_field("tool_call_id");
        let e = match rec.kind {
            Kind::ChatResponse => event(Source::LlmCall(rec), r),
            Kind::ToolCall => {
                let step = call_id.and_then(|id| blocks.get(id)).map_or(r, |b| b.0);
                event(Source::ToolRequest(rec), step)
            }
            Kind::ToolResult => {
                let known = call_id.and_then(|id| calls.get(id).or_else(|| blocks.get(id)));
                let (step, name) = known.map_or((r, None), |&(step, name)| (step, name));
                event(Source::ToolResult(rec, name), step)
            }
            Kind::Error => event(Source::AgentError(rec), r),
            _ => continue,
        };
        out.push(e);
    }
    out
}

/// The `name` of each tool-use block of a native `chat_response`, in order (`None`: the block
/// has no `name`, which traxr records as `?`).
fn tool_use_names(rec: &Record) -> impl Iterator<Item = Option<&Json>> {
    let parts = match rec.field("content") {
        Some(Json::Array(parts)) => &parts[..],
        _ => &[],
    };
    parts
        .iter()
        .filter_map(Json::as_object)
        .filter(|part| part.get("type").and_then(Json::as_str) == Some("tool_use"))
        .map(|part| part.get("name"))
}

/// `tool_call_names` of a native `chat_response`: [`tool_use_names`] as a list.
fn tool_call_names(rec: &Record) -> Json {
    let names = tool_use_names(rec)
        .map(|name| name.cloned().unwrap_or_else(unknown_name))
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
    use veer_base::format::Format;

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
