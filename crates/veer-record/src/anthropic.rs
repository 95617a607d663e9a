//! Anthropic Messages (`POST /v1/messages`) in and out of the record: the request and response
//! bodies, the streamed events reassembled, and the bodies the proxy itself answers with
//! (errors, policy replacements) in the shapes the `anthropic` SDK parses. The record's part
//! model is Anthropic's, so most of a body maps over unchanged.

use crate::payload::{int, params_of, response_payload, text_part, RequestRecord, ToolResult};
use crate::sse::SseEvent;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The request record of a Messages body; `system` becomes the first message.
pub fn request(body: &Map<String, Value>) -> RequestRecord {
    let mut messages = Vec::new();
    let mut tool_results = Vec::new();
    match body.get("system") {
        Some(Value::String(s)) => messages.push(json!({"role": "system", "content": s})),
        Some(Value::Array(parts)) => messages.push(json!({"role": "system", "content": parts})),
        _ => {}
    }
    for m in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(parts) = m.get("content").and_then(Value::as_array) {
            for p in parts {
                if p.get("type").and_then(Value::as_str) == Some("tool_result") {
                    tool_results.push(ToolResult {
                        tool_call_id: p
                            .get("tool_use_id")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        output: p.get("content").cloned().unwrap_or(json!("")),
                        is_error: p.get("is_error").and_then(Value::as_bool) == Some(true),
                    });
                }
            }
        }
        messages.push(json!({
            "role": m.get("role").cloned().unwrap_or(json!("user")),
            "content": m.get("content").cloned().unwrap_or(json!("")),
        }));
    }
    let mut payload = Map::new();
    payload.insert(
        "model".into(),
        body.get("model").cloned().unwrap_or(json!("")),
    );
    payload.insert("messages".into(), Value::Array(messages));
    payload.insert(
        "params".into(),
        params_of(body, &["model", "messages", "system", "tools", "stream"]),
    );
    if let Some(tools) = body
        .get("tools")
        .and_then(Value::as_array)
        .filter(|t| !t.is_empty())
    {
        payload.insert("tools".into(), Value::Array(tools.clone()));
    }
    RequestRecord {
        payload: Value::Object(payload),
        tool_results,
        stream: body.get("stream").and_then(Value::as_bool) == Some(true),
        endpoint: None,
    }
}

fn usage(u: &Value) -> Value {
    json!({
        "input_tokens": int(u.get("input_tokens")),
        "output_tokens": int(u.get("output_tokens")),
        "thinking_tokens": 0,
        "cache_read_input_tokens": int(u.get("cache_read_input_tokens")),
        "cache_creation_input_tokens": int(u.get("cache_creation_input_tokens")),
    })
}

fn part(block: &Value) -> Value {
    match block.get("type").and_then(Value::as_str) {
        Some("thinking") => json!({"type": "thinking",
            "text": block.get("thinking").cloned().unwrap_or(json!(""))}),
        _ => block.clone(),
    }
}

/// The response record of a (non-streamed) message.
pub fn response(body: &Value) -> Value {
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(part).collect())
        .unwrap_or_default();
    response_payload(
        body.get("model").and_then(Value::as_str).unwrap_or(""),
        content,
        body.get("stop_reason")
            .and_then(Value::as_str)
            .unwrap_or("end_turn"),
        body.get("stop_sequence"),
        usage(body.get("usage").unwrap_or(&Value::Null)),
    )
}

#[derive(Debug)]
struct Block {
    start: Value,
    text: String,
    json: String,
}

/// Reassembles a streamed message from its events.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    message: Option<Value>,
    blocks: BTreeMap<u64, Block>,
    stop_reason: Option<Value>,
    stop_sequence: Option<Value>,
    output_tokens: Option<u64>,
    stopped: bool,
}

