//! The OTLP/JSON wire shape of an `ExportTraceServiceRequest`, borrowed from the file's bytes.
//!
//! OTLP/JSON (the OTLP specification's JSON encoding) and protobuf's canonical proto3 JSON
//! mapping differ in small ways, and real files use both: field names in lowerCamelCase (the
//! snake_case proto names are accepted too), trace and span ids as hex (OTLP) or base64
//! (proto3 mapping), enums as integers or names, 64-bit integers as strings or numbers. Strings
//! borrow from the input when they hold no escapes, so a large export is not copied.

use serde::de::{self, Deserializer, IgnoredAny, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// One `ExportTraceServiceRequest`, or an `ExportLogsServiceRequest` (the GenAI events sent on
/// the logs signal), or a Grafana Tempo export (`batches`, the same resource spans).
#[derive(Debug, Deserialize)]
pub struct ExportRequest<'a> {
    /// The spans, grouped by resource.
    #[serde(
        default,
        borrow,
        rename = "resourceSpans",
        alias = "resource_spans",
        alias = "batches"
    )]
    pub resource_spans: Vec<ResourceSpans<'a>>,
    /// The log records, grouped by resource.
    #[serde(default, borrow, rename = "resourceLogs", alias = "resource_logs")]
    pub resource_logs: Vec<ResourceLogs<'a>>,
}

/// Log records of one resource.
#[derive(Debug, Deserialize)]
pub(crate) struct ResourceLogs<'a> {
    /// The resource (not read; parsed so that a malformed one is refused).
    #[allow(
        dead_code,
        reason = "parsed so a malformed value is refused; no mapping reads it"
    )]
    #[serde(default, borrow)]
    pub resource: Option<Resource<'a>>,
    /// Log records grouped by instrumentation scope.
    #[serde(
        default,
        borrow,
        rename = "scopeLogs",
        alias = "scope_logs",
        alias = "instrumentationLibraryLogs"
    )]
    pub scope_logs: Vec<ScopeLogs<'a>>,
}

/// Log records of one instrumentation scope.
#[derive(Debug, Deserialize)]
pub(crate) struct ScopeLogs<'a> {
    /// The scope (not read).
    #[allow(
        dead_code,
        reason = "parsed so a malformed value is refused; no mapping reads it"
    )]
    #[serde(default, borrow, alias = "instrumentationLibrary")]
    pub scope: Option<InstrumentationScope<'a>>,
    /// The records.
    #[serde(default, borrow, rename = "logRecords", alias = "log_records")]
    pub log_records: Vec<LogRecord<'a>>,
}

/// One log record: a GenAI event when its event name (the `eventName` field, or the older
/// `event.name` attribute) starts with `gen_ai.`.
#[derive(Debug, Deserialize)]
pub(crate) struct LogRecord<'a> {
    /// When the event happened, nanoseconds since the Unix epoch (`0` when unset).
    #[serde(default, rename = "timeUnixNano", alias = "time_unix_nano")]
    pub time_unix_nano: Nanos,
    /// When the SDK observed it (used when `timeUnixNano` is unset).
    #[serde(
        default,
        rename = "observedTimeUnixNano",
        alias = "observed_time_unix_nano"
    )]
    pub observed_time_unix_nano: Nanos,
    /// The trace the event belongs to (empty outside a span).
    #[serde(default, borrow, rename = "traceId", alias = "trace_id")]
    pub trace_id: Cow<'a, str>,
    /// The span the event belongs to.
    #[serde(default, borrow, rename = "spanId", alias = "span_id")]
    pub span_id: Cow<'a, str>,
    /// The event name.
    #[serde(default, borrow, rename = "eventName", alias = "event_name")]
    pub event_name: Cow<'a, str>,
    /// The body (a GenAI event's content).
    #[serde(default, borrow)]
    pub body: Option<AnyValue<'a>>,
    /// The attributes.
    #[serde(default, borrow)]
    pub attributes: Vec<KeyValue<'a>>,
}

