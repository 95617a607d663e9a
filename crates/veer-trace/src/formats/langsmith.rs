//! LangSmith run exports: `Run` objects (as the API and `langsmith.schemas.Run` give them), a
//! root run with nested `child_runs`, a list of runs linked by `parent_run_id`, `{"data":
//! [...]}`, or the SDKs' batch-ingest body `{"post": [...], "patch": [...]}` (each patch
//! merged into the run it ends; the multipart form of that body is put back together by
//! `langsmith_multipart`). `llm` runs are model calls, `tool` runs tool runs; other runs give
//! structure only (docs/formats.md §LangSmith).

use super::assemble::{count, ms_of, Assembler};
use super::span_tree::{answer_of, emit, messages_of, Node, Role};
use super::{type_name, Item};
use crate::error::TraceError;
use crate::model::Trace;
use crate::options::ReadOptions;
use serde_json::{Map, Value};
use std::collections::HashMap;
use veer_base::format::Format;

/// Whether `v` is a LangSmith run, or a batch-ingest body whose first posted run is one.
pub fn sniff(v: &Value) -> bool {
    let is_run = |v: &Value| {
        v.get("run_type").is_some_and(Value::is_string)
            && (v.get("inputs").is_some() || v.get("start_time").is_some())
    };
    is_run(v) || batch_of(v).is_some_and(|(post, _)| post.first().is_some_and(is_run))
}

/// The `post` and `patch` lists of a batch-ingest body (`{"post": [...], "patch": [...]}`).
fn batch_of(v: &Value) -> Option<(&[Value], &[Value])> {
    let o = v.as_object()?;
    if o.contains_key("run_type") {
        return None;
    }
    let list = |k: &str| match o.get(k) {
        Some(Value::Array(a)) => Some(a.as_slice()),
        None | Some(Value::Null) => Some(&[][..]),
        _ => None,
    };
    let post = list("post")?;
    let patch = list("patch")?;
    (o.contains_key("post") && !post.is_empty()).then_some((post, patch))
}

/// The runs of a batch body: each posted run with the fields of the patch that ends it (the
/// patch with its `id`, else its `dotted_order`, else the only run of its `trace_id`) laid
/// over it; a patch that ends no posted run is kept as a run of its own. `Err(i)`: patch `i`
/// is not an object.
fn merged_runs(post: &[Value], patch: &[Value]) -> Result<Vec<(String, Value)>, usize> {
    let mut runs: Vec<(String, Value)> = post
        .iter()
        .enumerate()
        .map(|(i, r)| (format!("post[{i}]"), r.clone()))
        .collect();
    let key = |r: &Value, k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
    for (i, p) in patch.iter().enumerate() {
        let Value::Object(fields) = p else {
            return Err(i);
        };
        let by = |k: &str| {
            let want = key(p, k)?;
            let hits: Vec<usize> = runs
                .iter()
                .enumerate()
                .filter(|(_, (_, r))| key(r, k).as_deref() == Some(want.as_str()))
                .map(|(j, _)| j)
                .collect();
            (k != "trace_id" || hits.len() == 1).then(|| hits.first().copied())?
        };
        match by("id")
            .or_else(|| by("dotted_order"))
            .or_else(|| by("trace_id"))
        {
            Some(j) => {
                if let Value::Object(run) = &mut runs[j].1 {
                    for (k, v) in fields {
                        if !v.is_null() {
                            run.insert(k.clone(), v.clone());
                        }
                    }
                }
            }
            None => runs.push((format!("patch[{i}]"), p.clone())),
        }
    }
    Ok(runs)
}

/// A run still to read: its path, value, the parent and trace ids its nesting gives, depth.
type Pending<'v> = (String, &'v Value, Option<String>, Option<String>, usize);

/// Deepest `child_runs` nesting followed (deeper runs are an error, not a stack overflow).
const MAX_DEPTH: usize = 256;

