//! What one span is to veer: a model call (a request/response turn), a tool execution, or
//! neither; and the `.agentlog` payloads a model call or tool span becomes.
//!
//! Recognised model calls: `gen_ai.operation.name` `chat` / `text_completion` /
//! `generate_content`; OpenInference `openinference.span.kind = LLM`; OpenLLMetry spans with
//! `gen_ai.prompt.*` / `gen_ai.completion.*` or `llm.request.type`. Tool spans:
//! `gen_ai.operation.name = execute_tool`, OpenInference `TOOL`, OpenLLMetry
//! `traceloop.span.kind = tool`; the Vercel AI SDK's `ai.*.doGenerate` / `ai.*.doStream` model
//! calls and `ai.toolCall` tool runs (by `ai.operationId`); pydantic-ai's older `running tool`
//! spans (`gen_ai.tool.name` with `tool_arguments` / `tool_response`).

use super::attrs::{json_of, Attrs};
use super::content::{arguments, captured, Captured};
use super::wire::Span;
use crate::json::{Json, JsonScratch};
use serde_json::{Map, Value};

/// The role a span plays in the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A model call: one request/response turn.
    Model,
    /// A tool execution.
    Tool,
    /// Anything else (agent, chain, HTTP, …): only its session attributes matter.
    Other,
}

/// Classifies a span by its attributes.
pub(crate) fn role_of(a: Attrs<'_, '_>) -> Role {
    match a.str("gen_ai.operation.name") {
        Some("chat" | "text_completion" | "generate_content" | "completion") => return Role::Model,
        Some("execute_tool") => return Role::Tool,
        Some(_) => return Role::Other,
        None => {}
    }
    // The Vercel AI SDK: `ai.generateText.doGenerate` / `ai.streamText.doStream` (and the
    // object variants) are the model calls, `ai.toolCall` the tool runs; the `ai.generateText`
    // span around them is the agent.
    match a.str("ai.operationId") {
        Some("ai.toolCall") => return Role::Tool,
        Some(op) if op.ends_with(".doGenerate") || op.ends_with(".doStream") => return Role::Model,
        Some(_) => return Role::Other,
        None => {}
    }
    match a.str("openinference.span.kind") {
        Some(k) if k.eq_ignore_ascii_case("llm") => return Role::Model,
        Some(k) if k.eq_ignore_ascii_case("tool") => return Role::Tool,
        Some(_) => return Role::Other,
        None => {}
    }
    if a.str("traceloop.span.kind") == Some("tool") {
        return Role::Tool;
    }
    // pydantic-ai before its spans named the operation: `running tool` with the tool's name
    // and `tool_arguments` / `tool_response`.
    if a.has("gen_ai.tool.name") && (a.has("tool_arguments") || a.has("tool_response")) {
        return Role::Tool;
    }
    let openllmetry = a
        .list
        .iter()
        .any(|kv| kv.key.starts_with("gen_ai.prompt.") || kv.key.starts_with("gen_ai.completion."));
    if openllmetry
        || matches!(a.str("llm.request.type"), Some("chat" | "completion"))
        || (a.has("gen_ai.system") && a.has("gen_ai.request.model"))
    {
        return Role::Model;
    }
    Role::Other
}

/// The session a span names itself: `gen_ai.conversation.id`, `session.id`.
pub(crate) fn own_session(a: Attrs<'_, '_>) -> Option<String> {
    a.first_str(&["gen_ai.conversation.id", "session.id"])
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A model call read off its span, before tool spans are attached. Its payloads are built
/// here, on the thread that read the span, so the span's message trees are freed where they
/// were made and only the compact payloads travel on.
#[derive(Debug, Clone)]
pub(crate) struct ModelCall {
    /// `chat_request` payload.
    pub request: Json,
    /// `chat_response` payload as the span alone gives it (model, captured content parts,
    /// stop reason, usage, latency); [`Json::Null`] when the call failed without output. Tool
    /// spans whose call is not among its parts add `tool_use` blocks later
    /// ([`with_tool_blocks`]).
    pub response: Json,
    /// The response's `tool_use` parts, in order: what tool spans are matched against.
    pub tool_blocks: Vec<ToolBlock>,
    /// Whether output content was captured (else the response's content starts empty).
    pub output_captured: bool,
    /// How many request messages were captured.
    pub request_messages: usize,
    /// Finish reason as recorded.
    pub finish_reason: Option<String>,
    /// `gen_ai.response.id`, used to drop the same call recorded twice.
    pub response_id: Option<String>,
    /// Error status: (code, message).
    pub error: Option<(String, String)>,
    /// Number of attributes (a tie-break between duplicate recordings).
    pub attribute_count: usize,
}

/// One `tool_use` part of a response: its call id and tool name, when it has them, and its
/// input (`{}` when it has none).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolBlock {
    /// `id` of the part.
    pub id: Option<String>,
    /// `name` of the part.
    pub name: Option<String>,
    /// `input` of the part.
    pub input: Value,
}

