//! LangSmith multipart ingest bodies (what the SDKs send to `/runs/multipart`): a
//! `multipart/form-data` body whose parts are named `post.<run id>` (the run without its large
//! fields), `post.<run id>.inputs` / `.outputs` / `.events` / `.extra` / `.serialized` (each
//! field as a part of its own), and the same under `patch.` for a run's end. This module puts
//! each run back together and hands the `{"post": [...], "patch": [...]}` batch to the LangSmith
//! reader (docs/formats.md §LangSmith); `attachment.` and `feedback.` parts give no record.

use super::{langsmith, type_name, Item};
use crate::error::TraceError;
use crate::model::Trace;
use crate::options::ReadOptions;
use serde_json::{json, Map, Value};

/// At most this many bytes of a boundary line (RFC 2046 allows 70 characters).
const MAX_BOUNDARY: usize = 200;

/// Whether `head` (a file's first bytes) opens a LangSmith multipart body: a `--boundary`
/// line, then the first part's `Content-Disposition: form-data; name="post.…"` (or `patch.`).
pub(crate) fn sniff(head: &[u8]) -> bool {
    let Some((boundary, rest)) = boundary_of(head) else {
        return false;
    };
    !boundary.is_empty() && {
        let first = rest.split(|&b| b == b'\n').next().unwrap_or(&[]);
        let line = String::from_utf8_lossy(first).to_ascii_lowercase();
        line.starts_with("content-disposition: form-data;")
            && (line.contains("name=\"post.") || line.contains("name=\"patch."))
    }
}

/// The boundary (without its leading `--`) and the bytes after its line.
fn boundary_of(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = bytes.strip_prefix(b"--")?;
    let end = rest.iter().take(MAX_BOUNDARY).position(|&b| b == b'\n')?;
    let line = &rest[..end];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().any(|b| b.is_ascii_whitespace()) {
        return None;
    }
    Some((line, &rest[end + 1..]))
}

/// 1-based line of byte `at` of `bytes`.
fn line_at(bytes: &[u8], at: usize) -> u64 {
    bytes[..at.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

/// One part: its name, its body, the line its headers start on.
struct Part<'a> {
    name: String,
    body: &'a [u8],
    line: u64,
}

/// The parts of a multipart body, in order. Errors: no boundary line, a part without the
/// blank line ending its headers or without a `name`, a body that never reaches the closing
/// `--boundary--` (a truncated capture).
fn parts_of<'a>(source: &str, bytes: &'a [u8]) -> Result<Vec<Part<'a>>, TraceError> {
    let err = |at: usize, field: &str, msg: String| {
        TraceError::new(source, Some(line_at(bytes, at)), field, msg)
    };
    let Some((boundary, _)) = boundary_of(bytes) else {
        return Err(err(
            0,
            "(file)",
            "a multipart body opens with a --boundary line".into(),
        )
        .with_hint("give the request body exactly as it was sent to /runs/multipart"));
    };
    let mut delimiter = b"\r\n--".to_vec();
    delimiter.extend_from_slice(boundary);
    let find = |from: usize| {
        bytes[from..]
            .windows(delimiter.len())
            .position(|w| w == delimiter.as_slice())
            .map(|i| i + from)
    };
    // The body is read as if it began with CRLF, so every delimiter looks alike.
    let mut at = 2 + boundary.len();
    let mut parts = Vec::new();
    loop {
        // After a delimiter: `--` closes the body; otherwise CRLF and the part's headers.
        let rest = &bytes[at..];
        if rest.starts_with(b"--") {
            return Ok(parts);
        }
        let start = at + if rest.starts_with(b"\r\n") { 2 } else { 0 };
        let Some(head_len) = bytes[start..].windows(4).position(|w| w == b"\r\n\r\n") else {
            return Err(err(
                start,
                "(part)",
                "a part's headers do not end with a blank line".into(),
            )
            .with_hint("the body looks truncated or was saved with changed line endings: capture it again, byte for byte"));
        };
        let headers = String::from_utf8_lossy(&bytes[start..start + head_len]);
        let name = headers
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("content-disposition:"))
            .and_then(|l| l.split("name=\"").nth(1))
            .and_then(|n| n.split('"').next())
            .map(str::to_string);
        let Some(name) = name else {
            return Err(err(
                start,
                "Content-Disposition",
                "a part has no name=\"…\"".into(),
            ));
        };
        let body_start = start + head_len + 4;
        // (an empty part's delimiter starts at the blank line ending its headers)
        let Some(end) = find(body_start - 2) else {
            return Err(err(
                start,
                &name,
                "the body ends before the closing --boundary-- line".into(),
            )
            .with_hint("the body looks truncated: capture it again"));
        };
        parts.push(Part {
            name,
            body: bytes.get(body_start..end).unwrap_or(&[]),
            line: line_at(bytes, start),
        });
        at = end + delimiter.len();
    }
}