/// Reads LangSmith runs.
pub fn read(source: &str, items: Vec<Item>, options: &ReadOptions) -> Result<Trace, TraceError> {
    let mut a = Assembler::new(source, Format::Langsmith, "langsmith");
    let mut nodes = Vec::new();
    let mut tags = HashMap::new();
    for item in &items {
        let batch = match batch_of(&item.value) {
            Some((post, patch)) => Some(merged_runs(post, patch).map_err(|i| {
                item.err(source, &format!("patch[{i}]"), "a patch must be an object")
            })?),
            None => None,
        };
        let roots: Vec<(String, &Value)> = match &batch {
            Some(runs) => runs.iter().map(|(p, v)| (p.clone(), v)).collect(),
            None => vec![(String::new(), &item.value)],
        };
        let mut stack: Vec<Pending> = roots
            .into_iter()
            .rev()
            .map(|(p, v)| (p, v, None, None, 0))
            .collect();
        while let Some((path, v, nested_parent, nested_trace, depth)) = stack.pop() {
            if depth > MAX_DEPTH {
                return Err(item.err(
                    source,
                    &path,
                    format!("child_runs nested deeper than {MAX_DEPTH}"),
                ));
            }
            let node = node(source, item, &path, v, nested_parent, nested_trace)?;
            if let Some(Value::Array(children)) = v.get("child_runs") {
                for (i, c) in children.iter().enumerate().rev() {
                    let p = if path.is_empty() {
                        format!("child_runs[{i}]")
                    } else {
                        format!("{path}.child_runs[{i}]")
                    };
                    stack.push((
                        p,
                        c,
                        Some(node.id.clone()),
                        Some(node.trace.clone()),
                        depth + 1,
                    ));
                }
            }
            if node.parent.is_none() {
                let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                tags.entry(node.trace.clone()).or_insert_with(|| {
                    vec![("name", text("name")), ("project_id", text("session_id"))]
                });
            }
            nodes.push(node);
        }
    }
    emit(&mut a, source, nodes, &tags, options)?;
    a.finish("LangSmith run export")
}

fn node<'a>(
    source: &str,
    item: &'a Item,
    path: &str,
    v: &Value,
    nested_parent: Option<String>,
    nested_trace: Option<String>,
) -> Result<Node<'a>, TraceError> {
    let Value::Object(o) = v else {
        return Err(item.err(
            source,
            path,
            format!("a run must be an object, found {}", type_name(v)),
        ));
    };
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
    let run_type = string("run_type", true)?.unwrap_or_default();
    for k in ["inputs", "outputs"] {
        if let Some(v) = o.get(k).filter(|v| !v.is_null() && !v.is_object()) {
            return Err(item.err(
                source,
                &field(k),
                format!("must be an object, found {}", type_name(v)),
            ));
        }
    }
    let parent = string("parent_run_id", false)?.or(nested_parent);
    let trace = string("trace_id", false)?
        .or(nested_trace)
        .unwrap_or_else(|| id.clone());
    let inputs = o.get("inputs").cloned().unwrap_or(Value::Null);
    let outputs = o.get("outputs").cloned().unwrap_or(Value::Null);
    let role = match run_type.as_str() {
        "llm" => Role::Model {
            messages: messages_of(Some(&inputs)),
            answer: answer_of(&outputs),
            usage: usage_of(o),
            cost_usd: None,
        },
        "tool" => {
            let output = match &outputs {
                Value::Object(m) if m.len() == 1 && m.contains_key("output") => m["output"].clone(),
                other => other.clone(),
            };
            Role::Tool {
                input: inputs,
                output,
            }
        }
        _ => Role::Other {
            input: inputs,
            output: outputs,
        },
    };
    let model = [
        ("extra", "metadata", "ls_model_name"),
        ("extra", "invocation_params", "model"),
        ("outputs", "model", ""),
        ("inputs", "model", ""),
    ]
    .iter()
    .find_map(|(a, b, c)| {
        let v = o.get(*a)?.get(*b)?;
        if c.is_empty() {
            v.as_str()
        } else {
            v.get(*c)?.as_str()
        }
    })
    .unwrap_or("")
    .to_string();
    Ok(Node {
        item,
        path: path.to_string(),
        id,
        parent,
        trace,
        start_ms: time_of(o.get("start_time")),
        start: match o.get("start_time") {
            Some(Value::Number(n)) => format!("{n:0>20}"),
            _ => string("start_time", false)?.unwrap_or_default(),
        },
        end_ms: time_of(o.get("end_time")),
        name: string("name", false)?.unwrap_or_default(),
        model,
        error: string("error", false)?,
        role,
        agent: false,
    })
}

