//! Jaeger UI JSON — what Jaeger's query API (`/api/traces/<id>`) returns and its UI's "Download
//! JSON" saves — read as OTel spans: Jaeger stores the spans an OTel SDK sent it, with the
//! attributes as typed tags, span events as logs and the parent as a `CHILD_OF` reference, so
//! the GenAI mapping of the OTLP/JSON reader applies unchanged.
//!
//! `{"data": [{"traceID", "spans": [{traceID, spanID, operationName, references, startTime (µs),
//! duration (µs), tags: [{key, type, value}], logs: [{timestamp, fields}], processID}],
//! "processes"}]}`, or one trace object alone (Jaeger's own fixtures). The document is parsed
//! whole (it is one JSON value), each span made an OTLP span, and the spans assembled as an
//! OTLP export's are.

use super::assemble::{prepare_part, prepared, SpanAt};
use super::wire::{AnyValue, Double, Event, Int64, KeyValue, Nanos, Span, SpanStatus, StatusCode};
use crate::error::TraceError;
use crate::model::Trace;
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;

/// Whether `head` starts a Jaeger UI JSON document: `{"data": [{"traceID" …` or a bare
/// `{"traceID" …` trace object.
pub fn sniff(head: &[u8]) -> bool {
    match super::first_key(head) {
        Some(b"traceID") => true,
        Some(b"data") => {
            let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
            let Some(at) = memchr::memmem::find(head, b"\"data\"") else {
                return false;
            };
            let rest = skip_ws(&head[at + 6..]);
            let Some(rest) = rest.strip_prefix(b":") else {
                return false;
            };
            let Some(rest) = skip_ws(rest).strip_prefix(b"[") else {
                return false;
            };
            super::first_key(rest) == Some(b"traceID")
        }
        _ => false,
    }
}

/// Whether a parsed document is Jaeger UI JSON whatever its key order: a `data` array whose
/// first trace has `traceID` and `spans`, or such a trace alone.
pub(crate) fn is_document(v: &Value) -> bool {
    let is_trace =
        |t: &Value| t.get("traceID").is_some() && t.get("spans").is_some_and(Value::is_array);
    match v.get("data").and_then(Value::as_array) {
        Some(data) => data.first().is_some_and(is_trace),
        None => is_trace(v),
    }
}

fn skip_ws(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &b[n..]
}

/// A parsed document: the `data` wrapper, or one trace (its `spans` at the top).
#[derive(Deserialize)]
struct Document {
    /// `{"data": [traces]}` (the query API's answer).
    #[serde(default)]
    data: Option<Vec<JaegerTrace>>,
    /// The spans of a bare trace.
    #[serde(default)]
    spans: Vec<JaegerSpan>,
}

/// One Jaeger trace.
#[derive(Deserialize)]
struct JaegerTrace {
    /// The spans.
    #[serde(default)]
    spans: Vec<JaegerSpan>,
}

/// One Jaeger span.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JaegerSpan {
    #[serde(rename = "traceID")]
    trace_id: String,
    #[serde(rename = "spanID")]
    span_id: String,
    #[serde(default, rename = "parentSpanID")]
    parent_span_id: Option<String>,
    #[serde(default)]
    operation_name: String,
    #[serde(default)]
    references: Vec<Reference>,
    /// Microseconds since the Unix epoch.
    #[serde(default)]
    start_time: u64,
    /// Microseconds.
    #[serde(default)]
    duration: u64,
    #[serde(default)]
    tags: Vec<Tag>,
    #[serde(default)]
    logs: Vec<Log>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reference {
    #[serde(default)]
    ref_type: String,
    #[serde(default, rename = "traceID")]
    trace_id: String,
    #[serde(rename = "spanID")]
    span_id: String,
}

#[derive(Deserialize)]
struct Tag {
    key: String,
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    value: Value,
}

#[derive(Deserialize)]
struct Log {
    #[serde(default)]
    fields: Vec<Tag>,
}