/// Reads a multipart ingest body: its runs, each put back together from its parts, read as
/// the batch-ingest body `{"post": [...], "patch": [...]}`. A part that is not JSON, a field
/// part before its run's part, or a run part that is not an object is an error naming the
/// part.
pub(crate) fn read(source: &str, bytes: &[u8], options: &ReadOptions) -> Result<Trace, TraceError> {
    let mut post: Vec<Value> = Vec::new();
    let mut patch: Vec<Value> = Vec::new();
    let mut first_line = None;
    for part in parts_of(source, bytes)? {
        let (list, rest) = match part.name.split_once('.') {
            Some(("post", rest)) => (&mut post, rest),
            Some(("patch", rest)) => (&mut patch, rest),
            _ => continue, // attachment.…, feedback.…: no record
        };
        first_line.get_or_insert(part.line);
        let at = |msg: String| TraceError::new(source, Some(part.line), &part.name, msg);
        let value: Value = serde_json::from_slice(part.body).map_err(|e| {
            at(format!("not valid JSON: {e}"))
                .with_hint("each post./patch. part of a LangSmith body is one JSON value")
        })?;
        // `<run id>` or `<run id>.<field>`: run ids are UUIDs, without dots.
        match rest.split_once('.') {
            None => {
                let Value::Object(mut run) = value else {
                    return Err(at(format!(
                        "a run part must be a JSON object, found {}",
                        type_name(&value)
                    )));
                };
                run.entry("id").or_insert_with(|| json!(rest));
                list.push(Value::Object(run));
            }
            Some((id, field)) => {
                let run = list
                    .iter_mut()
                    .rev()
                    .find(|r| r.get("id").and_then(Value::as_str) == Some(id));
                match run {
                    Some(Value::Object(run)) => {
                        run.insert(field.to_string(), value);
                    }
                    _ => {
                        return Err(at(format!("the {field} of run {id} come before the run's own part")).with_hint("the SDKs send a run's part first, then its fields: check that the body is complete and in order"));
                    }
                }
            }
        }
    }
    let mut body = Map::new();
    body.insert("post".into(), Value::Array(post));
    body.insert("patch".into(), Value::Array(patch));
    let item = Item {
        line: first_line,
        path: String::new(),
        value: Value::Object(body),
    };
    langsmith::read(source, vec![item], options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(parts: &[(&str, &str)]) -> String {
        let mut s = String::new();
        for (name, json) in parts {
            s.push_str(&format!("--b0\r\nContent-Disposition: form-data; name=\"{name}\"\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{json}\r\n", json.len()));
        }
        s.push_str("--b0--\r\n");
        s
    }

    const RUN: &str = r#"{"id":"r1","name":"ChatModel","run_type":"llm","start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T00:00:01Z","trace_id":"r1","dotted_order":"20260101T000000000000Zr1"}"#;

    /// The body the `langsmith` SDK sent for a small agent: detected by content and read with
    /// the numbers of `tests/fixtures/formats/langsmith-multipart/count.py`.
    #[test]
    fn the_sdks_own_body_reads_with_its_calls_and_tokens() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/formats/langsmith-multipart/support-agent.multipart");
        let t = crate::load::load_trace(&path, &ReadOptions::default()).unwrap();
        assert_eq!(t.format, veer_base::format::Format::Langsmith);
        let turns = t.turns();
        assert_eq!(turns.len(), 2);
        let tokens = |k: &str| -> u64 {
            turns
                .iter()
                .map(|turn| {
                    t.records[turn.response].payload["usage"][k]
                        .as_u64()
                        .unwrap_or(0)
                })
                .sum()
        };
        assert_eq!((tokens("input_tokens"), tokens("output_tokens")), (61, 16));
        let names: Vec<String> = t.tool_calls().into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["lookup_order"]);
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    }

    #[test]
    fn a_body_is_sniffed_by_its_first_part() {
        assert!(sniff(body(&[("post.r1", RUN)]).as_bytes()));
        assert!(sniff(body(&[("patch.r1", RUN)]).as_bytes()));
        assert!(!sniff(body(&[("file", "{}")]).as_bytes()));
        assert!(!sniff(b"--\r\n"));
        assert!(!sniff(b"{\"post\": []}"));
    }

    #[test]
    fn bad_bodies_name_the_part() {
        let read = |s: &str| read("b.multipart", s.as_bytes(), &ReadOptions::default());
        let full = body(&[("post.r1", RUN), ("post.r1.inputs", "{\"messages\": []}")]);
        let e = read(&full[..full.len() - 12]).unwrap_err();
        assert!(e.message.contains("closing --boundary--"), "{e}");
        let e = read(&body(&[("post.r1", RUN), ("post.r1.inputs", "{oops")])).unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("post.r1.inputs", Some(8)));
        assert!(e.message.contains("not valid JSON"), "{e}");
        let e = read(&body(&[("post.r1.outputs", "{}"), ("post.r1", RUN)])).unwrap_err();
        assert!(e.message.contains("before the run's own part"), "{e}");
        let e = read(&body(&[("post.r1", "[1]")])).unwrap_err();
        assert!(e.message.contains("must be a JSON object"), "{e}");
        let e = read("--b0\r\nContent-Disposition: form-data; name=\"post.r1\"\r\n").unwrap_err();
        assert!(e.message.contains("blank line"), "{e}");
    }
}
