//! OpenTelemetry spans as OTLP/JSON: GenAI semantic conventions (current and v1.36-and-
//! earlier, incl. OpenLLMetry), OpenInference and the agent frameworks' own attributes (Google
//! ADK, the Vercel AI SDK, pydantic-ai), read into veer's trace model; with them the GenAI
//! events of the logs signal (`resourceLogs`), joined to their spans, and the same spans as
//! Grafana Tempo (`batches`) and Jaeger (`jaeger`) hand them back.
//!
//! A file holds one `ExportTraceServiceRequest` JSON object (pretty-printed or not), or one per
//! line as the Collector's file exporter writes. Lines are parsed on all cores, and each
//! line's spans are read as soon as it is parsed, so its wire structs never outlive it; a
//! single document's spans are read in batches while it is parsed (`document`); the
//! spans of all requests (and of several files, for `veer convert`) are then assembled into one trace by
//! `assemble`, whose ordering never depends on the input order.

pub(crate) mod assemble;
pub(crate) mod attrs;
pub(crate) mod calls;
pub(crate) mod content;
pub(crate) mod document;
pub(crate) mod jaeger;
pub(crate) mod wire;

use crate::error::TraceError;
use crate::model::Trace;
use assemble::{LogAt, Part, SpanAt};
use rayon::prelude::*;
use std::io::BufRead;
use wire::ExportRequest;

/// Whether `head` (the first bytes of a file) starts an OTLP/JSON export veer reads: a JSON
/// object whose first key is `resourceSpans` (or `resource_spans`), `resourceLogs` (the GenAI
/// events on the logs signal) or `batches` (a Grafana Tempo export).
pub fn sniff(head: &[u8]) -> bool {
    matches!(
        first_key(head),
        Some(b"resourceSpans" | b"resource_spans" | b"resourceLogs" | b"resource_logs")
    ) || is_tempo(head)
}

/// A Grafana Tempo trace export: `{"batches": [{"resource" …` or `{"batches": [{"scopeSpans"
/// …` / `instrumentationLibrarySpans` (the first key of its first element).
fn is_tempo(head: &[u8]) -> bool {
    if first_key(head) != Some(b"batches") {
        return false;
    }
    let Some(at) = memchr::memmem::find(head, b"\"batches\"") else {
        return false;
    };
    let rest = &head[at + 9..];
    let Some(colon) = rest.iter().position(|b| !b.is_ascii_whitespace()) else {
        return false;
    };
    if rest[colon] != b':' {
        return false;
    }
    let rest = &rest[colon + 1..];
    let Some(open) = rest.iter().position(|b| !b.is_ascii_whitespace()) else {
        return false;
    };
    if rest[open] != b'[' {
        return false;
    }
    matches!(
        first_key(&rest[open + 1..]),
        Some(b"resource" | b"scopeSpans" | b"instrumentationLibrarySpans" | b"scope_spans")
    )
}

/// Whether a parsed JSON document is an export this reader reads, whatever its key order:
/// `resourceSpans` / `resourceLogs` (either spelling), or Tempo's `batches` of resource spans.
pub(crate) fn is_export(v: &serde_json::Value) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    [
        "resourceSpans",
        "resource_spans",
        "resourceLogs",
        "resource_logs",
    ]
    .iter()
    .any(|k| o.contains_key(*k))
        || o.get("batches")
            .and_then(|b| b.as_array())
            .and_then(|b| b.first())
            .and_then(|b| b.as_object())
            .is_some_and(|b| {
                ["scopeSpans", "scope_spans", "instrumentationLibrarySpans"]
                    .iter()
                    .any(|k| b.contains_key(*k))
            })
}

/// The first key of the JSON object `head` starts with, when it has no escapes.
pub(crate) fn first_key(head: &[u8]) -> Option<&[u8]> {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let mut i = head.iter().position(|b| !b.is_ascii_whitespace())?;
    if head[i] != b'{' {
        return None;
    }
    i += 1;
    i += head[i..].iter().position(|b| !b.is_ascii_whitespace())?;
    if head[i] != b'"' {
        return None;
    }
    let rest = &head[i + 1..];
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    (rest[end] == b'"').then(|| &rest[..end])
}

