//! OpenAI Responses (`POST /v1/responses`) in and out of the record: `instructions` and `input`
//! items become messages, `function_call_output` items become tool results, `output` items
//! become text and tool-use parts; a stream is reassembled from its `response.completed`
//! event, which carries the whole response.

use crate::payload::{
    int, params_of, response_payload, text_part, tool_use_part, RequestRecord, ToolResult,
};
use crate::sse::SseEvent;
use serde_json::{json, Map, Value};

fn item_text(content: &Value) -> Value {
    match content {
        Value::Array(parts) => Value::Array(
            parts
                .iter()
                .map(
                    |p| match (p.get("type").and_then(Value::as_str), p.get("text")) {
                        (Some("input_text" | "output_text"), Some(t)) => {
                            json!({"type": "text", "text": t})
                        }
                        _ => p.clone(),
                    },
                )
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The request record of a Responses body.
pub fn request(body: &Map<String, Value>) -> RequestRecord {
    let mut messages = Vec::new();
    let mut tool_results = Vec::new();
    if let Some(i) = body.get("instructions").and_then(Value::as_str) {
        messages.push(json!({"role": "system", "content": i}));
    }
    match body.get("input") {
        Some(Value::String(s)) => messages.push(json!({"role": "user", "content": s})),
        Some(Value::Array(items)) => {
            for item in items {
                match item.get("type").and_then(Value::as_str) {
                    Some("function_call") => {
                        messages.push(json!({"role": "assistant", "content": [
                        tool_use_part(
                            item.get("call_id").and_then(Value::as_str).unwrap_or(""),
                            item.get("name").and_then(Value::as_str).unwrap_or(""),
                            item.get("arguments").and_then(Value::as_str).unwrap_or(""),
                        )]}))
                    }
                    Some("function_call_output") => {
                        let id = item.get("call_id").and_then(Value::as_str).unwrap_or("");
                        let output = item.get("output").cloned().unwrap_or(json!(""));
                        tool_results.push(ToolResult {
                            tool_call_id: id.to_string(),
                            output: output.clone(),
                            is_error: false,
                        });
                        messages.push(json!({"role": "tool", "content": [
                            {"type": "tool_result", "tool_use_id": id, "content": output}]}));
                    }
                    _ => {
                        let role = item.get("role").and_then(Value::as_str).unwrap_or("user");
                        let role = if role == "developer" { "system" } else { role };
                        messages.push(json!({"role": role,
                            "content": item_text(item.get("content").unwrap_or(&json!("")))}));
                    }
                }
            }
        }
        _ => {}
    }
    let tools: Vec<Value> = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| {
            if t.get("type").and_then(Value::as_str) == Some("function") {
                let mut o = Map::new();
                o.insert("name".into(), t.get("name").cloned().unwrap_or(json!("")));
                if let Some(d) = t.get("description") {
                    o.insert("description".into(), d.clone());
                }
                o.insert(
                    "input_schema".into(),
                    t.get("parameters").cloned().unwrap_or(json!({})),
                );
                Value::Object(o)
            } else {
                t.clone()
            }
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
        params_of(body, &["model", "input", "instructions", "tools", "stream"]),
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

/// The response record of a (non-streamed) response object.
pub fn response(body: &Value) -> Value {
    let mut content = Vec::new();
    for item in body
        .get("output")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for p in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let text = p.get("text").or_else(|| p.get("refusal"));
                    if let Some(t) = text.and_then(Value::as_str) {
                        content.push(text_part(t));
                    }
                }
            }
            Some("function_call") => content.push(tool_use_part(
                item.get("call_id").and_then(Value::as_str).unwrap_or(""),
                item.get("name").and_then(Value::as_str).unwrap_or(""),
                item.get("arguments").and_then(Value::as_str).unwrap_or(""),
            )),
            Some("reasoning") => {
                let text: Vec<&str> = item
                    .get("summary")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.get("text").and_then(Value::as_str))
                    .collect();
                content.push(json!({"type": "thinking", "text": text.join("\n")}));
            }
            _ => {}
        }
    }
    let has_call = content
        .iter()
        .any(|p| p.get("type").and_then(Value::as_str) == Some("tool_use"));
    let stop = match (
        body.get("status").and_then(Value::as_str),
        body.pointer("/incomplete_details/reason")
            .and_then(Value::as_str),
    ) {
        (Some("incomplete"), Some("max_output_tokens")) => "max_tokens",
        (Some("incomplete"), Some("content_filter")) => "content_filter",
        _ if has_call => "tool_use",
        _ => "end_turn",
    };
    let u = body.get("usage").unwrap_or(&Value::Null);
    response_payload(
        body.get("model").and_then(Value::as_str).unwrap_or(""),
        content,
        stop,
        None,
        json!({
            "input_tokens": int(u.get("input_tokens")),
            "output_tokens": int(u.get("output_tokens")),
            "thinking_tokens": int(u.pointer("/output_tokens_details/reasoning_tokens")),
            "cache_read_input_tokens": int(u.pointer("/input_tokens_details/cached_tokens")),
        }),
    )
}