/// The `chat_response` payload `response` (see [`ModelCall::response`]) with `added`
/// `tool_use` blocks appended to its content, the `tool_use` blocks numbered in `named` (their
/// index among the response's `tool_use` parts, and an id) given that id, and its stop reason
/// recomputed from `finish_reason`, as if the blocks had been among the parts.
pub(crate) fn with_tool_blocks(
    response: &Json,
    added: Vec<Value>,
    named: &[(usize, String)],
    finish_reason: Option<&str>,
    keys: &mut JsonScratch,
) -> Json {
    let mut v = response.to_value();
    if let Some(Value::Array(content)) = v.get_mut("content") {
        for (k, part) in content.iter_mut().filter(|p| is_tool_use(p)).enumerate() {
            if let Some((_, id)) = named.iter().find(|(b, _)| *b == k) {
                part["id"] = Value::String(id.clone());
            }
        }
        content.extend(added);
    }
    let has_tool_use = v
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|c| c.iter().any(is_tool_use));
    if let Some(stop) = v.get_mut("stop_reason") {
        *stop = Value::String(stop_reason(finish_reason, has_tool_use));
    }
    keys.adopt(v)
}

fn is_tool_use(p: &Value) -> bool {
    p.get("type").and_then(Value::as_str) == Some("tool_use")
}

/// Milliseconds between two nanosecond instants (0 when the end is before the start).
pub(crate) fn millis(start: u64, end: u64) -> u64 {
    (end.saturating_sub(start) + 500_000) / 1_000_000
}

const USAGE_KEYS: [(&str, &[&str]); 5] = [
    (
        "input_tokens",
        &[
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.prompt_tokens",
            "llm.token_count.prompt",
            "llm.usage.prompt_tokens",
            "ai.usage.inputTokens",
            "ai.usage.promptTokens",
        ],
    ),
    (
        "output_tokens",
        &[
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.completion_tokens",
            "llm.token_count.completion",
            "llm.usage.completion_tokens",
            "ai.usage.outputTokens",
            "ai.usage.completionTokens",
        ],
    ),
    (
        "thinking_tokens",
        &[
            "gen_ai.usage.reasoning.output_tokens",
            "llm.token_count.completion_details.reasoning",
            "ai.usage.reasoningTokens",
        ],
    ),
    (
        "cache_read_input_tokens",
        &[
            "gen_ai.usage.cache_read.input_tokens",
            "gen_ai.usage.cache_read_input_tokens",
            "llm.token_count.prompt_details.cache_read",
            "ai.usage.cachedInputTokens",
        ],
    ),
    (
        "cache_creation_input_tokens",
        &[
            "gen_ai.usage.cache_creation.input_tokens",
            "gen_ai.usage.cache_creation_input_tokens",
            "llm.token_count.prompt_details.cache_write",
        ],
    ),
];