/// A run time: ISO-8601 text, or a number of milliseconds since the epoch (the JS SDK's),
/// or of seconds when it is too small to be milliseconds (before 1973).
fn time_of(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Number(n) => {
            let f = n.as_f64()?;
            let ms = if f.abs() < 1e11 { f * 1000.0 } else { f };
            (ms.is_finite() && ms.abs() < 1e16).then_some(ms.round() as i64)
        }
        other => ms_of(Some(other)),
    }
}

/// Token usage: the run's `prompt_tokens` / `completion_tokens`, else the output's `usage`,
/// `usage_metadata` (OpenAI, Anthropic or LangChain names) or `llm_output.token_usage`.
fn usage_of(o: &Map<String, Value>) -> Option<[u64; 4]> {
    if o.get("prompt_tokens").is_some_and(Value::is_number) {
        return Some([
            count(o.get("prompt_tokens")),
            count(o.get("completion_tokens")),
            0,
            0,
        ]);
    }
    super::answers::output_usage(o.get("outputs")?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::items_of_bytes;
    use serde_json::json;

    fn read_str(s: &str) -> Result<Trace, TraceError> {
        read(
            "r.json",
            items_of_bytes("r.json", s.as_bytes(), u64::MAX)?,
            &ReadOptions::default(),
        )
    }

    /// Model calls, tokens, answer length and latency of each real SDK payload (numbers from
    /// `tests/fixtures/formats/langsmith-real/count.py`).
    #[test]
    fn real_batch_payloads_read_with_their_tokens_and_times() {
        let expected: &[(&str, u64, u64, usize, u64)] = &[
            ("langsmith_js_wrap_openai_default", 9, 9, 34, 1115),
            ("langsmith_js_wrap_openai_reasoning", 43, 1901, 3469, 10439),
            ("langsmith_js_wrap_openai_stream", 9, 9, 34, 854),
            ("langsmith_js_wrap_openai_stream_no_usage", 0, 0, 34, 493),
            ("langsmith_py_wrap_openai_", 9, 9, 34, 1119),
            ("langsmith_py_wrap_openai_reasoning", 43, 2497, 4039, 15138),
            ("langsmith_py_wrap_openai_stream", 9, 9, 34, 1328),
            ("langsmith_py_wrap_openai_stream_no_usage", 0, 0, 34, 927),
        ];
        for (name, tin, tout, chars, latency) in expected {
            let path = format!(
                "{}/../../tests/fixtures/formats/langsmith-real/{name}.json",
                env!("CARGO_MANIFEST_DIR")
            );
            let t = crate::load::load_trace(std::path::Path::new(&path), &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(t.format, Format::Langsmith, "{name}");
            let turns = t.turns();
            assert_eq!(turns.len(), 1, "{name}: model calls");
            let p = &t.records[turns[0].response].payload;
            assert_eq!(
                (
                    p["usage"]["input_tokens"].as_u64(),
                    p["usage"]["output_tokens"].as_u64()
                ),
                (Some(*tin), Some(*tout)),
                "{name}: tokens"
            );
            let text: usize = p["content"]
                .as_array()
                .unwrap_or_default()
                .iter()
                .filter_map(|c| c["text"].as_str())
                .map(|s| s.chars().count())
                .sum();
            assert_eq!(text, *chars, "{name}: answer");
            assert_eq!(p["latency_ms"].as_u64(), Some(*latency), "{name}: latency");
            assert!(t.tool_calls().is_empty(), "{name}");
        }
    }

    #[test]
    fn patches_end_their_posted_runs() {
        let body = json!({"post": [
            {"id": "r1", "run_type": "chain", "name": "agent", "start_time": 1700000000000u64, "inputs": {}, "trace_id": "r1", "dotted_order": "a"},
            {"id": "r2", "run_type": "llm", "name": "m", "start_time": 1700000000100u64, "parent_run_id": "r1", "trace_id": "r1", "dotted_order": "a.b", "inputs": {"messages": []}}
        ], "patch": [
            {"dotted_order": "a.b", "trace_id": "r1", "end_time": 1700000000600u64, "outputs": {"content": "hi", "usage_metadata": {"input_tokens": 4, "output_tokens": 2}}},
            {"id": "r1", "end_time": 1700000000700u64, "outputs": {"output": "hi"}}
        ]});
        let t = read_str(&body.to_string()).unwrap();
        let turns = t.turns();
        let p = &t.records[turns[0].response].payload;
        assert_eq!(p["usage"]["input_tokens"], json!(4));
        assert_eq!(p["latency_ms"], json!(500));
        assert_eq!(t.records[0].ts, "2023-11-14T22:13:20.000Z");
        let e = read_str(
            &json!({"post": [{"id": "r", "run_type": "llm", "inputs": {}}], "patch": [3]})
                .to_string(),
        )
        .unwrap_err();
        assert_eq!(e.field, "patch[0]");
    }

    #[test]
    fn nested_and_flat_runs_read_alike() {
        let fx = |f: &str| {
            std::fs::read_to_string(format!(
                "{}/../../tests/fixtures/formats/hosted/{f}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap()
        };
        let b = read_str(&fx("langsmith-baseline.json")).unwrap();
        let c = read_str(&fx("langsmith-candidate.json")).unwrap();
        let names = |t: &Trace| {
            t.tool_calls()
                .into_iter()
                .map(|c| c.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&b), ["search_orders", "refund_order"]);
        assert_eq!(names(&c), ["search_orders", "cancel_order"]);
        let turns = b.turns();
        assert_eq!(turns.len(), 3);
        let r = &b.records[turns[0].response];
        assert_eq!(r.payload["model"], json!("gpt-4o-mini"));
        assert_eq!(r.payload["usage"]["output_tokens"], json!(18));
        assert_eq!(r.payload["content"][0]["id"], json!("call_0"));
        assert_eq!(
            b.records[turns[0].tool_results[0]].payload["tool_call_id"],
            json!("call_0")
        );
        assert!(b.warnings.is_empty() && c.warnings.is_empty());
    }

    #[test]
    fn bad_runs_are_named() {
        let e = read_str("{\"id\":\"r\",\"run_type\":\"llm\",\"inputs\":[],\"start_time\":\"x\"}")
            .unwrap_err();
        assert_eq!(e.field, "inputs");
        let e = read_str("{\"id\":\"r\",\"run_type\":\"chain\",\"inputs\":{},\"child_runs\":[{\"run_type\":\"tool\",\"inputs\":{}}]}").unwrap_err();
        assert_eq!(e.field, "child_runs[0].id");
        let cyc = "[{\"id\":\"a\",\"run_type\":\"tool\",\"inputs\":{},\"parent_run_id\":\"b\"},{\"id\":\"b\",\"run_type\":\"tool\",\"inputs\":{},\"parent_run_id\":\"a\"}]";
        assert!(read_str(cyc).unwrap_err().message.contains("cycle"));
    }
}
