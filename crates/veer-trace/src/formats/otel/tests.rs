//! The OTLP/JSON reader on the committed vectors written by the real SDKs
//! (`tests/fixtures/otel`, see its `generate.py`) and on bad input.

mod adk;
mod documents;
mod frameworks;
mod logs;
mod stores;
mod streaming;
mod synthetic;
mod vectors;

use super::*;
use crate::model::Kind;
use serde_json::{json, Value};
use std::path::PathBuf;
use veer_base::format::Format;

fn fixture(rel: &str) -> (String, Vec<u8>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/otel")
        .join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (rel.to_string(), bytes)
}

fn read_fixture(rel: &str) -> Trace {
    let (name, bytes) = fixture(rel);
    read(&name, bytes).unwrap_or_else(|e| panic!("{e}"))
}

fn tool_names(t: &Trace) -> Vec<String> {
    t.tool_calls()
        .into_iter()
        .filter(|c| c.from_block)
        .map(|c| c.name)
        .collect()
}

const KINDS: [&str; 3] = ["openai-v2", "anthropic", "openinference"];

// ---- synthetic spans, shared by the tests of ordering, bad input, streams and documents ----

fn span(id: u64, parent: Option<u64>, start: u64, attrs: Value) -> Value {
    let attributes: Vec<Value> = attrs
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let value = match v {
                Value::String(s) => json!({"stringValue": s}),
                Value::Number(n) => json!({"intValue": n.to_string()}),
                other => json!({"stringValue": other.to_string()}),
            };
            json!({"key": k, "value": value})
        })
        .collect();
    let mut s = json!({
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": format!("{id:016x}"),
        "name": "s",
        "kind": 1,
        "startTimeUnixNano": (start * 1_000_000).to_string(),
        "endTimeUnixNano": (start * 1_000_000 + 500_000).to_string(),
        "attributes": attributes,
    });
    if let Some(p) = parent {
        s["parentSpanId"] = json!(format!("{p:016x}"));
    }
    s
}

fn request(spans: Vec<Value>) -> Vec<u8> {
    serde_json::to_vec(&json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})).unwrap()
}

fn chat(id: u64, parent: Option<u64>, start: u64, text: &str) -> Value {
    span(
        id,
        parent,
        start,
        json!({"gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
               "gen_ai.output.messages": json!([{"role":"assistant","parts":[{"type":"text","content":text}]}]).to_string()}),
    )
}

fn tool(id: u64, parent: Option<u64>, start: u64, name: &str) -> Value {
    span(
        id,
        parent,
        start,
        json!({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}),
    )
}
