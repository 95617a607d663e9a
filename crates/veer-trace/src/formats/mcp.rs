//! MCP JSON-RPC session logs (JSON Lines, one JSON-RPC 2.0 message a line, as Shadow's
//! `mcp-session` vectors and MCP proxies write them): every `tools/call` becomes a turn whose
//! response asks for that one tool, followed by its `tool_call` and `tool_result`; the schemas
//! of each `tools/list` are kept as the next request's `tools`; each `initialize` result starts a
//! session named after the server (docs/formats.md §MCP).

use super::assemble::{
    ms_of, request_payload, tool_call_payload, tool_result_payload, Answer, Assembler,
};
use super::{span_ms, type_name, Item};
use crate::error::TraceError;
use crate::model::{Kind, Trace};
use crate::options::ReadOptions;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use veer_base::format::Format;

/// Whether `v` is a JSON-RPC 2.0 message.
pub fn sniff(v: &Value) -> bool {
    v.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && (v.get("method").is_some() || v.get("result").is_some() || v.get("error").is_some())
}

/// A request still waiting for its response.
struct Pending {
    method: String,
    call_id: String,
    ms: Option<i64>,
    line: Option<u64>,
}

/// Reads the messages of an MCP session log.
pub fn read(source: &str, items: Vec<Item>, options: &ReadOptions) -> Result<Trace, TraceError> {
    let mut a = Assembler::new(source, Format::Mcp, "mcp");
    let mut server = String::new();
    // The schemas of the latest `tools/list`, given to the next request only (kept once per
    // listing, not copied into every turn).
    let mut tools: Vec<Value> = Vec::new();
    let mut pending: HashMap<String, Pending> = HashMap::new();
    for item in &items {
        let Value::Object(msg) = &item.value else {
            return Err(item.err(
                source,
                "(line)",
                format!(
                    "a JSON-RPC message must be an object, found {}",
                    type_name(&item.value)
                ),
            ));
        };
        if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(item
                .err(source, "jsonrpc", "must be \"2.0\"")
                .with_hint("every line of an MCP session log is a JSON-RPC 2.0 message"));
        }
        let ms = ms_of(msg.get("timestamp").or_else(|| msg.get("ts")));
        let key = msg
            .get("id")
            .filter(|v| !v.is_null())
            .map(|v| v.to_string());
        match msg.get("method") {
            Some(Value::String(method)) => {
                let Some(key) = key else { continue }; // a notification
                if method == "tools/call" {
                    let params = match msg.get("params") {
                        Some(Value::Object(p)) => p,
                        other => {
                            return Err(item.err(
                                source,
                                "params",
                                format!(
                                    "tools/call needs an object, found {}",
                                    other.map_or("nothing", type_name)
                                ),
                            ))
                        }
                    };
                    let Some(Value::String(name)) = params.get("name") else {
                        return Err(item.err(
                            source,
                            "params.name",
                            "must be a string (the tool's name)",
                        ));
                    };
                    let arguments = match params.get("arguments") {
                        None | Some(Value::Null) => json!({}),
                        Some(v @ Value::Object(_)) => v.clone(),
                        Some(other) => {
                            return Err(item.err(
                                source,
                                "params.arguments",
                                format!("must be an object, found {}", type_name(other)),
                            ))
                        }
                    };
                    let call_id = format!("mcp-{}", key.trim_matches('"'));
                    let model = if server.is_empty() {
                        "mcp".to_string()
                    } else {
                        server.clone()
                    };
                    a.push(
                        Kind::ChatRequest,
                        request_payload(&model, Vec::new(), std::mem::take(&mut tools)),
                        ms,
                        item.line,
                    );
                    let answer = Answer {
                        model,
                        tool_uses: vec![(Some(call_id.clone()), name.clone(), arguments.clone())],
                        ..Answer::default()
                    };
                    a.push(Kind::ChatResponse, answer.payload(), ms, item.line);
                    a.push(
                        Kind::ToolCall,
                        tool_call_payload(name, &call_id, arguments),
                        ms,
                        item.line,
                    );
                }
                let p = Pending {
                    method: method.clone(),
                    call_id: format!("mcp-{}", key.trim_matches('"')),
                    ms,
                    line: item.line,
                };
                if pending.insert(key.clone(), p).is_some() {
                    if options.strict {
                        return Err(item.err(
                            source,
                            "id",
                            format!("request id {key} is reused before its response"),
                        ));
                    }
                    a.warn(item.line, "id", format!("request id {key} is reused before its response; the later request takes the response"));
                }
            }
            Some(other) => {
                return Err(item.err(
                    source,
                    "method",
                    format!("must be a string, found {}", type_name(other)),
                ))
            }
            None => {
                let Some(key) = key else {
                    if msg.contains_key("error") {
                        continue; // an error about an unparseable request: nothing to pair
                    }
                    return Err(item.err(source, "id", "a response needs the id of its request"));
                };
                let Some(req) = pending.remove(&key) else {
                    if options.strict {
                        return Err(item.err(
                            source,
                            "id",
                            format!("response to request id {key}, which was never sent"),
                        ));
                    }
                    a.warn(
                        item.line,
                        "id",
                        format!("response to request id {key}, which was never sent; ignored"),
                    );
                    continue;
                };
                let result = msg.get("result");
                match req.method.as_str() {
                    "initialize" => {
                        let info = result.and_then(|r| r.get("serverInfo"));
                        let text = |k: &str| {
                            info.and_then(|i| i.get(k))
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string()
                        };
                        server = text("name");
                        let protocol = result
                            .and_then(|r| r.get("protocolVersion"))
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string();
                        a.session(
                            vec![
                                ("server", server.clone()),
                                ("server_version", text("version")),
                                ("protocol_version", protocol),
                            ],
                            None,
                            ms,
                            item.line,
                        );
                    }
                    "tools/list" => {
                        if let Some(Value::Array(list)) = result.and_then(|r| r.get("tools")) {
                            tools = list.iter().map(tool_schema).collect();
                        } else if msg.contains_key("result") {
                            return Err(item.err(
                                source,
                                "result.tools",
                                "must be an array of tool definitions",
                            ));
                        }
                    }
                    "tools/call" => {
                        let (output, is_error) = call_output(msg.get("error"), result);
                        let latency = span_ms(req.ms, ms);
                        a.push(
                            Kind::ToolResult,
                            tool_result_payload(&req.call_id, output, is_error, latency),
                            ms,
                            item.line,
                        );
                    }
                    _ => {}
                }
            }
        }
    }
    let mut open: Vec<&Pending> = pending
        .values()
        .filter(|p| p.method == "tools/call")
        .collect();
    open.sort_by_key(|p| p.line);
    if let Some(p) = open.first() {
        a.warn(
            p.line,
            "id",
            format!(
                "{} tools/call request(s) got no response (the log may be cut short)",
                open.len()
            ),
        );
    }
    a.finish("MCP session log")
}

