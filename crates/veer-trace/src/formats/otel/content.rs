//! Captured message content of a model-call span, in whichever convention recorded it, as
//! `.agentlog` messages (`{role, content}`) and response content parts (`text`, `tool_use`,
//! `thinking`).
//!
//! Sources, first found wins: the current GenAI attributes (`gen_ai.input.messages`,
//! `gen_ai.output.messages`, `gen_ai.system_instructions`); OpenInference's indexed
//! `llm.input_messages.N.*` / `llm.output_messages.N.*`; OpenLLMetry's `gen_ai.prompt.N.*` /
//! `gen_ai.completion.N.*`; the v1.36-and-earlier span events (`gen_ai.*.message`,
//! `gen_ai.choice`, and the older `gen_ai.content.prompt` / `gen_ai.content.completion`).
//! Google ADK's `gcp.vertex.agent.llm_request` / `llm_response` JSON is read after the current
//! attributes, and Gemini's content shape (`{role: model, parts: [{function_call}, …]}`)
//! wherever messages are found; then the Vercel AI SDK's `ai.prompt.messages`,
//! `ai.response.text` and `ai.response.toolCalls`.

use super::attrs::{json_of, parse_json_text, to_json, Attrs, REDACTED};
use super::wire::{AnyValue, ArrayValue, Double, Event, Int64, KeyValue, KvList};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// What was captured of one model call.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Captured {
    /// Request messages in `.agentlog` shape, when input content was captured.
    pub input: Option<Vec<Value>>,
    /// Response content parts, when output content was captured.
    pub output: Option<Vec<Value>>,
    /// A finish reason found inside the output content.
    pub finish_reason: Option<String>,
}

