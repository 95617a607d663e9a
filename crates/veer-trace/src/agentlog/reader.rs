//! The `.agentlog` reader: bytes → [`Trace`], streaming line by line.
//!
//! Default (permissive) mode accepts what Shadow's parser accepts, minus the few silent breakages
//! the spec lists (`trace-formats.md` §1.9); `--strict` adds the checks of `super::strict`.

pub(crate) use super::batch::Batching;
use super::batch::{expected_records, fill, Batch, Stop};
use super::envelope::{RawEnvelope, RawLine};
use super::lines::LineReader;
use super::strict::{duplicate_keys, StrictChecker};
use crate::envelope_fields::{RecordId, Version};
use crate::error::{TraceError, Warning};
use crate::json::Json;
use crate::limits::{bytes_exceeded, too_many_records, trace_too_large, Counting};
use crate::model::{Kind, Record, Trace};
use crate::options::ReadOptions;
use crate::traxr_origin::origin_from_meta;
use crate::value_builder::Scratch;
use rayon::prelude::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use veer_base::format::Format;

const PARSE_HINT: &str = "each line must be one JSON object: {\"version\",\"id\",\"kind\",\"ts\",\"parent\",\"payload\"}";

/// Reads an `.agentlog` (plain or gzip-compressed) from `input`. `source` names it in messages.
pub fn read_agentlog<R: Read + Send>(
    source: &str,
    input: R,
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    read_agentlog_sized(source, input, options, None)
}

/// [`read_agentlog`], told the input's length in bytes when it is known (`size_hint`, of the
/// file as stored: compressed input ignores it). The hint only sizes the record list up front,
/// so that growing it never holds an old and a new copy at once; the trace read is the same.
pub(crate) fn read_agentlog_sized<R: Read + Send>(
    source: &str,
    input: R,
    options: &ReadOptions,
    size_hint: Option<u64>,
) -> Result<Trace, TraceError> {
    // Bytes are counted as read (after decompression, blank lines included): a gzip bomb or
    // an endless stream stops at `--max-trace-bytes`.
    let limit = options.max_trace_bytes;
    let mut buffered = BufReader::with_capacity(1 << 16, Counting::new(input, limit));
    let gzip = match buffered.fill_buf() {
        Ok(head) => head.starts_with(&[0x1f, 0x8b]),
        Err(e) => return Err(io_error(source, None, &e)),
    };
    if gzip {
        let decoder = flate2::bufread::MultiGzDecoder::new(buffered);
        let decoded = Counting::new(BufReader::with_capacity(1 << 16, decoder), limit);
        read_lines(source, decoded, options, Batching::DEFAULT, None)
    } else {
        read_lines(source, buffered, options, Batching::DEFAULT, size_hint)
    }
}

/// Reads an `.agentlog` held in memory.
pub fn read_agentlog_bytes(
    source: &str,
    bytes: &[u8],
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    read_agentlog(source, bytes, options)
}

fn io_error(source: &str, line: Option<u64>, e: &std::io::Error) -> TraceError {
    if let Some(limit) = bytes_exceeded(e) {
        return trace_too_large(source, limit);
    }
    let message = if e.kind() == std::io::ErrorKind::InvalidData
        || e.kind() == std::io::ErrorKind::UnexpectedEof
    {
        format!("cannot decompress: {e}")
    } else {
        format!("cannot read: {e}")
    };
    TraceError::new(source, line, "(file)", message)
        .with_hint("check that the file is readable and not truncated")
}

/// Turns one line into a record. Holds no state, so lines are parsed on any thread.
struct LineParser<'a> {
    source: &'a str,
    options: &'a ReadOptions,
}

/// One parsed line: its record and what the file-level pass must hear about it.
struct ParsedLine {
    n: u64,
    record: Record,
    /// `--strict`: the line repeats a key inside an object.
    duplicate_keys: Option<TraceError>,
}

/// The file-level pass: takes parsed lines in order and keeps what spans lines (the once-per-file
/// warnings, the strict checks that compare records).
struct Reader<'a> {
    source: &'a str,
    /// `--max-records`.
    max_records: u64,
    trace: Trace,
    unknown_kinds: BTreeSet<String>,
    warned_version: bool,
    warned_string_content: bool,
    strict: Option<StrictChecker>,
}

