//! The OTLP/JSON reader on the committed vectors written by the real SDKs
//! (`tests/fixtures/otel`, see its `generate.py`) and on bad input.

use super::*;
use crate::model::{Format, Kind};
use serde_json::{json, Value};
use std::path::PathBuf;

fn fixture(rel: &str) -> (String, Vec<u8>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/otel")
        .join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (rel.to_string(), bytes)
}

fn read_fixture(rel: &str) -> Trace {
    let (name, bytes) = fixture(rel);
    read(&name, bytes).unwrap_or_else(|e| panic!("{e}"))
}

fn tool_names(t: &Trace) -> Vec<String> {
    t.tool_calls()
        .into_iter()
        .filter(|c| c.from_block)
        .map(|c| c.name)
        .collect()
}

const KINDS: [&str; 3] = ["openai-v2", "anthropic", "openinference"];

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

// ---- synthetic spans for ordering and bad input -------------------------------------------

fn span(id: u64, parent: Option<u64>, start: u64, attrs: Value) -> Value {
    let attributes: Vec<Value> = attrs
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let value = match v {
                Value::String(s) => json!({"stringValue": s}),
                Value::Number(n) => json!({"intValue": n.to_string()}),
                other => json!({"stringValue": other.to_string()}),
            };
            json!({"key": k, "value": value})
        })
        .collect();
    let mut s = json!({
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": format!("{id:016x}"),
        "name": "s",
        "kind": 1,
        "startTimeUnixNano": (start * 1_000_000).to_string(),
        "endTimeUnixNano": (start * 1_000_000 + 500_000).to_string(),
        "attributes": attributes,
    });
    if let Some(p) = parent {
        s["parentSpanId"] = json!(format!("{p:016x}"));
    }
    s
}

fn request(spans: Vec<Value>) -> Vec<u8> {
    serde_json::to_vec(&json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})).unwrap()
}

fn chat(id: u64, parent: Option<u64>, start: u64, text: &str) -> Value {
    span(
        id,
        parent,
        start,
        json!({"gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
               "gen_ai.output.messages": json!([{"role":"assistant","parts":[{"type":"text","content":text}]}]).to_string()}),
    )
}

fn tool(id: u64, parent: Option<u64>, start: u64, name: &str) -> Value {
    span(
        id,
        parent,
        start,
        json!({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}),
    )
}

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

// ---- properties ------------------------------------------------------------------------------

/// Every span of a fixture as its own `(resource, scope, span)` triple.
fn spans_of(rel: &str) -> Vec<(Value, Value, Value)> {
    let (_, bytes) = fixture(rel);
    let doc: Value = serde_json::from_slice(&bytes).unwrap();
    let mut out = Vec::new();
    for rs in doc["resourceSpans"].as_array().unwrap() {
        for ss in rs["scopeSpans"].as_array().unwrap() {
            for sp in ss["spans"].as_array().unwrap() {
                out.push((rs["resource"].clone(), ss["scope"].clone(), sp.clone()));
            }
        }
    }
    out
}

/// The spans as one request per span, in the given order.
fn as_request(spans: &[(Value, Value, Value)]) -> Vec<u8> {
    let rs: Vec<Value> = spans
        .iter()
        .map(|(r, s, sp)| json!({"resource": r, "scopeSpans": [{"scope": s, "spans": [sp]}]}))
        .collect();
    serde_json::to_vec(&json!({ "resourceSpans": rs })).unwrap()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// The slow definition of the order rule: whatever order the spans come in (and however
    /// they are grouped into resources), the trace is the one read from the file as written.
    #[test]
    fn any_span_order_reads_as_the_file_order(
        kind in 0usize..3,
        keys in proptest::collection::vec(proptest::prelude::any::<u64>(), 64),
    ) {
        let rel = format!("{}/content/candidate.json", KINDS[kind]);
        let reference = read_fixture(&rel);
        let mut spans = spans_of(&rel);
        let mut order: Vec<usize> = (0..spans.len()).collect();
        order.sort_by_key(|&i| keys[i % keys.len()].wrapping_mul(i as u64 + 1));
        spans = order.into_iter().map(|i| spans[i].clone()).collect();
        let shuffled = read("x", as_request(&spans)).unwrap();
        proptest::prop_assert_eq!(&shuffled.records, &reference.records);
    }
}