/// Reads the captured content of a model-call span.
pub fn captured(attrs: Attrs<'_, '_>, events: &[Event<'_>]) -> Captured {
    let mut c = Captured::default();
    // Current conventions.
    let mut input: Vec<Value> = Vec::new();
    let mut has_input = false;
    if let Some(v) = attrs
        .get("gen_ai.system_instructions")
        .filter(|v| !redacted(v))
    {
        has_input = true;
        let parts = parts_of(&json_of(v));
        input.push(message("system", parts));
    }
    if let Some(v) = attrs.get("gen_ai.input.messages").filter(|v| !redacted(v)) {
        has_input = true;
        input.extend(messages_of(&json_of(v)));
    }
    if has_input {
        c.input = Some(input);
    }
    if let Some(v) = attrs.get("gen_ai.output.messages").filter(|v| !redacted(v)) {
        let msgs = json_of(v);
        let mut parts = Vec::new();
        for m in msgs.as_array().map(Vec::as_slice).unwrap_or_default() {
            parts.extend(parts_of(m.get("parts").unwrap_or(&Value::Null)));
            if c.finish_reason.is_none() {
                c.finish_reason = m
                    .get("finish_reason")
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
        }
        c.output = Some(parts);
    }
    // Google ADK's own attributes (JSON text; `{}` when ADK was told not to capture content).
    if c.input.is_none() {
        if let Some(Value::Object(req)) = adk_json(attrs, "gcp.vertex.agent.llm_request") {
            c.input = Some(adk_request(&req));
        }
    }
    if c.output.is_none() {
        if let Some(Value::Object(resp)) = adk_json(attrs, "gcp.vertex.agent.llm_response") {
            if let Some(content) = resp.get("content") {
                c.output = Some(
                    message_of(content)["content"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default(),
                );
            } else {
                c.output = Some(Vec::new());
            }
            if c.finish_reason.is_none() {
                c.finish_reason = resp
                    .get("finish_reason")
                    .or_else(|| resp.get("finishReason"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
        }
    }
    // The Vercel AI SDK: `ai.prompt.messages` (its prompt format), `ai.response.text` and
    // `ai.response.toolCalls`.
    if c.input.is_none() {
        if let Some(v) = attrs.get("ai.prompt.messages").filter(|v| !redacted(v)) {
            c.input = Some(messages_of(&json_of(v)));
        }
    }
    if c.output.is_none() {
        let text = attrs.str("ai.response.text");
        let calls = attrs.get("ai.response.toolCalls").map(json_of);
        if text.is_some() || calls.is_some() {
            let mut parts = Vec::new();
            if let Some(t) = text.filter(|t| !t.is_empty()) {
                parts.push(json!({"type": "text", "text": t}));
            }
            for call in calls
                .as_ref()
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                parts.push(json!({
                    "type": "tool_use",
                    "id": call.get("toolCallId").cloned().unwrap_or(Value::Null),
                    "name": call.get("toolName").cloned().unwrap_or(Value::Null),
                    "input": arguments(call.get("input").or_else(|| call.get("args"))),
                }));
            }
            c.output = Some(parts);
        }
    }
    // OpenInference, then OpenLLMetry.
    if c.input.is_none() {
        c.input = indexed(attrs, "llm.input_messages.")
            .map(|m| m.into_iter().map(|x| x.message()).collect());
    }
    if c.output.is_none() {
        c.output = indexed(attrs, "llm.output_messages.")
            .map(|m| m.into_iter().flat_map(|x| x.parts()).collect());
    }
    if c.input.is_none() {
        c.input =
            indexed(attrs, "gen_ai.prompt.").map(|m| m.into_iter().map(|x| x.message()).collect());
    }
    if c.output.is_none() {
        if let Some(ms) = indexed(attrs, "gen_ai.completion.") {
            c.finish_reason = c
                .finish_reason
                .take()
                .or_else(|| ms.iter().find_map(|m| m.finish_reason.clone()));
            c.output = Some(ms.into_iter().flat_map(|x| x.parts()).collect());
        }
    }
    // Span events (v1.36 and earlier), or the same events as pydantic-ai's first
    // instrumentation format wrote them: one `events` attribute, a JSON list of objects named
    // by their `event.name`.
    let packed = (c.input.is_none() || c.output.is_none())
        .then(|| attrs.get("events").map(json_of).map(|v| packed_events(&v)))
        .flatten()
        .filter(|e| !e.is_empty());
    let events = packed.as_deref().unwrap_or(events);
    if c.input.is_none() || c.output.is_none() {
        let (ein, eout, efinish) = from_events(events);
        if c.input.is_none() {
            c.input = ein;
        }
        if c.output.is_none() {
            c.output = eout;
            c.finish_reason = c.finish_reason.take().or(efinish);
        }
    }
    c
}

/// An ADK attribute's JSON object, `None` when absent, not JSON, or the empty `{}` ADK writes
/// when content capture is off.
fn adk_json(attrs: Attrs<'_, '_>, key: &str) -> Option<Value> {
    let v = attrs.get(key).filter(|v| !redacted(v)).map(json_of)?;
    match &v {
        Value::Object(o) if !o.is_empty() => Some(v),
        _ => None,
    }
}

/// The messages of an ADK `llm_request` (`{model, config: {system_instruction}, contents:
/// [Gemini contents]}`): the system instruction first, then each content.
fn adk_request(req: &Map<String, Value>) -> Vec<Value> {
    let mut out = Vec::new();
    let system = req.get("config").and_then(|c| {
        c.get("system_instruction")
            .or_else(|| c.get("systemInstruction"))
    });
    match system {
        Some(Value::String(s)) if !s.is_empty() => {
            out.push(message("system", parts_of(&Value::String(s.clone()))));
        }
        Some(v @ Value::Object(_)) => {
            let m = message_of(v);
            out.push(message(
                "system",
                m["content"].as_array().cloned().unwrap_or_default(),
            ));
        }
        _ => {}
    }
    if let Some(Value::Array(contents)) = req.get("contents") {
        out.extend(contents.iter().map(message_of));
    }
    out
}

fn redacted(v: &AnyValue<'_>) -> bool {
    v.string_value.as_deref() == Some(REDACTED)
}

/// An `.agentlog` message, built by moving `parts` in (`json!` would copy them).
fn message(role: &str, parts: Vec<Value>) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), Value::String(role.to_string()));
    m.insert("content".into(), Value::Array(parts));
    Value::Object(m)
}

/// A list of GenAI messages (`[{role, parts | content, tool_calls}]`) as `.agentlog` messages.
fn messages_of(v: &Value) -> Vec<Value> {
    v.as_array()
        .map(|a| a.iter().map(message_of).collect())
        .unwrap_or_default()
}

/// One message in any of the shapes seen: GenAI `{role, parts}`, OpenAI `{role, content,
/// tool_calls}`, Anthropic `{role, content: [blocks]}`.
fn message_of(m: &Value) -> Value {
    // Gemini names the assistant `model`.
    let role = match m.get("role").and_then(Value::as_str) {
        Some("model") => "assistant",
        Some(r) => r,
        None => "user",
    };
    let mut parts = Vec::new();
    if let Some(p) = m.get("parts") {
        parts.extend(parts_of(p));
    }
    if let Some(c) = m.get("content") {
        parts.extend(parts_of(c));
    }
    if let Some(tc) = m.get("tool_calls") {
        parts.extend(openai_tool_calls(tc));
    }
    message(role, parts)
}

/// Content parts from a parts list, a block list, or a plain string.
fn parts_of(v: &Value) -> Vec<Value> {
    match v {
        Value::String(s) if s.is_empty() => Vec::new(),
        Value::String(s) => match parse_json_text(s) {
            Value::Array(a) if a.iter().all(|p| p.get("type").is_some()) => {
                a.iter().filter_map(part_of).collect()
            }
            _ => vec![json!({"type": "text", "text": s})],
        },
        Value::Array(a) => a.iter().filter_map(part_of).collect(),
        Value::Object(_) => part_of(v).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// One part: GenAI (`text`/`tool_call`/`tool_call_response`/`reasoning`), Anthropic
/// (`text`/`tool_use`/`tool_result`/`thinking`) or OpenAI (`text`) as an `.agentlog` part.
fn part_of(p: &Value) -> Option<Value> {
    if let Value::String(s) = p {
        return Some(json!({"type": "text", "text": s}));
    }
    let o = p.as_object()?;
    if !o.contains_key("type") {
        if let Some(part) = gemini_part(o) {
            return Some(part);
        }
    }
    let ty = o.get("type").and_then(Value::as_str).unwrap_or("text");
    let text = || {
        o.get("content")
            .or_else(|| o.get("text"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    Some(match ty {
        "text" => json!({"type": "text", "text": text()}),
        "tool_call" | "tool_use" | "function_call" => json!({
            "type": "tool_use",
            "id": o.get("id").cloned().unwrap_or(Value::Null),
            "name": o.get("name").cloned().unwrap_or(Value::Null),
            "input": arguments(o.get("arguments").or_else(|| o.get("input"))),
        }),
        // The Vercel AI SDK's prompt parts.
        "tool-call" => json!({
            "type": "tool_use",
            "id": o.get("toolCallId").cloned().unwrap_or(Value::Null),
            "name": o.get("toolName").cloned().unwrap_or(Value::Null),
            "input": arguments(o.get("input").or_else(|| o.get("args"))),
        }),
        "tool-result" => json!({
            "type": "tool_result",
            "tool_use_id": o.get("toolCallId").cloned().unwrap_or(Value::Null),
            "content": o.get("output").or_else(|| o.get("result")).cloned().unwrap_or(Value::Null),
        }),
        "tool_call_response" | "tool_result" => json!({
            "type": "tool_result",
            "tool_use_id": o.get("id").or_else(|| o.get("tool_use_id")).cloned().unwrap_or(Value::Null),
            "content": o.get("response").or_else(|| o.get("result")).or_else(|| o.get("content")).cloned().unwrap_or(Value::Null),
        }),
        "reasoning" | "thinking" => {
            json!({"type": "thinking", "text": o.get("content").or_else(|| o.get("thinking")).or_else(|| o.get("text")).and_then(Value::as_str).unwrap_or("")})
        }
        _ => Value::Object(o.clone()),
    })
}

/// A Gemini part (`{text}`, `{function_call: {id, name, args}}`, `{function_response: {id,
/// name, response}}`, either spelling, `thought: true` for thinking) as an `.agentlog` part;
/// `None` when it is none of these.
fn gemini_part(o: &Map<String, Value>) -> Option<Value> {
    let field = |a: &str, b: &str| o.get(a).or_else(|| o.get(b)).filter(|v| !v.is_null());
    if let Some(fc) = field("function_call", "functionCall") {
        return Some(json!({
            "type": "tool_use",
            "id": fc.get("id").cloned().unwrap_or(Value::Null),
            "name": fc.get("name").cloned().unwrap_or(Value::Null),
            "input": arguments(fc.get("args")),
        }));
    }
    if let Some(fr) = field("function_response", "functionResponse") {
        return Some(json!({
            "type": "tool_result",
            "tool_use_id": fr.get("id").or_else(|| fr.get("name")).cloned().unwrap_or(Value::Null),
            "content": fr.get("response").cloned().unwrap_or(Value::Null),
        }));
    }
    let text = o.get("text").and_then(Value::as_str)?;
    if o.get("thought").and_then(Value::as_bool) == Some(true) {
        return Some(json!({"type": "thinking", "text": text}));
    }
    Some(json!({"type": "text", "text": text}))
}

/// Tool arguments: JSON text is parsed; absent is `{}`.
pub fn arguments(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => parse_json_text(s),
        Some(v) => v.clone(),
        None => Value::Object(Map::new()),
    }
}

/// OpenAI-shaped tool calls (`[{id, function: {name, arguments}}]`) as `tool_use` parts.
fn openai_tool_calls(v: &Value) -> Vec<Value> {
    let list = match v {
        Value::String(s) => parse_json_text(s),
        other => other.clone(),
    };
    list.as_array()
        .map(|a| {
            a.iter()
                .map(|tc| {
                    let f = tc.get("function").unwrap_or(tc);
                    json!({
                        "type": "tool_use",
                        "id": tc.get("id").cloned().unwrap_or(Value::Null),
                        "name": f.get("name").cloned().unwrap_or(Value::Null),
                        "input": arguments(f.get("arguments")),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One message assembled from indexed attributes.
#[derive(Debug, Default)]
struct Indexed {
    role: Option<String>,
    content: Option<Value>,
    texts: BTreeMap<usize, String>,
    tool_calls: BTreeMap<usize, Map<String, Value>>,
    tool_call_id: Option<String>,
    finish_reason: Option<String>,
}

impl Indexed {
    fn parts(self) -> Vec<Value> {
        let mut parts = Vec::new();
        if let Some(c) = &self.content {
            parts.extend(parts_of(c));
        }
        parts.extend(
            self.texts
                .into_values()
                .map(|t| json!({"type": "text", "text": t})),
        );
        for (_, tc) in self.tool_calls {
            parts.push(json!({
                "type": "tool_use",
                "id": tc.get("id").cloned().unwrap_or(Value::Null),
                "name": tc.get("name").cloned().unwrap_or(Value::Null),
                "input": arguments(tc.get("arguments")),
            }));
        }
        parts
    }

    fn message(self) -> Value {
        let role = self.role.clone().unwrap_or_else(|| "user".to_string());
        let tool_call_id = self.tool_call_id.clone();
        let mut parts = self.parts();
        if let (Some(id), "tool") = (tool_call_id, role.as_str()) {
            let content = std::mem::take(&mut parts);
            parts.push(json!({"type": "tool_result", "tool_use_id": id, "content": content}));
        }
        message(&role, parts)
    }
}

/// Messages from indexed attributes under `prefix` (`llm.input_messages.`, `gen_ai.prompt.`,
/// …), ordered by index; `None` when there are none or all are redacted.
fn indexed(attrs: Attrs<'_, '_>, prefix: &str) -> Option<Vec<Indexed>> {
    let mut out: BTreeMap<usize, Indexed> = BTreeMap::new();
    for (rest, v) in attrs.with_prefix(prefix) {
        if redacted(v) {
            continue;
        }
        let Some((n, field)) = rest.split_once('.') else {
            continue;
        };
        let Ok(n) = n.parse::<usize>() else { continue };
        let m = out.entry(n).or_default();
        let field = field.strip_prefix("message.").unwrap_or(field);
        let s = || v.string_value.as_deref().map(str::to_string);
        match field {
            "role" => m.role = s(),
            "content" => m.content = Some(to_json(v)),
            "tool_call_id" => m.tool_call_id = s(),
            "finish_reason" => m.finish_reason = s(),
            _ => {
                if let Some(rest) = field.strip_prefix("contents.") {
                    if let Some((k, f)) = rest.split_once('.') {
                        if f.ends_with("text") {
                            if let (Ok(k), Some(t)) = (k.parse::<usize>(), s()) {
                                m.texts.insert(k, t);
                            }
                        }
                    }
                } else if let Some(rest) = field.strip_prefix("tool_calls.") {
                    if let Some((k, f)) = rest.split_once('.') {
                        let f = f.strip_prefix("tool_call.").unwrap_or(f);
                        let f = f.strip_prefix("function.").unwrap_or(f);
                        if let Ok(k) = k.parse::<usize>() {
                            m.tool_calls
                                .entry(k)
                                .or_default()
                                .insert(f.to_string(), to_json(v));
                        }
                    }
                }
            }
        }
    }
    (!out.is_empty()).then(|| out.into_values().collect())
}

/// pydantic-ai's packed events (`[{"event.name": "gen_ai.user.message", "content": …}, …]`) as
/// span events; empty when `v` is not such a list.
fn packed_events(v: &Value) -> Vec<Event<'static>> {
    let Some(list) = v.as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|e| {
            let o = e.as_object()?;
            let name = o.get("event.name")?.as_str()?.to_string();
            let attributes = o
                .iter()
                .filter(|(k, _)| k.as_str() != "event.name")
                .map(|(k, v)| KeyValue {
                    key: std::borrow::Cow::Owned(k.clone()),
                    value: any_value(v),
                })
                .collect();
            Some(Event {
                name: std::borrow::Cow::Owned(name),
                attributes,
            })
        })
        .collect()
}

/// A JSON value as an OTLP `AnyValue` (objects as key-value lists), so that [`to_json`] gives
/// it back.
fn any_value(v: &Value) -> AnyValue<'static> {
    let mut out = AnyValue::default();
    match v {
        Value::Null => {}
        Value::Bool(b) => out.bool_value = Some(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => out.int_value = Some(Int64(i)),
            None => out.double_value = n.as_f64().map(Double),
        },
        Value::String(s) => out.string_value = Some(std::borrow::Cow::Owned(s.clone())),
        Value::Array(a) => {
            out.array_value = Some(ArrayValue {
                values: a.iter().map(any_value).collect(),
            })
        }
        Value::Object(o) => {
            out.kvlist_value = Some(KvList {
                values: o
                    .iter()
                    .map(|(k, v)| KeyValue {
                        key: std::borrow::Cow::Owned(k.clone()),
                        value: any_value(v),
                    })
                    .collect(),
            })
        }
    }
    out
}

/// Content from span events: (input messages, output parts, finish reason).
fn from_events(events: &[Event<'_>]) -> (Option<Vec<Value>>, Option<Vec<Value>>, Option<String>) {
    let mut input: Vec<Value> = Vec::new();
    let mut output: Vec<Value> = Vec::new();
    let (mut has_in, mut has_out) = (false, false);
    let mut finish = None;
    for e in events {
        let a = Attrs {
            list: &e.attributes,
        };
        // The event body, when an exporter put it in one attribute.
        let body = a
            .get("gen_ai.event.content")
            .or_else(|| a.get("event.body"))
            .map(json_of);
        let field = |k: &str| -> Option<Value> {
            body.as_ref()
                .and_then(|b| b.get(k).cloned())
                .or_else(|| a.get(k).map(json_of))
        };
        let role = match e.name.as_ref() {
            "gen_ai.system.message" => Some("system"),
            "gen_ai.user.message" => Some("user"),
            "gen_ai.assistant.message" => Some("assistant"),
            "gen_ai.tool.message" => Some("tool"),
            _ => None,
        };
        if let Some(role) = role {
            has_in = true;
            let mut m = Map::new();
            m.insert("role".into(), Value::String(role.into()));
            let content = field("content");
            // Gemini's content (`{role, parts}`, ADK's events) is a message of its own.
            let gemini = content
                .as_ref()
                .filter(|c| c.get("parts").is_some())
                .map(message_of);
            if let Some(c) = content {
                m.insert("content".into(), c);
            }
            if let Some(tc) = field("tool_calls") {
                m.insert("tool_calls".into(), tc);
            }
            let mut msg = gemini.unwrap_or_else(|| message_of(&Value::Object(m)));
            if let (Some(Value::String(id)), "tool") = (field("id"), role) {
                let content = msg["content"].take();
                msg["content"] =
                    json!([{"type": "tool_result", "tool_use_id": id, "content": content}]);
            }
            input.push(msg);
        } else if e.name == "gen_ai.choice" {
            has_out = true;
            // OpenAI's `message`, or Gemini's `content` (`{role, parts}`).
            let message = field("message")
                .or_else(|| field("content").filter(Value::is_object))
                .unwrap_or(Value::Null);
            let m = message_of(&message);
            output.extend(m["content"].as_array().cloned().unwrap_or_default());
            if finish.is_none() {
                finish = field("finish_reason").and_then(|v| v.as_str().map(str::to_string));
            }
        } else if e.name == "gen_ai.content.prompt" {
            if let Some(p) = a.get("gen_ai.prompt") {
                has_in = true;
                match json_of(p) {
                    v @ Value::Array(_) => input.extend(messages_of(&v)),
                    other => input.push(message("user", parts_of(&other))),
                }
            }
        } else if e.name == "gen_ai.content.completion" {
            if let Some(p) = a.get("gen_ai.completion") {
                has_out = true;
                match json_of(p) {
                    Value::Array(a) => {
                        for m in &a {
                            output.extend(
                                message_of(m)["content"]
                                    .as_array()
                                    .cloned()
                                    .unwrap_or_default(),
                            );
                        }
                    }
                    other => output.extend(parts_of(&other)),
                }
            }
        }
    }
    (has_in.then_some(input), has_out.then_some(output), finish)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::otel::wire::{Event, KeyValue};

    fn kv(json: &str) -> Vec<KeyValue<'_>> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn openllmetry_prompt_and_completion_attributes() {
        let list = kv(r#"[
            {"key":"gen_ai.prompt.0.role","value":{"stringValue":"user"}},
            {"key":"gen_ai.prompt.0.content","value":{"stringValue":"refund A-1"}},
            {"key":"gen_ai.completion.0.role","value":{"stringValue":"assistant"}},
            {"key":"gen_ai.completion.0.finish_reason","value":{"stringValue":"tool_calls"}},
            {"key":"gen_ai.completion.0.tool_calls.0.id","value":{"stringValue":"c1"}},
            {"key":"gen_ai.completion.0.tool_calls.0.name","value":{"stringValue":"lookup"}},
            {"key":"gen_ai.completion.0.tool_calls.0.arguments","value":{"stringValue":"{\"id\":1}"}}]"#);
        let c = captured(Attrs { list: &list }, &[]);
        assert_eq!(
            c.input,
            Some(vec![
                json!({"role":"user","content":[{"type":"text","text":"refund A-1"}]})
            ])
        );
        assert_eq!(
            c.output,
            Some(vec![
                json!({"type":"tool_use","id":"c1","name":"lookup","input":{"id":1}})
            ])
        );
        assert_eq!(c.finish_reason.as_deref(), Some("tool_calls"));
    }

    #[test]
    fn span_events_of_the_older_conventions() {
        let events: Vec<Event> = serde_json::from_str(
            r#"[{"name":"gen_ai.system.message","attributes":[{"key":"content","value":{"stringValue":"be brief"}}]},
                {"name":"gen_ai.user.message","attributes":[{"key":"content","value":{"stringValue":"hi"}}]},
                {"name":"gen_ai.choice","attributes":[{"key":"finish_reason","value":{"stringValue":"stop"}},
                  {"key":"message","value":{"kvlistValue":{"values":[{"key":"content","value":{"stringValue":"hello"}}]}}}]}]"#,
        )
        .unwrap();
        let c = captured(Attrs { list: &[] }, &events);
        assert_eq!(c.input.as_ref().map(Vec::len), Some(2));
        assert_eq!(c.output, Some(vec![json!({"type":"text","text":"hello"})]));
        assert_eq!(c.finish_reason.as_deref(), Some("stop"));
    }

    #[test]
    fn nothing_captured_and_redacted_content() {
        let list = kv(
            r#"[{"key":"input.value","value":{"stringValue":"__REDACTED__"}},
                         {"key":"gen_ai.output.messages","value":{"stringValue":"__REDACTED__"}}]"#,
        );
        assert_eq!(captured(Attrs { list: &list }, &[]), Captured::default());
    }
}
