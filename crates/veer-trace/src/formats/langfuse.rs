//! Langfuse trace exports, in every shape Langfuse gives them: the UI's download and the SDK's
//! `fetch_trace` (`{"trace": {…}, "observations": [...]}`, the outer observations carrying the
//! input and output), a trace as `GET /api/public/traces/{id}` returns it (its `observations`
//! inside), a list of traces or the list endpoint's `{"data": [...]}`, and the observations
//! API's pages (`{"data": [observation…], "meta": {…}}`). GENERATION observations are model
//! calls, TOOL observations tool runs, and a SPAN named after a tool the preceding generation
//! asked for is taken as that tool's run; an AGENT observation nested in the trace that holds
//! model calls of its own is a session of its own (docs/formats.md §Langfuse).

use super::answers::{parsed_text, usage_from};
use super::assemble::{count, ms_of, Assembler};
use super::span_tree::{answer_of, emit, messages_of, Node, Role};
use super::{type_name, Item};
use crate::error::TraceError;
use crate::model::Trace;
use crate::options::ReadOptions;
use serde_json::{Map, Value};
use std::collections::HashMap;
use veer_base::format::Format;

/// Whether `v` is a Langfuse trace with observations, a trace download (`trace` and
/// `observations`), or one observation of the observations API.
pub fn sniff(v: &Value) -> bool {
    let has_list = matches!(v.get("observations"), Some(Value::Array(_)));
    (has_list && (v.get("id").is_some() || v.get("trace").is_some_and(|t| t.get("id").is_some())))
        || is_observation(v)
}

/// An observation of the observations API: a `traceId`, an observation `type` and a
/// `startTime`.
fn is_observation(v: &Value) -> bool {
    v.get("traceId").is_some_and(Value::is_string)
        && v.get("startTime").is_some()
        && v.get("type").and_then(Value::as_str).is_some_and(|t| {
            t.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') && !t.is_empty()
        })
}

