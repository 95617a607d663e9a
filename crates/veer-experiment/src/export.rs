//! traxr event objects for reports (spec `trace-formats.md` §4.5, `experiment.md` §6, §11.4):
//! the full events of `aligned_pairs` and the `traces` map of an experiment export.
//!
//! traxr-origin events are written as they were read. Native `.agentlog` events are written as
//! traxr would have recorded them: the metric payload plus the hashes of §4.5, agent
//! `external`, `sequence_index` = position among exported events, step per §12.2.

use crate::events::MetricEvent;
use serde_json::{Map, Value};
use veer_base::pyjson::traxr_content_hash;
use veer_trace::canonical::{canonical_bytes, hex16_of};
use veer_trace::views::Response;
use veer_trace::{Kind, Trace};

/// The traxr payload of an event: the original for traxr-origin records, otherwise the
/// metric payload with §4.5's hashes added (`content_hash` of a response's text or a tool
/// result's output, `arguments_hash` of a tool call's canonical arguments).
pub(crate) fn export_payload(trace: &Trace, event: &MetricEvent<'_>) -> Map<String, Value> {
    let mut payload = event.payload_map();
    let Some(record) = trace.records.get(event.record_index) else {
        return payload;
    };
    if record.origin.is_some() {
        return payload;
    }
    match record.kind {
        Kind::ChatResponse => {
            let text = Response {
                record,
                record_index: event.record_index,
                turn: 0,
            }
            .text("\n");
            payload.insert(
                "content_hash".into(),
                Value::String(hex16_of(text.as_bytes())),
            );
        }
        Kind::ToolCall => {
            let args = record
                .field("arguments")
                .cloned()
                .unwrap_or_else(veer_trace::Json::empty_object);
            payload.insert(
                "arguments_hash".into(),
                Value::String(hex16_of(&canonical_bytes(&args))),
            );
        }
        Kind::ToolResult => {
            let text = match record.field("output") {
                Some(veer_trace::Json::String(s)) => s.to_string(),
                Some(other) => serde_json::to_string(other).unwrap_or_default(),
                None => String::new(),
            };
            payload.insert(
                "content_hash".into(),
                Value::String(hex16_of(text.as_bytes())),
            );
        }
        _ => {}
    }
    payload
}

/// One traxr event object: `agent_name`, `content_hash`, `event_type`, `payload`,
/// `sequence_index`, `step_num` and, when `with_timestamp`, `timestamp` (null if unknown).
/// `position` is the event's index among the trace's events.
pub(crate) fn event_object(
    trace: &Trace,
    event: &MetricEvent<'_>,
    position: usize,
    with_timestamp: bool,
) -> Value {
    let record = trace.records.get(event.record_index);
    let origin = record.and_then(|r| r.origin.as_deref());
    let payload = export_payload(trace, event);
    let mut m = Map::new();
    let (agent, hash, seq, ts) = match origin {
        Some(o) => (
            o.agent_name.clone(),
            o.content_hash.clone(),
            o.sequence_index,
            o.timestamp
                .clone()
                .map(Value::String)
                .unwrap_or(Value::Null),
        ),
        None => (
            "external".to_string(),
            traxr_content_hash(&Value::Object(payload.clone())),
            i64::try_from(position).unwrap_or(i64::MAX),
            record.map_or(Value::Null, |r| Value::String(r.ts.to_string())),
        ),
    };
    m.insert("agent_name".into(), Value::String(agent));
    m.insert("content_hash".into(), Value::String(hash));
    m.insert(
        "event_type".into(),
        Value::String(event.event_type().to_string()),
    );
    m.insert("payload".into(), Value::Object(payload));
    m.insert("sequence_index".into(), Value::from(seq));
    m.insert("step_num".into(), Value::from(event.step));
    if with_timestamp {
        m.insert("timestamp".into(), ts);
    }
    Value::Object(m)
}

/// A whole trace as traxr's `TraceCollector.to_dict()` without timestamps:
/// `{event_count, events, run_label}`.
pub(crate) fn trace_object(trace: &Trace, events: &[MetricEvent<'_>], run_label: &str) -> Value {
    let list: Vec<Value> = events
        .iter()
        .enumerate()
        .map(|(i, e)| event_object(trace, e, i, false))
        .collect();
    let mut m = Map::new();
    m.insert("event_count".into(), Value::from(list.len()));
    m.insert("events".into(), Value::Array(list));
    m.insert("run_label".into(), Value::String(run_label.to_string()));
    Value::Object(m)
}