/// Reads a model-call span; `keys` shares the object keys of its request payload with those
/// of the other spans read on this thread.
pub(crate) fn model_call(span: &Span<'_>, keys: &mut JsonScratch) -> ModelCall {
    let a = Attrs {
        list: &span.attributes,
    };
    let mut c: Captured = captured(a, &span.events);
    let output = c.output.take();
    let output_captured = output.is_some();
    let request_model = a
        .first_str(&[
            "gen_ai.request.model",
            "llm.model_name",
            "ai.model.id",
            "gen_ai.response.model",
        ])
        .unwrap_or("");
    let model = a
        .first_str(&[
            "gen_ai.response.model",
            "llm.model_name",
            "ai.response.model",
            "gen_ai.request.model",
            "ai.model.id",
        ])
        .unwrap_or("")
        .to_string();
    let mut params = Map::new();
    if let Some(Value::Object(p)) = a.get("llm.invocation_parameters").map(json_of) {
        params.extend(p.into_iter().filter(|(k, _)| k != "model"));
    }
    for (key, attr) in [
        ("temperature", "gen_ai.request.temperature"),
        ("top_p", "gen_ai.request.top_p"),
        ("max_tokens", "gen_ai.request.max_tokens"),
    ] {
        if let Some(v) = a.number(attr) {
            params.insert(key.into(), v);
        }
    }
    // Built by moving the values in (`json!` would copy them through a serializer).
    let mut request = Map::new();
    request.insert("model".into(), Value::String(request_model.to_string()));
    let input = c.input.unwrap_or_default();
    let request_messages = input.len();
    request.insert("messages".into(), Value::Array(input));
    request.insert("params".into(), Value::Object(params));
    let request = keys.adopt(Value::Object(request));
    let mut usage = Map::new();
    for (key, attrs) in USAGE_KEYS {
        if let Some(n) = a.first_int(attrs) {
            usage.insert(key.into(), Value::from(n));
        }
    }
    let finish_reason = a
        .get("gen_ai.response.finish_reasons")
        .and_then(|v| match json_of(v) {
            Value::Array(x) => x.first().and_then(Value::as_str).map(str::to_string),
            Value::String(s) => Some(s),
            _ => None,
        })
        .or_else(|| a.str("llm.finish_reason").map(str::to_string))
        .or_else(|| a.str("anthropic.message.stop_reason").map(str::to_string))
        .or_else(|| a.str("ai.response.finishReason").map(str::to_string))
        .or(c.finish_reason.take());
    let error = span.status.as_ref().filter(|s| s.code.is_error).map(|s| {
        (
            a.str("error.type").unwrap_or("error").to_string(),
            s.message.to_string(),
        )
    });
    let parts = output.unwrap_or_default();
    let tool_blocks: Vec<ToolBlock> = parts
        .iter()
        .filter(|p| is_tool_use(p))
        .map(|p| ToolBlock {
            id: p.get("id").and_then(Value::as_str).map(str::to_string),
            name: p.get("name").and_then(Value::as_str).map(str::to_string),
            input: p
                .get("input")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
        })
        .collect();
    let response = if error.is_some() && !output_captured {
        Json::Null
    } else {
        // Built by moving the values in, keys in the `.agentlog` order.
        let mut payload = Map::new();
        payload.insert("model".into(), Value::String(model));
        let stop = stop_reason(finish_reason.as_deref(), !tool_blocks.is_empty());
        payload.insert("content".into(), Value::Array(parts));
        payload.insert("stop_reason".into(), Value::String(stop));
        payload.insert("usage".into(), Value::Object(usage));
        let latency_ms = millis(span.start_time_unix_nano.0, span.end_time_unix_nano.0);
        payload.insert("latency_ms".into(), Value::from(latency_ms));
        keys.adopt(Value::Object(payload))
    };
    ModelCall {
        request,
        response,
        tool_blocks,
        output_captured,
        request_messages,
        finish_reason,
        response_id: a.str("gen_ai.response.id").map(str::to_string),
        error,
        attribute_count: span.attributes.len(),
    }
}

/// Fills what `own` (a model call read off its span) did not capture from `from` (the same
/// call read off its GenAI log events): the request messages, the response's content, stop
/// reason and tool blocks, and its usage when the span had none.
pub(crate) fn merge_content(own: &mut ModelCall, from: ModelCall, keys: &mut JsonScratch) {
    if own.request_messages == 0 && from.request_messages > 0 {
        let mut request = own.request.to_value();
        request["messages"] = from.request.to_value()["messages"].take();
        own.request = keys.adopt(request);
        own.request_messages = from.request_messages;
    }
    if own.output_captured || !from.output_captured || matches!(own.response, Json::Null) {
        return;
    }
    let mut response = own.response.to_value();
    let mut theirs = from.response.to_value();
    response["content"] = theirs["content"].take();
    let finish = own.finish_reason.take().or(from.finish_reason);
    response["stop_reason"] =
        Value::String(stop_reason(finish.as_deref(), !from.tool_blocks.is_empty()));
    if response["usage"].as_object().is_some_and(Map::is_empty) {
        response["usage"] = theirs["usage"].take();
    }
    own.response = keys.adopt(response);
    own.tool_blocks = from.tool_blocks;
    own.finish_reason = finish;
    own.output_captured = true;
}

