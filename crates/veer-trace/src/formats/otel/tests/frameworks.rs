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

#[test]
fn pydantic_ai_spans_read_in_both_formats() {
    // `pydantic-ai/expected.py`: 2 model calls, get_weather, 101 / 19 tokens, in each.
    for rel in ["pydantic-ai/v5.json", "pydantic-ai/v2.json"] {
        let t = detected(rel).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let responses = t.responses();
        assert_eq!(responses.len(), 2, "{rel}");
        assert_eq!(tool_names(&t), ["get_weather"], "{rel}");
        let sum = |k: &str| -> f64 { responses.iter().filter_map(|r| r.usage(k)).sum() };
        assert_eq!(sum("input_tokens"), 101.0, "{rel}");
        assert_eq!(sum("output_tokens"), 19.0, "{rel}");
        assert_eq!(responses[0].stop_reason(), Some("tool_use"), "{rel}");
        assert_eq!(
            responses[1].text(" "),
            "It is sunny in Paris, 25 degrees.",
            "{rel}"
        );
        let result = t
            .records
            .iter()
            .find(|r| r.kind == Kind::ToolResult)
            .map(|r| r.payload.to_value()["output"].clone());
        assert_eq!(
            result,
            Some(json!("The weather in Paris is sunny, 25 degrees.")),
            "{rel}"
        );
        let calls = t.tool_calls();
        assert_eq!(
            calls[0].arguments.get("city"),
            Some(&json!("Paris")),
            "{rel}"
        );
        assert_eq!(t.count(&Kind::Metadata), 1, "{rel}");
    }
}

#[test]
fn pydantic_ais_first_format_packs_the_events_in_one_attribute() {
    // The shape of pydantic-ai's own snapshots (tests/test_logfire.py): a `chat test` span whose
    // `events` attribute lists the messages and the choice, and a `running tool: my_ret` span.
    let events = json!([
        {"content": "Hello", "role": "user", "gen_ai.message.index": 0, "event.name": "gen_ai.user.message"},
        {"index": 0, "message": {"role": "assistant", "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "my_ret", "arguments": {"x": 0}}}]},
         "event.name": "gen_ai.choice"}
    ]);
    let answer = json!([
        {"content": "Hello", "role": "user", "event.name": "gen_ai.user.message"},
        {"index": 0, "message": {"role": "assistant", "content": "{\"my_ret\":\"1\"}"}, "event.name": "gen_ai.choice"}
    ]);
    let spans = vec![
        span(1, None, 0, json!({"logfire.msg": "my_agent run"})),
        span(
            2,
            Some(1),
            10,
            json!({"gen_ai.operation.name": "chat", "gen_ai.system": "test", "gen_ai.request.model": "test",
                   "gen_ai.usage.input_tokens": 51, "events": events.to_string()}),
        ),
        span(
            3,
            Some(1),
            20,
            json!({"gen_ai.tool.name": "my_ret", "gen_ai.tool.call.id": "t1",
                   "tool_arguments": "{\"x\":0}", "tool_response": "1", "logfire.msg": "running tool: my_ret"}),
        ),
        span(
            4,
            Some(1),
            30,
            json!({"gen_ai.operation.name": "chat", "gen_ai.system": "test", "gen_ai.request.model": "test",
                   "gen_ai.usage.input_tokens": 52, "events": answer.to_string()}),
        ),
    ];
    let t = read("f", request(spans)).unwrap();
    let responses = t.responses();
    assert_eq!(responses.len(), 2);
    assert_eq!(tool_names(&t), ["my_ret"]);
    assert_eq!(responses[0].stop_reason(), Some("tool_use"));
    assert_eq!(responses[1].text(" "), "{\"my_ret\":\"1\"}");
    assert_eq!(t.count(&Kind::ToolResult), 1);
    assert!(!t
        .warnings
        .iter()
        .any(|w| w.message.contains("not captured")));
}
