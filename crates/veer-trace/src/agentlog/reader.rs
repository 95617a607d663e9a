//! The `.agentlog` reader: bytes → [`Trace`], streaming line by line.
//!
//! Default (permissive) mode accepts what Shadow's parser accepts, minus the few silent breakages
//! the spec lists (`trace-formats.md` §1.9); `--strict` adds the checks of [`super::strict`].

use super::envelope::{RawEnvelope, RawLine};
use super::lines::{Line, LineReader};
use super::strict::StrictChecker;
use crate::error::{TraceError, Warning};
use crate::model::{Format, Kind, Record, Trace};
use crate::options::ReadOptions;
use crate::traxr_origin::origin_from_meta;
use crate::value_builder::Scratch;
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};

const PARSE_HINT: &str = "each line must be one JSON object: {\"version\",\"id\",\"kind\",\"ts\",\"parent\",\"payload\"}";

/// Reads an `.agentlog` (plain or gzip-compressed) from `input`. `source` names it in messages.
pub fn read_agentlog<R: Read>(
    source: &str,
    input: R,
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    let mut buffered = BufReader::with_capacity(1 << 16, input);
    let gzip = match buffered.fill_buf() {
        Ok(head) => head.starts_with(&[0x1f, 0x8b]),
        Err(e) => return Err(io_error(source, None, &e)),
    };
    if gzip {
        let decoder = flate2::bufread::MultiGzDecoder::new(buffered);
        read_lines(source, BufReader::with_capacity(1 << 16, decoder), options)
    } else {
        read_lines(source, buffered, options)
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

struct Reader<'a> {
    source: &'a str,
    options: &'a ReadOptions,
    trace: Trace,
    unknown_kinds: BTreeSet<String>,
    warned_version: bool,
    warned_string_content: bool,
    strict: Option<StrictChecker>,
    scratch: Scratch,
}

fn read_lines<R: BufRead>(
    source: &str,
    input: R,
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    let mut lines = LineReader::new(input, options.max_line_bytes);
    let mut reader = Reader {
        source,
        options,
        trace: Trace::new(source, Format::Agentlog),
        unknown_kinds: BTreeSet::new(),
        warned_version: false,
        warned_string_content: false,
        strict: options.strict.then(StrictChecker::default),
        scratch: Scratch::default(),
    };
    reader.trace.run_label = Some(file_stem(source));
    loop {
        let line = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => return Err(io_error(source, None, &e)),
        };
        match line {
            Line::TooLong(n) => {
                return Err(TraceError::new(
                    source,
                    Some(n),
                    "(line)",
                    format!(
                        "line is longer than the limit of {} bytes",
                        options.max_line_bytes
                    ),
                )
                .with_hint("raise the limit with --max-line-bytes N, or check for corrupt input"));
            }
            Line::Bytes(n, mut bytes) => {
                if n == 1 && bytes.starts_with(&[0xef, 0xbb, 0xbf]) {
                    bytes = &bytes[3..];
                    reader.warn(Some(1), "(line)", "UTF-8 byte-order mark skipped".into());
                }
                if bytes.iter().all(|b| b.is_ascii_whitespace()) {
                    continue;
                }
                reader.line(n, bytes)?;
            }
        }
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
pub fn file_stem(source: &str) -> String {
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

    fn err(&self, line: u64, field: &str, message: impl Into<String>) -> TraceError {
        TraceError::new(self.source, Some(line), field, message)
    }

    fn line(&mut self, n: u64, bytes: &[u8]) -> Result<(), TraceError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            self.err(
                n,
                "(line)",
                format!("line is not valid UTF-8 (byte {})", e.valid_up_to() + 1),
            )
            .with_hint("traces must be UTF-8 JSON Lines; is this a binary or mis-encoded file?")
        })?;
        let parsed = RawLine::parse(text, &mut self.scratch).map_err(|e| {
            let what = if e.to_string().contains("recursion limit") {
                "JSON nested deeper than 128 levels".to_string()
            } else {
                format!("invalid JSON: {e}")
            };
            self.err(n, "(line)", what).with_hint(PARSE_HINT)
        })?;
        if let Some(strict) = &mut self.strict {
            strict.check_duplicate_keys(self.source, n, text);
        }
        let obj = match parsed {
            RawLine::Object(env) => env,
            RawLine::NotObject(what) => {
                return Err(self
                    .err(n, "(line)", format!("record is {what}, not a JSON object"))
                    .with_hint(PARSE_HINT))
            }
        };
        let record = self.envelope(n, obj)?;
        if let Some(strict) = &mut self.strict {
            strict.check(self.source, n, &record);
        }
        self.trace.records.push(record);
        Ok(())
    }

    fn envelope(&mut self, n: u64, raw: Box<RawEnvelope>) -> Result<Record, TraceError> {
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
                format!("must be an object, found {}", json_type(&payload)),
            ));
        }
        if version != "0.1" && !self.warned_version {
            self.warned_version = true;
            self.warn(
                Some(n),
                "version",
                format!("format version \"{version}\" is not \"0.1\"; read as 0.1"),
            );
        }
        let mut kind = Kind::from_wire(&kind_name);
        if let Kind::Opaque(name) = &kind {
            if self.options.strict {
                let e = self
                    .err(n, "kind", format!("unknown record kind \"{name}\""))
                    .with_hint(format!("known kinds: {}", Kind::WIRE_NAMES.join(", ")));
                if let Some(strict) = &mut self.strict {
                    strict.fail(e);
                }
            } else if self.unknown_kinds.insert(name.clone()) {
                self.warn(
                    Some(n),
                    "kind",
                    format!("unknown record kind \"{name}\"; kept as opaque, ignored by metrics"),
                );
            }
        }
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
            version,
            id,
            ts,
            parent,
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
    fn check_payload_types(
        &mut self,
        n: u64,
        kind: &Kind,
        payload: &Value,
    ) -> Result<(), TraceError> {
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
                        json_type(v)
                    ),
                )
                .with_hint("the record does not follow the .agentlog payload schema (SPEC §4)"));
        }
        if *kind == Kind::ChatResponse
            && payload.get("content").is_some_and(Value::is_string)
            && !self.warned_string_content
        {
            self.warned_string_content = true;
            self.warn(
                Some(n),
                "payload.content",
                "chat_response content is a string; read as one text part".into(),
            );
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
    fn matches(self, v: &Value) -> bool {
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