impl Assembler {
    /// Takes one event; an error names what was malformed.
    pub fn event(&mut self, ev: &SseEvent) -> Result<(), String> {
        let data: Value =
            serde_json::from_str(&ev.data).map_err(|e| format!("event is not JSON: {e}"))?;
        let kind = data.get("type").and_then(Value::as_str).unwrap_or("");
        let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => self.message = data.get("message").cloned(),
            "content_block_start" => {
                let start = data.get("content_block").cloned().unwrap_or(Value::Null);
                self.blocks.insert(
                    index,
                    Block {
                        start,
                        text: String::new(),
                        json: String::new(),
                    },
                );
            }
            "content_block_delta" => {
                let block = self
                    .blocks
                    .get_mut(&index)
                    .ok_or_else(|| format!("delta for block {index} before its start"))?;
                let d = data.get("delta").unwrap_or(&Value::Null);
                for key in ["text", "thinking"] {
                    if let Some(t) = d.get(key).and_then(Value::as_str) {
                        block.text.push_str(t);
                    }
                }
                if let Some(j) = d.get("partial_json").and_then(Value::as_str) {
                    block.json.push_str(j);
                }
            }
            "message_delta" => {
                let d = data.get("delta").unwrap_or(&Value::Null);
                self.stop_reason = d.get("stop_reason").cloned();
                self.stop_sequence = d.get("stop_sequence").cloned();
                self.output_tokens = data.pointer("/usage/output_tokens").and_then(Value::as_u64);
            }
            "message_stop" => self.stopped = true,
            "error" => {
                return Err(format!(
                    "stream error: {}",
                    data.get("error").unwrap_or(&data)
                ))
            }
            _ => {}
        }
        Ok(())
    }

    /// The response record once the stream ended; an error when it ended early.
    pub fn finish(self) -> Result<Value, String> {
        let Some(mut message) = self.message.filter(|_| self.stopped) else {
            return Err("stream ended before message_stop".into());
        };
        let content: Vec<Value> = self
            .blocks
            .into_values()
            .map(|b| match b.start.get("type").and_then(Value::as_str) {
                Some("text") => text_part(&b.text),
                Some("thinking") => json!({"type": "thinking", "text": b.text}),
                Some("tool_use") => {
                    let mut o = b.start.as_object().cloned().unwrap_or_default();
                    let input = if b.json.trim().is_empty() {
                        o.get("input").cloned().unwrap_or(json!({}))
                    } else {
                        serde_json::from_str(&b.json).unwrap_or(Value::String(b.json))
                    };
                    o.insert("input".into(), input);
                    Value::Object(o)
                }
                _ => b.start,
            })
            .collect();
        if let Some(o) = message.as_object_mut() {
            o.insert("content".into(), Value::Array(content));
            if let Some(s) = self.stop_reason {
                o.insert("stop_reason".into(), s);
            }
            if let Some(s) = self.stop_sequence {
                o.insert("stop_sequence".into(), s);
            }
            if let (Some(n), Some(u)) = (
                self.output_tokens,
                o.get_mut("usage").and_then(Value::as_object_mut),
            ) {
                u.insert("output_tokens".into(), json!(n));
            }
        }
        Ok(response(&message))
    }
}

/// An error body the SDK raises (`{"type": "error", "error": {type, message}}`).
pub(crate) fn error_body(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

/// A message carrying the policy's replacement text.
pub(crate) fn replacement_body(model: &str, text: &str) -> Value {
    json!({
        "id": "msg_veer_policy", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    })
}

/// The same replacement as a stream of events.
pub(crate) fn replacement_stream(model: &str, text: &str) -> Vec<u8> {
    let mut start = replacement_body(model, text);
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": start}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 0}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    let mut out = Vec::new();
    for (name, data) in events {
        out.extend_from_slice(format!("event: {name}\ndata: {data}\n\n").as_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sse::EventReader;

    #[test]
    fn streamed_message_reassembles_like_the_whole_body() {
        let whole = json!({"id": "m", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [{"type": "text", "text": "Let me look."},
                        {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"order": "7"}}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 11, "output_tokens": 6}});
        let stream = replacement_stream("claude-x", "ignored");
        assert!(!stream.is_empty());
        let sse = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":11,\"output_tokens\":1}}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me \"}}\n\n",
            "event: ping\ndata: {\"type\":\"ping\"}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"look.\"}}\n\n",
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"lookup\",\"input\":{}}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"order\\\":\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\" \\\"7\\\"}\"}}\n\n",
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":6}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        let mut r = EventReader::new();
        let mut events = Vec::new();
        r.feed(sse.as_bytes(), &mut events);
        let mut a = Assembler::default();
        for e in &events {
            a.event(e).unwrap();
        }
        assert_eq!(a.finish().unwrap(), response(&whole));
    }

    #[test]
    fn replacement_stream_reassembles_to_its_text() {
        let mut r = EventReader::new();
        let mut events = Vec::new();
        r.feed(&replacement_stream("m", "blocked"), &mut events);
        let mut a = Assembler::default();
        for e in &events {
            a.event(e).unwrap();
        }
        assert_eq!(a.finish().unwrap()["content"][0]["text"], "blocked");
    }

    #[test]
    fn tool_results_and_system_are_taken_from_the_request() {
        let body = json!({"model": "c", "max_tokens": 10, "system": "be brief",
            "messages": [{"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok", "is_error": true}]}]});
        let r = request(body.as_object().unwrap());
        assert_eq!(
            r.payload["messages"][0],
            json!({"role": "system", "content": "be brief"})
        );
        assert_eq!(r.payload["params"], json!({"max_tokens": 10}));
        assert!(r.tool_results[0].is_error);
    }
}
