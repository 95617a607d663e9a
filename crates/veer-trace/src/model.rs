//! veer's format-neutral trace model: one ordered list of records, whatever the source format.
//!
//! `.agentlog` lines and traxr events both become [`Record`]s (spec `trace-formats.md` §4). Every
//! measure reads this model only; derived views (responses, tool calls, turns, sessions,
//! features) live in [`crate::views`] and [`crate::features`].

use crate::envelope_fields::{RecordId, Timestamp, Version};
use crate::error::Warning;
use crate::json::{Json, Object};
use serde_json::{Map, Value};

use veer_base::format::Format;

/// The kind of a record: the ten `.agentlog` kinds, a typed traxr event, or an unknown kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `metadata`: the root record; later ones mark session boundaries.
    Metadata,
    /// `chat_request`.
    ChatRequest,
    /// `chat_response`: one turn.
    ChatResponse,
    /// `tool_call`.
    ToolCall,
    /// `tool_result`.
    ToolResult,
    /// `error`.
    Error,
    /// `replay_summary`.
    ReplaySummary,
    /// `chunk` (v0.2 streaming).
    Chunk,
    /// `harness_event` (v0.2).
    HarnessEvent,
    /// `blob_ref` (v0.2).
    BlobRef,
    /// A traxr event with no `.agentlog` counterpart (routing, memory, final answer, …); its type
    /// is in [`Record::origin`].
    Event,
    /// An unknown `.agentlog` kind, kept verbatim and ignored by every metric.
    Opaque(String),
}

impl Kind {
    /// The ten `.agentlog` wire names, in spec order.
    pub(crate) const WIRE_NAMES: [&'static str; 10] = [
        "metadata",
        "chat_request",
        "chat_response",
        "tool_call",
        "tool_result",
        "error",
        "replay_summary",
        "chunk",
        "harness_event",
        "blob_ref",
    ];

    /// The kind for a wire name; unknown names become [`Kind::Opaque`].
    pub(crate) fn from_wire(name: &str) -> Kind {
        match name {
            "metadata" => Kind::Metadata,
            "chat_request" => Kind::ChatRequest,
            "chat_response" => Kind::ChatResponse,
            "tool_call" => Kind::ToolCall,
            "tool_result" => Kind::ToolResult,
            "error" => Kind::Error,
            "replay_summary" => Kind::ReplaySummary,
            "chunk" => Kind::Chunk,
            "harness_event" => Kind::HarnessEvent,
            "blob_ref" => Kind::BlobRef,
            other => Kind::Opaque(other.to_string()),
        }
    }

    /// The wire name written to `.agentlog` (`Event` records are written as `harness_event`).
    pub(crate) fn wire_name(&self) -> &str {
        match self {
            Kind::Metadata => "metadata",
            Kind::ChatRequest => "chat_request",
            Kind::ChatResponse => "chat_response",
            Kind::ToolCall => "tool_call",
            Kind::ToolResult => "tool_result",
            Kind::Error => "error",
            Kind::ReplaySummary => "replay_summary",
            Kind::Chunk => "chunk",
            Kind::HarnessEvent | Kind::Event => "harness_event",
            Kind::BlobRef => "blob_ref",
            Kind::Opaque(s) => s,
        }
    }
}

/// The traxr event a record came from, kept exactly so traxr metrics use the original.
#[derive(Debug, Clone, PartialEq)]
pub struct TraxrOrigin {
    /// `event_type`, e.g. `llm_call`, `routing_decision`, or a custom type.
    pub event_type: String,
    /// 0-based emission counter within the run.
    pub sequence_index: i64,
    /// Episode step (meaning depends on the emitter).
    pub step_num: i64,
    /// Emitter name (`router`, `external`, …).
    pub agent_name: String,
    /// 16 hex digits as stored (or computed when the input lacked it).
    pub content_hash: String,
    /// ISO-8601 timestamp, when present.
    pub timestamp: Option<String>,
    /// The original event payload, held compactly (an [`Object`]; `.to_map()` gives a
    /// `serde_json::Map`).
    pub payload: Object,
    /// Unknown event keys, kept in input order.
    pub extra: Map<String, Value>,
}

/// One record of a trace: an `.agentlog` line or a traxr event.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based source line (`.agentlog`, or pretty-printed traxr when known); for traxr events
    /// without a known line, the event's 0-based list index + 1.
    pub line: Option<u64>,
    /// What kind of record this is.
    pub kind: Kind,
    /// Envelope `version` (`"0.1"`; synthesised for traxr-origin records). Build it from a
    /// string with `.into()`.
    pub version: Version,
    /// Envelope `id`: the content id of the payload as stored (never rewritten on read), held
    /// as its digest when canonical ([`RecordId`]). Build it from a string with `.into()`.
    pub id: RecordId,
    /// Envelope `ts` (RFC 3339, ms precision; synthesised for traxr-origin records), held as
    /// milliseconds when canonical ([`Timestamp`]). Build it from a string with `.into()`.
    pub ts: Timestamp,
    /// Envelope `parent` (`None` = JSON `null` or absent).
    pub parent: Option<RecordId>,
    /// Envelope `meta`, when present (boxed: most records have none, and an inline map would
    /// cost every record 72 bytes).
    pub meta: Option<Box<Map<String, Value>>>,
    /// The kind-specific body, held compactly ([`Json`]).
    pub payload: Json,
    /// Unknown envelope keys, in input order, written back after `payload`.
    /// `None` when there are none (the usual case; boxed for the same reason as `meta`).
    pub extra_envelope: Option<Box<Map<String, Value>>>,
    /// The traxr event this record came from, if any.
    pub origin: Option<Box<TraxrOrigin>>,
}

impl Record {
    /// `payload[key]` when the payload is an object.
    pub fn field(&self, key: &str) -> Option<&Json> {
        self.payload.as_object().and_then(|m| m.get(key))
    }

    /// `payload[key]` as a string.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.field(key).and_then(Json::as_str)
    }
}

/// One agent run: the records in file / list order plus what was noticed while reading.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// Where the trace came from, as the user named it (for messages).
    pub source: String,
    /// The format it was read from.
    pub format: Format,
    /// traxr `run_label`; for `.agentlog` the file stem.
    pub run_label: Option<String>,
    /// The records, in order.
    pub records: Vec<Record>,
    /// Warnings raised while reading (one per distinct problem).
    pub warnings: Vec<Warning>,
}

impl Trace {
    /// An empty trace named `source`.
    pub fn new(source: impl Into<String>, format: Format) -> Trace {
        Trace {
            source: source.into(),
            format,
            run_label: None,
            records: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The trace id shown in reports: the first `meta.trace_id` string, else the first record's
    /// `id`, else `""` (spec `trace-formats.md` §1.11).
    pub fn trace_id(&self) -> std::borrow::Cow<'_, str> {
        for r in &self.records {
            if let Some(id) = r
                .meta
                .as_ref()
                .and_then(|m| m.get("trace_id"))
                .and_then(Value::as_str)
            {
                return id.into();
            }
        }
        self.records
            .first()
            .map(|r| r.id.as_str())
            .unwrap_or_default()
    }

    /// Number of records of `kind`.
    pub fn count(&self, kind: &Kind) -> usize {
        self.records.iter().filter(|r| &r.kind == kind).count()
    }
}