/// Reads one OTLP/JSON file. Each request (a JSON line, or the one document) is parsed and
/// its spans read at once, its wire structs dropped before the next; the bytes are dropped
/// before the records are built, so the file is never held next to the trace.
pub fn read(source: &str, bytes: Vec<u8>) -> Result<Trace, TraceError> {
    let (parts, node_error) = read_parts(source, source, &bytes)?;
    drop(bytes);
    let part = Part::concat(parts);
    if let Some(e) = node_error {
        return Err(e);
    }
    let mut trace = finish(source, part)?;
    trace.run_label = Some(run_label(source));
    Ok(trace)
}

/// Bytes of JSON Lines read before a batch of lines is parsed (on all cores) and dropped.
const BATCH_BYTES: usize = 1 << 20;

/// Reads one OTLP/JSON file from `reader` (the file's length is `size_hint`, when known). JSON
/// Lines input is read a batch of lines at a time, each batch's bytes dropped once its spans are
/// read, so the file is never held whole next to the spans; a single document is read whole.
/// Gives the same trace and errors as [`read`] of the whole file.
pub(crate) fn read_from(
    source: &str,
    reader: &mut dyn BufRead,
    size_hint: Option<u64>,
) -> Result<Trace, TraceError> {
    read_batched(source, reader, size_hint, BATCH_BYTES)
}

/// [`read_from`] with batches of at least `batch_bytes` bytes of lines (tests and the fuzz
/// target use small batches, so that errors and line numbers cross batch boundaries).
pub(crate) fn read_batched(
    source: &str,
    reader: &mut dyn BufRead,
    size_hint: Option<u64>,
    batch_bytes: usize,
) -> Result<Trace, TraceError> {
    let io = |e: std::io::Error| crate::load::open_error(source, &e);
    let mut first = Vec::new();
    read_first_line(reader, &mut first, size_hint).map_err(io)?;
    let may_be_lines = {
        let body = first.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&first);
        let line = body.trim_ascii();
        first.ends_with(b"\n") && line.len() > 1 && line.ends_with(b"}")
    };
    if !may_be_lines {
        let mut bytes = first;
        super::read_all_into(source, reader, size_hint, &mut bytes)?;
        return read(source, bytes);
    }
    // Lines, once a second non-blank line is seen; until then the first may be the document.
    let mut batch = first;
    let mut lines_seen = 1u64;
    let mut batch_first_line = 1u64;
    let mut non_blank = 1usize;
    let mut all = Part::default();
    let mut node_error = None;
    loop {
        let before = batch.len();
        let n = reader.read_until(b'\n', &mut batch).map_err(io)?;
        if n > 0 {
            lines_seen += 1;
            if batch[before..].iter().any(|b| !b.is_ascii_whitespace()) {
                non_blank += 1;
            }
        }
        let end = n == 0;
        if end && non_blank == 1 {
            return read(source, batch);
        }
        if (end || batch.len() >= batch_bytes) && non_blank > 1 {
            let text = if batch_first_line == 1 {
                batch.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&batch)
            } else {
                &batch
            };
            let (part, e) = read_lines(source, source, text, batch_first_line)?;
            all.append(part);
            node_error = node_error.or(e);
            batch.clear();
            batch_first_line = lines_seen + 1;
        }
        if end {
            break;
        }
    }
    drop(batch);
    if let Some(e) = node_error {
        return Err(e);
    }
    let mut trace = finish(source, all)?;
    trace.run_label = Some(run_label(source));
    Ok(trace)
}

/// Reads the file's first line into `line` (its newline included), as `read_until` does. A
/// line longer than a batch is likely a whole one-line document: room for the whole file
/// (`size_hint`) is then reserved at once, rather than growing the buffer by doubling, which
/// copies it and briefly holds two copies.
fn read_first_line(
    reader: &mut dyn BufRead,
    line: &mut Vec<u8>,
    size_hint: Option<u64>,
) -> std::io::Result<()> {
    loop {
        let (done, used) = {
            let buf = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(());
            }
            match memchr::memchr(b'\n', buf) {
                Some(i) => {
                    line.extend_from_slice(&buf[..=i]);
                    (true, i + 1)
                }
                None => {
                    line.extend_from_slice(buf);
                    (false, buf.len())
                }
            }
        };
        reader.consume(used);
        if done {
            return Ok(());
        }
        if line.len() >= BATCH_BYTES {
            let whole = size_hint
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0)
                .saturating_add(1);
            if whole > line.capacity() {
                // A hint from the file's length (capped by the byte limit): skipped when the
                // machine cannot give it.
                let more = whole - line.len();
                let _ = veer_base::fallible::fallibly(|| line.try_reserve_exact(more));
            }
        }
    }
}

