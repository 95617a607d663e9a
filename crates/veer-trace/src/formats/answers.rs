//! What a model answered, read from a captured output in whichever provider's shape the
//! instrumentation stored it: hosted tracers (Langfuse, LangSmith) keep the provider's response
//! or the framework's message as given, so one reader meets OpenAI chat completions and
//! Responses, Anthropic content blocks, Gemini candidates and parts, LangChain messages, the
//! Vercel AI SDK's tool calls and the GenAI semantic-convention `parts` (docs/formats.md).

use super::assemble::{arguments_of, count, stop_reason_of, text_of, Answer};
use serde_json::{Map, Value};

/// Deepest nesting followed inside one output (a deeper value is not looked into).
const MAX_DEPTH: usize = 16;

/// The answer in a captured model output, whatever its shape; `None` when nothing was
/// captured (`null`). JSON text holding an object or a list is parsed first.
pub(crate) fn answer_of(v: &Value) -> Option<Answer> {
    let mut ans = answer_at(v, 0)?;
    finish(&mut ans);
    Some(ans)
}

/// A value given as JSON text (`"{\"role\": …}"`) parsed, else the value itself.
pub(crate) fn parsed_text(v: &Value) -> Option<Value> {
    let Value::String(s) = v else { return None };
    let t = s.trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    serde_json::from_str::<Value>(s)
        .ok()
        .filter(|p| p.is_object() || p.is_array())
}

/// Token usage carried inside an output: OpenAI `usage` (`prompt_tokens`…), Anthropic and
/// LangChain `input_tokens`/`output_tokens` (`usage`, `usage_metadata`), Gemini
/// `usage_metadata` / `usageMetadata` (`prompt_token_count`, `candidates_token_count`), or
/// `llm_output.token_usage`. `[input, output, cache read, cache creation]`.
pub(crate) fn output_usage(v: &Value) -> Option<[u64; 4]> {
    let o = v.as_object()?;
    let u = ["usage", "usage_metadata", "usageMetadata", "token_usage"]
        .iter()
        .find_map(|k| o.get(*k).filter(|u| u.is_object()))
        .or_else(|| o.get("llm_output")?.get("token_usage"))
        .or_else(|| o.get("response_metadata")?.get("usage"))?
        .as_object()?;
    usage_from(u)
}

/// Token counts of a usage object under any of the common names; `None` when it names none.
pub(crate) fn usage_from(u: &Map<String, Value>) -> Option<[u64; 4]> {
    let pick = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| u.get(*k).filter(|v| v.is_number()))
    };
    let input = pick(&[
        "input",
        "input_tokens",
        "prompt_tokens",
        "promptTokens",
        "prompt_token_count",
        "promptTokenCount",
        "inputTokens",
    ]);
    let output = pick(&[
        "output",
        "output_tokens",
        "completion_tokens",
        "completionTokens",
        "candidates_token_count",
        "candidatesTokenCount",
        "outputTokens",
    ]);
    if input.is_none() && output.is_none() {
        return None;
    }
    let nested = |a: &str, b: &str| u.get(a).and_then(|d| d.get(b)).filter(|v| v.is_number());
    let cache_read = pick(&[
        "input_cache_read",
        "input_cached_tokens",
        "cache_read_input_tokens",
        "prompt_details.cache_read",
        "cacheRead",
        "cached_content_token_count",
        "cachedContentTokenCount",
    ])
    .or_else(|| nested("input_token_details", "cache_read"))
    .or_else(|| nested("prompt_tokens_details", "cached_tokens"))
    .or_else(|| nested("input_tokens_details", "cached_tokens"));
    let cache_write = pick(&[
        "input_cache_creation",
        "cache_creation_input_tokens",
        "cacheWrite",
    ])
    .or_else(|| nested("input_token_details", "cache_creation"));
    Some([
        count(input),
        count(output),
        count(cache_read),
        count(cache_write),
    ])
}

