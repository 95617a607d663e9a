//! The committed vectors written by the real SDKs: turns, tools, captured arguments, the
//! OTLP/JSON Lines form and a call recorded twice.

use super::*;

#[test]
fn every_vector_reads_as_three_turns_with_the_scripted_tools() {
    for kind in KINDS {
        for content in ["content", "no-content"] {
            for (variant, second) in [("baseline", "issue_refund"), ("candidate", "send_email")] {
                let t = read_fixture(&format!("{kind}/{content}/{variant}.json"));
                assert_eq!(t.format, Format::Otel);
                assert_eq!(t.responses().len(), 3, "{kind}/{content}/{variant}");
                assert_eq!(
                    tool_names(&t),
                    ["lookup_order", second],
                    "{kind}/{content}/{variant}"
                );
                assert_eq!(t.count(&Kind::Metadata), 1);
                assert_eq!(t.count(&Kind::ToolResult), 2);
                let last = t.responses()[2];
                assert_eq!(last.stop_reason(), Some("end_turn"));
                assert!(last.usage("input_tokens").is_some_and(|n| n > 0.0));
                let warned = t.warnings.iter().any(|w| {
                    w.message
                        .contains("semantic, verbosity and refusal axes cannot be judged")
                });
                if content == "content" {
                    assert!(!last.text(" ").is_empty(), "{kind}/{variant}");
                    assert!(!warned, "{kind}/{variant}: {:?}", t.warnings);
                } else {
                    assert_eq!(last.text(" "), "", "{kind}/{variant}");
                    assert!(warned, "{kind}/{variant}");
                }
            }
        }
    }
}

#[test]
fn openllmetry_prompt_attributes_written_by_its_older_release() {
    // OpenLLMetry 0.33 (versions-legacy.json): gen_ai.prompt.N.* / gen_ai.completion.N.*,
    // no agent span, so every call is its own trace and session.
    for (variant, second) in [("baseline", "issue_refund"), ("candidate", "send_email")] {
        let t = read_fixture(&format!(
            "anthropic-openllmetry-legacy/content/{variant}.json"
        ));
        assert_eq!(t.responses().len(), 3);
        assert_eq!(tool_names(&t), ["lookup_order", second]);
        assert_eq!(t.count(&Kind::Metadata), 3);
        assert!(t.responses()[2].text(" ").contains("A-1001"));
        assert_eq!(t.responses()[0].usage("input_tokens"), Some(130.0));
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    }
}

#[test]
fn captured_arguments_reach_the_tool_use_blocks() {
    let t = read_fixture("openai-v2/content/baseline.json");
    let calls: Vec<_> = t
        .tool_calls()
        .into_iter()
        .filter(|c| c.from_block)
        .collect();
    assert_eq!(calls[1].arguments.get("amount"), Some(&json!(42.5)));
    assert_eq!(calls[1].id.as_deref(), Some("call_1"));
    let t = read_fixture("openinference/content/candidate.json");
    let calls: Vec<_> = t
        .tool_calls()
        .into_iter()
        .filter(|c| c.from_block)
        .collect();
    assert_eq!(
        calls[1].arguments.get("template"),
        Some(&json!("refund_denied"))
    );
}

#[test]
fn proto3_json_and_otlp_json_lines_read_the_same() {
    for kind in KINDS {
        for variant in ["baseline", "candidate"] {
            let a = read_fixture(&format!("{kind}/content/{variant}.json"));
            let b = read_fixture(&format!("{kind}/content/{variant}.otlp.jsonl"));
            let strip = |t: &Trace| -> Vec<(String, Value)> {
                t.records
                    .iter()
                    .map(|r| (r.id.to_string(), r.payload.to_value()))
                    .collect()
            };
            assert_eq!(strip(&a), strip(&b), "{kind}/{variant}");
        }
    }
}

#[test]
fn a_call_recorded_by_the_sdk_and_an_instrumentation_is_read_once() {
    // The anthropic SDK traces each call itself and OpenLLMetry's instrumentation traces it
    // again: six chat spans, three calls; the recording with content wins.
    let (_, bytes) = fixture("anthropic/content/baseline.json");
    let text = String::from_utf8(bytes).unwrap();
    assert_eq!(text.matches("\"stringValue\": \"chat\"").count(), 6);
    let t = read_fixture("anthropic/content/baseline.json");
    assert_eq!(t.responses().len(), 3);
    assert!(t.responses()[0].text(" ").contains("Let me check"));
}
