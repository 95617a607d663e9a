//! The provider-neutral pieces of a recorded call: what a request record, a response record
//! and a tool result look like in the `.agentlog` model (spec `trace-formats.md` §1.3), built
//! by each provider's mapping (`openai_chat`, `openai_responses`, `anthropic`).

use serde_json::{json, Map, Value};

/// A request as it goes into the record.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestRecord {
    /// The `chat_request` payload: `model`, `messages`, `params`, `tools`.
    pub payload: Value,
    /// Tool results carried by the request's messages, in message order.
    pub tool_results: Vec<ToolResult>,
    /// Whether the agent asked for a server-sent-event stream.
    pub stream: bool,
    /// The endpoint the call was made to (`openai.chat_completions`, `openai.responses`,
    /// `anthropic.messages`), written into the `chat_request` record's `meta.endpoint` so a
    /// replay knows which API to answer; `None` when the caller does not say.
    pub endpoint: Option<&'static str>,
}

/// A tool's result as the agent sent it back to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The id of the `tool_use` block it answers.
    pub tool_call_id: String,
    /// The output (a string, or the provider's structured content).
    pub output: Value,
    /// Whether the agent marked it as an error (Anthropic `is_error`).
    pub is_error: bool,
}

/// Maps the generic request keys into `params`: everything except the keys a mapping takes
/// itself (`skip`) is kept verbatim, in the request's order.
pub(crate) fn params_of(body: &Map<String, Value>, skip: &[&str]) -> Value {
    let mut params = Map::new();
    for (k, v) in body {
        if skip.contains(&k.as_str()) {
            continue;
        }
        let key = match k.as_str() {
            "max_completion_tokens" | "max_output_tokens" => "max_tokens",
            "stop_sequences" => "stop",
            other => other,
        };
        params.insert(key.to_string(), v.clone());
    }
    Value::Object(params)
}

/// A `chat_response` payload (without `latency_ms`, which the proxy measures).
pub(crate) fn response_payload(
    model: &str,
    content: Vec<Value>,
    stop_reason: &str,
    stop_sequence: Option<&Value>,
    usage: Value,
) -> Value {
    let mut out = Map::new();
    out.insert("model".into(), json!(model));
    out.insert("content".into(), Value::Array(content));
    out.insert("stop_reason".into(), json!(stop_reason));
    if let Some(s) = stop_sequence.filter(|s| !s.is_null()) {
        out.insert("stop_sequence".into(), s.clone());
    }
    out.insert("usage".into(), usage);
    Value::Object(out)
}

/// A text part.
pub(crate) fn text_part(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// A tool-use part; `arguments` given as the provider's JSON text is parsed (kept as a string
/// when it is not valid JSON, so nothing is lost).
pub(crate) fn tool_use_part(id: &str, name: &str, arguments: &str) -> Value {
    let input = if arguments.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
    };
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

/// An integer field of `v`, 0 when absent.
pub(crate) fn int(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_u64).unwrap_or(0)
}

/// The text of the first `text` part of a response payload (used for replacements).
pub(crate) fn first_text(payload: &Value) -> String {
    payload
        .get("content")
        .and_then(Value::as_array)
        .and_then(|parts| {
            parts
                .iter()
                .find(|p| p.get("type").and_then(Value::as_str) == Some("text"))
        })
        .and_then(|p| p.get("text"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}
