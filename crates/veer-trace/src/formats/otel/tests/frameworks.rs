//! Agent frameworks' own OTel spans, written by the real libraries
//! (`tests/fixtures/otel/vercel-ai`, `…/pydantic-ai`; each with its `generate` script and an
//! `expected.py` whose numbers are the ones below).

use super::*;
use crate::load::{load_bytes, Document};
use crate::options::ReadOptions;

fn detected(rel: &str) -> Result<Trace, crate::error::TraceError> {
    let (name, bytes) = fixture(rel);
    match load_bytes(&name, &bytes, &ReadOptions::default())? {
        Document::Trace(t) => Ok(t),
        _ => panic!("{rel}: not a trace"),
    }
}

#[test]
fn vercel_ai_sdk_spans_read_as_its_model_calls_and_tool_calls() {
    // `vercel-ai/expected.py`: 2 model calls, getWeather({city: Paris}), 82 / 19 tokens.
    let t = detected("vercel-ai/spans.json").unwrap_or_else(|e| panic!("{e}"));
    let responses = t.responses();
    assert_eq!(responses.len(), 2);
    assert_eq!(tool_names(&t), ["getWeather"]);
    let calls = t.tool_calls();
    assert_eq!(calls[0].arguments.get("city"), Some(&json!("Paris")));
    let sum = |k: &str| -> f64 { responses.iter().filter_map(|r| r.usage(k)).sum() };
    assert_eq!(sum("input_tokens"), 82.0);
    assert_eq!(sum("output_tokens"), 19.0);
    assert_eq!(responses[0].stop_reason(), Some("tool_use"));
    assert_eq!(responses[1].stop_reason(), Some("end_turn"));
    assert_eq!(responses[1].text(" "), "It is sunny in Paris, 25 degrees.");
    assert_eq!(t.count(&Kind::ToolResult), 1);
    // The second call's prompt holds the first call's tool call and its result.
    let second = t
        .records
        .iter()
        .filter(|r| r.kind == Kind::ChatRequest)
        .nth(1)
        .map(|r| r.payload.to_value())
        .unwrap();
    let kinds: Vec<String> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .map(|p| p["type"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(kinds, ["text", "text", "tool_use", "tool_result"]);
    assert!(
        !t.warnings
            .iter()
            .any(|w| w.message.contains("not captured")),
        "{:?}",
        t.warnings
    );
}
