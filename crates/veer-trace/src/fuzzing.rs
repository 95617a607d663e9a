//! The bodies of the trace-reader fuzz targets (`fuzz/fuzz_targets/agentlog_reader.rs`,
//! `traxr_reader.rs`, `otel_reader.rs`) and the listing of the committed corpora, kept in the library so that
//! the fuzzer and the corpus-replay tests of every crate run exactly the same code
//! (docs/fuzzing.md). Each body panics only when an invariant breaks.

use crate::agentlog::reader::read_agentlog_bytes;
use crate::agentlog::writer::write_agentlog;
use crate::formats::{self, Foreign};
use crate::load::load_bytes;
use crate::model::Trace;
use crate::options::ReadOptions;
use std::path::{Path, PathBuf};

/// Lines longer than this are rejected while fuzzing, so inputs stay small and fast.
const FUZZ_MAX_LINE: u64 = 1 << 16;

/// The committed seed corpus and crash regressions of fuzz target `target`
/// (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`), sorted. For replay tests.
pub(crate) fn corpus_files(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) {
            files.extend(entries.filter_map(|e| e.ok()).map(|e| e.path()));
        }
    }
    files.sort();
    files
}

/// Runs `body` on every committed input of `target` (at least `min` of them), naming the
/// input that fails. The replay tests of each crate call it.
pub fn replay_corpus(target: &str, min: usize, body: impl Fn(&[u8])) {
    let files = corpus_files(target);
    assert!(files.len() >= min, "{target}: seed corpus present");
    for f in files {
        let data = std::fs::read(&f).unwrap_or_default();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&data)));
        assert!(caught.is_ok(), "{target}: {} fails", f.display());
    }
}

/// Any bytes to the `.agentlog` reader, permissive and strict: an error is fine. A trace that
/// loads yields its views, writes, and reads back.
pub fn agentlog_reader(data: &[u8]) {
    let small = ReadOptions {
        strict: false,
        max_line_bytes: FUZZ_MAX_LINE,
        ..ReadOptions::default()
    };
    if let Ok(trace) = read_agentlog_bytes("fuzz.agentlog", data, &small) {
        let out = views_then_written(&trace);
        assert!(
            read_agentlog_bytes("fuzz.agentlog", &out, &small).is_ok(),
            "a written trace reads back"
        );
    }
    let strict = ReadOptions {
        strict: true,
        max_line_bytes: FUZZ_MAX_LINE,
        ..ReadOptions::default()
    };
    let _ = read_agentlog_bytes("fuzz.agentlog", data, &strict);
    compact_json_agrees(data);
}

/// Every line of `data` parsed into the compact payload tree ([`crate::json::Json`]) and
/// into a `serde_json::Value`: both fail with the same message, or both succeed and write the
/// same bytes (compact and pretty), the same canonical bytes, and compare equal.
pub(crate) fn compact_json_agrees(data: &[u8]) {
    use crate::canonical::canonical_bytes;
    use crate::json::{json_from_slice, JsonScratch};
    let mut scratch = JsonScratch::default();
    for line in data.split(|&b| b == b'\n') {
        let ours = json_from_slice(line, &mut scratch);
        let theirs = serde_json::from_slice::<serde_json::Value>(line);
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => {
                assert_eq!(ours.to_string(), theirs.to_string(), "same JSON text");
                assert_eq!(
                    format!("{ours:#}"),
                    format!("{theirs:#}"),
                    "same pretty text"
                );
                assert_eq!(canonical_bytes(&ours), canonical_bytes(&theirs));
                assert!(ours == theirs, "equal values");
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "same error"),
            (a, b) => assert_eq!(a.is_ok(), b.is_ok(), "compact and serde_json disagree"),
        }
    }
}

/// Any bytes to format detection and the traxr readers (trace, results, analyzer case),
/// permissive and strict. Every loaded trace yields features and turns and writes as
/// `.agentlog`.
pub fn traxr_reader(data: &[u8]) {
    for strict in [false, true] {
        let options = ReadOptions {
            strict,
            max_line_bytes: FUZZ_MAX_LINE,
            ..ReadOptions::default()
        };
        if let Ok(doc) = load_bytes("fuzz.json", data, &options) {
            for t in doc.into_traces() {
                views_then_written(&t);
            }
        }
    }
}

/// Any bytes to the reader of `format` (bypassing detection, so every reader sees every
/// shape), permissive and strict, and to format detection. A trace that loads has a root
/// `metadata` record, yields its views, writes as `.agentlog`, and reads back with as many
/// records, strict mode included (content ids, parents and timestamps are in order). Claude
/// Code input is also read as a session joined by a sub-agent file of its own.
pub fn foreign_reader(format: Foreign, data: &[u8]) {
    for strict in [false, true] {
        let options = ReadOptions {
            strict,
            max_line_bytes: FUZZ_MAX_LINE,
            ..ReadOptions::default()
        };
        if let Ok(trace) = formats::read(format, "fuzz.json", data, None, &options) {
            assert!(
                trace.records.first().map(|r| &r.kind) == Some(&crate::model::Kind::Metadata),
                "a read trace starts with its metadata record"
            );
            written_reads_back_strictly(&trace, "the written trace");
        }
        let _ = load_bytes("fuzz.json", data, &options);
        if format == Foreign::ClaudeCode {
            claude_code_with_agent_file(data, &options);
        }
    }
}

