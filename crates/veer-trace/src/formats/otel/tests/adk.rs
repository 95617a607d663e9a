//! Google ADK's own telemetry, written by the real `google-adk` (`tests/fixtures/otel/adk`, see
//! its `generate.py`); the expected numbers are `expected.py`'s, read off the raw files.

use super::*;

/// Total of one usage field over the trace's responses.
fn tokens(t: &Trace, key: &str) -> f64 {
    t.responses().iter().filter_map(|r| r.usage(key)).sum()
}

fn not_captured(t: &Trace) -> bool {
    t.warnings
        .iter()
        .any(|w| w.message.contains("content was not captured"))
}

#[test]
fn adk_legacy_spans_read_as_two_calls_with_their_content() {
    // call_llm around generate_content, twice: 2 model calls, not 4.
    let t = read_fixture("adk/legacy/spans.json");
    let responses = t.responses();
    assert_eq!(responses.len(), 2);
    assert_eq!(tool_names(&t), ["get_weather"]);
    assert_eq!(tokens(&t, "input_tokens"), 271.0);
    assert_eq!(tokens(&t, "output_tokens"), 20.0);
    // The model's function call: Gemini's STOP with a function call is a tool_use turn.
    assert_eq!(responses[0].stop_reason(), Some("tool_use"));
    assert_eq!(responses[1].stop_reason(), Some("end_turn"));
    assert_eq!(responses[1].text(" "), "It is sunny in Paris, 25 degrees.");
    // gcp.vertex.agent.tool_call_args / tool_response.
    let calls = t.tool_calls();
    assert_eq!(calls[0].arguments.get("city"), Some(&json!("Paris")));
    let result = t
        .records
        .iter()
        .find(|r| r.kind == Kind::ToolResult)
        .and_then(|r| r.payload.to_value().get("output").cloned());
    assert_eq!(
        result.as_ref().and_then(|o| o.get("report")),
        Some(&json!("The weather in Paris is sunny, 25 degrees."))
    );
    // The request: system instruction, then the user's question.
    let request = t
        .records
        .iter()
        .find(|r| r.kind == Kind::ChatRequest)
        .map(|r| r.payload.to_value())
        .unwrap();
    assert_eq!(request["messages"][0]["role"], "system");
    assert_eq!(
        request["messages"][1]["content"][0]["text"],
        "What is the weather in Paris?"
    );
    assert!(!not_captured(&t), "{:?}", t.warnings);
}

#[test]
fn adk_current_spans_alone_count_each_call_once_and_say_the_content_is_elsewhere() {
    let t = read_fixture("adk/current/spans.json");
    assert_eq!(t.responses().len(), 2);
    assert_eq!(tool_names(&t), ["get_weather"]);
    assert_eq!(tokens(&t, "input_tokens"), 271.0);
    assert_eq!(tokens(&t, "output_tokens"), 20.0);
    assert!(not_captured(&t));
}

fn read_set(rels: &[&str]) -> Trace {
    let files: Vec<(String, Vec<u8>)> = rels.iter().map(|r| fixture(r)).collect();
    let inputs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    read_many("set", &inputs).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn adk_current_log_events_give_the_spans_their_content() {
    // The `gen_ai.client.inference.operation.details` events (2 records) joined by trace and
    // span id: the same 2 calls, now with their messages, answer and function call.
    let t = read_set(&["adk/current/spans.json", "adk/current/logs.json"]);
    let responses = t.responses();
    assert_eq!(responses.len(), 2);
    assert_eq!(tool_names(&t), ["get_weather"]);
    assert_eq!(tokens(&t, "input_tokens"), 271.0);
    assert_eq!(tokens(&t, "output_tokens"), 20.0);
    assert_eq!(responses[0].stop_reason(), Some("tool_use"));
    assert_eq!(responses[1].text(" "), "It is sunny in Paris, 25 degrees.");
    assert!(!not_captured(&t), "{:?}", t.warnings);
    // The tool span has no arguments of its own: its call's (from the events) are its.
    let args = t
        .records
        .iter()
        .find(|r| r.kind == Kind::ToolCall)
        .map(|r| r.payload.to_value()["arguments"].clone());
    assert_eq!(args, Some(json!({"city": "Paris"})));
    // The order of the files does not matter.
    let back = read_set(&["adk/current/logs.json", "adk/current/spans.json"]);
    assert_eq!(t.records, back.records);
}

#[test]
fn adk_legacy_log_events_join_the_inner_span_of_each_call() {
    // 8 records on the two generate_content spans; the calls stay 2.
    let t = read_set(&["adk/legacy/spans.json", "adk/legacy/logs.json"]);
    assert_eq!(t.responses().len(), 2);
    assert_eq!(tool_names(&t), ["get_weather"]);
    assert_eq!(tokens(&t, "input_tokens"), 271.0);
    assert!(!not_captured(&t));
}

#[test]
fn a_logs_export_alone_reads_one_call_per_span_with_a_warning() {
    for (rel, tool_use_first) in [
        ("adk/current/logs.json", true),
        ("adk/legacy/logs.json", true),
    ] {
        let t = read_fixture(rel);
        let responses = t.responses();
        assert_eq!(responses.len(), 2, "{rel}");
        assert_eq!(
            responses[0].stop_reason() == Some("tool_use"),
            tool_use_first,
            "{rel}"
        );
        assert_eq!(
            responses[1].text(" "),
            "It is sunny in Paris, 25 degrees.",
            "{rel}"
        );
        assert!(
            t.warnings
                .iter()
                .any(|w| w.message.contains("read from GenAI log events")),
            "{rel}: {:?}",
            t.warnings
        );
    }
}

#[test]
fn spans_and_logs_as_lines_of_one_collector_file_read_as_the_two_files() {
    // The Collector's file exporter writes each request on its own line, traces and logs
    // alike: the ADK run's logs line first, then its spans line, read in small batches.
    let compact = |rel: &str| {
        let (_, bytes) = fixture(rel);
        serde_json::to_string(&serde_json::from_slice::<Value>(&bytes).unwrap()).unwrap()
    };
    let text = format!(
        "{}\n{}\n",
        compact("adk/current/logs.json"),
        compact("adk/current/spans.json")
    );
    let lines = read_batched("c.jsonl", &mut text.as_bytes(), None, 64).unwrap();
    let files = read_set(&["adk/current/spans.json", "adk/current/logs.json"]);
    // The same records (the lines' records also name their line).
    let ids = |t: &Trace| t.records.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&lines), ids(&files));
    assert_eq!(lines.responses().len(), 2);
}