/// Reassembles a streamed response from its `response.completed` event.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    completed: Option<Value>,
}

impl Assembler {
    /// Takes one event; an error names what was malformed.
    pub fn event(&mut self, ev: &SseEvent) -> Result<(), String> {
        let data: Value =
            serde_json::from_str(&ev.data).map_err(|e| format!("event is not JSON: {e}"))?;
        match data.get("type").and_then(Value::as_str) {
            Some("response.completed" | "response.incomplete") => {
                self.completed = data.get("response").cloned();
            }
            Some("response.failed" | "error") => {
                return Err(format!("stream error: {data}"));
            }
            _ => {}
        }
        Ok(())
    }

    /// The response record once the stream ended; an error when it ended early.
    pub fn finish(self) -> Result<Value, String> {
        self.completed
            .map(|r| response(&r))
            .ok_or_else(|| "stream ended before response.completed".into())
    }
}

/// A response object carrying the policy's replacement text.
pub(crate) fn replacement_body(model: &str, text: &str) -> Value {
    json!({
        "id": "resp_veer_policy", "object": "response", "created_at": 0, "status": "completed",
        "model": model, "error": null, "incomplete_details": null,
        "output": [{"type": "message", "id": "msg_veer_policy", "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0,
                  "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    })
}

/// The same replacement as a stream of events, in the order the API sends them (the SDKs'
/// stream helpers need each output item and content part announced before its deltas).
pub(crate) fn replacement_stream(model: &str, text: &str) -> Vec<u8> {
    let done = replacement_body(model, text);
    let mut created = done.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    let item = done["output"][0].clone();
    let part = item["content"][0].clone();
    let mut open_item = item.clone();
    open_item["status"] = json!("in_progress");
    open_item["content"] = json!([]);
    let mut empty_part = part.clone();
    empty_part["text"] = json!("");
    let at = json!({"item_id": "msg_veer_policy", "output_index": 0, "content_index": 0});
    let with = |kind: &str, extra: Value| {
        let mut v = at.clone();
        v["type"] = json!(kind);
        if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
            o.extend(e);
        }
        v
    };
    let events = [
        json!({"type": "response.created", "response": created}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": open_item}),
        with("response.content_part.added", json!({"part": empty_part})),
        with(
            "response.output_text.delta",
            json!({"delta": text, "logprobs": []}),
        ),
        with(
            "response.output_text.done",
            json!({"text": text, "logprobs": []}),
        ),
        with("response.content_part.done", json!({"part": part})),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": done}),
    ];
    let mut out = Vec::new();
    for (n, mut data) in events.into_iter().enumerate() {
        data["sequence_number"] = json!(n);
        let name = data["type"].as_str().unwrap_or("").to_string();
        out.extend_from_slice(format!("event: {name}\ndata: {data}\n\n").as_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_items_and_output_items_map_to_the_model() {
        let body = json!({"model": "gpt-5", "instructions": "be brief", "max_output_tokens": 9,
            "input": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                      {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                      {"type": "function_call_output", "call_id": "c1", "output": "42"}],
            "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}]});
        let r = request(body.as_object().unwrap());
        assert_eq!(r.payload["messages"][0]["role"], "system");
        assert_eq!(r.payload["messages"][1]["content"][0]["text"], "hi");
        assert_eq!(r.payload["params"], json!({"max_tokens": 9}));
        assert_eq!(r.tool_results[0].output, json!("42"));
        let out = json!({"model": "gpt-5", "status": "completed", "output": [
            {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{\"a\":1}"}],
            "usage": {"input_tokens": 3, "output_tokens": 2}});
        let p = response(&out);
        assert_eq!(p["stop_reason"], "tool_use");
        assert_eq!(p["content"][0]["input"], json!({"a": 1}));
        assert_eq!(p["usage"]["input_tokens"], 3);
    }

    #[test]
    fn replacement_stream_reassembles_to_its_text() {
        let mut r = crate::sse::EventReader::new();
        let mut events = Vec::new();
        r.feed(&replacement_stream("m", "blocked"), &mut events);
        let mut a = Assembler::default();
        for e in &events {
            a.event(e).unwrap();
        }
        assert_eq!(a.finish().unwrap()["content"][0]["text"], "blocked");
    }
}