fn answer_at(v: &Value, depth: usize) -> Option<Answer> {
    if depth > MAX_DEPTH {
        return None;
    }
    match v {
        Value::Null => None,
        Value::String(s) => match parsed_text(v) {
            Some(p) => answer_at(&p, depth + 1).or_else(|| Some(text_answer(s))),
            None => Some(text_answer(s)),
        },
        Value::Array(list) => Some(list_answer(list, depth)),
        Value::Object(o) => Some(object_answer(o, depth)),
        _ => None,
    }
}

fn text_answer(s: &str) -> Answer {
    Answer {
        text: vec![s.to_string()],
        ..Answer::default()
    }
}

/// A list: the trailing run of assistant messages (an output list may repeat the history
/// before them), or a list of content parts.
fn list_answer(list: &[Value], depth: usize) -> Answer {
    let is_answer = |m: &Value| {
        m.get("role")
            .and_then(Value::as_str)
            .is_none_or(|r| matches!(r, "assistant" | "model" | "ai"))
            && m.get("type").and_then(Value::as_str) != Some("human")
    };
    let start = list
        .iter()
        .rposition(|m| !is_answer(m))
        .map_or(0, |i| i + 1);
    let mut ans = Answer::default();
    for m in &list[start..] {
        let is_message = m.as_object().is_some_and(|o| {
            o.contains_key("role")
                || o.contains_key("tool_calls")
                || o.contains_key("parts")
                || o.contains_key("kwargs")
                || o.contains_key("choices")
                || o.contains_key("candidates")
                || (o.contains_key("content") && !o.contains_key("type"))
                || o.get("type").and_then(Value::as_str) == Some("message")
        });
        if is_message {
            if let Some(a) = answer_at(m, depth + 1) {
                merge(&mut ans, a);
            }
        } else {
            part_into(&mut ans, m, depth);
        }
    }
    ans
}

fn merge(into: &mut Answer, a: Answer) {
    into.text.extend(a.text);
    into.thinking.extend(a.thinking);
    into.tool_uses.extend(a.tool_uses);
    if a.stop_reason.is_some() {
        into.stop_reason = a.stop_reason;
    }
    if a.usage.is_some() {
        into.usage = a.usage;
    }
}

