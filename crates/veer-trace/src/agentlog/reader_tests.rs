//! Reader behaviour on hand-written traces: every record kind, permissive warnings, and each
//! strict-mode check naming its line and field.

use super::reader::read_agentlog_bytes;
use super::writer::write_agentlog;
use crate::canonical::content_id;
use crate::model::Kind;
use crate::options::ReadOptions;
use serde_json::{json, Value};
use std::io::Write;

const STRICT: ReadOptions = ReadOptions {
    strict: true,
    max_line_bytes: crate::options::DEFAULT_MAX_LINE_BYTES,
    max_trace_bytes: crate::limits::DEFAULT_MAX_TRACE_BYTES,
    max_records: crate::limits::DEFAULT_MAX_RECORDS,
};

/// A valid record line (content id computed) with the given parent and timestamp.
fn rec(kind: &str, payload: Value, parent: Option<&str>, ts: &str) -> (String, String) {
    let id = content_id(&payload);
    let line = json!({"version": "0.1", "id": id, "kind": kind, "ts": ts, "parent": parent, "payload": payload});
    (serde_json::to_string(&line).unwrap(), id)
}

/// A valid five-record trace holding every v0.2 kind.
fn valid_trace() -> String {
    let ts = "2026-01-01T00:00:00.000Z";
    let (l0, root) = rec(
        "metadata",
        json!({"sdk": {"name": "t", "version": "1"}}),
        None,
        ts,
    );
    let (l1, req) = rec(
        "chat_request",
        json!({"model": "m", "messages": [], "params": {}}),
        Some(&root),
        ts,
    );
    let (l2, ch) = rec(
        "chunk",
        json!({"chunk_index": 0, "time_unix_nano": 1, "delta": {}, "is_final": true}),
        Some(&req),
        ts,
    );
    let (l3, resp) = rec(
        "chat_response",
        json!({"model": "m", "content": [], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 2}, "latency_ms": 3}),
        Some(&ch),
        "2026-01-01T00:00:00.001Z",
    );
    let (l4, he) = rec(
        "harness_event",
        json!({"category": "retry", "name": "retry.attempted", "severity": "info"}),
        Some(&resp),
        "2026-01-01T00:00:00.002Z",
    );
    let (l5, _) = rec(
        "blob_ref",
        json!({"mime": "image/png", "size_bytes": 3, "blob_id": "sha256:00"}),
        Some(&he),
        "2026-01-01T00:00:00.002Z",
    );
    [l0, l1, l2, l3, l4, l5].join("\n") + "\n"
}

#[test]
fn reads_every_kind_and_passes_strict() {
    let t = read_agentlog_bytes("v.agentlog", valid_trace().as_bytes(), &STRICT).unwrap();
    let kinds: Vec<Kind> = t.records.iter().map(|r| r.kind.clone()).collect();
    assert_eq!(
        kinds,
        [
            Kind::Metadata,
            Kind::ChatRequest,
            Kind::Chunk,
            Kind::ChatResponse,
            Kind::HarnessEvent,
            Kind::BlobRef
        ]
    );
    assert!(t.warnings.is_empty());
}

#[test]
fn gzip_crlf_blank_lines_and_bom() {
    let text = valid_trace().replace('\n', "\r\n\r\n");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let bytes = gz.finish().unwrap();
    let t = read_agentlog_bytes("v.agentlog.gz", &bytes, &STRICT).unwrap();
    assert_eq!(t.records.len(), 6);
    assert_eq!(t.records[1].line, Some(3), "blank lines count");
    let mut with_bom = vec![0xef, 0xbb, 0xbf];
    with_bom.extend_from_slice(valid_trace().as_bytes());
    let t = read_agentlog_bytes("v.agentlog", &with_bom, &ReadOptions::default()).unwrap();
    assert_eq!(t.records.len(), 6);
    assert_eq!(t.warnings.len(), 1);
    assert!(t.warnings[0].message.contains("byte-order mark"));
}

fn strict_errors(text: &str) -> Vec<String> {
    let e = read_agentlog_bytes("s.agentlog", text.as_bytes(), &STRICT).unwrap_err();
    std::iter::once(&e)
        .chain(e.related.iter())
        .map(ToString::to_string)
        .collect()
}