/// A Claude Code session read with a sub-agent file of its own (the bytes are both): an
/// error is fine; a trace that reads starts with its metadata and writes back strictly.
fn claude_code_with_agent_file(data: &[u8], options: &ReadOptions) {
    let Ok(items) = formats::items_of_bytes("fuzz.jsonl", data, options.max_line_bytes) else {
        return;
    };
    let agent = formats::claude_code::AgentLog {
        source: "agent-fuzz.jsonl".into(),
        items: items.clone(),
    };
    if let Ok(trace) =
        formats::claude_code::read_with_agents("fuzz.jsonl", items, vec![agent], options)
    {
        assert!(
            trace.records.first().map(|r| &r.kind) == Some(&crate::model::Kind::Metadata),
            "a read session starts with its metadata record"
        );
        written_reads_back_strictly(&trace, "the session read with its sub-agent file");
    }
}

/// Any bytes to the OTLP/JSON reader. Read from a stream (JSON Lines in batches) it gives the
/// same trace or error as read whole; read as one document while it is parsed, the same as
/// the document parsed whole; a trace that loads yields its views, reads the same a
/// second time, and written as `.agentlog` (what `veer convert` does) passes the strict
/// reader with the same records.
pub fn otel_reader(data: &[u8]) {
    let whole = crate::formats::otel::read("fuzz.json", data.to_vec());
    let mut reader = std::io::BufReader::with_capacity(16, data);
    let streamed = crate::formats::otel::read_batched("fuzz.json", &mut reader, None, 64);
    assert!(streamed == whole, "streamed and whole reads differ");
    assert!(
        crate::formats::otel::document_reads_agree(data),
        "the document read while parsed and the whole-request read differ"
    );
    let Ok(trace) = whole else {
        return;
    };
    let again = crate::formats::otel::read("fuzz.json", data.to_vec());
    assert!(
        again.as_ref().is_ok_and(|t| t.records == trace.records),
        "reads the same twice"
    );
    let out = views_then_written(&trace);
    let strict = ReadOptions {
        strict: true,
        max_line_bytes: u64::MAX,
        ..ReadOptions::default()
    };
    let back = read_agentlog_bytes("fuzz.agentlog", &out, &strict);
    assert!(
        back.as_ref()
            .is_ok_and(|b| b.records.len() == trace.records.len()),
        "a converted trace reads back strictly: {:?}",
        back.err()
    );
}

/// `trace`'s views, then the trace written as `.agentlog` (what `veer convert` does), which must
/// read back under `--strict` with as many records (content ids, parents, timestamps in order).
fn written_reads_back_strictly(trace: &Trace, what: &str) {
    let out = views_then_written(trace);
    let strict_read = ReadOptions {
        strict: true,
        max_line_bytes: u64::MAX,
        ..ReadOptions::default()
    };
    let back = read_agentlog_bytes("fuzz.agentlog", &out, &strict_read);
    assert!(
        back.as_ref().map(|t| t.records.len()).ok() == Some(trace.records.len()),
        "{what} reads back strictly: {:?}",
        back.err()
    );
}

/// Any bytes to the Inspect AI log reader (a `.eval` zip archive or a JSON log), permissive and
/// strict, each member capped at 1 MiB decompressed. Every sample-epoch that reads is a trace
/// whose `metadata` record carries its case and trial, yields its views, writes as `.agentlog`
/// and reads back strictly with as many records; bytes that are not a zip also go through
/// format detection (a zip would be read again with the real 256 MiB cap).
pub fn inspect_reader(data: &[u8]) {
    use crate::formats::inspect::{read_inspect_bytes_capped, sniff_zip, CASE_KEY, TRIAL_KEY};
    for strict in [false, true] {
        let options = ReadOptions {
            strict,
            max_line_bytes: FUZZ_MAX_LINE,
            ..ReadOptions::default()
        };
        if let Ok(log) = read_inspect_bytes_capped("fuzz.eval", data.to_vec(), &options, 1 << 20) {
            let n = log.len();
            let mut seen = 0;
            for sample in log.flatten() {
                seen += 1;
                let trace = &sample.trace;
                let meta = trace.records.first();
                assert!(
                    meta.map(|r| &r.kind) == Some(&crate::model::Kind::Metadata),
                    "a sample's trace starts with its metadata record"
                );
                assert!(
                    meta.and_then(|m| m.str_field(CASE_KEY)) == Some(sample.case.as_str())
                        && meta
                            .and_then(|m| m.field(TRIAL_KEY))
                            .and_then(crate::json::Json::as_u64)
                            == Some(sample.trial),
                    "the metadata record carries case and trial"
                );
                written_reads_back_strictly(trace, "a converted sample");
            }
            assert!(seen <= n, "no more samples than listed");
        }
        if !sniff_zip(data) {
            let _ = load_bytes("fuzz.json", data, &options);
        }
    }
}

/// Every derived view of a loaded trace, then the trace written as `.agentlog` (which must
/// succeed); the written bytes.
fn views_then_written(trace: &Trace) -> Vec<u8> {
    let _ = trace.features();
    let _ = trace.tool_calls();
    let _ = trace.turns();
    let _ = trace.policy_sessions();
    let _ = trace.recorded_sessions();
    let mut out = Vec::new();
    assert!(
        write_agentlog(trace, &mut out).is_ok(),
        "a loaded trace writes"
    );
    out
}