/// Reads a Jaeger UI JSON document.
pub fn read(source: &str, bytes: &[u8]) -> Result<Trace, TraceError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let doc: Document = match serde_path_to_error::deserialize(&mut de) {
        Ok(d) => d,
        Err(e) => {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let line = (inner.line() > 0).then_some(inner.line() as u64);
            return Err(TraceError::new(
                source,
                line,
                if path == "." { "(json)".into() } else { path },
                format!("not a Jaeger trace: {inner}"),
            )
            .with_hint("Jaeger UI JSON: {\"data\": [{\"traceID\", \"spans\": [{traceID, spanID, operationName, references, startTime, duration, tags}]}]}, as /api/traces/<id> returns it"));
        }
    };
    let traces = match doc.data {
        Some(data) => data,
        None => vec![JaegerTrace { spans: doc.spans }],
    };
    let spans: Vec<Span<'static>> = traces
        .iter()
        .flat_map(|t| t.spans.iter())
        .map(span_of)
        .collect();
    if spans.is_empty() {
        return Err(
            TraceError::new(source, None, "data", "the export holds no spans").with_hint(
                "export the spans of an agent run (an empty export has nothing to compare)",
            ),
        );
    }
    let at: Vec<SpanAt<'_, '_>> = spans
        .iter()
        .map(|span| SpanAt { span, line: None })
        .collect();
    let part = prepare_part(source, &at)?;
    drop(at);
    drop(spans);
    let mut trace = prepared(source, part).finish()?;
    trace.run_label = Some(super::run_label(source));
    Ok(trace)
}

/// Jaeger's hex id (leading zeros often dropped, 64-bit trace ids) as OTLP's: left-padded to
/// `digits`; anything else is left as it is, for the id check to report.
fn padded(id: &str, digits: usize) -> String {
    if id.len() < digits && !id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        format!("{}{id}", "0".repeat(digits - id.len()))
    } else {
        id.to_string()
    }
}

fn span_of(s: &JaegerSpan) -> Span<'static> {
    let parent = s
        .parent_span_id
        .clone()
        .filter(|p| !p.trim_start_matches('0').is_empty())
        .or_else(|| {
            let same_trace = |r: &&Reference| r.trace_id.is_empty() || r.trace_id == s.trace_id;
            s.references
                .iter()
                .filter(same_trace)
                .find(|r| r.ref_type == "CHILD_OF")
                .or_else(|| s.references.iter().find(same_trace))
                .map(|r| r.span_id.clone())
        });
    let mut is_error = false;
    let mut message = String::new();
    let mut attributes = Vec::with_capacity(s.tags.len());
    for t in &s.tags {
        match t.key.as_str() {
            "otel.status_code" => is_error |= t.value.as_str() == Some("ERROR"),
            "error" => {
                is_error |= t.value.as_bool() == Some(true) || t.value.as_str() == Some("true")
            }
            "otel.status_description" => message = t.value.as_str().unwrap_or("").to_string(),
            _ => {}
        }
        attributes.push(key_value(t));
    }
    let events = s
        .logs
        .iter()
        .map(|l| {
            let name = l
                .fields
                .iter()
                .find(|f| f.key == "event")
                .and_then(|f| f.value.as_str())
                .unwrap_or("")
                .to_string();
            Event {
                name: Cow::Owned(name),
                attributes: l
                    .fields
                    .iter()
                    .filter(|f| f.key != "event")
                    .map(key_value)
                    .collect(),
            }
        })
        .collect();
    let start = s.start_time.saturating_mul(1000);
    Span {
        trace_id: Cow::Owned(padded(&s.trace_id, 32)),
        span_id: Cow::Owned(padded(&s.span_id, 16)),
        parent_span_id: parent.map(|p| Cow::Owned(padded(&p, 16))),
        name: Cow::Owned(s.operation_name.clone()),
        kind: None,
        start_time_unix_nano: Nanos(start),
        end_time_unix_nano: Nanos(start.saturating_add(s.duration.saturating_mul(1000))),
        attributes,
        events,
        status: Some(SpanStatus {
            code: StatusCode { is_error },
            message: Cow::Owned(message),
        }),
    }
}

/// A Jaeger tag (`{key, type, value}`) as an OTLP attribute.
fn key_value(t: &Tag) -> KeyValue<'static> {
    let mut v = AnyValue::default();
    match (t.kind.as_str(), &t.value) {
        ("int64", Value::Number(n)) => v.int_value = n.as_i64().map(Int64),
        ("int64", Value::String(s)) => v.int_value = s.parse().ok().map(Int64),
        ("float64", Value::Number(n)) => v.double_value = n.as_f64().map(Double),
        ("bool", Value::Bool(b)) => v.bool_value = Some(*b),
        ("bool", Value::String(s)) => v.bool_value = Some(s == "true"),
        ("binary", Value::String(s)) => v.bytes_value = Some(Cow::Owned(s.clone())),
        (_, Value::String(s)) => v.string_value = Some(Cow::Owned(s.clone())),
        (_, Value::Bool(b)) => v.bool_value = Some(*b),
        (_, Value::Number(n)) if n.is_i64() => v.int_value = n.as_i64().map(Int64),
        (_, Value::Number(n)) => v.double_value = n.as_f64().map(Double),
        (_, Value::Null) => {}
        (_, other) => v.string_value = Some(Cow::Owned(other.to_string())),
    }
    KeyValue {
        key: Cow::Owned(t.key.clone()),
        value: v,
    }
}