#[test]
fn strict_names_each_failure() {
    let good = valid_trace();
    let lines: Vec<&str> = good.lines().collect();
    // The response (line 4) is timestamped before the chunk (line 3).
    let back = good.replace("2026-01-01T00:00:00.001Z", "2025-12-31T23:59:59.999Z");
    assert_eq!(
        strict_errors(&back),
        ["s.agentlog:4: ts: timestamp goes backwards (2025-12-31T23:59:59.999Z after 2026-01-01T00:00:00.000Z on line 3)"]
    );
    // A parent that is not an earlier record.
    let (orphan, _) = rec(
        "error",
        json!({"source": "sdk", "code": "x", "message": "m", "retriable": false}),
        Some("sha256:abc"),
        "2026-01-02T00:00:00.000Z",
    );
    let errs = strict_errors(&format!("{good}{orphan}\n"));
    assert_eq!(
        errs,
        ["s.agentlog:7: parent: references sha256:abc, which is not an earlier record"]
    );
    // Version, ts shape, id shape, duplicate keys and an unknown kind, all named.
    let bad = format!(
        "{}\n{}\n{}\n",
        lines[0].replace("\"0.1\"", "\"1.0\""),
        lines[1].replace("2026-01-01T00:00:00.000Z", "2026-01-01 00:00:00"),
        lines[2]
            .replacen("{\"", "{\"kind\":\"x\",\"", 1)
            .replace("\"chunk\"", "\"telemetry\""),
    );
    let errs = strict_errors(&bad);
    assert!(
        errs[0].starts_with("s.agentlog:1: version: unsupported format version \"1.0\""),
        "{errs:?}"
    );
    assert!(
        errs.iter()
            .any(|e| e.starts_with("s.agentlog:2: ts: not a UTC timestamp")),
        "{errs:?}"
    );
    assert!(
        errs.iter()
            .any(|e| e.starts_with("s.agentlog:3: (line): duplicate key \"kind\"")),
        "{errs:?}"
    );
    assert!(
        errs.iter()
            .any(|e| e == "s.agentlog:3: kind: unknown record kind \"telemetry\""),
        "{errs:?}"
    );
    // The default mode reads the same file with warnings only.
    let t = read_agentlog_bytes("s.agentlog", bad.as_bytes(), &ReadOptions::default()).unwrap();
    assert_eq!(t.warnings.len(), 2, "{:?}", t.warnings);
}

#[test]
fn strict_first_record_and_session_boundaries() {
    let ts = "2026-01-01T00:00:00.000Z";
    let (l0, root) = rec("metadata", json!({"sdk": {}}), None, ts);
    let (l1, req) = rec(
        "chat_request",
        json!({"model": "m", "messages": [], "params": {}}),
        Some(&root),
        ts,
    );
    // A session-boundary metadata must point at the record just before it.
    let (l2, _) = rec(
        "metadata",
        json!({"sdk": {}, "tags": {"s": "2"}}),
        Some(&root),
        ts,
    );
    let errs = strict_errors(&format!("{l0}\n{l1}\n{l2}\n"));
    assert_eq!(errs.len(), 1);
    assert!(errs[0].starts_with("s.agentlog:3: parent: a session-boundary metadata record's parent must be the record just before it"), "{errs:?}");
    let (l2, _) = rec(
        "metadata",
        json!({"sdk": {}, "tags": {"s": "2"}}),
        Some(&req),
        ts,
    );
    assert!(read_agentlog_bytes(
        "s.agentlog",
        format!("{l0}\n{l1}\n{l2}\n").as_bytes(),
        &STRICT
    )
    .is_ok());
    // The first record must be metadata with parent null.
    let errs = strict_errors(&format!("{l1}\n"));
    assert!(
        errs[0].contains(":1: kind: the first record must be metadata"),
        "{errs:?}"
    );
    assert!(
        errs[1].contains(":1: parent: the root record's parent must be null"),
        "{errs:?}"
    );
}

#[test]
fn string_content_is_one_text_part_with_one_warning() {
    let ts = "2026-01-01T00:00:00.000Z";
    let (l0, root) = rec("metadata", json!({"sdk": {}}), None, ts);
    let (l1, r1) = rec(
        "chat_response",
        json!({"model": "m", "content": "hello there", "stop_reason": "end_turn", "usage": {}, "latency_ms": 1}),
        Some(&root),
        ts,
    );
    let (l2, _) = rec(
        "chat_response",
        json!({"model": "m", "content": "again", "stop_reason": "end_turn", "usage": {}, "latency_ms": 1}),
        Some(&r1),
        ts,
    );
    let t = read_agentlog_bytes(
        "c.agentlog",
        format!("{l0}\n{l1}\n{l2}\n").as_bytes(),
        &STRICT,
    )
    .unwrap();
    assert_eq!(t.warnings.len(), 1);
    assert_eq!(t.warnings[0].line, Some(2));
    let texts: Vec<String> = t.responses().iter().map(|r| r.text(" ")).collect();
    assert_eq!(texts, ["hello there", "again"]);
}

