//! What a recording holds for replay, and the matching rule. The calls are read back from the
//! `.agentlog` records `veer record` writes: each `chat_request` with the `chat_response` (or
//! `error`) whose parent it is, in file order — the order the agent made its calls when it
//! waited for each answer. An incoming request is compared with the next unconsumed call after
//! the recorder's own normalisation (the request record), minus the parameters that vary from
//! run to run without changing what the model is asked ([`IGNORED_PARAMS`]).

use crate::api::{Api, Provider};
use serde_json::Value;
use std::collections::HashMap;
use veer_trace::{Kind, Trace};

/// Request parameters left out of the comparison: they change how an answer is delivered or
/// accounted, not what the model is asked.
pub const IGNORED_PARAMS: [&str; 7] = [
    "stream",
    "stream_options",
    "user",
    "metadata",
    "store",
    "prompt_cache_key",
    "safety_identifier",
];

/// How a recorded call ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// The `chat_response` payload (its `latency_ms` included).
    Response(Value),
    /// The `error` payload.
    Failed(Value),
}

/// One recorded model call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RecordedCall {
    /// The `chat_request` payload.
    pub request: Value,
    /// The endpoint it was made to (`meta.endpoint` of the record); `None` in recordings
    /// made before veer stored it.
    pub endpoint: Option<Api>,
    /// Its answer.
    pub answer: Answer,
}

/// The calls of a recording, with the timings of its tool results.
#[derive(Debug, Clone, Default)]
pub struct RecordedCalls {
    pub(crate) calls: Vec<RecordedCall>,
    /// `latency_ms` of each recorded tool result, by tool-call id.
    pub(crate) tool_latency: HashMap<String, u64>,
}

impl RecordedCalls {
    /// The model calls of `trace` that have an answer, in file order; a request whose answer
    /// is missing (a recording cut mid-call) is left out.
    pub fn from_trace(trace: &Trace) -> RecordedCalls {
        let mut calls: Vec<(Value, Option<Api>, Option<Answer>)> = Vec::new();
        let mut by_id: HashMap<String, usize> = HashMap::new();
        let mut tool_latency = HashMap::new();
        for r in &trace.records {
            let parent = r.parent.as_ref().map(|p| p.to_string());
            match &r.kind {
                Kind::ChatRequest => {
                    by_id.insert(r.id.to_string(), calls.len());
                    let endpoint = r
                        .meta
                        .as_ref()
                        .and_then(|m| m.get("endpoint"))
                        .and_then(Value::as_str)
                        .and_then(Api::from_name);
                    calls.push((r.payload.to_value(), endpoint, None));
                }
                Kind::ChatResponse | Kind::Error => {
                    let Some(&i) = parent.as_ref().and_then(|p| by_id.get(p)) else {
                        continue;
                    };
                    let v = r.payload.to_value();
                    calls[i].2 = Some(match r.kind {
                        Kind::ChatResponse => Answer::Response(v),
                        _ => Answer::Failed(v),
                    });
                }
                Kind::ToolResult => {
                    let v = r.payload.to_value();
                    if let (Some(id), Some(ms)) = (
                        v.get("tool_call_id").and_then(Value::as_str),
                        v.get("latency_ms").and_then(Value::as_u64),
                    ) {
                        tool_latency.insert(id.to_string(), ms);
                    }
                }
                _ => {}
            }
        }
        RecordedCalls {
            calls: calls
                .into_iter()
                .filter_map(|(request, endpoint, answer)| {
                    Some(RecordedCall {
                        request,
                        endpoint,
                        answer: answer?,
                    })
                })
                .collect(),
            tool_latency,
        }
    }

    /// Model calls in the recording.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// Whether the recording has no model call.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }
}

/// The provider a recorded call was most likely made to when its record does not name its
/// endpoint (recordings made before veer stored it), from what the request keeps: a `tool` role message is OpenAI's; a `claude…` model is
/// Anthropic's; `gpt…`, `o1`…`o9`, `chatgpt…` models are OpenAI's. `None` when nothing says.
pub(crate) fn provider_of(request: &Value) -> Option<Provider> {
    let tool_role = request
        .get("messages")
        .and_then(Value::as_array)
        .is_some_and(|ms| {
            ms.iter()
                .any(|m| m.get("role").and_then(Value::as_str) == Some("tool"))
        });
    if tool_role {
        return Some(Provider::OpenAi);
    }
    let model = request.get("model").and_then(Value::as_str).unwrap_or("");
    let lower = model.to_ascii_lowercase();
    let o_series =
        lower.len() >= 2 && lower.starts_with('o') && lower.as_bytes()[1].is_ascii_digit();
    if lower.starts_with("claude") {
        Some(Provider::Anthropic)
    } else if lower.starts_with("gpt") || lower.starts_with("chatgpt") || o_series {
        Some(Provider::OpenAi)
    } else {
        None
    }
}