/// Reads the lines of `input` (already decompressed), batched as `batching` says.
pub(crate) fn read_lines<R: BufRead + Send>(
    source: &str,
    input: R,
    options: &ReadOptions,
    batching: Batching,
    size_hint: Option<u64>,
) -> Result<Trace, TraceError> {
    let mut lines = LineReader::new(input, options.max_line_bytes);
    let parser = LineParser { source, options };
    let mut reader = Reader {
        source,
        max_records: options.max_records,
        trace: Trace::new(source, Format::Agentlog),
        unknown_kinds: BTreeSet::new(),
        warned_version: false,
        warned_string_content: false,
        strict: options.strict.then(StrictChecker::default),
    };
    reader.trace.run_label = Some(file_stem(source));
    // While one batch is parsed, the next is read (and decompressed) beside it.
    let mut current = Batch::default();
    let mut next = Batch::default();
    let mut bom = false;
    let mut stop = fill(&mut lines, &mut current, batching.bytes, &mut bom);
    if bom {
        reader.warn(Some(1), "(line)", "UTF-8 byte-order mark skipped".into());
    }
    loop {
        let (parsed, next_stop) = match stop {
            Some(_) => (parser.parse_batch(&current, batching), None),
            None => rayon::join(
                || parser.parse_batch(&current, batching),
                || fill(&mut lines, &mut next, batching.bytes, &mut bom),
            ),
        };
        // (A first batch without lines — its first line too long, or blank lines only — gives
        // no mean line length to guess from.)
        if reader.trace.records.is_empty() && !current.lines.is_empty() {
            if let Some(total) = size_hint {
                // Only a guess from the file's length: capped by the record limit, and
                // skipped when the machine cannot give it.
                let expected = expected_records(total, &current).min(
                    usize::try_from(options.max_records.saturating_add(1)).unwrap_or(usize::MAX),
                );
                let records = &mut reader.trace.records;
                let _ = veer_base::fallible::fallibly(|| records.try_reserve_exact(expected));
            }
        }
        reader.take(parsed)?;
        match stop {
            None => {}
            Some(Stop::End) => break,
            Some(Stop::Failed(e)) => return Err(io_error(source, None, &e)),
            Some(Stop::OutOfMemory(n, bytes)) => {
                return Err(crate::limits::out_of_memory(
                    source,
                    Some(n),
                    "this line",
                    bytes,
                ))
            }
            Some(Stop::TooLong(n)) => {
                return Err(TraceError::new(
                    source,
                    Some(n),
                    "(line)",
                    format!(
                        "line is longer than the limit of {} bytes",
                        options.max_line_bytes
                    ),
                )
                .with_hint("raise the limit with --max-line-bytes N, or check for corrupt input"))
            }
        }
        std::mem::swap(&mut current, &mut next);
        next.clear();
        stop = next_stop;
    }
    if reader.trace.records.is_empty() {
        return Err(
            TraceError::new(source, None, "(file)", "empty trace: no records")
                .with_hint("the file holds no JSON record; was the recording interrupted?"),
        );
    }
    if let Some(strict) = reader.strict.take() {
        strict.finish(source)?;
    }
    Ok(reader.trace)
}

/// The file name without directories and without `.agentlog` / `.jsonl` / `.json` / `.gz`.
pub(crate) fn file_stem(source: &str) -> String {
    let name = source.rsplit(['/', '\\']).next().unwrap_or(source);
    let mut stem = name;
    for suffix in [".gz", ".agentlog", ".jsonl", ".json"] {
        if let Some(s) = stem.strip_suffix(suffix) {
            stem = s;
        }
    }
    stem.to_string()
}

