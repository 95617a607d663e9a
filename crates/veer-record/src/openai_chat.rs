//! OpenAI Chat Completions (`POST /v1/chat/completions`) in and out of the record: the request
//! and response bodies, the streamed chunks reassembled, and the bodies the proxy itself
//! answers with (errors, policy replacements) in the shapes the `openai` SDK parses.

use crate::payload::{
    int, params_of, response_payload, text_part, tool_use_part, RequestRecord, ToolResult,
};
use crate::sse::SseEvent;
use serde_json::{json, Map, Value};

/// The request record of a Chat Completions body.
pub fn request(body: &Map<String, Value>) -> RequestRecord {
    let mut messages = Vec::new();
    let mut tool_results = Vec::new();
    for m in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
        let role = if role == "developer" { "system" } else { role };
        if role == "tool" {
            let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
            let output = m.get("content").cloned().unwrap_or(Value::Null);
            tool_results.push(ToolResult {
                tool_call_id: id.to_string(),
                output: output.clone(),
                is_error: false,
            });
            messages.push(json!({"role": "tool", "content": [
                {"type": "tool_result", "tool_use_id": id, "content": output}
            ]}));
            continue;
        }
        let calls = m.get("tool_calls").and_then(Value::as_array);
        let content = match (m.get("content"), calls) {
            (c, Some(calls)) if !calls.is_empty() => {
                let mut parts = Vec::new();
                match c {
                    Some(Value::String(s)) if !s.is_empty() => parts.push(text_part(s)),
                    Some(Value::Array(a)) => parts.extend(a.iter().cloned()),
                    _ => {}
                }
                for call in calls {
                    let f = call.get("function");
                    parts.push(tool_use_part(
                        call.get("id").and_then(Value::as_str).unwrap_or(""),
                        f.and_then(|f| f.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or(""),
                        f.and_then(|f| f.get("arguments"))
                            .and_then(Value::as_str)
                            .unwrap_or(""),
                    ));
                }
                Value::Array(parts)
            }
            (Some(c), _) => c.clone(),
            (None, _) => Value::String(String::new()),
        };
        messages.push(json!({"role": role, "content": content}));
    }
    let tools: Vec<Value> = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| match t.get("function") {
            Some(f) => {
                let mut o = Map::new();
                o.insert("name".into(), f.get("name").cloned().unwrap_or(json!("")));
                if let Some(d) = f.get("description") {
                    o.insert("description".into(), d.clone());
                }
                o.insert(
                    "input_schema".into(),
                    f.get("parameters").cloned().unwrap_or(json!({})),
                );
                Value::Object(o)
            }
            None => t.clone(),
        })
        .collect();
    let mut payload = Map::new();
    payload.insert(
        "model".into(),
        body.get("model").cloned().unwrap_or(json!("")),
    );
    payload.insert("messages".into(), Value::Array(messages));
    payload.insert(
        "params".into(),
        params_of(
            body,
            &["model", "messages", "tools", "stream", "stream_options"],
        ),
    );
    if !tools.is_empty() {
        payload.insert("tools".into(), Value::Array(tools));
    }
    RequestRecord {
        payload: Value::Object(payload),
        tool_results,
        stream: body.get("stream").and_then(Value::as_bool) == Some(true),
        endpoint: None,
    }
}

fn stop_reason(finish: Option<&str>) -> &'static str {
    match finish {
        Some("tool_calls") | Some("function_call") => "tool_use",
        Some("length") => "max_tokens",
        Some("content_filter") => "content_filter",
        _ => "end_turn",
    }
}

fn usage(u: Option<&Value>) -> Value {
    let u = u.unwrap_or(&Value::Null);
    json!({
        "input_tokens": int(u.get("prompt_tokens")),
        "output_tokens": int(u.get("completion_tokens")),
        "thinking_tokens": int(u.pointer("/completion_tokens_details/reasoning_tokens")),
        "cache_read_input_tokens": int(u.pointer("/prompt_tokens_details/cached_tokens")),
    })
}

/// The response record of a (non-streamed) completion; only choice 0 is recorded.
pub fn response(body: &Value) -> Value {
    let choice = body.pointer("/choices/0");
    let msg = choice.and_then(|c| c.get("message"));
    let mut content = Vec::new();
    if let Some(t) = msg.and_then(|m| m.get("content")).and_then(Value::as_str) {
        if !t.is_empty() {
            content.push(text_part(t));
        }
    }
    if let Some(r) = msg.and_then(|m| m.get("refusal")).and_then(Value::as_str) {
        content.push(text_part(r));
    }
    for call in msg
        .and_then(|m| m.get("tool_calls"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let f = call.get("function");
        content.push(tool_use_part(
            call.get("id").and_then(Value::as_str).unwrap_or(""),
            f.and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .unwrap_or(""),
            f.and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
                .unwrap_or(""),
        ));
    }
    response_payload(
        body.get("model").and_then(Value::as_str).unwrap_or(""),
        content,
        stop_reason(
            choice
                .and_then(|c| c.get("finish_reason"))
                .and_then(Value::as_str),
        ),
        None,
        usage(body.get("usage")),
    )
}

#[derive(Debug, Default)]
struct StreamedCall {
    id: String,
    name: String,
    arguments: String,
}

/// Reassembles a streamed completion from its chunks.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    model: String,
    text: String,
    calls: Vec<StreamedCall>,
    finish: Option<String>,
    usage: Option<Value>,
    done: bool,
}

