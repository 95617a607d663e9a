//! Langfuse trace exports: a trace (as `GET /api/public/traces/{id}` returns it) with its
//! `observations`, one per file, a list of them, or the list endpoint's `{"data": [...]}`.
//! GENERATION observations are model calls, TOOL observations tool runs, and a SPAN named after
//! a tool the preceding generation asked for is taken as that tool's run (docs/formats.md
//! §Langfuse).

use super::assemble::{count, ms_of, Assembler};
use super::span_tree::{answer_of, emit, messages_of, Node, Role};
use super::{type_name, Item};
use crate::error::TraceError;
use crate::model::{Format, Trace};
use crate::options::ReadOptions;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Whether `v` is a Langfuse trace with observations.
pub fn sniff(v: &Value) -> bool {
    matches!(v.get("observations"), Some(Value::Array(_))) && v.get("id").is_some()
}

/// Reads Langfuse traces.
pub fn read(source: &str, items: Vec<Item>, options: &ReadOptions) -> Result<Trace, TraceError> {
    let mut a = Assembler::new(source, Format::Langfuse, "langfuse");
    let mut nodes = Vec::new();
    let mut tags = HashMap::new();
    for item in &items {
        let Value::Object(t) = &item.value else {
            return Err(item.err(
                source,
                "",
                format!(
                    "a Langfuse trace must be an object, found {}",
                    type_name(&item.value)
                ),
            ));
        };
        let Some(Value::String(trace_id)) = t.get("id") else {
            return Err(item.err(source, "id", "a trace needs a string id"));
        };
        let Some(Value::Array(observations)) = t.get("observations") else {
            return Err(item
                .err(source, "observations", "must be an array of observations")
                .with_hint(
                    "export the trace with its observations (GET /api/public/traces/{traceId})",
                ));
        };
        let text = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        tags.insert(
            trace_id.clone(),
            vec![
                ("name", text("name")),
                ("session_id", text("sessionId")),
                ("user_id", text("userId")),
            ],
        );
        for (i, o) in observations.iter().enumerate() {
            nodes.push(node(source, item, trace_id, i, o)?);
        }
    }
    emit(&mut a, source, nodes, &tags, options)?;
    a.finish("Langfuse trace export")
}

fn node<'a>(
    source: &str,
    item: &'a Item,
    trace: &str,
    i: usize,
    o: &Value,
) -> Result<Node<'a>, TraceError> {
    let path = format!("observations[{i}]");
    let Value::Object(o) = o else {
        return Err(item.err(
            source,
            &path,
            format!("an observation must be an object, found {}", type_name(o)),
        ));
    };
    let field = |k: &str| format!("{path}.{k}");
    let string = |k: &str, required: bool| -> Result<Option<String>, TraceError> {
        match o.get(k) {
            Some(Value::String(s)) => Ok(Some(s.clone())),
            None | Some(Value::Null) if !required => Ok(None),
            None | Some(Value::Null) => Err(item.err(source, &field(k), "missing required field")),
            Some(v) => Err(item.err(
                source,
                &field(k),
                format!("must be a string, found {}", type_name(v)),
            )),
        }
    };
    let id = string("id", true)?.unwrap_or_default();
    let kind = string("type", true)?.unwrap_or_default();
    let start = string("startTime", false)?.unwrap_or_default();
    string("endTime", false)?;
    let input = o.get("input").cloned().unwrap_or(Value::Null);
    let output = o.get("output").cloned().unwrap_or(Value::Null);
    let error = (o.get("level").and_then(Value::as_str) == Some("ERROR")).then(|| {
        string("statusMessage", false)
            .ok()
            .flatten()
            .unwrap_or_else(|| "error".into())
    });
    let role = match kind.as_str() {
        "GENERATION" => Role::Model {
            messages: messages_of(Some(&input)),
            answer: answer_of(&output),
            usage: usage_of(o),
        },
        "TOOL" => Role::Tool { input, output },
        _ => Role::Other { input, output },
    };
    Ok(Node {
        item,
        path: path.clone(),
        id,
        parent: string("parentObservationId", false)?,
        trace: trace.to_string(),
        start_ms: ms_of(o.get("startTime")),
        start,
        end_ms: ms_of(o.get("endTime")),
        name: string("name", false)?.unwrap_or_default(),
        model: string("model", false)?.unwrap_or_default(),
        error,
        role,
    })
}

/// `usageDetails` (`input`, `output`, cache keys) or the older `usage` (`input`/`output` or
/// `promptTokens`/`completionTokens`).
fn usage_of(o: &Map<String, Value>) -> Option<[u64; 4]> {
    let u = o
        .get("usageDetails")
        .or_else(|| o.get("usage"))?
        .as_object()?;
    let first = |keys: &[&str]| count(keys.iter().find_map(|k| u.get(*k)));
    Some([
        first(&["input", "promptTokens", "input_tokens"]),
        first(&["output", "completionTokens", "output_tokens"]),
        first(&[
            "input_cached_tokens",
            "cache_read_input_tokens",
            "input_cache_read",
        ]),
        first(&["cache_creation_input_tokens", "input_cache_creation"]),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::items_of_bytes;
    use serde_json::json;

    fn read_str(s: &str) -> Result<Trace, TraceError> {
        read(
            "l.json",
            items_of_bytes("l.json", s.as_bytes(), u64::MAX)?,
            &ReadOptions::default(),
        )
    }

    #[test]
    fn exported_traces_read_as_turns_with_tool_results() {
        let fx = |f: &str| {
            std::fs::read_to_string(format!(
                "{}/../../tests/fixtures/formats/hosted/{f}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap()
        };
        let b = read_str(&fx("langfuse-baseline.json")).unwrap();
        let names: Vec<String> = b.tool_calls().into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["search_orders", "refund_order"]);
        let turns = b.turns();
        assert_eq!(turns.len(), 3);
        assert_eq!(
            b.records[turns[0].tool_results[0]].payload["output"],
            json!("found ORD-123, $30.00, damaged on delivery")
        );
        assert_eq!(
            b.records[turns[1].response].payload["usage"]["input_tokens"],
            json!(160)
        );
        assert_eq!(
            b.records[turns[2].response].payload["latency_ms"],
            json!(700)
        );
        assert!(b.warnings.is_empty(), "{:?}", b.warnings);
        assert_eq!(b.trace_id(), "51021c82560653cb8991df215906bb80");
    }

    #[test]
    fn bad_observations_are_named() {
        let e =
            read_str("{\"id\":\"t\",\"observations\":[{\"id\":\"a\",\"type\":5}]}").unwrap_err();
        assert_eq!(e.field, "observations[0].type");
        let e = read_str("{\"id\":\"t\",\"observations\":[7]}").unwrap_err();
        assert_eq!(e.field, "observations[0]");
        let cyc = "{\"id\":\"t\",\"observations\":[{\"id\":\"a\",\"type\":\"TOOL\",\"parentObservationId\":\"b\"},{\"id\":\"b\",\"type\":\"TOOL\",\"parentObservationId\":\"a\"}]}";
        assert!(read_str(cyc).unwrap_err().message.contains("cycle"));
        let t = read_str("{\"id\":\"t\",\"observations\":[{\"id\":\"a\",\"type\":\"TOOL\",\"name\":\"x\",\"parentObservationId\":\"gone\"}]}").unwrap();
        assert_eq!(t.warnings[0].field, "parent");
    }
}