/// A request record as compared: the ignored parameters removed.
fn comparable(request: &Value) -> Value {
    let mut v = request.clone();
    if let Some(params) = v.get_mut("params").and_then(Value::as_object_mut) {
        for k in IGNORED_PARAMS {
            params.remove(k);
        }
        if params.is_empty() {
            v.as_object_mut().map(|o| o.remove("params"));
        }
    }
    v
}

/// The first field where two request records differ: its path (`messages[3].content`) and
/// the two values there (`None` where a side has none). `None` when they match. Top-level
/// fields are compared in the order `model`, `messages`, `tools`, `params`, then any other.
pub(crate) fn first_difference(
    recorded: &Value,
    got: &Value,
) -> Option<(String, Option<Value>, Option<Value>)> {
    let (a, b) = (comparable(recorded), comparable(got));
    let mut keys: Vec<String> = ["model", "messages", "tools", "params"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for o in [a.as_object(), b.as_object()].into_iter().flatten() {
        for k in o.keys() {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    for k in keys {
        if let Some(d) = diff_at(k.clone(), a.get(&k), b.get(&k)) {
            return Some(d);
        }
    }
    None
}

fn diff_at(
    path: String,
    a: Option<&Value>,
    b: Option<&Value>,
) -> Option<(String, Option<Value>, Option<Value>)> {
    match (a, b) {
        (None, None) => None,
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let mut keys: Vec<&String> = x.keys().collect();
            keys.extend(y.keys().filter(|k| !x.contains_key(*k)));
            keys.into_iter()
                .find_map(|k| diff_at(format!("{path}.{k}"), x.get(k), y.get(k)))
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => (0..x.len().max(y.len()))
            .find_map(|i| diff_at(format!("{path}[{i}]"), x.get(i), y.get(i))),
        (a, b) if a == b => None,
        (a, b) => Some((path, a.cloned(), b.cloned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(messages: Value) -> Value {
        json!({"model": "gpt-4o", "messages": messages, "params": {"temperature": 0}})
    }

    #[test]
    fn the_first_differing_field_is_named_by_its_path() {
        let a = req(json!([{"role": "user", "content": "hi"},
                           {"role": "tool", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "3"}]}]));
        let mut b = a.clone();
        assert_eq!(first_difference(&a, &b), None);
        b["messages"][1]["content"][0]["content"] = json!("4");
        assert_eq!(
            first_difference(&a, &b),
            Some((
                "messages[1].content[0].content".into(),
                Some(json!("3")),
                Some(json!("4"))
            ))
        );
        b["model"] = json!("gpt-5");
        assert_eq!(first_difference(&a, &b).unwrap().0, "model");
        let longer = req(
            json!([{"role": "user", "content": "hi"}, {"role": "tool", "content": []}, {"role": "user", "content": "more"}]),
        );
        let (path, rec, got) = first_difference(&a, &longer).unwrap();
        assert_eq!(path, "messages[1].content[0]");
        assert!(rec.is_some() && got.is_none());
    }

    #[test]
    fn delivery_parameters_are_ignored() {
        let a = req(json!([]));
        let mut b = a.clone();
        b["params"]["stream_options"] = json!({"include_usage": true});
        b["params"]["user"] = json!("u-1");
        assert_eq!(first_difference(&a, &b), None);
        b["params"]["temperature"] = json!(1);
        assert_eq!(first_difference(&a, &b).unwrap().0, "params.temperature");
    }

    #[test]
    fn providers_are_told_apart_by_what_the_record_keeps() {
        assert_eq!(
            provider_of(&json!({"model": "claude-sonnet-4"})),
            Some(Provider::Anthropic)
        );
        assert_eq!(
            provider_of(&json!({"model": "gpt-4o"})),
            Some(Provider::OpenAi)
        );
        assert_eq!(
            provider_of(&json!({"model": "o3-mini"})),
            Some(Provider::OpenAi)
        );
        assert_eq!(provider_of(&json!({"model": "llama-3"})), None);
        assert_eq!(
            provider_of(&json!({"model": "x", "messages": [{"role": "tool", "content": []}]})),
            Some(Provider::OpenAi)
        );
    }
}