/// Reads several OTLP/JSON files as one set of spans (a trace split over files); the result
/// is named `label`.
pub fn read_many(label: &str, inputs: &[(&str, &[u8])]) -> Result<Trace, TraceError> {
    let mut all = Part::default();
    let mut first_node_error = None;
    for (source, bytes) in inputs {
        let (part, node_error) = read_part(source, label, bytes)?;
        all.append(part);
        first_node_error = first_node_error.or(node_error);
    }
    if let Some(e) = first_node_error {
        return Err(e);
    }
    let mut trace = finish(label, all)?;
    trace.run_label = Some(run_label(label));
    Ok(trace)
}

fn finish(label: &str, part: Part) -> Result<Trace, TraceError> {
    if part.is_empty() {
        return Err(
            TraceError::new(label, None, "resourceSpans", "the export holds no spans").with_hint(
                "export the spans of an agent run (an empty export has nothing to compare)",
            ),
        );
    }
    assemble::prepared(label, part).finish()
}

/// The spans of one request, with its line for JSON Lines input.
fn spans_of<'s, 'a>(r: &'s ExportRequest<'a>, line: Option<u64>) -> Vec<SpanAt<'s, 'a>> {
    r.resource_spans
        .iter()
        .flat_map(|rs| rs.scope_spans.iter())
        .flat_map(|ss| ss.spans.iter())
        .map(|span| SpanAt { span, line })
        .collect()
}

/// The log records of some resource logs, with their line for JSON Lines input.
pub(crate) fn logs_of<'s, 'a>(
    logs: &'s [wire::ResourceLogs<'a>],
    line: Option<u64>,
) -> Vec<LogAt<'s, 'a>> {
    logs.iter()
        .flat_map(|rl| rl.scope_logs.iter())
        .flat_map(|sl| sl.log_records.iter())
        .map(|record| LogAt { record, line })
        .collect()
}

/// Why a request could not be read: its JSON (reported first, as the file is read), or a
/// span in it (an id that is not one).
enum Failure {
    Parse(TraceError),
    Span(TraceError),
}

/// One request read: parsed, its spans read (ids in errors name `label`'s input as `label`),
/// its wire structs dropped.
fn read_request(
    source: &str,
    label: &str,
    text: &[u8],
    line: Option<u64>,
) -> Result<Part, Failure> {
    let request = parse_one(source, text, line).map_err(Failure::Parse)?;
    let mut part =
        assemble::prepare_part(label, &spans_of(&request, line)).map_err(Failure::Span)?;
    if !request.resource_logs.is_empty() {
        let logs = assemble::prepare_logs(label, &logs_of(&request.resource_logs, line))
            .map_err(Failure::Span)?;
        part.append(logs);
    }
    Ok(part)
}

/// The spans of one file, and the first span error (which counts only when no file of a set
/// has a JSON error). A JSON error is the `Err`, the first one in file order.
fn read_part(
    source: &str,
    label: &str,
    bytes: &[u8],
) -> Result<(Part, Option<TraceError>), TraceError> {
    let (parts, node_error) = read_parts(source, label, bytes)?;
    Ok((Part::concat(parts), node_error))
}

/// [`read_part`] with the spans left in parts in file order (a single document's are its
/// batches), so that the caller can drop `bytes` before making one part of them.
fn read_parts(
    source: &str,
    label: &str,
    bytes: &[u8],
) -> Result<(Vec<Part>, Option<TraceError>), TraceError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if is_json_lines(bytes) {
        let (part, node_error) = read_lines(source, label, bytes, 1)?;
        return Ok((vec![part], node_error));
    }
    if let Some(read) = document::read_document(label, bytes) {
        return Ok(read);
    }
    // Not an `ExportTraceServiceRequest` the streaming walk reads: the whole-request parse
    // says why (or reads the rare shape the walk leaves to it).
    let (part, node_error) = read_whole_document(source, label, bytes)?;
    Ok((vec![part], node_error))
}

/// Whether `bytes` read as one document while it is parsed gives what the whole-request read
/// gives (the same trace, or the same error). `true` when the walk leaves the document to the
/// whole-request read. The invariant the `otel_reader` fuzz target checks.
pub(crate) fn document_reads_agree(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let Some(streamed) = document::read_document("fuzz.json", bytes) else {
        return true;
    };
    let as_trace = |(part, e): (Part, Option<TraceError>)| match e {
        Some(e) => Err(e),
        None => finish("fuzz.json", part),
    };
    let (parts, e) = streamed;
    match read_whole_document("fuzz.json", "fuzz.json", bytes) {
        Ok(whole) => as_trace((Part::concat(parts), e)) == as_trace(whole),
        Err(_) => false,
    }
}