/// Spans of one resource (one process / service).
#[derive(Debug, Deserialize)]
pub(crate) struct ResourceSpans<'a> {
    /// The resource (its attributes name the service).
    #[allow(
        dead_code,
        reason = "parsed so a malformed value is refused as the document reader refuses it; no mapping reads it"
    )]
    #[serde(default, borrow)]
    pub resource: Option<Resource<'a>>,
    /// Spans grouped by instrumentation scope.
    #[serde(
        default,
        borrow,
        rename = "scopeSpans",
        alias = "scope_spans",
        alias = "instrumentationLibrarySpans"
    )]
    pub scope_spans: Vec<ScopeSpans<'a>>,
}

/// A resource.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Resource<'a> {
    /// Resource attributes (`service.name`, …).
    #[allow(
        dead_code,
        reason = "parsed so a malformed value is refused as the document reader refuses it; no mapping reads it"
    )]
    #[serde(default, borrow)]
    pub attributes: Vec<KeyValue<'a>>,
}

/// Spans of one instrumentation scope.
#[derive(Debug, Deserialize)]
pub(crate) struct ScopeSpans<'a> {
    /// The instrumentation scope (library name and version).
    #[allow(
        dead_code,
        reason = "parsed so a malformed value is refused as the document reader refuses it; no mapping reads it"
    )]
    #[serde(default, borrow, alias = "instrumentationLibrary")]
    pub scope: Option<InstrumentationScope<'a>>,
    /// The spans.
    #[serde(default, borrow)]
    pub spans: Vec<Span<'a>>,
}

/// An instrumentation scope.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct InstrumentationScope<'a> {
    /// Library name, e.g. `opentelemetry.instrumentation.openai_v2`.
    #[allow(
        dead_code,
        reason = "parsed so a malformed value is refused as the document reader refuses it; no mapping reads it"
    )]
    #[serde(default, borrow)]
    pub name: Cow<'a, str>,
    /// Library version.
    #[allow(
        dead_code,
        reason = "parsed so a malformed value is refused as the document reader refuses it; no mapping reads it"
    )]
    #[serde(default, borrow)]
    pub version: Cow<'a, str>,
}

/// One span.
#[derive(Debug, Deserialize)]
pub(crate) struct Span<'a> {
    /// Trace id: 32 hex digits, or 16 bytes base64.
    #[serde(default, borrow, rename = "traceId", alias = "trace_id")]
    pub trace_id: Cow<'a, str>,
    /// Span id: 16 hex digits, or 8 bytes base64.
    #[serde(default, borrow, rename = "spanId", alias = "span_id")]
    pub span_id: Cow<'a, str>,
    /// Parent span id; empty or absent for a root span.
    #[serde(default, borrow, rename = "parentSpanId", alias = "parent_span_id")]
    pub parent_span_id: Option<Cow<'a, str>>,
    /// Span name.
    #[serde(default, borrow)]
    pub name: Cow<'a, str>,
    /// Span kind (integer or name; not used by the mapping).
    #[allow(
        dead_code,
        reason = "parsed so a malformed value is refused as the document reader refuses it; no mapping reads it"
    )]
    #[serde(default)]
    pub kind: Option<IgnoredAny>,
    /// Start time, nanoseconds since the Unix epoch.
    #[serde(default, rename = "startTimeUnixNano", alias = "start_time_unix_nano")]
    pub start_time_unix_nano: Nanos,
    /// End time, nanoseconds since the Unix epoch.
    #[serde(default, rename = "endTimeUnixNano", alias = "end_time_unix_nano")]
    pub end_time_unix_nano: Nanos,
    /// Span attributes.
    #[serde(default, borrow)]
    pub attributes: Vec<KeyValue<'a>>,
    /// Span events (v1.36-and-earlier GenAI content lives here).
    #[serde(default, borrow)]
    pub events: Vec<Event<'a>>,
    /// Status (an error status marks a failed call).
    #[serde(default, borrow)]
    pub status: Option<SpanStatus<'a>>,
}