#[test]
fn unknown_envelope_keys_and_opaque_records_survive_a_rewrite() {
    let text = concat!(
        r#"{"version":"0.1","id":"sha256:x","kind":"metadata","ts":"t","parent":null,"payload":{"z":1,"a":2},"zz_extra":[1,{"b":2}],"aa":true}"#,
        "\n",
        r#"{"version":"0.1","id":"sha256:y","kind":"telemetry","ts":"t","parent":"sha256:x","meta":{"k":1},"payload":{"anything":"kept"}}"#,
        "\n",
    );
    let t = read_agentlog_bytes("e.agentlog", text.as_bytes(), &ReadOptions::default()).unwrap();
    assert_eq!(t.records[1].kind, Kind::Opaque("telemetry".into()));
    let mut out = Vec::new();
    write_agentlog(&t, &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), text);
}

#[test]
fn a_missing_parent_key_reads_as_null() {
    let text = r#"{"version":"0.1","id":"sha256:x","kind":"metadata","ts":"t","payload":{}}"#;
    let t = read_agentlog_bytes("p.agentlog", text.as_bytes(), &ReadOptions::default()).unwrap();
    assert_eq!(t.records[0].parent, None);
}

/// A file of many MiB reads every record in order with its line number, and the first bad
/// line is the one reported, with its number, when a later line is bad too.
#[test]
fn large_files_keep_order_and_report_the_first_error() {
    let line = |i: usize| {
        format!(
            "{{\"version\":\"0.1\",\"id\":\"sha256:{i:064x}\",\"kind\":\"chat_response\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"parent\":null,\"payload\":{{\"content\":\"{}\",\"n\":{i}}}}}\n",
            "x".repeat(200)
        )
    };
    let count = 30_000; // ~9 MiB
    let text: String = (0..count).map(line).collect();
    let t = read_agentlog_bytes("big.agentlog", text.as_bytes(), &ReadOptions::default()).unwrap();
    assert_eq!(t.records.len(), count);
    for (i, r) in t.records.iter().enumerate().step_by(997) {
        assert_eq!(r.payload["n"], json!(i));
        assert_eq!(r.line, Some(i as u64 + 1));
    }
    let mut bad: Vec<String> = (0..count).map(line).collect();
    bad[25_000] = "{not json\n".into();
    bad[25_001] = "[1]\n".into();
    let e = read_agentlog_bytes(
        "big.agentlog",
        bad.concat().as_bytes(),
        &ReadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("big.agentlog:25001: (line): invalid JSON"),
        "{e}"
    );
}

/// A gzip'd file of several batches reads exactly like the plain file (batches are read and
/// decompressed while the one before is parsed), and a late bad line is named by its number.
#[test]
fn gzip_files_of_many_batches_read_like_plain_ones() {
    let line = |i: usize| {
        format!(
            "{{\"version\":\"0.1\",\"id\":\"sha256:{i:064x}\",\"kind\":\"tool_call\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"parent\":null,\"payload\":{{\"tool_name\":\"t{}\",\"arguments\":{{\"i\":{i}}}}}}}\n",
            i % 7
        )
    };
    let gzip = |text: &str| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        gz.finish().unwrap()
    };
    let text: String = (0..20_000).map(line).collect(); // ~4 MiB: several batches
    let options = ReadOptions::default();
    let plain = read_agentlog_bytes("big.agentlog", text.as_bytes(), &options).unwrap();
    let zipped = read_agentlog_bytes("big.agentlog", &gzip(&text), &options).unwrap();
    assert_eq!(plain.records.len(), 20_000);
    assert_eq!(plain.records, zipped.records);
    let mut bad: Vec<String> = (0..20_000).map(line).collect();
    bad[17_000] = "{\"version\":\"0.1\"}\n".into();
    bad[19_000] = "not json\n".into();
    let e = read_agentlog_bytes("big.agentlog.gz", &gzip(&bad.concat()), &options).unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (Some(17_001), "id"));
}