/// Reads Langfuse traces.
pub fn read(source: &str, items: Vec<Item>, options: &ReadOptions) -> Result<Trace, TraceError> {
    let mut a = Assembler::new(source, Format::Langfuse, "langfuse");
    let mut nodes = Vec::new();
    let mut tags = HashMap::new();
    for item in &items {
        let Value::Object(top) = &item.value else {
            return Err(item.err(
                source,
                "",
                format!(
                    "a Langfuse trace must be an object, found {}",
                    type_name(&item.value)
                ),
            ));
        };
        if is_observation(&item.value) {
            let trace_id = top.get("traceId").and_then(Value::as_str).unwrap_or("");
            tags.entry(trace_id.to_string()).or_insert_with(Vec::new);
            if let Some(n) = node(source, item, "", trace_id, top)? {
                nodes.push(n);
            }
            continue;
        }
        // A download: the trace apart, the observations (with input and output) beside it.
        let t = match top.get("trace") {
            Some(Value::Object(t)) if top.contains_key("observations") => t,
            Some(other) if top.contains_key("observations") => {
                return Err(item.err(
                    source,
                    "trace",
                    format!("must be an object, found {}", type_name(other)),
                ))
            }
            _ => top,
        };
        let Some(Value::String(trace_id)) = t.get("id") else {
            let field = if std::ptr::eq(t, top) {
                "id"
            } else {
                "trace.id"
            };
            return Err(item.err(source, field, "a trace needs a string id"));
        };
        let Some(Value::Array(observations)) = top.get("observations") else {
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
        // The trace's own list (when the outer one is the download's) fills in what the
        // outer one left out.
        let inner: HashMap<&str, &Map<String, Value>> = match t.get("observations") {
            Some(Value::Array(list)) if !std::ptr::eq(t, top) => list
                .iter()
                .filter_map(Value::as_object)
                .filter_map(|o| Some((o.get("id")?.as_str()?, o)))
                .collect(),
            _ => HashMap::new(),
        };
        let mut seen = std::collections::HashSet::new();
        for (i, o) in observations.iter().enumerate() {
            let path = format!("observations[{i}]");
            match o {
                // The trace list endpoint gives observation ids only: nothing to read.
                Value::String(_) => continue,
                Value::Object(m) => {
                    let id = m.get("id").and_then(Value::as_str);
                    let merged;
                    let m = match id.and_then(|id| inner.get(id)) {
                        Some(extra) => {
                            merged = fill_in(m, extra);
                            &merged
                        }
                        None => m,
                    };
                    seen.extend(id);
                    if let Some(n) = node(source, item, &path, trace_id, m)? {
                        nodes.push(n);
                    }
                }
                other => {
                    return Err(item.err(
                        source,
                        &path,
                        format!(
                            "an observation must be an object, found {}",
                            type_name(other)
                        ),
                    ))
                }
            }
        }
        if let Some(Value::Array(list)) = t.get("observations").filter(|_| !std::ptr::eq(t, top)) {
            for (i, o) in list.iter().enumerate() {
                let Value::Object(m) = o else { continue };
                let id = m.get("id").and_then(Value::as_str).unwrap_or("");
                if !seen.contains(id) {
                    let path = format!("trace.observations[{i}]");
                    if let Some(n) = node(source, item, &path, trace_id, m)? {
                        nodes.push(n);
                    }
                }
            }
        }
    }
    agent_sessions(&mut nodes, &mut tags);
    emit(&mut a, source, nodes, &tags, options)?;
    a.finish("Langfuse trace export")
}

/// `outer` with its absent or `null` fields taken from `inner`.
fn fill_in(outer: &Map<String, Value>, inner: &Map<String, Value>) -> Map<String, Value> {
    let mut m = outer.clone();
    for (k, v) in inner {
        if m.get(k).is_none_or(Value::is_null) {
            m.insert(k.clone(), v.clone());
        }
    }
    m
}

/// Splits each trace into sessions by agent: a node belongs to its nearest AGENT ancestor
/// that holds model calls or tool runs of its own (not through a deeper agent); the trace's
/// main session is the part outside every such agent, else its outermost agent. The others
/// are keyed by the agent observation's id and tagged with its name.
fn agent_sessions(nodes: &mut [Node<'_>], tags: &mut HashMap<String, Vec<(&'static str, String)>>) {
    let index: HashMap<(&str, &str), usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| ((n.trace.as_str(), n.id.as_str()), i))
        .collect();
    // The nearest AGENT ancestor of each node (the node itself excluded), bounded walks.
    let agent_of = |i: usize| -> Option<usize> {
        let mut at = i;
        for _ in 0..nodes.len() {
            let p = nodes[at].parent.as_deref()?;
            at = *index.get(&(nodes[i].trace.as_str(), p))?;
            if nodes[at].kind_is_agent() {
                return Some(at);
            }
        }
        None
    };
    let agents: Vec<Option<usize>> = (0..nodes.len()).map(agent_of).collect();
    let holds = |n: &Node| matches!(n.role, Role::Model { .. } | Role::Tool { .. });
    let mut with_records = vec![false; nodes.len()];
    let mut trace_has_loose = std::collections::HashSet::new();
    for (i, n) in nodes.iter().enumerate() {
        if holds(n) {
            match agents[i] {
                Some(g) => with_records[g] = true,
                None => {
                    trace_has_loose.insert(n.trace.clone());
                }
            }
        }
    }
    // The agent that keeps a node: the nearest one up the chain holding records.
    let keeper = |mut g: Option<usize>| -> Option<usize> {
        for _ in 0..nodes.len() {
            match g {
                Some(x) if with_records[x] => return Some(x),
                Some(x) => g = agents[x],
                None => return None,
            }
        }
        None
    };
    let depth = |mut g: usize| -> usize {
        let mut d = 0;
        while let Some(up) = keeper(agents[g]) {
            d += 1;
            g = up;
            if d > nodes.len() {
                break;
            }
        }
        d
    };
    // The main agent of a trace without loose records: the outermost, then the earliest.
    let mut main: HashMap<String, usize> = HashMap::new();
    for (g, n) in nodes.iter().enumerate() {
        if !with_records[g] || trace_has_loose.contains(&n.trace) {
            continue;
        }
        let better = match main.get(&n.trace) {
            None => true,
            Some(&m) => {
                (depth(g), nodes[g].start_ms, &nodes[g].id)
                    < (depth(m), nodes[m].start_ms, &nodes[m].id)
            }
        };
        if better {
            main.insert(n.trace.clone(), g);
        }
    }
    let keys: Vec<Option<(String, String)>> = (0..nodes.len())
        .map(|i| {
            let g = keeper(agents[i])?;
            if main.get(&nodes[i].trace) == Some(&g) {
                return None;
            }
            Some((nodes[g].id.clone(), nodes[g].name.clone()))
        })
        .collect();
    for (n, key) in nodes.iter_mut().zip(keys) {
        let Some((agent_id, agent_name)) = key else {
            continue;
        };
        let mut t = tags.get(&n.trace).cloned().unwrap_or_default();
        t.push(("agent", agent_name));
        t.push(("parent_trace_id", n.trace.clone()));
        tags.entry(agent_id.clone()).or_insert(t);
        n.trace = agent_id;
    }
}