/// The `.agentlog` stop reason for a recorded finish reason (OpenAI, Anthropic, GenAI and
/// Gemini spellings, any case); without one, `tool_use` when the response asks for tools, else
/// `end_turn`. Gemini ends a turn that calls functions with `STOP` (GenAI: `stop`), so `stop`
/// with a `tool_use` part is `tool_use`.
pub fn stop_reason(finish: Option<&str>, has_tool_use: bool) -> String {
    let lower = finish.map(str::to_ascii_lowercase);
    match lower.as_deref() {
        Some("stop") if has_tool_use => "tool_use",
        Some("stop" | "end_turn") => "end_turn",
        Some("tool_calls" | "tool_call" | "function_call" | "tool_use" | "tool-calls") => {
            "tool_use"
        }
        Some("length" | "max_tokens") => "max_tokens",
        Some(
            "content_filter" | "content-filter" | "safety" | "refusal" | "recitation" | "blocklist"
            | "prohibited_content" | "spii" | "image_safety",
        ) => "content_filter",
        Some("stop_sequence") => "stop_sequence",
        Some("error" | "malformed_function_call") => "error",
        Some("" | "finish_reason_unspecified") | None if has_tool_use => "tool_use",
        Some("" | "finish_reason_unspecified") | None => "end_turn",
        Some(_) => return finish.unwrap_or_default().to_string(),
    }
    .to_string()
}

/// A tool span read off its attributes.
#[derive(Debug, Clone)]
pub(crate) struct ToolRun {
    /// Tool name.
    pub name: String,
    /// Call id, when recorded.
    pub call_id: Option<String>,
    /// Arguments (`{}` when not captured).
    pub arguments: Json,
    /// Result (`""` when not captured).
    pub result: Json,
    /// Error status.
    pub is_error: bool,
    /// Span duration, ms.
    pub latency_ms: u64,
}

/// Reads a tool span; `keys` shares the object keys of its values with those of the other
/// spans read on this thread.
pub(crate) fn tool_run(span: &Span<'_>, keys: &mut JsonScratch) -> ToolRun {
    let a = Attrs {
        list: &span.attributes,
    };
    let name = a
        .first_str(&["gen_ai.tool.name", "tool.name", "ai.toolCall.name"])
        .map(str::to_string)
        .unwrap_or_else(|| {
            let n = span.name.as_ref();
            n.strip_prefix("execute_tool ").unwrap_or(n).to_string()
        });
    let args = a
        .get("gen_ai.tool.call.arguments")
        .or_else(|| a.get("gcp.vertex.agent.tool_call_args"))
        .or_else(|| a.get("ai.toolCall.args"))
        .or_else(|| a.get("ai.toolCall.input"))
        .or_else(|| a.get("tool_arguments"))
        .or_else(|| a.get("input.value"))
        .or_else(|| a.get("traceloop.entity.input"))
        .filter(|v| v.string_value.as_deref() != Some(super::attrs::REDACTED))
        .map(json_of);
    let result = a
        .get("gen_ai.tool.call.result")
        .or_else(|| a.get("gcp.vertex.agent.tool_response"))
        .or_else(|| a.get("ai.toolCall.result"))
        .or_else(|| a.get("ai.toolCall.output"))
        .or_else(|| a.get("tool_response"))
        .or_else(|| a.get("output.value"))
        .or_else(|| a.get("traceloop.entity.output"))
        .filter(|v| v.string_value.as_deref() != Some(super::attrs::REDACTED))
        .map(json_of);
    ToolRun {
        name,
        call_id: a
            .first_str(&[
                "gen_ai.tool.call.id",
                "tool_call.id",
                "tool.id",
                "ai.toolCall.id",
            ])
            .map(str::to_string),
        arguments: keys.adopt(arguments(args.as_ref())),
        result: keys.adopt(result.unwrap_or(Value::String(String::new()))),
        is_error: span.status.as_ref().is_some_and(|s| s.code.is_error),
        latency_ms: millis(span.start_time_unix_nano.0, span.end_time_unix_nano.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_reasons_map_to_agentlog_stop_reasons() {
        assert_eq!(stop_reason(Some("stop"), false), "end_turn");
        assert_eq!(stop_reason(Some("tool_calls"), true), "tool_use");
        assert_eq!(stop_reason(Some("length"), false), "max_tokens");
        assert_eq!(stop_reason(None, true), "tool_use");
        assert_eq!(stop_reason(None, false), "end_turn");
        assert_eq!(stop_reason(Some("other"), false), "other");
        // Gemini: `STOP` also ends a turn that calls functions.
        assert_eq!(stop_reason(Some("STOP"), true), "tool_use");
        assert_eq!(stop_reason(Some("STOP"), false), "end_turn");
        assert_eq!(stop_reason(Some("SAFETY"), false), "content_filter");
        assert_eq!(stop_reason(Some("MAX_TOKENS"), true), "max_tokens");
    }

    #[test]
    fn latency_rounds_to_the_nearest_millisecond() {
        assert_eq!(millis(0, 1_499_999), 1);
        assert_eq!(millis(0, 1_500_000), 2);
        assert_eq!(millis(5, 1), 0);
    }
}
