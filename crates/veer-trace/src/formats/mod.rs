//! Trace formats and the one step that decides, by content, which one a file is in.
//!
//! Detection never looks at the file name (spec `trace-formats.md` §3.7). In order:
//! 1. gzip magic → `.agentlog` (compressed); zip magic → an Inspect AI `.eval` log;
//! 2. each entry of `READERS` whose `sniff` accepts the first bytes reads the whole file;
//! 3. a JSON object with a traxr shape → traxr (trace, results file or analyzer case); an
//!    Inspect AI JSON log (`version` and an `eval` object) → Inspect;
//! 4. a JSON object or array that looks like nothing veer reads → an error naming the formats
//!    veer reads, what the file looks like and the closest format's first mismatch (binary
//!    OTLP, a single chat-completions response, OTLP metrics, an array of spans,
//!    `{type, payload}` event lines), never a parse error of a format the file is not;
//! 5. anything else → `.agentlog` JSON Lines, whose reader names the offending line.
//!
//! Adding a format is one module here and one `FormatReader` entry.

pub(crate) mod agents_sdk;
mod answers;
pub(crate) mod assemble;
mod by_record;
pub(crate) mod claude_code;
pub(crate) mod claude_subagents;
pub(crate) mod codex;
mod codex_legacy;
pub mod inspect;
pub(crate) mod langfuse;
pub(crate) mod langsmith;
mod langsmith_multipart;
#[cfg(test)]
mod large_tests;
pub(crate) mod mcp;
pub(crate) mod openai_evals;
pub mod otel;
#[cfg(test)]
mod proptests;
pub(crate) mod span_tree;

pub(crate) use by_record::items_of_bytes;
pub use by_record::Foreign;
pub(crate) use by_record::{
    broken_document, check_parents, read, sniff, sniff_first_line, span_ms, type_name, Item,
};

use crate::agentlog::reader::{read_agentlog, read_agentlog_sized};
use crate::error::TraceError;
use crate::limits::Counting;
use crate::load::Document;
use crate::options::ReadOptions;
use crate::traxr::{case_from_value, results_from_value, shape_of, trace_from_value, TraxrShape};
use crate::value_builder::{value_from_slice, Scratch};
use serde_json::Value;
use std::io::{BufRead, Read};
use veer_base::format::Format;

/// A format recognised from a file's first bytes and read from its whole content.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FormatReader {
    /// Whether the first bytes of a file (up to 64 KiB) are in this format. Must be cheap and
    /// must not accept the first line of an `.agentlog` or a traxr document.
    pub sniff: fn(&[u8]) -> bool,
    /// Reads the whole file from `reader` (its first bytes not yet consumed); the `u64` is
    /// the file's length when known.
    pub read: ReadFn,
}

/// How a [`FormatReader`] reads: source name, the reader, the file's length when known, options.
pub(crate) type ReadFn =
    fn(&str, &mut dyn BufRead, Option<u64>, &ReadOptions) -> Result<Document, TraceError>;

/// The formats recognised by their first bytes, tried in order.
pub(crate) const READERS: &[FormatReader] = &[
    FormatReader {
        sniff: otel::sniff,
        read: read_otel_stream,
    },
    FormatReader {
        sniff: otel::jaeger::sniff,
        read: read_jaeger,
    },
    FormatReader {
        sniff: langsmith_multipart::sniff,
        read: read_langsmith_multipart,
    },
];

/// A LangSmith multipart ingest body: read whole.
fn read_langsmith_multipart(
    source: &str,
    reader: &mut dyn BufRead,
    size_hint: Option<u64>,
    options: &ReadOptions,
) -> Result<Document, TraceError> {
    let bytes = read_all(source, reader, size_hint)?;
    langsmith_multipart::read(source, &bytes, options).map(Document::Trace)
}

/// Jaeger UI JSON: one document, read whole.
fn read_jaeger(
    source: &str,
    reader: &mut dyn BufRead,
    size_hint: Option<u64>,
    _options: &ReadOptions,
) -> Result<Document, TraceError> {
    let bytes = read_all(source, reader, size_hint)?;
    otel::jaeger::read(source, &bytes).map(Document::Trace)
}

fn read_otel_stream(
    source: &str,
    reader: &mut dyn BufRead,
    size_hint: Option<u64>,
    _options: &ReadOptions,
) -> Result<Document, TraceError> {
    otel::read_from(source, reader, size_hint).map(Document::Trace)
}

fn read_otel(source: &str, bytes: Vec<u8>, _options: &ReadOptions) -> Result<Document, TraceError> {
    otel::read(source, bytes).map(Document::Trace)
}

