//! Synthetic spans: ordering, sessions, missing parents and cycles, bad input and size.

use super::*;

#[test]
fn span_order_in_the_file_does_not_matter() {
    let spans = vec![
        span(
            1,
            None,
            0,
            json!({"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "c"}),
        ),
        chat(2, Some(1), 10, "a"),
        tool(3, Some(1), 20, "search"),
        chat(4, Some(1), 30, "b"),
        tool(5, Some(1), 40, "fetch"),
        chat(6, Some(1), 50, "done"),
    ];
    let forward = read("f", request(spans.clone())).unwrap();
    let mut reversed = spans;
    reversed.reverse();
    let backward = read("f", request(reversed)).unwrap();
    assert_eq!(forward.records, backward.records);
    assert_eq!(tool_names(&forward), ["search", "fetch"]);
    // Tool spans without captured content become tool_use blocks of the call before them
    // (their tool_call records carry the same ids, so each call is counted once).
    let calls = forward.tool_calls();
    assert_eq!(
        calls.iter().map(|c| c.pair_index).collect::<Vec<_>>(),
        [Some(0), Some(1)]
    );
}

#[test]
fn sessions_come_from_conversation_ids_else_trace_ids() {
    let spans = vec![
        span(
            1,
            None,
            0,
            json!({"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "one"}),
        ),
        chat(2, Some(1), 10, "a"),
        span(
            3,
            None,
            100,
            json!({"gen_ai.operation.name": "invoke_agent", "session.id": "two"}),
        ),
        chat(4, Some(3), 110, "b"),
    ];
    let t = read("f", request(spans)).unwrap();
    assert_eq!(t.count(&Kind::Metadata), 2);
    let (_, n) = t.recorded_sessions();
    assert_eq!(n, 2);
}

#[test]
fn missing_parents_and_parent_cycles_are_warnings_not_hangs() {
    let spans = vec![
        chat(2, Some(99), 10, "orphan"),
        span(5, Some(6), 0, json!({})),
        span(6, Some(5), 0, json!({})),
        chat(7, Some(5), 20, "in a cycle"),
    ];
    let t = read("f", request(spans)).unwrap();
    assert_eq!(t.responses().len(), 2);
    let msgs: Vec<&str> = t.warnings.iter().map(|w| w.message.as_str()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.contains("1 spans name a parent span that is not in the input")),
        "{msgs:?}"
    );
    assert!(msgs.iter().any(|m| m.contains("cycle")), "{msgs:?}");
}

#[test]
fn truncated_files_and_wrong_types_name_the_place() {
    let good = request(vec![chat(2, None, 10, "a")]);
    let e = read("cut.json", good[..good.len() / 2].to_vec()).unwrap_err();
    assert_eq!(e.file, "cut.json");
    assert!(e.hint.as_deref().unwrap_or("").contains("cut off"), "{e:?}");

    let mut doc: Value = serde_json::from_slice(&good).unwrap();
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["startTimeUnixNano"] = json!(true);
    let e = read("types.json", serde_json::to_vec(&doc).unwrap()).unwrap_err();
    assert_eq!(
        e.field, "resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano",
        "{e:?}"
    );
    assert_eq!(e.line, Some(1));

    let mut doc: Value = serde_json::from_slice(&good).unwrap();
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"] = json!("xyz");
    let e = read("ids.json", serde_json::to_vec(&doc).unwrap()).unwrap_err();
    assert_eq!(e.field, "spanId");
}

#[test]
fn spans_without_model_calls_are_named_as_such() {
    let e = read(
        "http.json",
        request(vec![span(1, None, 0, json!({"http.method": "GET"}))]),
    )
    .unwrap_err();
    assert!(e.message.contains("no model calls found in 1 spans"), "{e}");
    assert!(e.hint.is_some());
}

#[test]
fn a_hundred_thousand_spans() {
    let mut spans = Vec::with_capacity(100_000);
    spans.push(span(1, None, 0, json!({"gen_ai.conversation.id": "big"})));
    for i in 0..49_999u64 {
        spans.push(chat(2 + 2 * i, Some(1), 10 + 2 * i, "x"));
        spans.push(tool(3 + 2 * i, Some(1), 11 + 2 * i, "t"));
    }
    spans.push(chat(200_000, Some(1), 200_000, "end"));
    assert_eq!(spans.len(), 100_000);
    let t = read("big.json", request(spans)).unwrap();
    assert_eq!(t.responses().len(), 50_000);
    assert_eq!(t.count(&Kind::ToolCall), 49_999);
}

#[test]
fn a_model_call_span_inside_a_model_call_span_is_one_turn() {
    // Google ADK's shape: `call_llm` (gen_ai.system + model) around the SDK's
    // `generate_content` span, neither with a response id; a tool span after them.
    let spans = vec![
        span(1, None, 0, json!({"gen_ai.operation.name": "invoke_agent"})),
        span(
            2,
            Some(1),
            10,
            json!({"gen_ai.system": "gcp.vertex.agent", "gen_ai.request.model": "g",
                   "gen_ai.usage.input_tokens": 7}),
        ),
        span(
            3,
            Some(2),
            11,
            json!({"gen_ai.operation.name": "generate_content", "gen_ai.request.model": "g",
                   "gen_ai.usage.input_tokens": 7}),
        ),
        tool(4, Some(1), 20, "lookup"),
        span(
            5,
            Some(1),
            30,
            json!({"gen_ai.system": "gcp.vertex.agent", "gen_ai.request.model": "g"}),
        ),
        chat(6, Some(5), 31, "done"),
    ];
    let t = read("f", request(spans)).unwrap();
    assert_eq!(t.count(&Kind::ChatResponse), 2);
    // The turn stands where the outer span is, so the tool span under the agent is its call.
    assert_eq!(tool_names(&t), ["lookup"]);
    // The captured recording of the second chain is the one read.
    let texts: Vec<String> = t.responses().iter().map(|r| r.text(" ")).collect();
    assert_eq!(texts, ["", "done"]);
}
