//! Single documents read while parsed give what the whole-request read gives, errors included.

use super::*;

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
