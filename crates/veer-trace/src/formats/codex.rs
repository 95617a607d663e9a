//! Codex CLI session rollouts (`~/.codex/sessions/…/rollout-*.jsonl`): one
//! `{"timestamp", "type", "payload"}` line per event. The model's output items (reasoning,
//! assistant messages, function and custom tool calls) between two inputs (a user message, a
//! tool output) or up to the `token_count` event that closes a sampling are one model call;
//! tool outputs become tool results; `session_meta` starts a session and `turn_context`
//! names the model; rollouts written before the wrapper are read through `codex_legacy`
//! (docs/formats.md §Codex).

use super::assemble::{
    arguments_of, ms_of, request_payload, text_of, tool_call_payload, tool_result_payload, Answer,
    Assembler,
};
use super::{span_ms, type_name, Item};
use crate::error::TraceError;
use crate::model::{Kind, Trace};
use crate::options::ReadOptions;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use veer_base::format::Format;

/// Whether `v` is a line of a Codex rollout: a known `type` with an object `payload` and a
/// `timestamp`, and no `.agentlog` `kind`; or the first line of a rollout written before that
/// wrapper (`codex_legacy`).
pub fn sniff(v: &Value) -> bool {
    super::codex_legacy::is_header(v)
        || matches!(
            v.get("type").and_then(Value::as_str),
            Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
        ) && v.get("payload").is_some_and(Value::is_object)
            && v.get("timestamp").is_some()
            && v.get("kind").is_none()
}

/// A tool call to write after its response: name, id, arguments, time, source line.
type PendingCall = (String, String, Value, Option<i64>, Option<u64>);

/// A model call being read: its output items so far.
#[derive(Default)]
struct Call {
    answer: Answer,
    /// Tool calls to write after the response: (name, id, arguments, time, line).
    calls: Vec<PendingCall>,
    start_ms: Option<i64>,
    end_ms: Option<i64>,
    line: Option<u64>,
}

