//! A single-document OTLP/JSON export (one `ExportTraceServiceRequest`) read while it is
//! parsed: the spans are handed on in batches as the parser reaches them, and each batch is read
//! into a [`Part`] on another core while the parse goes on. The document's wire structs are
//! therefore never all alive at once, and the parse and the reading of spans overlap, so a
//! document costs about what the same spans as JSON Lines cost.
//!
//! The walk accepts exactly what the derived [`Request`](super::wire::Request) accepts (same
//! field names and aliases, duplicate fields refused, every nested value checked the same way);
//! when it fails, the caller reads the document again the whole-request way, whose error (with
//! its JSON path) is the one reported, so errors are those of the whole-request read.

use super::assemble::{prepare_logs, prepare_part, Part, SpanAt};
use super::logs_of;
use super::wire::{InstrumentationScope, Resource, ResourceLogs, Span};
use crate::error::TraceError;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Spans handed on together: enough to be worth a task, few enough that the wire structs
/// waiting to be read stay small next to the trace.
const BATCH_SPANS: usize = 256;

/// Batches handed to other cores and not yet read; past this the parsing thread reads the
/// next batch itself, so parsed-but-unread spans cannot pile up.
const MAX_IN_FLIGHT: usize = 2;

/// The spans of one document, read while it is parsed (`label` names the input in span
/// errors), as the parts of its batches in document order (none after a span error), and the
/// first span error in document order. The parts are left apart so that the caller can drop
/// the document's bytes before [`Part::concat`] makes one array of all the spans: that array
/// and the bytes are then never alive together. `None` when the walk failed: the document is
/// not valid JSON or not an `ExportTraceServiceRequest`, and the caller reports why.
pub(crate) fn read_document<'a>(
    label: &str,
    bytes: &'a [u8],
) -> Option<(Vec<Part>, Option<TraceError>)> {
    let results: Mutex<Vec<(usize, Result<Part, TraceError>)>> = Mutex::new(Vec::new());
    let in_flight = AtomicUsize::new(0);
    let one_thread = rayon::current_num_threads() < 2;
    let read_batch = |index: usize, spans: Vec<Span<'a>>| {
        let at: Vec<SpanAt<'_, '_>> = spans
            .iter()
            .map(|span| SpanAt { span, line: None })
            .collect();
        let part = prepare_part(label, &at);
        drop(at);
        drop(spans);
        if let Ok(mut r) = results.lock() {
            r.push((index, part));
        }
    };
    let parsed = rayon::scope(|scope| {
        let mut next = 0usize;
        let mut hand_on = |spans: Vec<Span<'a>>| {
            let index = next;
            next += 1;
            if one_thread || in_flight.load(Ordering::Acquire) >= MAX_IN_FLIGHT {
                read_batch(index, spans);
            } else {
                in_flight.fetch_add(1, Ordering::AcqRel);
                let read_batch = &read_batch;
                let in_flight = &in_flight;
                scope.spawn(move |_| {
                    read_batch(index, spans);
                    in_flight.fetch_sub(1, Ordering::AcqRel);
                });
            }
        };
        let mut sink = Sink {
            batch: Vec::with_capacity(BATCH_SPANS),
            logs: Vec::new(),
            hand_on: &mut hand_on,
        };
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let ok = RequestSeed { sink: &mut sink }
            .deserialize(&mut de)
            .and_then(|()| de.end())
            .is_ok();
        if ok {
            let rest = std::mem::take(&mut sink.batch);
            if !rest.is_empty() {
                (sink.hand_on)(rest);
            }
        }
        (ok, std::mem::take(&mut sink.logs))
    });
    let (parsed, logs) = parsed;
    if !parsed {
        return None;
    }
    let mut results = results.into_inner().ok()?;
    results.sort_unstable_by_key(|(i, _)| *i);
    if !logs.is_empty() {
        // After every span batch, as the whole-request read appends them.
        results.push((usize::MAX, prepare_logs(label, &logs_of(&logs, None))));
    }
    let mut parts = Vec::with_capacity(results.len());
    let mut first_error = None;
    for (_, r) in results {
        match r {
            Ok(p) if first_error.is_none() => parts.push(p),
            Ok(_) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if first_error.is_some() {
        // As the whole-request read: a span error leaves nothing of the document.
        parts.clear();
    }
    Some((parts, first_error))
}

/// Where the walk puts spans: batched, each full batch handed on.
struct Sink<'a, 'f> {
    batch: Vec<Span<'a>>,
    /// The document's resource logs (GenAI events), read once the walk is done.
    logs: Vec<ResourceLogs<'a>>,
    hand_on: &'f mut dyn FnMut(Vec<Span<'a>>),
}

impl<'a> Sink<'a, '_> {
    fn push(&mut self, span: Span<'a>) {
        self.batch.push(span);
        if self.batch.len() >= BATCH_SPANS {
            let full = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_SPANS));
            (self.hand_on)(full);
        }
    }
}

/// Which of `names` (a field's name and its aliases, grouped) an object key is; `None` for a
/// key the struct does not know (skipped, as the derived struct does).
struct FieldSeed(&'static [&'static [&'static str]]);

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl Visitor<'_> for FieldSeed {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("field identifier")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().position(|names| names.contains(&v)))
    }
}