#[test]
fn one_thread_and_several_read_the_same() {
    for kind in KINDS {
        let rel = format!("{kind}/content/baseline.otlp.jsonl");
        let (_, bytes) = fixture(&rel);
        // Many lines, so the parallel line parse has work to split.
        let many: Vec<u8> = std::iter::repeat_n(bytes, 40).flatten().collect();
        let read_with = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| read("x", many.clone()).unwrap())
        };
        let one = read_with(1);
        assert_eq!(one.records, read_with(4).records, "{kind}");
        assert!(!one.warnings.is_empty(), "repeated spans are noticed");
    }
}

/// `read_batched` on `bytes` with a batch size, against `read` of the whole file.
fn streamed(name: &str, bytes: &[u8], batch: usize) -> Result<Trace, TraceError> {
    let mut reader = std::io::BufReader::with_capacity(7, bytes);
    read_batched(name, &mut reader, Some(bytes.len() as u64), batch)
}

#[test]
fn reading_from_a_stream_in_batches_gives_the_same_trace_as_the_whole_file() {
    let mut files = Vec::new();
    for kind in KINDS {
        for content in ["content", "no-content"] {
            for variant in ["baseline", "candidate"] {
                files.push(format!("{kind}/{content}/{variant}.json"));
                if content == "content" {
                    files.push(format!("{kind}/{content}/{variant}.otlp.jsonl"));
                }
            }
        }
    }
    files.push("anthropic-openllmetry-legacy/content/baseline.json".into());
    for rel in &files {
        let (name, bytes) = fixture(rel);
        let whole = read(&name, bytes.clone()).unwrap();
        for batch in [1, 200, 1 << 20] {
            assert_eq!(
                streamed(&name, &bytes, batch).unwrap(),
                whole,
                "{rel} {batch}"
            );
        }
    }
}

#[test]
fn streamed_lines_keep_line_numbers_bom_blank_lines_and_error_order() {
    let line = |id: u64, start: u64| {
        let mut l = request(vec![chat(id, None, start, "a")]);
        l.retain(|&b| b != b'\n');
        l
    };
    // A BOM, blank lines between requests, no newline at the end.
    let mut text = b"\xef\xbb\xbf".to_vec();
    for (i, id) in [2u64, 4, 6].into_iter().enumerate() {
        text.extend(line(id, 10 * id));
        text.extend(if i == 1 { &b"\n\n  \n"[..] } else { &b"\n"[..] });
    }
    text.pop();
    let whole = read("l.jsonl", text.clone()).unwrap();
    assert!(whole.records.iter().any(|r| r.line == Some(5)), "{whole:?}");
    for batch in [1, 100, 1 << 20] {
        assert_eq!(streamed("l.jsonl", &text, batch).unwrap(), whole, "{batch}");
    }
    // One request and trailing blank lines is a document (no line numbers), as read whole.
    let mut one = line(2, 10);
    one.extend(b"\n\n\n");
    assert_eq!(
        streamed("one.json", &one, 1).unwrap(),
        read("one.json", one.clone()).unwrap()
    );
    // A bad span id in an early batch and broken JSON in a later one: the JSON error wins,
    // as when the whole file is read.
    let mut bad = line(2, 10);
    let good_id = format!("{:016x}", 2);
    let bad_first = String::from_utf8(bad.clone())
        .unwrap()
        .replacen(&good_id, "xyz", 1);
    bad = bad_first.into_bytes();
    bad.push(b'\n');
    bad.extend(line(4, 40));
    bad.push(b'\n');
    bad.extend(b"{\"resourceSpans\": [\n");
    let whole = read("bad.jsonl", bad.clone()).unwrap_err();
    assert_eq!(whole.line, Some(3), "{whole:?}");
    for batch in [1, 100, 1 << 20] {
        assert_eq!(
            streamed("bad.jsonl", &bad, batch).unwrap_err(),
            whole,
            "{batch}"
        );
    }
    // Only the bad id: that error, in both.
    let only_id = bad[..bad.len() - b"{\"resourceSpans\": [\n".len()].to_vec();
    let whole = read("id.jsonl", only_id.clone()).unwrap_err();
    assert_eq!(whole.field, "spanId");
    assert_eq!(streamed("id.jsonl", &only_id, 1).unwrap_err(), whole);
}