/// The formats veer reads, for messages: one line each.
pub(crate) fn supported_formats() -> String {
    Format::LISTED
        .iter()
        .map(|f| format!("{} ({})", f.name(), f.description()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reads a document from `reader`, detecting its format by content. `size_hint` (the file's
/// length, when known) sizes the buffer of formats read whole. Every format reads through one
/// byte count: past `--max-trace-bytes` the read stops with an error naming the limit.
pub(crate) fn read_document<R: BufRead + Send>(
    source: &str,
    reader: R,
    options: &ReadOptions,
    size_hint: Option<u64>,
) -> Result<Document, TraceError> {
    let reader = Counting::new(reader, options.max_trace_bytes);
    let size_hint = size_hint.map(|n| n.min(options.max_trace_bytes));
    let document = read_counted(source, reader, options, size_hint)?;
    // The readers that count records as they go (`.agentlog`, traxr) stop at the limit; the
    // others are checked here, their size already bounded by the byte limit.
    if let Document::Trace(t) = &document {
        if t.records.len() as u64 > options.max_records {
            return Err(crate::limits::too_many_records(
                source,
                None,
                options.max_records,
            ));
        }
    }
    Ok(document)
}

/// [`read_document`] of the counted reader.
fn read_counted<R: BufRead + Send>(
    source: &str,
    mut reader: Counting<R>,
    options: &ReadOptions,
    size_hint: Option<u64>,
) -> Result<Document, TraceError> {
    let read_all = |reader: Counting<R>| read_all(source, reader, size_hint);
    let head = reader
        .fill_buf()
        .map_err(|e| crate::load::open_error(source, &e))?;
    if head.starts_with(&[0x1f, 0x8b]) {
        return read_agentlog(source, reader, options).map(Document::Trace);
    }
    if inspect::sniff_zip(head) {
        let bytes = read_all(reader)?;
        return inspect::single_from_zip(source, bytes, options).map(Document::Trace);
    }
    if looks_like_binary_otlp(head) {
        return Err(unknown(source, "this looks like binary OTLP protobuf, not JSON")
            .with_hint("export OTLP as JSON: the Collector's file exporter (format: json), or OTLP/HTTP with Content-Type application/json"));
    }
    if let Some(r) = READERS.iter().find(|r| (r.sniff)(head)) {
        return (r.read)(source, &mut reader, size_hint, options);
    }
    let first = head.iter().find(|b| !b.is_ascii_whitespace()).copied();
    let stripped_bom = head.starts_with(&[0xef, 0xbb, 0xbf]);
    if !matches!(first, Some(b'{' | b'[')) || stripped_bom {
        return read_agentlog_sized(source, reader, options, size_hint).map(Document::Trace);
    }
    // Peek the first line: a complete JSON object that is not a traxr shape (nor the first
    // record of a format told apart by its records) is .agentlog, unless it is plainly
    // something else.
    let mut foreign = None;
    if let Some(len) = head.iter().position(|&b| b == b'\n') {
        if let Ok(v) = serde_json::from_slice::<Value>(&head[..len]) {
            foreign = sniff(&v);
            if shape_of(&v).is_none() && foreign.is_none() && !inspect::is_json_log(&v) {
                if otel::is_export(&v) {
                    return read_otel_stream(source, &mut reader, size_hint, options);
                }
                if let Some(e) = near_miss(source, &v) {
                    return Err(e);
                }
                return read_agentlog_sized(source, reader, options, size_hint)
                    .map(Document::Trace);
            }
        }
    }
    // Otherwise read the whole document (pretty-printed JSON, or a one-line file).
    let bytes = read_all(reader)?;
    // A bare traxr trace (the large case) is parsed into the compact tree, without a
    // whole-document `Value`; whatever else the document is, it is read as before.
    let bytes = match crate::traxr_read::read_bare_trace(source, bytes, options) {
        Ok(read) => return read.map(Document::Trace),
        Err(bytes) => bytes,
    };
    // The text is dropped as soon as it is no longer needed, and so is a parsed document that
    // turns out not to be traxr: a large file is held once, not twice.
    let parsed = value_from_slice(&bytes, &mut Scratch::default());
    // A record of a format told apart by its records is never a traxr shape (a LangSmith run
    // has `events`).
    let shape = parsed
        .as_ref()
        .ok()
        .filter(|v| sniff(v).is_none())
        .and_then(shape_of);
    match (parsed, shape) {
        (Ok(v), _) if inspect::is_json_log(&v) => {
            drop(bytes);
            inspect::single_from_json(source, v, options).map(Document::Trace)
        }
        (Ok(v), Some(shape)) => {
            drop(bytes);
            match shape {
                TraxrShape::Trace => {
                    trace_from_value(source, "", v, None, options).map(Document::Trace)
                }
                TraxrShape::Results => {
                    results_from_value(source, v, options).map(|r| Document::Results(Box::new(r)))
                }
                TraxrShape::AnalyzerCase => {
                    case_from_value(source, v, options).map(|c| Document::AnalyzerCase(Box::new(c)))
                }
            }
        }
        (Ok(v), None) if otel::is_export(&v) => {
            drop(v);
            read_otel(source, bytes, options)
        }
        (Ok(v), None) if otel::jaeger::is_document(&v) => {
            drop(v);
            otel::jaeger::read(source, &bytes).map(Document::Trace)
        }
        // A format told apart by its records, read from the parsed document or its lines.
        (parsed, _)
            if foreign.is_some()
                || parsed.as_ref().ok().and_then(sniff).is_some()
                || sniff_first_line(&bytes).is_some() =>
        {
            let parsed = parsed.ok().filter(|v| sniff(v).is_some());
            let format = parsed
                .as_ref()
                .and_then(sniff)
                .or(foreign)
                .or_else(|| sniff_first_line(&bytes));
            match format {
                Some(f) => read(f, source, &bytes, parsed, options).map(Document::Trace),
                None => read_agentlog(source, bytes.as_slice(), options).map(Document::Trace),
            }
        }
        (Ok(v), None) if near_miss(source, &v).is_some() => {
            Err(near_miss(source, &v).unwrap_or_else(|| unknown(source, "")))
        }
        // A whole JSON array that no reader took: never `.agentlog` (a JSON Lines file).
        (Ok(v @ Value::Array(_)), None) => Err(unknown_array(source, &v)),
        // Not one JSON document (JSON Lines, or broken): the .agentlog reader names the line.
        (parsed, _) => {
            if parsed.is_err() {
                if let Some(e) = broken_document(source, &bytes) {
                    return Err(e);
                }
            }
            drop(parsed);
            read_agentlog(source, bytes.as_slice(), options).map(Document::Trace)
        }
    }
}

/// The rest of `reader` (a [`Counting`] reader: its limit is `--max-trace-bytes`).
pub(crate) fn read_all<R: Read>(
    source: &str,
    reader: R,
    size_hint: Option<u64>,
) -> Result<Vec<u8>, TraceError> {
    let mut bytes = Vec::new();
    read_all_into(source, reader, size_hint, &mut bytes)?;
    Ok(bytes)
}

/// [`read_all`] appending to `bytes`, which holds the start of the same file (`size_hint` is
/// the whole file's length, already capped by the byte limit): room for the whole file is
/// reserved once, so the start is not copied into a second buffer. The reservation is only
/// a hint: when the machine cannot give it, the buffer grows as it is read, and a growth the
/// machine refuses is an out-of-memory error, not an abort.
pub(crate) fn read_all_into<R: Read>(
    source: &str,
    mut reader: R,
    size_hint: Option<u64>,
    bytes: &mut Vec<u8>,
) -> Result<(), TraceError> {
    let start = bytes.len();
    let capacity = size_hint.map_or(0, |n| {
        usize::try_from(n).unwrap_or(usize::MAX).saturating_add(1)
    });
    let _ =
        veer_base::fallible::fallibly(|| bytes.try_reserve_exact(capacity.saturating_sub(start)));
    // `read_to_end` grows the buffer fallibly (an `OutOfMemory` error); the reader under it
    // (a counted file or buffer) does not allocate.
    veer_base::fallible::fallibly(|| reader.read_to_end(bytes))
        .map_err(|e| crate::load::open_error(source, &e))?;
    Ok(())
}

fn unknown(source: &str, what: &str) -> TraceError {
    let what = if what.is_empty() {
        "not a trace format veer reads".to_string()
    } else {
        what.to_string()
    };
    TraceError::new(
        source,
        None,
        "(file)",
        format!("{what}; veer reads: {}", supported_formats()),
    )
}

/// The error for a JSON array no reader took: what its elements look like, the closest
/// format and its first mismatch, and the formats veer reads.
fn unknown_array(source: &str, v: &Value) -> TraceError {
    let first = v.as_array().and_then(|a| a.first());
    let keys: Vec<&str> = first
        .and_then(Value::as_object)
        .map(|o| o.keys().map(String::as_str).take(8).collect())
        .unwrap_or_default();
    let has = |k: &str| keys.contains(&k);
    let (what, closest) =
        if first.is_none() {
            ("this is an empty JSON array".to_string(), String::new())
        } else if [
            "context",
            "span_id",
            "spanId",
            "span_kind",
            "parent_id",
            "traceId",
            "trace_id",
        ]
        .iter()
        .any(|k| has(k))
        {
            (
            format!("this looks like a JSON array of spans (keys {})", keys.join(", ")),
            "; the closest, OTLP/JSON, needs the spans under resourceSpans[].scopeSpans[].spans"
                .to_string(),
        )
        } else if has("role") && (has("content") || has("parts")) {
            (
                "this looks like a JSON array of chat messages, not a trace".to_string(),
                "; the closest, an OpenAI Agents SDK export, needs trace and span objects"
                    .to_string(),
            )
        } else {
            (
                format!(
                    "this is a JSON array whose first element is {} (keys {})",
                    first.map_or("nothing", type_name),
                    keys.join(", ")
                ),
                String::new(),
            )
        };
    unknown(source, &format!("{what}, not a format veer reads{closest}"))
        .with_hint("check that this is the file you meant; `veer convert` turns a supported format into .agentlog")
}

/// Binary protobuf starts with field 1 (`resource_spans`, length-delimited: byte 0x0a) and is
/// not text.
fn looks_like_binary_otlp(head: &[u8]) -> bool {
    head.first() == Some(&0x0a)
        && head
            .iter()
            .take(4096)
            .any(|&b| b < 0x09 || (0x0e..0x20).contains(&b))
}

/// A JSON object that is plainly not an `.agentlog` record (no `kind`, no `payload`) and not
/// any format veer reads: the error, with a specific hint where one fits. An object with
/// `version` or `id` and no recognisable other shape is left to the `.agentlog` reader.
pub(crate) fn near_miss(source: &str, v: &Value) -> Option<TraceError> {
    let o = v.as_object()?;
    let envelope = ["version", "id", "ts"].iter().any(|k| o.contains_key(*k));
    if o.contains_key("kind") || (o.contains_key("payload") && envelope) {
        return None; // an .agentlog record, perhaps a broken one: its reader says what is wrong
    }
    if o.contains_key("payload") {
        let kind = o.get("type").and_then(Value::as_str).unwrap_or("");
        return Some(
            unknown(
                source,
                &format!(
                    "this looks like JSON Lines of {{type, payload}} events (first type {kind:?}), not a format veer reads; the closest, .agentlog, needs version, id, kind and ts beside payload"
                ),
            )
            .with_hint("check that this is the file you meant; `veer convert` turns a supported format into .agentlog"),
        );
    }
    let is_chat_completion = o.contains_key("choices")
        && (o.get("object").and_then(Value::as_str) == Some("chat.completion")
            || o.contains_key("model"));
    let is_anthropic_message = o.get("type").and_then(Value::as_str) == Some("message")
        && o.get("role").and_then(Value::as_str) == Some("assistant");
    let record_instead = "record the whole agent run instead: spans from an OpenTelemetry instrumentation exported as OTLP/JSON, or an .agentlog";
    Some(if is_chat_completion {
        unknown(
            source,
            "this is a single chat-completions response, not a trace",
        )
        .with_hint(record_instead)
    } else if is_anthropic_message {
        unknown(
            source,
            "this is a single Anthropic Messages response, not a trace",
        )
        .with_hint(record_instead)
    } else if o.contains_key("resourceMetrics") {
        unknown(source, "this is OTLP metrics, not traces")
            .with_hint("export the trace signal (resourceSpans) as OTLP/JSON, and the logs signal (resourceLogs) for GenAI events")
    } else if o.contains_key("version") || o.contains_key("id") {
        return None;
    } else {
        unknown(source, "")
            .with_hint("check that this is the file you meant; `veer convert` turns a supported format into .agentlog")
    })
}

#[cfg(test)]
mod detection_tests {
    use crate::load::load_bytes;
    use crate::options::ReadOptions;

    fn error_of(bytes: &str) -> crate::error::TraceError {
        match load_bytes("f.json", bytes.as_bytes(), &ReadOptions::default()) {
            Err(e) => e,
            Ok(_) => panic!("read {bytes}"),
        }
    }

    #[test]
    fn files_of_no_format_say_what_they_look_like_and_what_was_tried() {
        let spans = "[\n  {\n    \"name\": \"llm\",\n    \"context\": {\"trace_id\": \"t\", \"span_id\": \"s\"},\n    \"span_kind\": \"LLM\"\n  }\n]\n";
        let e = error_of(spans);
        assert!(e.message.contains("JSON array of spans"), "{e}");
        assert!(
            e.message.contains("resourceSpans") && e.message.contains("veer reads: agentlog"),
            "{e}"
        );
        assert!(!e.message.contains("invalid JSON"), "{e}");
        let events = "{\"type\": \"step\", \"payload\": {\"a\": 1}}\n{\"type\": \"step\", \"payload\": {}}\n";
        let e = error_of(events);
        assert!(e.message.contains("{type, payload} events"), "{e}");
        assert!(!e.message.contains("missing required field"), "{e}");
        assert!(error_of("[]").message.contains("empty JSON array"));
        // A broken .agentlog record is still the .agentlog reader's to explain.
        let e = error_of("{\"version\": \"0.1\", \"kind\": \"metadata\", \"payload\": {}}\n");
        assert_eq!(e.field, "id");
    }
}