fn node<'a>(
    source: &str,
    item: &'a Item,
    path: &str,
    trace: &str,
    o: &Map<String, Value>,
) -> Result<Option<Node<'a>>, TraceError> {
    let field = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
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
    // Inputs and outputs stored as JSON text are read as the JSON they hold.
    let value = |k: &str| {
        let v = o.get(k).cloned().unwrap_or(Value::Null);
        parsed_text(&v).unwrap_or(v)
    };
    let input = value("input");
    let output = value("output");
    let error = (o.get("level").and_then(Value::as_str) == Some("ERROR")).then(|| {
        string("statusMessage", false)
            .ok()
            .flatten()
            .unwrap_or_else(|| "error".into())
    });
    let usage = usage_of(o);
    let role = match kind.as_str() {
        // A generation with nothing in it (an instrumentation's start / finish event of a
        // call recorded in another observation) is structure only.
        "GENERATION" if !(input.is_null() && output.is_null() && usage.is_none()) => Role::Model {
            messages: messages_of(Some(&input)),
            answer: answer_of(&output),
            usage,
            cost_usd: cost_of(o),
        },
        "TOOL" => Role::Tool { input, output },
        _ => Role::Other { input, output },
    };
    let model = string("model", false)?
        .or(string("providedModelName", false)?)
        .unwrap_or_default();
    Ok(Some(Node {
        item,
        path: path.to_string(),
        id,
        parent: string("parentObservationId", false)?,
        trace: trace.to_string(),
        start_ms: ms_of(o.get("startTime")),
        start,
        end_ms: ms_of(o.get("endTime")),
        name: string("name", false)?.unwrap_or_default(),
        model,
        error,
        role,
        agent: kind == "AGENT",
    }))
}

/// `usageDetails` (`input`, `output`, cache keys) or the older `usage` (`input`/`output` or
/// `promptTokens`/`completionTokens`), else the flat `promptTokens` / `inputUsage` counts.
fn usage_of(o: &Map<String, Value>) -> Option<[u64; 4]> {
    let nested = ["usageDetails", "usage"]
        .iter()
        .filter_map(|k| o.get(*k)?.as_object())
        .find_map(usage_from);
    nested.or_else(|| {
        let flat = |a: &str, b: &str| count(o.get(a).or_else(|| o.get(b)));
        let (i, out) = (
            flat("promptTokens", "inputUsage"),
            flat("completionTokens", "outputUsage"),
        );
        (i > 0 || out > 0).then_some([i, out, 0, 0])
    })
}