// ---- single documents read while parsed --------------------------------------------------------

/// What `read_part` gives: the spans and the first span error, or a JSON error.
type PartRead = Result<(Part, Option<TraceError>), TraceError>;

/// `read_part` of one document the streaming way and the whole-request way, on `threads` cores.
fn both_document_reads(bytes: &[u8], threads: usize) -> (PartRead, PartRead) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        (
            read_part("d.json", "d.json", bytes),
            read_whole_document("d.json", "d.json", bytes),
        )
    })
}

/// Parts compared through the traces they become (a `Part` is not comparable itself).
fn as_trace(r: PartRead) -> Result<Result<Trace, TraceError>, TraceError> {
    r.map(|(part, e)| match e {
        Some(e) => Err(e),
        None => finish("d.json", part).map(|mut t| {
            t.run_label = Some(run_label("d.json"));
            t
        }),
    })
}

/// A document of many agent runs: several resources and scopes, spans across many batches.
fn many_runs_document(runs: u64) -> Value {
    let mut resources = Vec::new();
    for r in 0..3u64 {
        let mut scopes = Vec::new();
        for s in 0..2u64 {
            let mut spans = Vec::new();
            for i in 0..runs {
                let base = ((r * 2 + s) * runs + i) * 10 + 1;
                spans.push(span(
                    base,
                    None,
                    base,
                    json!({"gen_ai.conversation.id": format!("c{base}")}),
                ));
                spans.push(chat(base + 1, Some(base), base + 1, "hello \"there\""));
                spans.push(tool(base + 2, Some(base), base + 2, "lookup"));
                spans.push(chat(base + 3, Some(base), base + 3, "done"));
            }
            scopes.push(json!({"scope": {"name": "s", "version": "1"}, "spans": spans, "extra": [1, {"a": 2}]}));
        }
        resources.push(json!({
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]},
            "scopeSpans": scopes,
        }));
    }
    json!({"resourceSpans": resources})
}

#[test]
fn a_document_read_while_parsed_gives_the_whole_request_read() {
    let mut files: Vec<Vec<u8>> = Vec::new();
    for kind in KINDS {
        for content in ["content", "no-content"] {
            for variant in ["baseline", "candidate"] {
                files.push(fixture(&format!("{kind}/{content}/{variant}.json")).1);
            }
        }
    }
    files.push(fixture("anthropic-openllmetry-legacy/content/baseline.json").1);
    let big = many_runs_document(300);
    files.push(serde_json::to_vec(&big).unwrap());
    files.push(serde_json::to_vec_pretty(&big).unwrap());
    for (i, bytes) in files.iter().enumerate() {
        for threads in [1, 2, 4] {
            let (streamed, whole) = both_document_reads(bytes, threads);
            let streamed = as_trace(streamed).unwrap().unwrap();
            assert_eq!(
                streamed,
                as_trace(whole).unwrap().unwrap(),
                "file {i}, {threads} threads"
            );
            assert_eq!(streamed, read("d.json", bytes.clone()).unwrap());
        }
    }
    let t = read("d.json", serde_json::to_vec(&big).unwrap()).unwrap();
    assert_eq!(t.responses().len(), 3 * 2 * 300 * 2);
}