/// A span event.
#[derive(Debug, Deserialize)]
pub struct Event<'a> {
    /// Event name, e.g. `gen_ai.user.message`.
    #[serde(default, borrow)]
    pub name: Cow<'a, str>,
    /// Event attributes.
    #[serde(default, borrow)]
    pub attributes: Vec<KeyValue<'a>>,
}

/// A span status.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct SpanStatus<'a> {
    /// `STATUS_CODE_ERROR` / `2` is an error.
    #[serde(default)]
    pub code: StatusCode,
    /// Error message.
    #[serde(default, borrow)]
    pub message: Cow<'a, str>,
}

/// One attribute.
#[derive(Debug, Deserialize)]
pub(crate) struct KeyValue<'a> {
    /// Attribute key.
    #[serde(borrow)]
    pub key: Cow<'a, str>,
    /// Attribute value (absent means empty).
    #[serde(default, borrow)]
    pub value: AnyValue<'a>,
}

/// An OTLP `AnyValue`: exactly one of the fields is set (none for an empty value).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct AnyValue<'a> {
    /// A string.
    #[serde(default, borrow, rename = "stringValue", alias = "string_value")]
    pub string_value: Option<Cow<'a, str>>,
    /// A boolean.
    #[serde(default, rename = "boolValue", alias = "bool_value")]
    pub bool_value: Option<bool>,
    /// A 64-bit integer (a string or a number in JSON).
    #[serde(default, rename = "intValue", alias = "int_value")]
    pub int_value: Option<Int64>,
    /// A double (a number, or `"NaN"` / `"Infinity"` strings).
    #[serde(default, rename = "doubleValue", alias = "double_value")]
    pub double_value: Option<Double>,
    /// An array of values.
    #[serde(default, borrow, rename = "arrayValue", alias = "array_value")]
    pub array_value: Option<ArrayValue<'a>>,
    /// A list of key-value pairs.
    #[serde(default, borrow, rename = "kvlistValue", alias = "kvlist_value")]
    pub kvlist_value: Option<KvList<'a>>,
    /// Bytes, base64.
    #[serde(default, borrow, rename = "bytesValue", alias = "bytes_value")]
    pub bytes_value: Option<Cow<'a, str>>,
}

/// `arrayValue`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ArrayValue<'a> {
    /// The elements.
    #[serde(default, borrow)]
    pub values: Vec<AnyValue<'a>>,
}

/// `kvlistValue`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct KvList<'a> {
    /// The pairs.
    #[serde(default, borrow)]
    pub values: Vec<KeyValue<'a>>,
}

/// Nanoseconds since the epoch, from a JSON string or number (`0` when absent).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Nanos(pub u64);

/// A 64-bit integer from a JSON string or number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Int64(pub i64);

/// A double from a JSON number or one of proto3's special strings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Double(pub f64);

/// Whether a status code is `ERROR`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StatusCode {
    /// `true` for code 2 / `STATUS_CODE_ERROR`.
    pub is_error: bool,
}

struct IntVisitor;

impl Visitor<'_> for IntVisitor {
    type Value = i64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an integer, or a string holding one")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
        Ok(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
        i64::try_from(v).map_err(|_| E::custom(format!("{v} is larger than int64")))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<i64, E> {
        v.parse::<i64>()
            .map_err(|_| E::custom(format!("{v:?} is not a 64-bit integer")))
    }
}

impl<'de> Deserialize<'de> for Int64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(IntVisitor).map(Int64)
    }
}

impl<'de> Deserialize<'de> for Nanos {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = d.deserialize_any(IntVisitor)?;
        u64::try_from(v)
            .map(Nanos)
            .map_err(|_| de::Error::custom(format!("{v} is negative; expected nanoseconds")))
    }
}

struct DoubleVisitor;

impl Visitor<'_> for DoubleVisitor {
    type Value = f64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number, or \"NaN\" / \"Infinity\" / \"-Infinity\"")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        match v {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => v
                .parse::<f64>()
                .map_err(|_| E::custom(format!("{v:?} is not a number"))),
        }
    }
}

impl<'de> Deserialize<'de> for Double {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DoubleVisitor).map(Double)
    }
}