/// One document parsed whole, then its spans read: what [`document::read_document`] gives
/// when it succeeds, and the errors reported when it does not.
fn read_whole_document(
    source: &str,
    label: &str,
    bytes: &[u8],
) -> Result<(Part, Option<TraceError>), TraceError> {
    collect(vec![read_request(source, label, bytes, None)])
}

/// The spans of the JSON lines in `bytes`, whose first line is line `first_line` of the file
/// (a BOM already stripped), and the first span error; a JSON error is the `Err`.
fn read_lines(
    source: &str,
    label: &str,
    bytes: &[u8],
    first_line: u64,
) -> Result<(Part, Option<TraceError>), TraceError> {
    let mut lines: Vec<(u64, &[u8])> = Vec::new();
    let mut start = 0usize;
    let mut number = first_line - 1;
    while start < bytes.len() {
        number += 1;
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |p| start + p);
        let line = &bytes[start..end];
        if line.iter().any(|b| !b.is_ascii_whitespace()) {
            lines.push((number, line));
        }
        start = end + 1;
    }
    collect(
        lines
            .into_par_iter()
            .map(|(n, line)| read_request(source, label, line, Some(n)))
            .collect(),
    )
}

/// The parts of requests read in file order, and their first span error; the first JSON
/// error is the `Err`.
fn collect(outcomes: Vec<Result<Part, Failure>>) -> Result<(Part, Option<TraceError>), TraceError> {
    let mut node_error = None;
    let mut parts = Vec::with_capacity(outcomes.len());
    for outcome in outcomes {
        match outcome {
            Ok(p) => parts.push(p),
            Err(Failure::Parse(e)) => return Err(e),
            Err(Failure::Span(e)) => node_error = node_error.or(Some(e)),
        }
    }
    Ok((Part::concat(parts), node_error))
}

pub(crate) fn run_label(source: &str) -> String {
    let name = std::path::Path::new(source)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| source.to_string());
    for ext in [".otlp.jsonl", ".otlp.json", ".jsonl", ".json"] {
        if let Some(stem) = name.strip_suffix(ext) {
            return stem.to_string();
        }
    }
    name
}

/// JSON Lines when the first non-blank line is itself a complete object (`{…}` on one line)
/// and another non-blank line follows.
fn is_json_lines(bytes: &[u8]) -> bool {
    let Some(nl) = memchr::memchr(b'\n', bytes) else {
        return false;
    };
    let first = bytes[..nl].trim_ascii();
    first.len() > 1
        && first.ends_with(b"}")
        && bytes[nl + 1..].iter().any(|b| !b.is_ascii_whitespace())
}

fn parse_one<'a>(
    source: &str,
    text: &'a [u8],
    line: Option<u64>,
) -> Result<ExportRequest<'a>, TraceError> {
    match serde_json::from_slice::<ExportRequest<'a>>(text) {
        Ok(r) => Ok(r),
        Err(_) => {
            // Again, slowly, for the JSON path of the problem.
            let mut de = serde_json::Deserializer::from_slice(text);
            let err = match serde_path_to_error::deserialize::<_, ExportRequest<'a>>(&mut de) {
                Ok(r) => return Ok(r),
                Err(e) => e,
            };
            let path = err.path().to_string();
            let inner = err.into_inner();
            let at_line = match line {
                Some(l) => Some(l),
                None if inner.line() > 0 => Some(inner.line() as u64),
                None => None,
            };
            let message = strip_position(&inner.to_string());
            let hint = if inner.is_eof() {
                "the file ends in the middle of a JSON value: was the export cut off?"
            } else if inner.is_syntax() {
                "the file is not valid JSON at this point"
            } else {
                "OTLP/JSON: see the OTLP specification's JSON encoding (ExportTraceServiceRequest)"
            };
            let field = if path == "." || path.is_empty() {
                "(json)".to_string()
            } else {
                path
            };
            Err(TraceError::new(
                source,
                at_line,
                field,
                format!("{message} (column {})", inner.column()),
            )
            .with_hint(hint))
        }
    }
}

/// serde_json's message without its trailing " at line L column C".
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests;