/// Reads one field's value once; a second occurrence is the derived struct's error.
fn once<E: de::Error>(seen: &mut [bool], field: usize, names: &[&[&'static str]]) -> Result<(), E> {
    if std::mem::replace(&mut seen[field], true) {
        let name = names[field].first().copied().unwrap_or("");
        return Err(E::duplicate_field(name));
    }
    Ok(())
}

const REQUEST_FIELDS: &[&[&str]] = &[
    &["resourceSpans", "resource_spans", "batches"],
    &["resourceLogs", "resource_logs"],
];
const RESOURCE_SPANS_FIELDS: &[&[&str]] = &[
    &["resource"],
    &["scopeSpans", "scope_spans", "instrumentationLibrarySpans"],
];
const SCOPE_SPANS_FIELDS: &[&[&str]] = &[&["scope", "instrumentationLibrary"], &["spans"]];

/// The `ExportTraceServiceRequest` object.
struct RequestSeed<'s, 'a, 'f> {
    sink: &'s mut Sink<'a, 'f>,
}

impl<'a> DeserializeSeed<'a> for RequestSeed<'_, 'a, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'a> Visitor<'a> for RequestSeed<'_, 'a, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct ExportRequest")
    }
    fn visit_map<M: MapAccess<'a>>(self, mut map: M) -> Result<(), M::Error> {
        let mut seen = [false; 2];
        while let Some(key) = map.next_key_seed(FieldSeed(REQUEST_FIELDS))? {
            match key {
                Some(1) => {
                    once(&mut seen, 1, REQUEST_FIELDS)?;
                    let logs = map.next_value::<Vec<ResourceLogs<'a>>>()?;
                    self.sink.logs.extend(logs);
                }
                Some(f) => {
                    once(&mut seen, f, REQUEST_FIELDS)?;
                    map.next_value_seed(Each(ResourceSpansSeed {
                        sink: &mut *self.sink,
                    }))?;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// A seed that can be used again for every element of an array.
trait Reseed<'a> {
    /// The seed for the next element.
    fn again(&mut self) -> impl DeserializeSeed<'a, Value = ()>;
}

/// An array, each element read with the seed `S`.
struct Each<S>(S);

impl<'a, S: Reseed<'a>> DeserializeSeed<'a> for Each<S> {
    type Value = ();
    fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'a, S: Reseed<'a>> Visitor<'a> for Each<S> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'a>>(mut self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self.0.again())?.is_some() {}
        Ok(())
    }
}

/// One `ResourceSpans` object.
struct ResourceSpansSeed<'s, 'a, 'f> {
    sink: &'s mut Sink<'a, 'f>,
}

impl<'a> Reseed<'a> for ResourceSpansSeed<'_, 'a, '_> {
    fn again(&mut self) -> impl DeserializeSeed<'a, Value = ()> {
        ResourceSpansSeed {
            sink: &mut *self.sink,
        }
    }
}

impl<'a> DeserializeSeed<'a> for ResourceSpansSeed<'_, 'a, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'a> Visitor<'a> for ResourceSpansSeed<'_, 'a, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct ResourceSpans")
    }
    fn visit_map<M: MapAccess<'a>>(self, mut map: M) -> Result<(), M::Error> {
        let mut seen = [false; 2];
        while let Some(key) = map.next_key_seed(FieldSeed(RESOURCE_SPANS_FIELDS))? {
            match key {
                Some(0) => {
                    once(&mut seen, 0, RESOURCE_SPANS_FIELDS)?;
                    map.next_value::<Option<Resource<'a>>>()?;
                }
                Some(f) => {
                    once(&mut seen, f, RESOURCE_SPANS_FIELDS)?;
                    map.next_value_seed(Each(ScopeSpansSeed {
                        sink: &mut *self.sink,
                    }))?;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// One `ScopeSpans` object.
struct ScopeSpansSeed<'s, 'a, 'f> {
    sink: &'s mut Sink<'a, 'f>,
}

impl<'a> Reseed<'a> for ScopeSpansSeed<'_, 'a, '_> {
    fn again(&mut self) -> impl DeserializeSeed<'a, Value = ()> {
        ScopeSpansSeed {
            sink: &mut *self.sink,
        }
    }
}

impl<'a> DeserializeSeed<'a> for ScopeSpansSeed<'_, 'a, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'a> Visitor<'a> for ScopeSpansSeed<'_, 'a, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct ScopeSpans")
    }
    fn visit_map<M: MapAccess<'a>>(self, mut map: M) -> Result<(), M::Error> {
        let mut seen = [false; 2];
        while let Some(key) = map.next_key_seed(FieldSeed(SCOPE_SPANS_FIELDS))? {
            match key {
                Some(0) => {
                    once(&mut seen, 0, SCOPE_SPANS_FIELDS)?;
                    map.next_value::<Option<InstrumentationScope<'a>>>()?;
                }
                Some(f) => {
                    once(&mut seen, f, SCOPE_SPANS_FIELDS)?;
                    map.next_value_seed(Each(SpanSeed {
                        sink: &mut *self.sink,
                    }))?;
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// One span, parsed as the derived [`Span`] and handed to the sink.
struct SpanSeed<'s, 'a, 'f> {
    sink: &'s mut Sink<'a, 'f>,
}

impl<'a> Reseed<'a> for SpanSeed<'_, 'a, '_> {
    fn again(&mut self) -> impl DeserializeSeed<'a, Value = ()> {
        SpanSeed {
            sink: &mut *self.sink,
        }
    }
}

impl<'a> DeserializeSeed<'a> for SpanSeed<'_, 'a, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<(), D::Error> {
        let span = <Span<'a> as serde::Deserialize<'a>>::deserialize(d)?;
        self.sink.push(span);
        Ok(())
    }
}