fn object_answer(o: &Map<String, Value>, depth: usize) -> Answer {
    let next = depth + 1;
    let str_of = |k: &str| o.get(k).and_then(Value::as_str);
    // OpenAI chat completion.
    if let Some(Value::Array(choices)) = o.get("choices") {
        let mut ans = Answer::default();
        if let Some(c) = choices.first() {
            if let Some(a) = c
                .get("message")
                .or_else(|| c.get("delta"))
                .and_then(|m| answer_at(m, next))
            {
                merge(&mut ans, a);
            } else if let Some(t) = c.get("text").and_then(Value::as_str) {
                ans.text.push(t.to_string());
            }
            if let Some(Value::String(fr)) = c.get("finish_reason") {
                ans.stop_reason = Some(stop_word(fr));
            }
        }
        ans.usage = output_usage(&Value::Object(o.clone()));
        return ans;
    }
    // Gemini GenerateContentResponse.
    if let Some(Value::Array(candidates)) = o.get("candidates") {
        let mut ans = candidates
            .first()
            .and_then(|c| object_of(c).map(|c| object_answer(c, next)))
            .unwrap_or_default();
        ans.usage = output_usage(&Value::Object(o.clone())).or(ans.usage);
        return ans;
    }
    // LangChain generation list.
    if let Some(Value::Array(g)) = o.get("generations") {
        let first = match g.first() {
            Some(Value::Array(inner)) => inner.first(),
            other => other,
        };
        let mut ans = first
            .and_then(|f| {
                f.get("message")
                    .and_then(|m| answer_at(m, next))
                    .or_else(|| f.get("text").and_then(|t| answer_at(t, next)))
            })
            .unwrap_or_default();
        if ans.usage.is_none() {
            ans.usage = output_usage(&Value::Object(o.clone()));
        }
        return ans;
    }
    // A serialised LangChain message.
    if let Some(k @ Value::Object(_)) = o.get("kwargs") {
        return answer_at(k, next).unwrap_or_default();
    }
    // OpenAI Responses API.
    if str_of("object") == Some("response")
        || (o.contains_key("output") && o.contains_key("status"))
    {
        let mut ans = match o.get("output") {
            Some(Value::Array(items)) => list_answer(items, next),
            Some(other) => answer_at(other, next).unwrap_or_default(),
            None => Answer::default(),
        };
        ans.usage = output_usage(&Value::Object(o.clone()));
        if str_of("status") == Some("incomplete") {
            ans.stop_reason = Some("max_tokens".into());
        }
        return ans;
    }
    let mut ans = Answer::default();
    let is_message = [
        "content",
        "tool_calls",
        "parts",
        "additional_kwargs",
        "toolCalls",
        "function_call",
    ]
    .iter()
    .any(|k| o.contains_key(*k));
    if !is_message {
        // A wrapper: `{"output": …}`, `{"message": …}`, `{"text": …}`, `{"response": …}`.
        return [
            "output",
            "message",
            "text",
            "completion",
            "response",
            "result",
        ]
        .iter()
        .find_map(|k| o.get(*k))
        .and_then(|v| answer_at(v, next))
        .unwrap_or_default();
    }
    // A message: `content` (text or parts), Gemini / semantic-convention `parts`.
    match o.get("content") {
        Some(Value::String(s)) if !s.is_empty() => ans.text.push(s.clone()),
        Some(Value::Array(parts)) => {
            for p in parts {
                part_into(&mut ans, p, next);
            }
        }
        Some(c @ Value::Object(co)) if co.contains_key("parts") => {
            if let Some(a) = answer_at(c, next) {
                merge(&mut ans, a);
            }
        }
        _ => {}
    }
    if let Some(Value::Array(parts)) = o.get("parts") {
        for p in parts {
            part_into(&mut ans, p, next);
        }
    }
    // Tool calls beside the content: OpenAI / LangChain `tool_calls`, else LangChain's
    // `additional_kwargs.tool_calls`, the Vercel AI SDK's `toolCalls`, OpenAI's legacy
    // `function_call`.
    let calls = [
        o.get("tool_calls"),
        o.get("additional_kwargs").and_then(|k| k.get("tool_calls")),
        o.get("toolCalls"),
    ]
    .into_iter()
    .flatten()
    .find_map(|c| c.as_array().filter(|a| !a.is_empty()));
    for c in calls.into_iter().flatten() {
        tool_call_into(&mut ans, c);
    }
    if let Some(f @ Value::Object(_)) = o.get("function_call") {
        tool_call_into(&mut ans, f);
    }
    if let Some(Value::String(t)) = o.get("text").filter(|_| ans.text.is_empty()) {
        if !t.is_empty() {
            ans.text.push(t.clone());
        }
    }
    for k in ["finish_reason", "finishReason", "stop_reason"] {
        if let Some(Value::String(fr)) = o.get(k) {
            ans.stop_reason = Some(stop_word(fr));
        }
    }
    if let Some(fr) = o
        .get("response_metadata")
        .and_then(|m| m.get("finish_reason").or_else(|| m.get("stop_reason")))
        .and_then(Value::as_str)
    {
        ans.stop_reason.get_or_insert_with(|| stop_word(fr));
    }
    ans.usage = output_usage(&Value::Object(o.clone()));
    ans
}

fn object_of(v: &Value) -> Option<&Map<String, Value>> {
    v.as_object()
}

