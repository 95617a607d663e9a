//! Building a [`Trace`] from a foreign format's steps: every reader of `formats/` states what
//! happened (a session began, the model was asked, it answered, a tool ran) and this module turns
//! those steps into `.agentlog`-shaped records — payloads in the shapes of spec
//! `trace-formats.md` §1.3, content ids, a parent chain, non-decreasing timestamps — so the diff,
//! the alignment and the policy engine run on them unchanged (docs/formats.md).

use crate::canonical::content_id;
use crate::envelope_fields::RecordId;
use crate::error::{TraceError, Warning};
use crate::model::{Kind, Record, Trace};
use crate::timefmt::{format_epoch_ms, parse_iso_ms};
use rayon::prelude::*;
use serde_json::{json, Map, Value};
use veer_base::format::Format;

/// Collects the records of one trace in order.
#[derive(Debug)]
pub struct Assembler {
    trace: Trace,
    source_format: &'static str,
    /// Milliseconds since the epoch of the last record (timestamps never go backwards).
    last_ms: i64,
    steps: usize,
}

impl Assembler {
    /// An empty trace read from `source`; `source_format` names the format in the metadata
    /// records (`claude-code`, `mcp`, …).
    pub fn new(source: &str, format: Format, source_format: &'static str) -> Self {
        let mut trace = Trace::new(source, format);
        trace.run_label = Some(crate::agentlog::reader::file_stem(source));
        Assembler {
            trace,
            source_format,
            last_ms: 0,
            steps: 0,
        }
    }

    /// Starts a session: a `metadata` record naming veer and the source format, with `tags`
    /// (strings) and the source's own trace / session id as `meta.trace_id`. The first one is the
    /// root; later ones mark session boundaries.
    pub fn session(
        &mut self,
        tags: Vec<(&str, String)>,
        trace_id: Option<&str>,
        ms: Option<i64>,
        line: Option<u64>,
    ) {
        self.session_with(tags, Map::new(), trace_id, ms, line);
    }

    /// [`Assembler::session`] with `extra` keys in the metadata payload after `sdk` and `tags`
    /// (a format's own facts about the run, e.g. Inspect's case, trial and scores).
    pub(crate) fn session_with(
        &mut self,
        tags: Vec<(&str, String)>,
        extra: Map<String, Value>,
        trace_id: Option<&str>,
        ms: Option<i64>,
        line: Option<u64>,
    ) {
        let mut t = Map::new();
        t.insert("source_format".into(), json!(self.source_format));
        for (k, v) in tags {
            t.insert(k.into(), Value::String(v));
        }
        let mut payload = json!({
            "sdk": {"name": "veer", "version": env!("CARGO_PKG_VERSION")},
            "tags": Value::Object(t),
        });
        if let Value::Object(p) = &mut payload {
            p.extend(extra);
        }
        let meta = trace_id.map(|id| {
            let mut m = Map::new();
            m.insert("trace_id".into(), json!(id));
            Box::new(m)
        });
        self.push_record(Kind::Metadata, payload, ms, line, meta);
    }

    /// Appends one record of `kind` with `payload` at `ms` (milliseconds since the epoch; `None`
    /// = the previous record's time) from source line `line`.
    pub fn push(&mut self, kind: Kind, payload: Value, ms: Option<i64>, line: Option<u64>) {
        if self.trace.records.is_empty() {
            self.session(Vec::new(), None, ms, line);
        }
        if kind != Kind::Metadata {
            self.steps += 1;
        }
        self.push_record(kind, payload, ms, line, None);
    }

    fn push_record(
        &mut self,
        kind: Kind,
        payload: Value,
        ms: Option<i64>,
        line: Option<u64>,
        meta: Option<Box<Map<String, Value>>>,
    ) {
        let ms = ms.map_or(self.last_ms, |m| m.max(self.last_ms));
        self.last_ms = ms;
        // Content ids and parents are filled in by `finish`, on all cores.
        self.trace.records.push(Record {
            line,
            kind,
            version: "0.1".into(),
            id: "".into(),
            ts: format_epoch_ms(ms).into(),
            parent: None,
            meta,
            payload: payload.into(),
            extra_envelope: None,
            origin: None,
        });
    }

    /// Records a warning, once per `field`.
    pub fn warn(&mut self, line: Option<u64>, field: &str, message: impl Into<String>) {
        if self.trace.warnings.iter().any(|w| w.field == field) {
            return;
        }
        self.trace.warnings.push(Warning {
            file: self.trace.source.clone(),
            line,
            field: field.into(),
            message: message.into(),
        });
    }

