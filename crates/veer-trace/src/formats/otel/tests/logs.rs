//! GenAI content sent on the OTel logs signal by opentelemetry-instrumentation-openai-v2
//! (`tests/fixtures/otel/openai-v2-logs`, written by the real instrumentation; numbers from its
//! `expected.py`).

use super::*;

fn read_pair(first: &str, second: &str) -> Trace {
    let files = [fixture(first), fixture(second)];
    let inputs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    read_many("set", &inputs).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn openai_v2_log_events_give_the_chat_spans_their_content() {
    let spans = read_fixture("openai-v2-logs/spans.json");
    assert!(spans
        .warnings
        .iter()
        .any(|w| w.message.contains("not captured")));
    let t = read_pair("openai-v2-logs/spans.json", "openai-v2-logs/logs.json");
    let responses = t.responses();
    assert_eq!(responses.len(), 2);
    assert_eq!(tool_names(&t), ["get_weather"]);
    let sum = |k: &str| -> f64 { responses.iter().filter_map(|r| r.usage(k)).sum() };
    assert_eq!(sum("input_tokens"), 143.0);
    assert_eq!(sum("output_tokens"), 24.0);
    assert_eq!(responses[0].stop_reason(), Some("tool_use"));
    assert_eq!(responses[1].text(" "), "It is sunny in Paris, 25 degrees.");
    assert!(!t
        .warnings
        .iter()
        .any(|w| w.message.contains("not captured")));
    // The second request: system, user, the assistant's call and the tool's answer.
    let request = t
        .records
        .iter()
        .filter(|r| r.kind == Kind::ChatRequest)
        .nth(1)
        .map(|r| r.payload.to_value())
        .unwrap();
    let roles: Vec<&str> = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool"]);
    assert_eq!(request["messages"][3]["content"][0]["type"], "tool_result");
    // Either order of the two files.
    let back = read_pair("openai-v2-logs/logs.json", "openai-v2-logs/spans.json");
    assert_eq!(t.records, back.records);
}
