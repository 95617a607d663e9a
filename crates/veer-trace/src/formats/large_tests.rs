//! 100,000 spans / entries / messages of each format of `formats/`, generated here (too big to
//! commit), read through content detection into the expected number of turns.

use crate::load::load_bytes;
use crate::options::ReadOptions;
use serde_json::{json, Value};
use std::fmt::Write as _;

const N: usize = 100_000;

fn ts(i: usize) -> String {
    format!(
        "2026-01-01T{:02}:{:02}:{:02}.{:03}Z",
        i / 3_600_000 % 24,
        i / 60_000 % 60,
        i / 1000 % 60,
        i % 1000
    )
}

fn turns_of(name: &str, text: &str) -> usize {
    let doc = load_bytes(name, text.as_bytes(), &ReadOptions::default()).unwrap();
    let trace = doc.into_trace(name).unwrap();
    assert!(trace.warnings.is_empty(), "{name}: {:?}", trace.warnings);
    trace.turns().len()
}

#[test]
fn mcp_100k_messages() {
    let mut s = String::new();
    for i in 0..N / 2 {
        writeln!(s, r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"t{}","arguments":{{"i":{i}}}}}}}"#, i % 7).unwrap();
        writeln!(s, r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"r{i}"}}]}}}}"#).unwrap();
    }
    assert_eq!(turns_of("big.mcp.jsonl", &s), N / 2);
}

#[test]
fn claude_code_100k_entries() {
    let mut s = String::new();
    for i in 0..N {
        let parent = if i == 0 {
            "null".to_string()
        } else {
            format!("\"u{}\"", i - 1)
        };
        if i % 2 == 0 {
            writeln!(s, r#"{{"type":"user","sessionId":"s","uuid":"u{i}","parentUuid":{parent},"timestamp":"{}","message":{{"role":"user","content":"q{i}"}}}}"#, ts(i)).unwrap();
        } else {
            writeln!(s, r#"{{"type":"assistant","sessionId":"s","uuid":"u{i}","parentUuid":{parent},"timestamp":"{}","message":{{"id":"m{i}","model":"claude","content":[{{"type":"tool_use","id":"t{i}","name":"Bash","input":{{"command":"c{i}"}}}}]}}}}"#, ts(i)).unwrap();
        }
    }
    assert_eq!(turns_of("big.jsonl", &s), N / 2);
}

#[test]
fn agents_sdk_100k_spans() {
    let mut s =
        String::from("{\"object\":\"trace\",\"id\":\"trace_big\",\"workflow_name\":\"w\"}\n");
    for i in 0..N {
        let data = if i % 2 == 0 {
            r#"{"type":"generation","model":"m","input":[],"output":[{"role":"assistant","content":"x"}]}"#.to_string()
        } else {
            format!(r#"{{"type":"function","name":"f","input":"{{\"i\":{i}}}","output":"ok"}}"#)
        };
        writeln!(s, r#"{{"object":"trace.span","id":"span_{i:08}","trace_id":"trace_big","parent_id":null,"started_at":"{}","ended_at":"{}","span_data":{data}}}"#, ts(i), ts(i)).unwrap();
    }
    assert_eq!(turns_of("big.jsonl", &s), N / 2);
}

#[test]
fn langfuse_100k_observations() {
    let obs: Vec<Value> = (0..N)
        .map(|i| {
            if i % 2 == 0 {
                json!({"id": format!("o{i:08}"), "type": "GENERATION", "startTime": ts(i), "model": "m", "output": {"role": "assistant", "content": "x"}})
            } else {
                json!({"id": format!("o{i:08}"), "type": "TOOL", "name": "f", "startTime": ts(i), "input": {"i": i}, "output": "ok"})
            }
        })
        .collect();
    assert_eq!(
        turns_of(
            "big.json",
            &json!({"id": "t", "observations": obs}).to_string()
        ),
        N / 2
    );
}

#[test]
fn langsmith_100k_runs() {
    let runs: Vec<Value> = (0..N)
        .map(|i| json!({"id": format!("r{i:08}"), "run_type": if i % 2 == 0 { "llm" } else { "tool" }, "name": "f", "start_time": ts(i), "trace_id": "t", "inputs": {"i": i}, "outputs": {"output": "ok"}}))
        .collect();
    assert_eq!(turns_of("big.json", &Value::Array(runs).to_string()), N / 2);
}