/// One content part into `ans`: text, thinking, or a tool call in any provider's shape.
fn part_into(ans: &mut Answer, p: &Value, depth: usize) {
    let o = match p {
        Value::String(s) if !s.is_empty() => {
            ans.text.push(s.clone());
            return;
        }
        Value::Object(o) => o,
        _ => return,
    };
    let str_of = |k: &str| o.get(k).and_then(Value::as_str);
    match str_of("type") {
        Some("text" | "output_text" | "input_text") | None
            if o.get("thought").and_then(Value::as_bool) != Some(true)
                && (o.contains_key("text")
                    || (str_of("type").is_some() && o.contains_key("content"))) =>
        {
            if let Some(t) = str_of("text").or_else(|| str_of("content")) {
                if !t.is_empty() {
                    ans.text.push(t.to_string());
                }
            }
        }
        Some("thinking" | "reasoning") | None
            if str_of("type").is_some()
                || o.get("thought").and_then(Value::as_bool) == Some(true) =>
        {
            let t = str_of("thinking")
                .or_else(|| str_of("text"))
                .or_else(|| str_of("content"))
                .map(str::to_string)
                .or_else(|| text_of(o.get("summary")));
            if let Some(t) = t.filter(|t| !t.is_empty()) {
                ans.thinking.push(t);
            }
        }
        Some(
            "tool_use" | "tool_call" | "tool-call" | "function_call" | "function"
            | "server_tool_use",
        )
        | None => tool_call_into(ans, p),
        Some("message") if depth <= MAX_DEPTH => {
            if let Some(a) = answer_at(p, depth + 1) {
                merge(ans, a);
            }
        }
        _ => {}
    }
}

/// A tool call in any provider's shape: OpenAI `{id, function: {name, arguments}}`, LangChain
/// `{name, args, id}`, Anthropic `{type: tool_use, id, name, input}`, Gemini
/// `{functionCall | function_call: {name, args, id}}`, the Vercel AI SDK's `{toolCallId,
/// toolName, args | input}`, OpenAI Responses `{type: function_call, call_id, name,
/// arguments}`, the semantic conventions' `{type: tool_call, id, name, arguments}`.
fn tool_call_into(ans: &mut Answer, c: &Value) {
    let Some(o) = c.as_object() else { return };
    let inner = o
        .get("functionCall")
        .or_else(|| o.get("function_call"))
        .or_else(|| o.get("function"))
        .and_then(Value::as_object);
    let src = inner.unwrap_or(o);
    let name = src
        .get("name")
        .or_else(|| o.get("toolName"))
        .or_else(|| o.get("name"))
        .and_then(Value::as_str);
    let Some(name) = name else { return };
    let id = [
        o.get("call_id"),
        o.get("toolCallId"),
        o.get("id"),
        src.get("id"),
    ]
    .into_iter()
    .flatten()
    .find_map(id_text);
    let args = ["arguments", "args", "input"]
        .iter()
        .find_map(|k| src.get(*k).or_else(|| o.get(*k)));
    if id.is_some() && ans.tool_uses.iter().any(|(i, _, _)| *i == id) {
        return; // the same call given twice (content blocks and `tool_calls`)
    }
    ans.tool_uses
        .push((id, name.to_string(), arguments_of(args)));
}

/// A call id: a string, or the last string of a list (`["run_…", "call_…"]`).
fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Array(a) => a.iter().rev().find_map(id_text),
        _ => None,
    }
}

/// A provider's finish reason in `.agentlog` words: OpenAI's (`stop`, `tool_calls`,
/// `length`), Gemini's (`STOP`, `MAX_TOKENS`, `SAFETY`…), the Vercel AI SDK's (`tool-calls`),
/// the semantic conventions' (`tool_call`); others verbatim.
pub(crate) fn stop_word(s: &str) -> String {
    match s {
        "STOP" | "end_turn" | "stop_sequence" => {
            if s == "stop_sequence" {
                "stop_sequence".into()
            } else {
                "end_turn".into()
            }
        }
        "MAX_TOKENS" | "max_tokens" => "max_tokens".into(),
        "SAFETY" | "RECITATION" | "PROHIBITED_CONTENT" | "BLOCKLIST" | "SPII"
        | "content-filter" => "content_filter".into(),
        "tool_call" | "tool-calls" | "tool_use" => "tool_use".into(),
        other => stop_reason_of(other),
    }
}

