//! OpenAI Agents SDK trace exports: the `export()` dicts of its traces (`"object": "trace"`) and
//! spans (`"object": "trace.span"`), one a line, as a JSON array, or as the SDK's upload body
//! `{"data": [...]}`. Each trace is a session; its spans, ordered by start time then id, become
//! records: `generation` / `response` spans are model turns, `function` spans tool calls with
//! their results, `guardrail` and `handoff` spans harness events (docs/formats.md §Agents).

use super::assemble::{
    arguments_of, count, ms_of, request_payload, text_of, tool_call_payload, tool_result_payload,
    Answer, Assembler,
};
use super::{check_parents, span_ms, type_name, Item};
use crate::error::TraceError;
use crate::model::{Kind, Trace};
use crate::options::ReadOptions;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use veer_base::format::Format;

/// Whether `v` is an exported trace or span.
pub fn sniff(v: &Value) -> bool {
    matches!(
        v.get("object").and_then(Value::as_str),
        Some("trace" | "trace.span")
    ) && v.get("id").is_some()
}

/// One span, checked.
struct Span<'a> {
    item: &'a Item,
    id: &'a str,
    trace_id: &'a str,
    parent: Option<&'a str>,
    start: &'a str,
    start_ms: Option<i64>,
    end_ms: Option<i64>,
    kind: &'a str,
    data: &'a Map<String, Value>,
    error: Option<&'a Value>,
}