#[test]
fn invalid_utf8_is_named_wherever_it_is() {
    let good = valid_trace();
    let first = good.lines().next().unwrap();
    let bad_lines: [&[u8]; 5] = [
        // inside a kept string value, a key, an ignored array element, between tokens, and in a
        // line that is also broken JSON
        b"{\"version\":\"0.1\",\"id\":\"\xff\",\"kind\":\"metadata\",\"ts\":\"t\",\"parent\":null,\"payload\":{}}",
        b"{\"version\":\"0.1\",\"id\":\"x\",\"kind\":\"metadata\",\"ts\":\"t\",\"parent\":null,\"payload\":{\"\xc3\x28\":1}}",
        b"[\"\xe2\x82\"]",
        b"{\"version\":\"0.1\" \xff}",
        b"{\"version\":\"0.\xf0",
    ];
    for bad in bad_lines {
        let mut input = format!("{first}\n").into_bytes();
        input.extend_from_slice(bad);
        input.push(b'\n');
        for options in [ReadOptions::default(), STRICT] {
            let e = read_agentlog_bytes("t.agentlog", &input, &options).unwrap_err();
            assert_eq!(e.line, Some(2), "{}", String::from_utf8_lossy(bad));
            let expected = std::str::from_utf8(bad).unwrap_err().valid_up_to() + 1;
            assert_eq!(
                e.message,
                format!("line is not valid UTF-8 (byte {expected})"),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}

/// One line of a generated file: valid records of several kinds, the lines that raise a
/// once-per-file warning or a strict failure, and lines that are errors.
fn pool_line(choice: u8, i: usize) -> Vec<u8> {
    let ts = format!("2026-01-01T00:00:{:02}.000Z", i % 60);
    let line = |kind: &str, version: &str, payload: Value| {
        let id = content_id(&payload);
        let v = json!({"version": version, "id": id, "kind": kind, "ts": ts, "parent": null, "payload": payload});
        serde_json::to_string(&v).unwrap().into_bytes()
    };
    match choice {
        0 => line("metadata", "0.1", json!({"sdk": {"name": "t"}, "i": i})),
        1 => line(
            "chat_response",
            "0.1",
            json!({"model": "m", "content": [{"type": "text", "text": format!("t{i}")}]}),
        ),
        2 => line("chat_response", "0.1", json!({"content": format!("s{i}")})),
        3 => line("tool_call", "0.2", json!({"tool_name": "f", "arguments": {"i": i}})),
        4 => line("weird", "0.1", json!({"i": i})),
        5 => line("odd", "0.1", json!({"i": i})),
        6 => format!(r#"{{"version":"0.1","id":"x","kind":"tool_result","ts":"{ts}","payload":{{"a":1,"a":{i}}}}}"#).into_bytes(),
        7 => b"   ".to_vec(),
        8 => b"{not json".to_vec(),
        9 => b"[1]".to_vec(),
        10 => line("chat_response", "0.1", json!({"model": i})),
        _ => b"{\"version\":\"\xff\"}".to_vec(),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Batched, parallel parsing gives exactly what reading one line at a time gives: the same
    /// records, the same warnings in the same order, the same first error, the same strict
    /// failures — whatever the batch size, the thread count and the reader's buffer size.
    #[test]
    fn batches_read_like_one_line_at_a_time(
        choices in proptest::collection::vec(
            proptest::prop_oneof![12 => 0u8..8, 1 => 8u8..12],
            0..160,
        ),
        buffer in 1usize..300,
        batch_bytes in 1usize..3000,
        threads in 1usize..4,
        crlf in proptest::bool::ANY,
    ) {
        use super::reader::{read_lines, Batching};
        let mut input = Vec::new();
        for (i, &c) in choices.iter().enumerate() {
            input.extend(pool_line(c, i));
            input.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        let one_at_a_time = Batching { bytes: 1, parallel_min_lines: usize::MAX };
        let batched = Batching { bytes: batch_bytes, parallel_min_lines: 1 };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for options in [ReadOptions::default(), STRICT] {
            let read = |batching| {
                let reader = std::io::BufReader::with_capacity(buffer, input.as_slice());
                format!("{:?}", read_lines("g.agentlog", reader, &options, batching, None))
            };
            let expected = read(one_at_a_time);
            proptest::prop_assert_eq!(&pool.install(|| read(batched)), &expected);
            proptest::prop_assert_eq!(
                &read_agentlog_bytes("g.agentlog", &input, &options).map_or_else(
                    |e| format!("{:?}", Err::<(), _>(e)),
                    |t| format!("{:?}", Ok::<_, ()>(t)),
                ),
                &expected
            );
        }
    }
}