/// A model that asked for tools stopped to call them, whatever word its provider used
/// (Gemini says `STOP` on a function call).
fn finish(ans: &mut Answer) {
    if !ans.tool_uses.is_empty() && ans.stop_reason.as_deref() == Some("end_turn") {
        ans.stop_reason = Some("tool_use".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn calls(v: Value) -> Vec<(Option<String>, String)> {
        answer_of(&v)
            .unwrap()
            .tool_uses
            .into_iter()
            .map(|(i, n, _)| (i, n))
            .collect()
    }

    #[test]
    fn tool_calls_in_every_provider_shape() {
        let id = |s: &str| Some(s.to_string());
        // OpenAI chat completion, arguments as text.
        let a = answer_of(&json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{\"a\":1}"}}]}}]})).unwrap();
        assert_eq!(a.tool_uses, vec![(id("c1"), "f".into(), json!({"a": 1}))]);
        assert_eq!(a.stop_reason.as_deref(), Some("tool_use"));
        // Anthropic content blocks, stored as JSON text.
        let a = answer_of(&json!("{\"content\":[{\"type\":\"text\",\"text\":\"ok\"},{\"type\":\"tool_use\",\"id\":\"tu\",\"name\":\"g\",\"input\":{\"b\":2}}],\"stop_reason\":\"tool_use\"}")).unwrap();
        assert_eq!(
            (a.text.clone(), a.tool_uses.len()),
            (vec!["ok".to_string()], 1)
        );
        // Gemini, snake and camel case; STOP on a function call is a tool use.
        let g = json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "h", "args": {}}}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1}});
        let a = answer_of(&g).unwrap();
        assert_eq!(
            (a.stop_reason.as_deref(), a.usage),
            (Some("tool_use"), Some([3, 1, 0, 0]))
        );
        assert_eq!(
            calls(
                json!({"content": {"parts": [{"function_call": {"name": "h", "args": {}}}]}, "finish_reason": "STOP"})
            ),
            [(None, "h".into())]
        );
        // LangChain: empty `tool_calls`, the calls under `additional_kwargs`.
        assert_eq!(
            calls(
                json!({"content": "", "tool_calls": [], "additional_kwargs": {"tool_calls": [{"id": "c2", "function": {"name": "k", "arguments": {}}}]}})
            ),
            [(id("c2"), "k".into())]
        );
        // Vercel AI SDK.
        assert_eq!(
            calls(
                json!({"text": "", "toolCalls": [{"toolCallId": "v1", "toolName": "w", "args": {"q": 1}}]})
            ),
            [(id("v1"), "w".into())]
        );
        assert_eq!(
            calls(
                json!([{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "v2", "toolName": "w", "input": {}}]}])
            ),
            [(id("v2"), "w".into())]
        );
        // Semantic-convention parts, a list id; two assistant messages in one output.
        assert_eq!(
            calls(
                json!([{"role": "assistant", "parts": [{"type": "tool_call", "id": ["run_1", "call_1"], "name": "x", "arguments": {}}]}, {"role": "assistant", "content": [{"function": {"name": "y", "arguments": {}}, "id": "c3", "type": "function"}]}])
            ),
            [(id("call_1"), "x".into()), (id("c3"), "y".into())]
        );
        // OpenAI Responses.
        let r = json!({"object": "response", "status": "completed", "output": [{"type": "function_call", "call_id": "r1", "name": "z", "arguments": "{}"}, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "t"}]}], "usage": {"input_tokens": 5, "output_tokens": 2}});
        let a = answer_of(&r).unwrap();
        assert_eq!(
            (a.text.clone(), a.tool_uses.len(), a.usage),
            (vec!["t".to_string()], 1, Some([5, 2, 0, 0]))
        );
        assert_eq!(answer_of(&json!("None")).unwrap().text, ["None"]);
        assert_eq!(answer_of(&Value::Null), None);
    }
}