    /// The trace, each record's content id computed (in parallel) and its parent the record
    /// before it; an error when the input held no model call, tool call or tool result.
    pub fn finish(mut self, what: &str) -> Result<Trace, TraceError> {
        let ids: Vec<RecordId> = self
            .trace
            .records
            .par_iter()
            .map(|r| content_id(&r.payload).into())
            .collect();
        let mut parent: Option<RecordId> = None;
        for (r, id) in self.trace.records.iter_mut().zip(ids) {
            r.parent = parent.replace(id.clone());
            r.id = id;
        }
        if self.steps == 0 {
            return Err(TraceError::new(
                &self.trace.source,
                None,
                "(file)",
                format!("no model calls or tool calls found in this {what}"),
            )
            .with_hint("record a run in which the agent called the model or a tool"));
        }
        Ok(self.trace)
    }
}

/// Milliseconds since the epoch of an ISO-8601 value (`None` for anything else).
pub(crate) fn ms_of(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::String(s) => parse_iso_ms(s),
        _ => None,
    }
}

/// A `chat_request` payload: `model`, `messages`, `tools` (when any), `params`.
pub(crate) fn request_payload(model: &str, messages: Vec<Value>, tools: Vec<Value>) -> Value {
    let mut p = Map::new();
    p.insert("model".into(), json!(model));
    p.insert("messages".into(), Value::Array(messages));
    if !tools.is_empty() {
        p.insert("tools".into(), Value::Array(tools));
    }
    p.insert("params".into(), json!({}));
    Value::Object(p)
}

/// What a model answered, before it becomes a `chat_response` payload.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Answer {
    /// Model name (`""` when the source does not say).
    pub model: String,
    /// Text parts, in order.
    pub text: Vec<String>,
    /// Reasoning text, in order (`thinking` parts).
    pub thinking: Vec<String>,
    /// Tool calls asked for: (id, name, input), in order.
    pub tool_uses: Vec<(Option<String>, String, Value)>,
    /// The source's stop reason, already mapped to `.agentlog` words when known.
    pub stop_reason: Option<String>,
    /// Input tokens, output tokens, cache-read tokens, cache-creation tokens.
    pub usage: Option<[u64; 4]>,
    /// Wall time of the call in milliseconds (≥ 0).
    pub latency_ms: u64,
    /// What the call cost in US dollars, when the source computed it (written as
    /// `cost_usd`).
    pub cost_usd: Option<f64>,
}

impl Answer {
    /// The `chat_response` payload: content parts (thinking, text, tool_use), `stop_reason`
    /// (`tool_use` when there are tool calls and the source gave none, else `end_turn`), usage,
    /// latency.
    pub fn payload(&self) -> Value {
        let mut content = Vec::new();
        for t in &self.thinking {
            content.push(json!({"type": "thinking", "text": t}));
        }
        for t in &self.text {
            content.push(json!({"type": "text", "text": t}));
        }
        for (id, name, input) in &self.tool_uses {
            let mut b = Map::new();
            b.insert("type".into(), json!("tool_use"));
            if let Some(id) = id {
                b.insert("id".into(), json!(id));
            }
            b.insert("name".into(), json!(name));
            b.insert("input".into(), input.clone());
            content.push(Value::Object(b));
        }
        let stop = self.stop_reason.clone().unwrap_or_else(|| {
            if self.tool_uses.is_empty() {
                "end_turn".into()
            } else {
                "tool_use".into()
            }
        });
        let [i, o, cr, cc] = self.usage.unwrap_or_default();
        let mut usage = json!({"input_tokens": i, "output_tokens": o});
        if cr > 0 || cc > 0 {
            usage["cache_read_input_tokens"] = json!(cr);
            usage["cache_creation_input_tokens"] = json!(cc);
        }
        let mut p = json!({
            "model": self.model,
            "content": content,
            "stop_reason": stop,
            "usage": usage,
            "latency_ms": self.latency_ms,
        });
        if let Some(c) = self.cost_usd.filter(|c| c.is_finite() && *c >= 0.0) {
            p["cost_usd"] = json!(c);
        }
        p
    }
}