/// The cost Langfuse computed or was given, in US dollars: `costDetails.total`, else
/// `calculatedTotalCost`, else `totalCost`.
fn cost_of(o: &Map<String, Value>) -> Option<f64> {
    o.get("costDetails")
        .and_then(|c| c.get("total"))
        .or_else(|| o.get("calculatedTotalCost"))
        .or_else(|| o.get("totalCost"))
        .and_then(Value::as_f64)
        .filter(|c| *c > 0.0)
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

    /// Model calls, tokens in and out, and the tool calls asked for, of each real download
    /// (numbers from `tests/fixtures/formats/langfuse-real/count.py`).
    #[test]
    fn real_downloads_read_with_their_calls_tokens_and_tools() {
        let expected: &[(&str, usize, u64, u64, &[&str])] = &[
            ("agno-2025-06-11", 4, 2936, 903, &["duckduckgo_search"]),
            ("autogen-2025-06-06", 1, 41, 3, &[]),
            ("beeai-2025-08-01", 3, 5542, 0, &[]),
            ("google-adk-2025-08-28", 2, 67, 9, &["say_hello"]),
            ("google-gemini-2025-08-01", 1, 6, 2055, &[]),
            ("google-vertex-tools-langchain-2025-09-19", 1, 1200, 15, &[]),
            ("koog-2025-08-26", 2, 215, 125, &["HelloTool", "ByeTool"]),
            ("langgraph-2025-08-22", 2, 168, 66, &["Web-Search"]),
            ("llamaindex-2025-06-05", 1, 13, 81, &[]),
            ("microsoft-agent-2025-10-14", 2, 656, 105, &["get_weather"]),
            ("openai-agents-2025-09-30", 2, 140, 44, &["get_weather"]),
            ("openai-assistants-2024-05-29", 1, 49, 40, &[]),
            (
                "pydantic-ai-tools-2025-12-04",
                4,
                1315,
                209,
                &[
                    "get_pun_suggestion",
                    "get_dad_joke_suggestion",
                    "get_one_liner_suggestion",
                    "final_result",
                ],
            ),
        ];
        for (name, calls, tin, tout, tools) in expected {
            let path = format!(
                "{}/../../tests/fixtures/formats/langfuse-real/{name}.json",
                env!("CARGO_MANIFEST_DIR")
            );
            let t = crate::load::load_trace(std::path::Path::new(&path), &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(t.format, Format::Langfuse, "{name}");
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
                (usage("input_tokens"), usage("output_tokens")),
                (*tin, *tout),
                "{name}: tokens"
            );
            let asked: Vec<String> = t.tool_calls().into_iter().map(|c| c.name).collect();
            assert_eq!(asked, *tools, "{name}: tool calls");
            // Every tool run answers a call its model asked for, by the model's name for it.
            for r in t
                .records
                .iter()
                .filter(|r| r.kind == crate::model::Kind::ToolCall)
            {
                assert!(
                    tools.contains(&r.payload["tool_name"].as_str().unwrap_or("")),
                    "{name}: {:?}",
                    r.payload
                );
            }
        }
    }

    #[test]
    fn downloads_pages_text_outputs_and_agent_sessions() {
        // A download: the inner observations lack the output, the outer ones carry it as
        // JSON text (Anthropic content blocks); the tool span is named by its instrumentation.
        let download = json!({
            "trace": {"id": "t1", "name": "n", "observations": [
                {"id": "g", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z", "output": null, "model": "claude"}
            ]},
            "observations": [
                {"id": "g", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z", "endTime": "2025-01-01T00:00:01Z",
                 "input": "[{\"role\":\"user\",\"content\":\"hi\"}]",
                 "output": "{\"content\":[{\"type\":\"text\",\"text\":\"let me look\"},{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"search\",\"input\":{\"q\":\"x\"}}]}",
                 "usageDetails": {"input": 10, "output": 4}, "costDetails": {"total": 0.5}},
                {"id": "s", "type": "SPAN", "name": "execute_tool search", "startTime": "2025-01-01T00:00:02Z", "output": "found"}
            ]
        });
        let t = read_str(&download.to_string()).unwrap();
        let turns = t.turns();
        let resp = &t.records[turns[0].response].payload;
        assert_eq!(resp["model"], json!("claude"));
        assert_eq!(resp["content"][0]["text"], json!("let me look"));
        assert_eq!(resp["cost_usd"], json!(0.5));
        assert_eq!(
            t.records[turns[0].tool_results[0]].payload["tool_call_id"],
            json!("tu1")
        );
        // A page of the observations API.
        let page = json!({"data": [
            {"id": "g", "traceId": "t2", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z", "output": {"role": "assistant", "content": "hello"}, "promptTokens": 3, "completionTokens": 1}
        ], "meta": {"page": 1, "totalItems": 1}});
        let t = read_str(&page.to_string()).unwrap();
        assert_eq!(t.format, Format::Langfuse);
        assert_eq!(
            t.records[t.turns()[0].response].payload["usage"]["input_tokens"],
            json!(3)
        );
        // A sub-agent under the main agent's trace is a session of its own.
        let nested = json!({"id": "t3", "observations": [
            {"id": "g1", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z", "output": "delegating"},
            {"id": "a", "type": "AGENT", "name": "researcher", "startTime": "2025-01-01T00:00:01Z"},
            {"id": "g2", "type": "GENERATION", "parentObservationId": "a", "startTime": "2025-01-01T00:00:02Z", "output": "found it"},
            {"id": "g3", "type": "GENERATION", "startTime": "2025-01-01T00:00:03Z", "output": "done"}
        ]});
        let t = read_str(&nested.to_string()).unwrap();
        let meta: Vec<&crate::model::Record> = t
            .records
            .iter()
            .filter(|r| r.kind == crate::model::Kind::Metadata)
            .collect();
        assert_eq!(meta.len(), 2);
        assert_eq!(meta[1].payload["tags"]["agent"], json!("researcher"));
        assert_eq!(t.turns().len(), 3);
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