#[test]
fn a_document_read_while_parsed_reports_the_whole_request_errors() {
    let big = many_runs_document(200);
    let text = serde_json::to_string(&big).unwrap();
    // Bad span ids in two batches far apart: the first in the document is reported.
    let first_bad = format!("{:016x}", 2);
    let later_bad = format!("{:016x}", 5 * 200 * 10 + 3);
    let two_bad = text
        .replacen(&format!("\"{later_bad}\""), "\"later\"", 1)
        .replacen(&format!("\"{first_bad}\""), "\"first\"", 1);
    // Duplicate fields at every level, wrong types, trailing bytes, a cut-off document, an
    // array where the object should be (the derived struct reads that form).
    let cases: Vec<Vec<u8>> = vec![
        two_bad.into_bytes(),
        br#"{"resourceSpans":[],"resource_spans":[]}"#.to_vec(),
        br#"{"resourceSpans":[{"scopeSpans":[],"instrumentationLibrarySpans":[]}]}"#.to_vec(),
        br#"{"resourceSpans":[{"resource":null,"resource":{}}]}"#.to_vec(),
        br#"{"resourceSpans":[{"scopeSpans":[{"spans":[],"spans":[]}]}]}"#.to_vec(),
        br#"{"resourceSpans":[{"scopeSpans":[{"scope":{},"instrumentationLibrary":{}}]}]}"#
            .to_vec(),
        br#"{"resourceSpans":{}}"#.to_vec(),
        br#"{"resourceSpans":[{"scopeSpans":[{"spans":null}]}]}"#.to_vec(),
        br#"{"resourceSpans":[{"resource":{"attributes":5}}]}"#.to_vec(),
        br#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":"x"}]}]}]}"#.to_vec(),
        br#"{"resourceSpans":[]} x"#.to_vec(),
        text.as_bytes()[..text.len() / 2].to_vec(),
        br#"[[[{"scopeSpans":[]}]]]"#.to_vec(),
        br#"{"resourceSpans":[{"scopeSpans":[{"spans":[]}]}],"other":{"resourceSpans":1}}"#
            .to_vec(),
    ];
    for (i, bytes) in cases.iter().enumerate() {
        for threads in [1, 2, 4] {
            let (streamed, whole) = both_document_reads(bytes, threads);
            let (streamed, whole) = (as_trace(streamed), as_trace(whole));
            assert_eq!(streamed, whole, "case {i}, {threads} threads");
        }
    }
    let e = read("d.json", cases[0].clone()).unwrap_err();
    assert_eq!(e.field, "spanId");
    assert!(e.message.contains("\"s\""), "{e}");
    let (streamed, _) = both_document_reads(&cases[0], 2);
    assert!(
        matches!(streamed, Ok((_, Some(ref e))) if e == &read("d.json", cases[0].clone()).unwrap_err())
    );
}

#[test]
fn a_one_line_document_longer_than_a_batch_streams_like_the_whole_file() {
    let mut one_line = serde_json::to_vec(&many_runs_document(300)).unwrap();
    assert!(one_line.len() > BATCH_BYTES, "{}", one_line.len());
    let whole = read("d.json", one_line.clone()).unwrap();
    for hint in [None, Some(one_line.len() as u64), Some(10)] {
        let mut reader = std::io::BufReader::with_capacity(4096, &one_line[..]);
        let streamed = read_batched("d.json", &mut reader, hint, BATCH_BYTES).unwrap();
        assert_eq!(streamed, whole, "{hint:?}");
    }
    one_line.push(b'\n');
    let mut reader = std::io::BufReader::with_capacity(4096, &one_line[..]);
    let hint = Some(one_line.len() as u64);
    assert_eq!(
        read_batched("d.json", &mut reader, hint, BATCH_BYTES).unwrap(),
        whole
    );
    // Pretty-printed: a short first line, the rest read after it into the same buffer.
    let pretty = serde_json::to_vec_pretty(&many_runs_document(20)).unwrap();
    let mut reader = std::io::BufReader::with_capacity(100, &pretty[..]);
    assert_eq!(
        read_batched("d.json", &mut reader, Some(pretty.len() as u64), 64).unwrap(),
        read("d.json", pretty.clone()).unwrap()
    );
}