/// A `tools/list` entry as a `.agentlog` tool definition: `name`, `description`,
/// `input_schema` (MCP's `inputSchema`), other keys kept.
fn tool_schema(t: &Value) -> Value {
    let Value::Object(o) = t else {
        return t.clone();
    };
    let mut out = Map::new();
    for (k, v) in o {
        let k = if k == "inputSchema" {
            "input_schema"
        } else {
            k.as_str()
        };
        out.insert(k.to_string(), v.clone());
    }
    Value::Object(out)
}

/// The output of a `tools/call` response: the text parts of `result.content` joined by `\n`
/// (else `structuredContent`, else the result), and whether it failed (`isError`, or a
/// JSON-RPC error whose message becomes the output).
fn call_output(error: Option<&Value>, result: Option<&Value>) -> (Value, bool) {
    if let Some(e) = error {
        let m = e.get("message").and_then(Value::as_str).map(str::to_string);
        return (Value::String(m.unwrap_or_else(|| e.to_string())), true);
    }
    let Some(r) = result else {
        return (json!(""), false);
    };
    let is_error = r.get("isError").and_then(Value::as_bool).unwrap_or(false);
    let output = match super::assemble::text_of(r.get("content")) {
        Some(t) => Value::String(t),
        None => match r.get("structuredContent") {
            Some(s @ Value::Object(_)) => s.clone(),
            _ => r.clone(),
        },
    };
    (output, is_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::items_of_bytes;

    fn read_str(s: &str) -> Result<Trace, TraceError> {
        read(
            "s.mcp.jsonl",
            items_of_bytes("s.mcp.jsonl", s.as_bytes(), u64::MAX)?,
            &ReadOptions::default(),
        )
    }

    #[test]
    fn the_conformance_session_reads_as_two_tool_turns() {
        let t = read_str(include_str!(
            "../../../../tests/fixtures/shadow/mcp-session/baseline.mcp.jsonl"
        ))
        .unwrap();
        let calls = t.tool_calls();
        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["search_orders", "refund_order"]);
        let turns = t.turns();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[1].tool_results.len(), 1);
        let result = &t.records[turns[1].tool_results[0]];
        assert_eq!(result.payload["output"], json!("refund issued: REF-987"));
        let req = &t.records[turns[0].request.unwrap()];
        assert_eq!(
            req.payload["tools"][0]["input_schema"]["required"],
            json!(["customer_id"])
        );
        assert_eq!(req.payload["model"], json!("acme-support-mcp"));
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    }

    #[test]
    fn errors_unknown_ids_and_wrong_types() {
        let e = read_str(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":3}}",
        )
        .unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(1), "params.name"));
        let e = read_str("[1]").unwrap_err();
        assert!(e.message.contains("must be an object"), "{e}");
        let t = read_str(concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":-32000,\"message\":\"boom\"}}\n",
        ))
        .unwrap();
        assert_eq!(t.warnings.len(), 1);
        assert_eq!(t.warnings[0].line, Some(1));
        let r = t.records.last().unwrap();
        assert_eq!(
            (
                r.payload["output"].to_value(),
                r.payload["is_error"].to_value()
            ),
            (json!("boom"), json!(true))
        );
        let e =
            read_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").unwrap_err();
        assert!(e.message.contains("no model calls or tool calls"), "{e}");
    }
}