/// Reads the exported traces and spans.
pub fn read(source: &str, items: Vec<Item>, options: &ReadOptions) -> Result<Trace, TraceError> {
    let mut a = Assembler::new(source, Format::AgentsSdk, "openai-agents");
    let mut traces: Vec<(&str, &Map<String, Value>)> = Vec::new();
    let mut spans = Vec::new();
    for item in &items {
        let Value::Object(o) = &item.value else {
            return Err(item.err(
                source,
                "(line)",
                format!(
                    "expected an exported trace or span object, found {}",
                    type_name(&item.value)
                ),
            ));
        };
        let text = |k: &str, required: bool| -> Result<Option<&str>, TraceError> {
            match o.get(k) {
                Some(Value::String(s)) => Ok(Some(s)),
                None | Some(Value::Null) if !required => Ok(None),
                None | Some(Value::Null) => Err(item.err(source, k, "missing required field")),
                Some(other) => Err(item.err(
                    source,
                    k,
                    format!("must be a string, found {}", type_name(other)),
                )),
            }
        };
        match o.get("object").and_then(Value::as_str) {
            Some("trace") => traces.push((text("id", true)?.unwrap_or(""), o)),
            Some("trace.span") => {
                let data = match o.get("span_data") {
                    Some(Value::Object(d)) => d,
                    other => {
                        return Err(item.err(
                            source,
                            "span_data",
                            format!(
                                "must be an object, found {}",
                                other.map_or("nothing", type_name)
                            ),
                        ))
                    }
                };
                let kind = match data.get("type") {
                    Some(Value::String(s)) => s.as_str(),
                    _ => return Err(item.err(source, "span_data.type", "must be a string")),
                };
                let start = text("started_at", false)?.unwrap_or("");
                spans.push(Span {
                    item,
                    id: text("id", true)?.unwrap_or(""),
                    trace_id: text("trace_id", true)?.unwrap_or(""),
                    parent: text("parent_id", false)?,
                    start,
                    start_ms: ms_of(o.get("started_at")),
                    end_ms: ms_of(o.get("ended_at")),
                    kind,
                    data,
                    error: o.get("error").filter(|e| !e.is_null()),
                });
            }
            _ => {
                return Err(item
                    .err(source, "object", "must be \"trace\" or \"trace.span\"")
                    .with_hint(
                        "the file should hold the Agents SDK's trace and span export() dicts",
                    ))
            }
        }
    }
    let ids: Vec<&str> = spans.iter().map(|s| s.id).collect();
    let parents: Vec<Option<&str>> = spans.iter().map(|s| s.parent).collect();
    match check_parents(&ids, &parents) {
        Err(i) => {
            return Err(spans[i].item.err(
                source,
                "parent_id",
                format!("span {} is its own ancestor (a parent cycle)", spans[i].id),
            ))
        }
        Ok(missing) => {
            if let Some(&i) = missing.first() {
                if options.strict {
                    return Err(spans[i].item.err(
                        source,
                        "parent_id",
                        "names a span that is not in the file",
                    ));
                }
                a.warn(spans[i].item.line, "parent_id", format!("{} span(s) name a parent that is not in the file; they are ordered by start time", missing.len()));
            }
        }
    }
    // Traces in order of their first span's start (then id); spans by start, then id.
    spans.sort_by(|x, y| (x.start_ms, x.start, x.id).cmp(&(y.start_ms, y.start, y.id)));
    let mut order: Vec<&str> = Vec::new();
    for s in &spans {
        if !order.contains(&s.trace_id) {
            order.push(s.trace_id);
        }
    }
    let meta: HashMap<&str, &Map<String, Value>> = traces.iter().copied().collect();
    for trace_id in order {
        let t = meta.get(trace_id);
        let tag = |k: &str| {
            t.and_then(|t| t.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let mine: Vec<&Span> = spans.iter().filter(|s| s.trace_id == trace_id).collect();
        a.session(
            vec![
                ("workflow_name", tag("workflow_name")),
                ("group_id", tag("group_id")),
            ],
            Some(trace_id),
            mine.first().and_then(|s| s.start_ms),
            mine.first().and_then(|s| s.item.line),
        );
        read_trace(&mut a, &mine);
    }
    a.finish("Agents SDK trace export")
}

/// The records of one trace's spans (sorted).
fn read_trace(a: &mut Assembler, spans: &[&Span]) {
    // The function spans each model span caused: those under the same parent after it, before
    // the next model span there.
    let is_model = |s: &Span| s.kind == "generation" || s.kind == "response";
    let mut caused: Vec<Vec<usize>> = vec![Vec::new(); spans.len()];
    let mut last_model: HashMap<Option<&str>, usize> = HashMap::new();
    for (i, s) in spans.iter().enumerate() {
        if is_model(s) {
            last_model.insert(s.parent, i);
        } else if s.kind == "function" {
            if let Some(&m) = last_model.get(&s.parent) {
                caused[m].push(i);
            }
        }
    }
    let mut call_ids: HashMap<usize, String> = HashMap::new();
    for (i, s) in spans.iter().enumerate() {
        let d = s.data;
        let line = s.item.line;
        match s.kind {
            "generation" | "response" => {
                let model = d
                    .get("model")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let mut answer = Answer {
                    model: model.clone(),
                    latency_ms: span_ms(s.start_ms, s.end_ms),
                    ..Answer::default()
                };
                let out = output_message(d.get("output"));
                if let Some(m) = out {
                    answer.text.extend(text_of(m.get("content")));
                    if let Some(Value::Array(calls)) = m.get("tool_calls") {
                        for c in calls {
                            let f = c.get("function");
                            let name = f
                                .and_then(|f| f.get("name"))
                                .and_then(Value::as_str)
                                .unwrap_or("");
                            let id = c.get("id").and_then(Value::as_str).map(str::to_string);
                            answer.tool_uses.push((
                                id,
                                name.to_string(),
                                arguments_of(f.and_then(|f| f.get("arguments"))),
                            ));
                        }
                    }
                }
                // Tool calls not captured in the output come from the function spans it caused.
                let mut taken = vec![false; answer.tool_uses.len()];
                for &f in &caused[i] {
                    let fs = spans[f];
                    let name = fs.data.get("name").and_then(Value::as_str).unwrap_or("");
                    let found = answer
                        .tool_uses
                        .iter()
                        .enumerate()
                        .position(|(k, (_, n, _))| !taken[k] && n == name);
                    let id = match found {
                        Some(k) => {
                            taken[k] = true;
                            answer.tool_uses[k]
                                .0
                                .clone()
                                .unwrap_or_else(|| format!("call-{}", fs.id))
                        }
                        None if out.is_none() => {
                            let id = format!("call-{}", fs.id);
                            answer.tool_uses.push((
                                Some(id.clone()),
                                name.to_string(),
                                arguments_of(fs.data.get("input")),
                            ));
                            taken.push(true);
                            id
                        }
                        None => format!("call-{}", fs.id),
                    };
                    call_ids.insert(f, id);
                }
                if let Some(Value::Object(u)) = d.get("usage") {
                    let cached = u
                        .get("input_tokens_details")
                        .and_then(|x| x.get("cached_tokens"));
                    answer.usage = Some([
                        count(u.get("input_tokens").or_else(|| u.get("prompt_tokens"))),
                        count(
                            u.get("output_tokens")
                                .or_else(|| u.get("completion_tokens")),
                        ),
                        count(cached),
                        0,
                    ]);
                }
                if out.is_none() {
                    a.warn(line, "span_data.output", "model spans carry no captured output (response spans never do): text, verbosity and refusals cannot be judged; tool calls come from the function spans");
                }
                let messages = match d.get("input") {
                    Some(Value::Array(m)) => m.clone(),
                    Some(Value::String(t)) => vec![json!({"role": "user", "content": t})],
                    _ => Vec::new(),
                };
                a.push(
                    Kind::ChatRequest,
                    request_payload(&model, messages, Vec::new()),
                    s.start_ms,
                    line,
                );
                a.push(
                    Kind::ChatResponse,
                    answer.payload(),
                    s.end_ms.or(s.start_ms),
                    line,
                );
                if let Some(e) = s.error {
                    a.push(Kind::Error, error_payload("llm", e), s.end_ms, line);
                }
            }
            "function" => {
                let name = d.get("name").and_then(Value::as_str).unwrap_or("");
                let id = call_ids
                    .get(&i)
                    .cloned()
                    .unwrap_or_else(|| format!("call-{}", s.id));
                a.push(
                    Kind::ToolCall,
                    tool_call_payload(name, &id, arguments_of(d.get("input"))),
                    s.start_ms,
                    line,
                );
                let (output, is_error) = match s.error {
                    Some(e) => (e.get("message").cloned().unwrap_or_else(|| e.clone()), true),
                    None => (d.get("output").cloned().unwrap_or(Value::Null), false),
                };
                let latency = span_ms(s.start_ms, s.end_ms);
                a.push(
                    Kind::ToolResult,
                    tool_result_payload(&id, output, is_error, latency),
                    s.end_ms,
                    line,
                );
            }
            "guardrail" | "handoff" => {
                let triggered = d.get("triggered").and_then(Value::as_bool).unwrap_or(false);
                let (category, name) = if s.kind == "guardrail" {
                    (
                        "guardrail",
                        format!(
                            "guardrail.{}",
                            if triggered { "triggered" } else { "passed" }
                        ),
                    )
                } else {
                    ("agents_sdk", "handoff".to_string())
                };
                let payload = json!({
                    "category": category,
                    "name": name,
                    "severity": if triggered { "warning" } else { "info" },
                    "attributes": Value::Object(d.clone()),
                });
                a.push(Kind::HarnessEvent, payload, s.start_ms, line);
            }
            _ => {}
        }
    }
}

/// The assistant message of a generation's `output` (a list of messages, or one message).
fn output_message(v: Option<&Value>) -> Option<&Map<String, Value>> {
    match v? {
        Value::Array(list) => list.iter().filter_map(Value::as_object).find(|m| {
            m.get("role")
                .and_then(Value::as_str)
                .is_none_or(|r| r == "assistant")
        }),
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// An `error` payload from a span's `error` (`{message, data}`).
fn error_payload(source: &str, e: &Value) -> Value {
    let message = e
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| e.to_string(), str::to_string);
    json!({"source": source, "code": "span_error", "message": message, "retriable": false})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::items_of_bytes;

    fn read_str(s: &str) -> Result<Trace, TraceError> {
        read(
            "a.jsonl",
            items_of_bytes("a.jsonl", s.as_bytes(), u64::MAX)?,
            &ReadOptions::default(),
        )
    }

    fn names(t: &Trace) -> Vec<String> {
        t.tool_calls().into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn sdk_written_exports_read_as_three_turns() {
        let fx = |f: &str| {
            std::fs::read_to_string(format!(
                "{}/../../tests/fixtures/formats/openai-agents/{f}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap()
        };
        for api in ["chat", "responses"] {
            let b = read_str(&fx(&format!("{api}-baseline.jsonl"))).unwrap();
            let c = read_str(&fx(&format!("{api}-candidate.jsonl"))).unwrap();
            assert_eq!(names(&b), ["search_orders", "refund_order"], "{api}");
            assert_eq!(names(&c), ["search_orders", "cancel_order"], "{api}");
            let turns = b.turns();
            assert_eq!(turns.len(), 3);
            assert_eq!(turns[0].tool_results.len(), 1, "{api}");
            let r = &b.records[turns[2].response];
            assert_eq!(r.payload["usage"]["input_tokens"], json!(200));
            if api == "chat" {
                assert_eq!(
                    r.payload["content"][0]["text"],
                    json!("Done: your order ORD-123 is handled.")
                );
                assert_eq!(
                    b.records[turns[0].response].payload["content"][0]["id"],
                    json!("call_0")
                );
                assert!(b.warnings.is_empty(), "{:?}", b.warnings);
            } else {
                assert_eq!(b.warnings.len(), 1);
            }
            assert!(b.trace_id().starts_with("trace_"));
        }
    }

    #[test]
    fn bad_spans_are_named() {
        let span = |id: &str, parent: &str| {
            format!("{{\"object\":\"trace.span\",\"id\":\"{id}\",\"trace_id\":\"t\",\"parent_id\":{parent},\"started_at\":null,\"span_data\":{{\"type\":\"function\",\"name\":\"f\"}}}}\n")
        };
        let e = read_str(&(span("a", "\"b\"") + &span("b", "\"a\""))).unwrap_err();
        assert!(e.message.contains("cycle"), "{e}");
        let t = read_str(&span("a", "\"zz\"")).unwrap();
        assert_eq!(t.warnings[0].field, "parent_id");
        let e = read_str(
            "{\"object\":\"trace.span\",\"id\":\"a\",\"trace_id\":\"t\",\"span_data\":[]}",
        )
        .unwrap_err();
        assert_eq!(e.field, "span_data");
        let e = read_str("{\"object\":\"trace.span\",\"id\":5,\"trace_id\":\"t\",\"span_data\":{\"type\":\"x\"}}").unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("id", Some(1)));
    }
}