impl Assembler {
    /// Takes one event; an error names what was malformed.
    pub fn event(&mut self, ev: &SseEvent) -> Result<(), String> {
        if ev.data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value =
            serde_json::from_str(&ev.data).map_err(|e| format!("chunk is not JSON: {e}"))?;
        if let Some(err) = chunk.get("error") {
            return Err(format!("stream error: {err}"));
        }
        if let Some(m) = chunk.get("model").and_then(Value::as_str) {
            self.model = m.to_string();
        }
        if let Some(u) = chunk.get("usage").filter(|u| !u.is_null()) {
            self.usage = Some(u.clone());
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return Ok(());
        };
        if choice.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
            return Ok(());
        }
        if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(f.to_string());
        }
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        if let Some(t) = delta.get("content").and_then(Value::as_str) {
            self.text.push_str(t);
        }
        for tc in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let i = tc
                .get("index")
                .and_then(Value::as_u64)
                .map_or(self.calls.len(), |i| i as usize);
            if i > 1024 {
                return Err(format!("tool call index {i} out of range"));
            }
            while self.calls.len() <= i {
                self.calls.push(StreamedCall::default());
            }
            let call = &mut self.calls[i];
            if let Some(id) = tc.get("id").and_then(Value::as_str) {
                call.id = id.to_string();
            }
            let f = tc.get("function");
            if let Some(n) = f.and_then(|f| f.get("name")).and_then(Value::as_str) {
                call.name.push_str(n);
            }
            if let Some(a) = f.and_then(|f| f.get("arguments")).and_then(Value::as_str) {
                call.arguments.push_str(a);
            }
        }
        Ok(())
    }

    /// The response record once the stream ended; an error when it ended early.
    pub fn finish(self) -> Result<Value, String> {
        if !self.done && self.finish.is_none() {
            return Err("stream ended before the final chunk".into());
        }
        let mut content = Vec::new();
        if !self.text.is_empty() {
            content.push(text_part(&self.text));
        }
        for c in &self.calls {
            content.push(tool_use_part(&c.id, &c.name, &c.arguments));
        }
        Ok(response_payload(
            &self.model,
            content,
            stop_reason(self.finish.as_deref()),
            None,
            usage(self.usage.as_ref()),
        ))
    }
}

/// An error body the SDK raises (`{"error": {message, type, code}}`).
pub(crate) fn error_body(kind: &str, message: &str) -> Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": kind}})
}

/// A completion carrying the policy's replacement text.
pub(crate) fn replacement_body(model: &str, text: &str) -> Value {
    json!({
        "id": "chatcmpl-veer-policy",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop", "logprobs": null}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    })
}

/// The same replacement as a stream of chunks.
pub(crate) fn replacement_stream(model: &str, text: &str) -> Vec<u8> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-veer-policy", "object": "chat.completion.chunk", "created": 0,
               "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut out = Vec::new();
    for c in [
        chunk(json!({"role": "assistant", "content": text}), Value::Null),
        chunk(json!({}), json!("stop")),
    ] {
        out.extend_from_slice(format!("data: {c}\n\n").as_bytes());
    }
    out.extend_from_slice(b"data: [DONE]\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sse::EventReader;

    #[test]
    fn request_maps_tools_tool_calls_and_results() {
        let body = json!({
            "model": "gpt-4o", "temperature": 0.2, "max_completion_tokens": 50, "stream": true,
            "messages": [
                {"role": "user", "content": "refund 7"},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "lookup", "arguments": "{\"id\":7}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "{\"total\":3}"}
            ],
            "tools": [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
        });
        let r = request(body.as_object().unwrap());
        assert!(r.stream);
        assert_eq!(
            r.payload["params"],
            json!({"temperature": 0.2, "max_tokens": 50})
        );
        assert_eq!(
            r.payload["messages"][1]["content"][0],
            json!({"type": "tool_use", "id": "c1", "name": "lookup", "input": {"id": 7}})
        );
        assert_eq!(r.payload["tools"][0]["name"], "lookup");
        assert_eq!(r.tool_results.len(), 1);
        assert_eq!(r.tool_results[0].tool_call_id, "c1");
    }

    #[test]
    fn streamed_parallel_tool_calls_reassemble_like_the_whole_body() {
        let sse = concat!(
            "data: {\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"get\",\"arguments\":\"\"}}]}}]}\n\n",
            "data: {\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"put\",\"arguments\":\"{\\\"k\\\"\"}}]}}]}\n\n",
            "data: {\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"q\\\":1}\"}}]}}]}\n\n",
            "data: {\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\":2}\"}}]}}]}\n\n",
            "data: {\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"model\":\"gpt-4o\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":4}}\n\n",
            "data: [DONE]\n\n"
        );
        let mut reader = EventReader::new();
        let mut events = Vec::new();
        reader.feed(sse.as_bytes(), &mut events);
        let mut a = Assembler::default();
        for e in &events {
            a.event(e).unwrap();
        }
        let whole = json!({"model": "gpt-4o", "choices": [{"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "get", "arguments": "{\"q\":1}"}},
                {"id": "b", "type": "function", "function": {"name": "put", "arguments": "{\"k\":2}"}}]}}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 4}});
        assert_eq!(a.finish().unwrap(), response(&whole));
        assert_eq!(response(&whole)["stop_reason"], "tool_use");
    }

    #[test]
    fn a_cut_or_garbled_stream_is_an_error() {
        let mut a = Assembler::default();
        a.event(&SseEvent {
            name: String::new(),
            data: "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}".into(),
        })
        .unwrap();
        assert!(a.finish().is_err());
        let mut b = Assembler::default();
        assert!(b
            .event(&SseEvent {
                name: String::new(),
                data: "{not json".into()
            })
            .is_err());
    }
}