impl Reader<'_> {
    fn warn(&mut self, line: Option<u64>, field: &str, message: String) {
        self.trace.warnings.push(Warning {
            file: self.source.to_string(),
            line,
            field: field.to_string(),
            message,
        });
    }

    /// Takes a batch's lines in order; the first failed line is the error.
    fn take(&mut self, parsed: Vec<Result<ParsedLine, TraceError>>) -> Result<(), TraceError> {
        let room = self
            .max_records
            .saturating_sub(self.trace.records.len() as u64);
        let wanted = parsed
            .len()
            .min(usize::try_from(room).unwrap_or(usize::MAX));
        let first_line = parsed.first().and_then(|p| p.as_ref().ok()).map(|p| p.n);
        crate::limits::try_reserve(
            &mut self.trace.records,
            wanted,
            self.source,
            first_line,
            "the records",
        )?;
        for line in parsed {
            let line = line?;
            if self.trace.records.len() as u64 >= self.max_records {
                return Err(too_many_records(
                    self.source,
                    Some(line.n),
                    self.max_records,
                ));
            }
            self.take_line(line);
        }
        Ok(())
    }

    /// The file-level part of one line, in the order reading line by line raised it.
    fn take_line(&mut self, line: ParsedLine) {
        let ParsedLine {
            n,
            record,
            duplicate_keys,
        } = line;
        if let (Some(strict), Some(e)) = (&mut self.strict, duplicate_keys) {
            strict.fail(e);
        }
        if record.version != Version::V0_1 && !self.warned_version {
            self.warned_version = true;
            self.warn(
                Some(n),
                "version",
                format!(
                    "format version \"{}\" is not \"0.1\"; read as 0.1",
                    record.version
                ),
            );
        }
        if record.kind == Kind::Metadata {
            // A trace converted from spans whose content was not captured keeps saying so.
            use crate::formats::otel::assemble::{
                not_captured_message, NOT_CAPTURED_FIELD, NOT_CAPTURED_TAG,
            };
            let tag = record
                .field("tags")
                .and_then(|t| t.get(NOT_CAPTURED_TAG))
                .and_then(crate::json::Json::as_str);
            if let Some(count) = tag {
                let message = not_captured_message(count);
                self.warn(None, NOT_CAPTURED_FIELD, message);
            }
        }
        if let Kind::Opaque(name) = &record.kind {
            if let Some(strict) = &mut self.strict {
                strict.fail(
                    TraceError::new(
                        self.source,
                        Some(n),
                        "kind",
                        format!("unknown record kind \"{name}\""),
                    )
                    .with_hint(format!("known kinds: {}", Kind::WIRE_NAMES.join(", "))),
                );
            } else if self.unknown_kinds.insert(name.clone()) {
                let message =
                    format!("unknown record kind \"{name}\"; kept as opaque, ignored by metrics");
                self.warn(Some(n), "kind", message);
            }
        }
        let string_content = record.kind == Kind::ChatResponse
            && record.field("content").is_some_and(Json::is_string);
        if string_content && !self.warned_string_content {
            self.warned_string_content = true;
            self.warn(
                Some(n),
                "payload.content",
                "chat_response content is a string; read as one text part".into(),
            );
        }
        if let Some(strict) = &mut self.strict {
            strict.check(self.source, n, &record);
        }
        self.trace.records.push(record);
    }
}