/// Maps an OpenAI-style finish reason to the `.agentlog` word (`stop` → `end_turn`,
/// `tool_calls` → `tool_use`, `length` → `max_tokens`; others verbatim).
pub(crate) fn stop_reason_of(s: &str) -> String {
    match s {
        "stop" => "end_turn",
        "tool_calls" | "function_call" => "tool_use",
        "length" => "max_tokens",
        other => other,
    }
    .to_string()
}

/// A `tool_call` payload.
pub(crate) fn tool_call_payload(name: &str, id: &str, arguments: Value) -> Value {
    let arguments = match arguments {
        Value::Object(_) => arguments,
        Value::Null => json!({}),
        other => json!({ "input": other }),
    };
    json!({"tool_name": name, "tool_call_id": id, "arguments": arguments})
}

/// A `tool_result` payload (`output` a string or an object; anything else as compact JSON text).
pub(crate) fn tool_result_payload(
    id: &str,
    output: Value,
    is_error: bool,
    latency_ms: u64,
) -> Value {
    let output = match output {
        Value::String(_) | Value::Object(_) => output,
        Value::Null => json!(""),
        other => Value::String(other.to_string()),
    };
    json!({"tool_call_id": id, "output": output, "is_error": is_error, "latency_ms": latency_ms})
}

/// Tool arguments given as JSON text (OpenAI style) or as a value: the object, or
/// `{"input": text}` when the text is not a JSON object.
pub(crate) fn arguments_of(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(o @ Value::Object(_)) => o,
            _ if s.trim().is_empty() => json!({}),
            _ => json!({ "input": s }),
        },
        Some(Value::Object(o)) => Value::Object(o.clone()),
        None | Some(Value::Null) => json!({}),
        Some(other) => json!({ "input": other }),
    }
}

/// A non-negative integer token count (`null`, absent or negative → 0).
pub fn count(v: Option<&Value>) -> u64 {
    v.and_then(|v| v.as_u64().or_else(|| v.as_f64().map(|f| f.max(0.0) as u64)))
        .unwrap_or(0)
}

/// Text of a message content value: a string, or the text parts of an array of parts
/// (`{"type":"text"|"input_text"|"output_text", "text"}`), joined by `\n`.
pub(crate) fn text_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| {
                    let o = p.as_object()?;
                    match o.get("type").and_then(Value::as_str) {
                        Some("text" | "input_text" | "output_text") | None => {
                            o.get("text").and_then(Value::as_str)
                        }
                        _ => None,
                    }
                })
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_chain_and_time_never_goes_back() {
        let mut a = Assembler::new("x.jsonl", Format::Mcp, "mcp");
        a.push(
            Kind::ToolCall,
            tool_call_payload("t", "1", json!({})),
            Some(5000),
            Some(1),
        );
        a.push(
            Kind::ToolResult,
            tool_result_payload("1", json!(3), false, 0),
            Some(10),
            Some(2),
        );
        let t = a.finish("log").unwrap();
        assert_eq!(t.records.len(), 3);
        assert_eq!(t.records[0].kind, Kind::Metadata);
        assert_eq!(t.records[0].parent, None);
        assert_eq!(t.records[1].parent.as_ref(), Some(&t.records[0].id));
        assert_eq!(t.records[2].parent.as_ref(), Some(&t.records[1].id));
        assert_eq!(t.records[2].ts, "1970-01-01T00:00:05.000Z");
        assert_eq!(t.records[2].payload["output"], json!("3"));
        assert_eq!(t.records[1].id, content_id(&t.records[1].payload));
    }

    #[test]
    fn an_empty_input_is_an_error() {
        let mut a = Assembler::new("x.jsonl", Format::Mcp, "mcp");
        a.session(Vec::new(), None, None, None);
        let e = a.finish("MCP session log").unwrap_err();
        assert!(e.message.contains("no model calls"), "{e}");
    }

    #[test]
    fn arguments_from_text_or_value() {
        assert_eq!(arguments_of(Some(&json!("{\"a\":1}"))), json!({"a": 1}));
        assert_eq!(
            arguments_of(Some(&json!("plain"))),
            json!({"input": "plain"})
        );
        assert_eq!(arguments_of(Some(&json!(""))), json!({}));
        assert_eq!(arguments_of(Some(&json!([1]))), json!({"input": [1]}));
        assert_eq!(
            text_of(Some(
                &json!([{"type": "output_text", "text": "a"}, {"type": "image"}, {"text": "b"}])
            )),
            Some("a\nb".into())
        );
    }
}
