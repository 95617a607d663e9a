//! Properties: one thread and several read the same, and reading a stream in batches gives the
//! whole file's trace, line numbers and errors.

use super::*;

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