impl LineParser<'_> {
    fn err(&self, line: u64, field: &str, message: impl Into<String>) -> TraceError {
        TraceError::new(self.source, Some(line), field, message)
    }

    /// Every line of `batch`, in order; in parallel when the batch is large enough to gain.
    fn parse_batch(
        &self,
        batch: &Batch,
        batching: Batching,
    ) -> Vec<Result<ParsedLine, TraceError>> {
        let parse = |scratch: &mut Scratch, &(n, start, end): &(u64, usize, usize)| {
            self.line(n, &batch.bytes[start..end], scratch)
        };
        if batch.lines.len() < batching.parallel_min_lines {
            let mut scratch = Scratch::default();
            return batch.lines.iter().map(|l| parse(&mut scratch, l)).collect();
        }
        batch
            .lines
            .par_iter()
            .map_init(Scratch::default, parse)
            .collect()
    }

    fn line(&self, n: u64, bytes: &[u8], scratch: &mut Scratch) -> Result<ParsedLine, TraceError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            self.err(
                n,
                "(line)",
                format!("line is not valid UTF-8 (byte {})", e.valid_up_to() + 1),
            )
            .with_hint("traces must be UTF-8 JSON Lines; is this a binary or mis-encoded file?")
        })?;
        let parsed = RawLine::parse(text, scratch).map_err(|e| {
            let what = if e.to_string().contains("recursion limit") {
                "JSON nested deeper than 128 levels".to_string()
            } else {
                format!("invalid JSON: {e}")
            };
            self.err(n, "(line)", what).with_hint(PARSE_HINT)
        })?;
        let obj = match parsed {
            RawLine::Object(env) => env,
            RawLine::NotObject(what) => {
                return Err(self
                    .err(n, "(line)", format!("record is {what}, not a JSON object"))
                    .with_hint(PARSE_HINT))
            }
        };
        let duplicate_keys = if self.options.strict {
            duplicate_keys(self.source, n, text)
        } else {
            None
        };
        let record = self.envelope(n, obj)?;
        Ok(ParsedLine {
            n,
            record,
            duplicate_keys,
        })
    }

    /// The record of one envelope.
    fn envelope(&self, n: u64, raw: Box<RawEnvelope>) -> Result<Record, TraceError> {
        let RawEnvelope {
            version,
            id,
            kind,
            ts,
            parent,
            meta,
            payload,
            extra,
        } = *raw;
        let version = self.required_string(n, "version", version)?;
        let id = self.required_string(n, "id", id)?;
        let kind_name = self.required_string(n, "kind", kind)?;
        let ts = self.required_string(n, "ts", ts)?;
        let parent = match parent {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                return Err(self.err(
                    n,
                    "parent",
                    format!("must be a string or null, found {}", json_type(&other)),
                ))
            }
        };
        let meta = match meta {
            None => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                return Err(self.err(
                    n,
                    "meta",
                    format!("must be an object, found {}", json_type(&other)),
                ))
            }
        };
        let Some(payload) = payload else {
            return Err(self
                .err(n, "payload", "missing required field")
                .with_hint("every record needs a payload object"));
        };
        if !payload.is_object() {
            return Err(self.err(
                n,
                "payload",
                format!("must be an object, found {}", payload.type_phrase()),
            ));
        }
        let mut kind = Kind::from_wire(&kind_name);
        self.check_payload_types(n, &kind, &payload)?;
        let origin = meta
            .as_ref()
            .and_then(|m| origin_from_meta(m, &kind, &payload));
        if origin.is_some() && kind == Kind::HarnessEvent {
            kind = Kind::Event;
        }
        Ok(Record {
            line: Some(n),
            kind,
            version: version.into(),
            id: id.into(),
            ts: ts.into(),
            parent: parent.map(RecordId::from),
            meta: meta.map(Box::new),
            payload,
            extra_envelope: (!extra.is_empty()).then(|| Box::new(extra)),
            origin,
        })
    }

    fn required_string(
        &self,
        n: u64,
        field: &str,
        value: Option<Value>,
    ) -> Result<String, TraceError> {
        match value {
            Some(Value::String(s)) => Ok(s),
            None => Err(self
                .err(n, field, "missing required field")
                .with_hint("every record needs version, id, kind, ts and payload")),
            Some(other) => Err(self.err(
                n,
                field,
                format!("must be a string, found {}", json_type(&other)),
            )),
        }
    }

    /// Rejects a known kind whose required payload fields have the wrong JSON type. `null` is
    /// read as absent.
    fn check_payload_types(&self, n: u64, kind: &Kind, payload: &Json) -> Result<(), TraceError> {
        use JsonType::*;
        let expectations: &[(&str, &[JsonType])] = match kind {
            Kind::ChatRequest => &[("model", &[Str]), ("messages", &[Arr]), ("params", &[Obj])],
            Kind::ChatResponse => &[
                ("model", &[Str]),
                ("content", &[Arr, Str]),
                ("stop_reason", &[Str]),
                ("usage", &[Obj]),
                ("latency_ms", &[Num]),
            ],
            Kind::ToolCall => &[
                ("tool_name", &[Str]),
                ("tool_call_id", &[Str]),
                ("arguments", &[Obj, Str]),
            ],
            Kind::ToolResult => &[
                ("tool_call_id", &[Str]),
                ("is_error", &[Bool]),
                ("latency_ms", &[Num]),
            ],
            Kind::Error => &[("code", &[Str]), ("message", &[Str])],
            Kind::HarnessEvent => &[("category", &[Str]), ("name", &[Str])],
            Kind::Chunk => &[("chunk_index", &[Num])],
            _ => &[],
        };
        for (field, allowed) in expectations {
            let Some(v) = payload.get(field) else {
                continue;
            };
            if v.is_null() || allowed.iter().any(|t| t.matches(v)) {
                continue;
            }
            let names: Vec<&str> = allowed.iter().map(|t| t.name()).collect();
            return Err(self
                .err(
                    n,
                    &format!("payload.{field}"),
                    format!(
                        "{} field must be {}, found {}",
                        kind.wire_name(),
                        names.join(" or "),
                        v.type_phrase()
                    ),
                )
                .with_hint("the record does not follow the .agentlog payload schema (SPEC §4)"));
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum JsonType {
    Str,
    Arr,
    Obj,
    Num,
    Bool,
}

impl JsonType {
    fn matches(self, v: &Json) -> bool {
        match self {
            JsonType::Str => v.is_string(),
            JsonType::Arr => v.is_array(),
            JsonType::Obj => v.is_object(),
            JsonType::Num => v.is_number(),
            JsonType::Bool => v.is_boolean(),
        }
    }
    fn name(self) -> &'static str {
        match self {
            JsonType::Str => "a string",
            JsonType::Arr => "an array",
            JsonType::Obj => "an object",
            JsonType::Num => "a number",
            JsonType::Bool => "a boolean",
        }
    }
}

/// "a string", "an array", … for messages.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