/// Reads a Codex rollout.
pub fn read(source: &str, items: Vec<Item>, _options: &ReadOptions) -> Result<Trace, TraceError> {
    let mut a = Assembler::new(source, Format::Codex, "codex");
    let legacy = items
        .first()
        .is_some_and(|i| super::codex_legacy::is_header(&i.value));
    let items = if legacy {
        super::codex_legacy::wrap(source, items)?
    } else {
        items
    };
    let mut model = String::new();
    let mut messages: Vec<Value> = Vec::new();
    let mut open: Option<Call> = None;
    let mut last_input_ms: Option<i64> = None;
    let mut last_total: Option<u64> = None;
    // Tool calls waiting for their output: id → time of the call.
    let mut waiting: HashMap<String, Option<i64>> = HashMap::new();
    for item in &items {
        let Value::Object(line) = &item.value else {
            return Err(item.err(
                source,
                "(line)",
                format!(
                    "a rollout line must be an object, found {}",
                    type_name(&item.value)
                ),
            ));
        };
        let ms = ms_of(line.get("timestamp"));
        let Some(Value::Object(p)) = line.get("payload") else {
            return Err(item.err(source, "payload", "must be an object"));
        };
        let str_of = |k: &str| p.get(k).and_then(Value::as_str);
        match line.get("type").and_then(Value::as_str).unwrap_or("") {
            "session_meta" => {
                close(&mut a, &mut open, &model, &mut messages);
                let text = |k: &str| str_of(k).unwrap_or("").to_string();
                a.session(
                    vec![
                        ("session_id", text("id")),
                        ("cwd", text("cwd")),
                        ("cli_version", text("cli_version")),
                        ("originator", text("originator")),
                    ],
                    str_of("id"),
                    ms,
                    item.line,
                );
            }
            "turn_context" => {
                if let Some(m) = str_of("model") {
                    model = m.to_string();
                }
            }
            "event_msg" if str_of("type") == Some("token_count") => {
                let Some(info) = p.get("info").and_then(Value::as_object) else {
                    continue;
                };
                let total = info
                    .get("total_token_usage")
                    .and_then(|t| t.get("total_tokens"))
                    .and_then(Value::as_u64);
                if total.is_some() && total == last_total {
                    continue; // the same count repeated
                }
                last_total = total;
                if let Some(c) = open.as_mut() {
                    c.answer.usage = info.get("last_token_usage").and_then(usage_of);
                    close(&mut a, &mut open, &model, &mut messages);
                }
            }
            "response_item" => match str_of("type").unwrap_or("") {
                "message" if str_of("role") == Some("assistant") => {
                    let c = call_at(&mut open, ms, item.line, last_input_ms);
                    c.answer
                        .text
                        .extend(text_of(p.get("content")).filter(|t| !t.is_empty()));
                    c.end_ms = ms;
                }
                "message" => {
                    close(&mut a, &mut open, &model, &mut messages);
                    let role = str_of("role").unwrap_or("user");
                    if let Some(t) = text_of(p.get("content")) {
                        messages.push(json!({"role": role, "content": t}));
                    }
                    last_input_ms = ms;
                }
                "reasoning" => {
                    let c = call_at(&mut open, ms, item.line, last_input_ms);
                    let t = text_of(p.get("summary"))
                        .or_else(|| text_of(p.get("content")))
                        .unwrap_or_default();
                    if !t.is_empty() {
                        c.answer.thinking.push(t);
                    }
                    c.end_ms = ms;
                }
                kind @ ("function_call" | "custom_tool_call" | "local_shell_call"
                | "web_search_call") => {
                    let c = call_at(&mut open, ms, item.line, last_input_ms);
                    let id = str_of("call_id")
                        .or_else(|| str_of("id"))
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("call-{}", item.line.unwrap_or(0)));
                    let name = match kind {
                        "local_shell_call" => "local_shell",
                        "web_search_call" => "web_search",
                        _ => str_of("name").unwrap_or(""),
                    }
                    .to_string();
                    let args = match kind {
                        "function_call" => arguments_of(p.get("arguments")),
                        "custom_tool_call" => arguments_of(p.get("input")),
                        _ => arguments_of(p.get("action")),
                    };
                    c.answer
                        .tool_uses
                        .push((Some(id.clone()), name.clone(), args.clone()));
                    c.end_ms = ms;
                    // A web search runs on the server: no output item follows.
                    if kind != "web_search_call" {
                        waiting.insert(id.clone(), ms);
                    }
                    c.calls.push((name, id, args, ms, item.line));
                }
                "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
                    close(&mut a, &mut open, &model, &mut messages);
                    let id = str_of("call_id").unwrap_or("").to_string();
                    let output = match p.get("output") {
                        Some(Value::Object(o)) => o
                            .get("content")
                            .cloned()
                            .unwrap_or(Value::Object(o.clone())),
                        Some(v) => v.clone(),
                        None => Value::Null,
                    };
                    let is_error = p
                        .get("output")
                        .and_then(|o| o.get("success"))
                        .and_then(Value::as_bool)
                        == Some(false);
                    let started = waiting.remove(&id).flatten();
                    a.push(
                        Kind::ToolResult,
                        tool_result_payload(&id, output, is_error, span_ms(started, ms)),
                        ms,
                        item.line,
                    );
                    last_input_ms = ms;
                }
                _ => {}
            },
            _ => {}
        }
    }
    close(&mut a, &mut open, &model, &mut messages);
    a.finish("Codex rollout")
}

/// The open model call, started at `ms` when there is none.
fn call_at(
    open: &mut Option<Call>,
    ms: Option<i64>,
    line: Option<u64>,
    since: Option<i64>,
) -> &mut Call {
    open.get_or_insert_with(|| Call {
        start_ms: since.or(ms),
        end_ms: ms,
        line,
        ..Call::default()
    })
}

/// Writes the open model call, if any: its request (the inputs since the previous call), its
/// response, then its tool calls.
fn close(a: &mut Assembler, open: &mut Option<Call>, model: &str, messages: &mut Vec<Value>) {
    let Some(mut c) = open.take() else { return };
    c.answer.model = model.to_string();
    c.answer.latency_ms = span_ms(c.start_ms, c.end_ms);
    a.push(
        Kind::ChatRequest,
        request_payload(model, std::mem::take(messages), Vec::new()),
        c.start_ms,
        c.line,
    );
    a.push(Kind::ChatResponse, c.answer.payload(), c.end_ms, c.line);
    for (name, id, args, ms, line) in c.calls {
        a.push(
            Kind::ToolCall,
            tool_call_payload(&name, &id, args),
            ms,
            line,
        );
    }
}