struct CodeVisitor;

impl Visitor<'_> for CodeVisitor {
    type Value = StatusCode;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a status code: 0, 1, 2 or its name")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<StatusCode, E> {
        Ok(StatusCode { is_error: v == 2 })
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<StatusCode, E> {
        Ok(StatusCode { is_error: v == 2 })
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<StatusCode, E> {
        Ok(StatusCode {
            is_error: v == "STATUS_CODE_ERROR" || v == "ERROR",
        })
    }
}

impl<'de> Deserialize<'de> for StatusCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CodeVisitor)
    }
}

impl KeyValue<'_> {
    /// The pair with every string owned, so it can outlive the file's bytes.
    pub(crate) fn to_owned_kv(&self) -> KeyValue<'static> {
        KeyValue {
            key: Cow::Owned(self.key.to_string()),
            value: self.value.to_owned_value(),
        }
    }
}

impl AnyValue<'_> {
    /// The value with every string owned, so it can outlive the file's bytes.
    pub(crate) fn to_owned_value(&self) -> AnyValue<'static> {
        let owned = |s: &Option<Cow<'_, str>>| s.as_ref().map(|s| Cow::Owned(s.to_string()));
        AnyValue {
            string_value: owned(&self.string_value),
            bool_value: self.bool_value,
            int_value: self.int_value,
            double_value: self.double_value,
            array_value: self.array_value.as_ref().map(|a| ArrayValue {
                values: a.values.iter().map(AnyValue::to_owned_value).collect(),
            }),
            kvlist_value: self.kvlist_value.as_ref().map(|l| KvList {
                values: l.values.iter().map(KeyValue::to_owned_kv).collect(),
            }),
            bytes_value: owned(&self.bytes_value),
        }
    }
}

/// A trace or span id as lowercase hex: hex input is kept, base64 input (proto3 JSON mapping)
/// decoded. `None` when it is neither.
pub(crate) fn id_hex(id: &str, bytes: usize) -> Option<String> {
    if id.len() == bytes * 2 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(id.to_ascii_lowercase());
    }
    let decoded = base64_decode(id)?;
    if decoded.len() != bytes {
        return None;
    }
    let mut out = String::with_capacity(bytes * 2);
    for b in decoded {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
    Some(out)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    for c in s.bytes().take_while(|&c| c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_hex_or_base64_become_the_same_hex() {
        assert_eq!(
            id_hex("6CCC4228829B7E31", 8).as_deref(),
            Some("6ccc4228829b7e31")
        );
        // "bMxCKIKbfjE=" is the proto3 JSON spelling of the same 8 bytes.
        assert_eq!(
            id_hex("bMxCKIKbfjE=", 8).as_deref(),
            Some("6ccc4228829b7e31")
        );
        assert_eq!(id_hex("abc", 8), None);
        assert_eq!(id_hex("bMxCKIKbfjE=", 16), None);
    }

    #[test]
    fn int64_as_string_or_number_and_enums_as_names_or_numbers() {
        let s: Span = serde_json::from_str(
            r#"{"traceId":"","spanId":"","kind":"SPAN_KIND_CLIENT","startTimeUnixNano":"17","endTimeUnixNano":20,
                "status":{"code":"STATUS_CODE_ERROR"},
                "attributes":[{"key":"a","value":{"intValue":"5"}},{"key":"b","value":{"doubleValue":"NaN"}}]}"#,
        )
        .unwrap();
        assert_eq!(s.start_time_unix_nano, Nanos(17));
        assert_eq!(s.end_time_unix_nano, Nanos(20));
        assert!(s.status.unwrap().code.is_error);
        assert_eq!(s.attributes[0].value.int_value, Some(Int64(5)));
        assert!(s.attributes[1].value.double_value.unwrap().0.is_nan());
        let s: SpanStatus = serde_json::from_str(r#"{"code":2}"#).unwrap();
        assert!(s.code.is_error);
        assert!(serde_json::from_str::<Span>(r#"{"startTimeUnixNano":"-1"}"#).is_err());
    }
}