/// `last_token_usage`: `input_tokens` (cached ones included, as OpenAI counts them),
/// `output_tokens` (reasoning included), `cached_input_tokens` as cache reads.
fn usage_of(u: &Value) -> Option<[u64; 4]> {
    let u: &Map<String, Value> = u.as_object()?;
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some([
        n("input_tokens"),
        n("output_tokens"),
        n("cached_input_tokens"),
        0,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::items_of_bytes;

    fn read_str(s: &str) -> Result<Trace, TraceError> {
        read(
            "r.jsonl",
            items_of_bytes("r.jsonl", s.as_bytes(), u64::MAX)?,
            &ReadOptions::default(),
        )
    }

    /// Model calls, tokens (input, output, cache reads), tool calls and their names, and tool
    /// results of each real rollout (numbers from `tests/fixtures/formats/codex-real/count.py`).
    #[test]
    fn real_rollouts_read_with_their_calls_tokens_and_tools() {
        type Row = (
            &'static str,
            usize,
            u64,
            u64,
            u64,
            usize,
            &'static [&'static str],
            usize,
        );
        let expected: &[Row] = &[
            (
                "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9",
                28,
                1751428,
                14600,
                1651968,
                118,
                &["exec_command", "write_stdin"],
                118,
            ),
            (
                "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322",
                1,
                34469,
                431,
                3456,
                1,
                &["exec_command"],
                0,
            ),
            (
                "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff",
                6,
                298373,
                1123,
                238848,
                5,
                &[
                    "[REDACTED_NAME len=43 sha=c186413b]",
                    "mcp__cloud-associates__execute_workflow",
                    "mcp__cloud-associates__search_workflows",
                ],
                5,
            ),
        ];
        for (name, calls, tin, tout, cached, ntools, names, results) in expected {
            let path = format!(
                "{}/../../tests/fixtures/formats/codex-real/{name}.jsonl",
                env!("CARGO_MANIFEST_DIR")
            );
            let t = crate::load::load_trace(std::path::Path::new(&path), &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(t.format, Format::Codex, "{name}");
            let turns = t.turns();
            assert_eq!(turns.len(), *calls, "{name}: model calls");
            let usage = |k: &str| -> u64 {
                turns
                    .iter()
                    .map(|u| {
                        t.records[u.response].payload["usage"][k]
                            .as_u64()
                            .unwrap_or(0)
                    })
                    .sum()
            };
            assert_eq!(
                (
                    usage("input_tokens"),
                    usage("output_tokens"),
                    usage("cache_read_input_tokens")
                ),
                (*tin, *tout, *cached),
                "{name}: tokens"
            );
            let tools: Vec<String> = t.tool_calls().into_iter().map(|c| c.name).collect();
            assert_eq!(tools.len(), *ntools, "{name}: tool calls");
            let mut distinct = tools.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct, *names, "{name}: tool names");
            let n = t
                .records
                .iter()
                .filter(|r| r.kind == Kind::ToolResult)
                .count();
            assert_eq!(n, *results, "{name}: tool results");
        }
    }

    #[test]
    fn calls_close_at_inputs_and_token_counts() {
        let lines = [
            json!({"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": {"id": "s1", "cli_version": "0.1"}}),
            json!({"timestamp": "2026-01-01T00:00:00.000Z", "type": "turn_context", "payload": {"model": "gpt-5"}}),
            json!({"timestamp": "2026-01-01T00:00:01.000Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]}}),
            json!({"timestamp": "2026-01-01T00:00:02.000Z", "type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{\"cmd\":\"ls\"}", "call_id": "c1"}}),
            json!({"timestamp": "2026-01-01T00:00:02.500Z", "type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {"total_tokens": 12}, "last_token_usage": {"input_tokens": 10, "cached_input_tokens": 4, "output_tokens": 2}}}}),
            json!({"timestamp": "2026-01-01T00:00:03.000Z", "type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": "a.txt"}}),
            json!({"timestamp": "2026-01-01T00:00:03.100Z", "type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {"total_tokens": 12}, "last_token_usage": {"input_tokens": 10, "output_tokens": 2}}}}),
            json!({"timestamp": "2026-01-01T00:00:04.000Z", "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let t = read_str(&text).unwrap();
        let turns = t.turns();
        assert_eq!(turns.len(), 2);
        let first = &t.records[turns[0].response].payload;
        assert_eq!(first["usage"]["input_tokens"], json!(10));
        assert_eq!(first["usage"]["cache_read_input_tokens"], json!(4));
        assert_eq!(first["stop_reason"], json!("tool_use"));
        assert_eq!(first["model"], json!("gpt-5"));
        assert_eq!(
            t.records[turns[0].tool_results[0]].payload["output"],
            json!("a.txt")
        );
        assert_eq!(
            t.records[turns[1].response].payload["usage"]["input_tokens"],
            json!(0)
        );
        assert!(sniff(&lines[0]));
        assert!(!sniff(
            &json!({"type": "response_item", "payload": {}, "timestamp": "x", "kind": "chat_request"})
        ));
    }
}
