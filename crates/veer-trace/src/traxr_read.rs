//! A bare traxr trace (`{run_label, events}`): its events read on all cores, then taken in list
//! order.
//!
//! A traxr file is one JSON document. Parsed as a `serde_json::Value` every event object is an
//! `IndexMap` that is taken apart at once. A bare trace file is instead read from its text
//! ([`read_bare_trace`]): serde_json checks the document and hands over each event's text, and
//! each event is parsed and checked in one parallel pass, its payload a compact [`Json`].
//! Results and analyzer files hand their traces over as `Value`s, converted to [`Json`] and read
//! by [`trace_from_json`] with the same event checks. The messages are those of the `Value`
//! reader.

use crate::error::{TraceError, Warning};
use crate::json::{Json, Object};
use crate::model::{Trace, TraxrOrigin};
use crate::options::ReadOptions;
use crate::traxr::{build_records, Ctx};
use crate::traxr_event::{event_from_parts, parse_event_parts, EventParts};
use rayon::prelude::*;
use veer_base::format::Format;

/// Reads a bare traxr trace object held as a [`Json`]. `path` is the JSON path prefix used in
/// messages (`""` for a whole file); `fallback_label` names the run when it has no
/// `run_label` (else the file stem).
pub(crate) fn trace_from_json(
    source: &str,
    path: &str,
    value: Json,
    fallback_label: Option<&str>,
    options: &ReadOptions,
) -> Result<Trace, TraceError> {
    let ctx = Ctx { source, options };
    let Json::Object(obj) = value else {
        return Err(ctx.err(
            if path.is_empty() { "(file)" } else { path },
            format!(
                "a traxr trace must be an object, found {}",
                value.type_phrase()
            ),
        ));
    };
    let mut trace = Trace::new(source, Format::Traxr);
    let (run_label, events) = take_label_and_events(obj);
    trace.run_label = Some(run_label_of(
        &ctx,
        path,
        run_label,
        fallback_label,
        &mut trace.warnings,
    )?);
    let events: Vec<Json> = match events {
        None => Vec::new(),
        Some(Json::Array(a)) => a.into_vec(),
        Some(other) => {
            return Err(ctx.err(
                &join(path, "events"),
                format!("must be an array, found {}", other.type_phrase()),
            ))
        }
    };
    check_event_count(&ctx, events.len())?;
    // Events are read on all cores (each depends on itself alone), then taken in list order.
    let events_path = join(path, "events");
    let read: Vec<EventRead> = events
        .into_par_iter()
        .enumerate()
        .map(|(i, ev)| event(&ctx, &events_path, i, ev))
        .collect();
    take_events(&ctx, &events_path, trace, read)
}

/// A bare traxr trace file's text read as a trace: its events parsed and checked on all cores
/// straight from their text (no tree of the whole document is built), then taken in list order
/// as [`trace_from_json`] takes them, with the same result. `Err(bytes)` gives the text back
/// when it is not a bare trace ([`parse_bare_trace`] says `None`, or an event does not parse),
/// to be read the general way.
pub(crate) fn read_bare_trace(
    source: &str,
    bytes: Vec<u8>,
    options: &ReadOptions,
) -> Result<Result<Trace, TraceError>, Vec<u8>> {
    let ctx = Ctx { source, options };
    let Some((run_label, read)) = read_bare_events(&ctx, &bytes) else {
        return Err(bytes);
    };
    drop(bytes);
    let read = match read {
        Ok(read) => read,
        Err(e) => return Ok(Err(e)),
    };
    let mut trace = Trace::new(source, Format::Traxr);
    Ok(
        run_label_of(&ctx, "", run_label, None, &mut trace.warnings).and_then(|label| {
            trace.run_label = Some(label);
            take_events(&ctx, "events", trace, read.into_iter().flatten())
        }),
    )
}

/// The label and read events of a bare trace's text; `None` when it is not one.
/// (No event is `None` in the list.)
/// More events than `--max-records` are an error before any is read.
fn read_bare_events(ctx: &Ctx<'_>, bytes: &[u8]) -> Option<BareEvents> {
    let top = parse_bare_trace(bytes)?;
    let raw_events = top.events?;
    if let Err(e) = check_event_count(ctx, raw_events.len()) {
        return Some((top.run_label, Err(e)));
    }
    let read = raw_events
        .par_iter()
        .enumerate()
        .map_init(crate::json::JsonScratch::default, |scratch, (i, raw)| {
            event_of_text(ctx, i, raw.get(), scratch)
        })
        .collect::<Vec<Option<EventRead>>>();
    if read.iter().any(Option::is_none) {
        return None;
    }
    Some((top.run_label, Ok(read)))
}

/// A bare trace's label and its events as read, or the error that stopped the read.
type BareEvents = (Option<Json>, Result<Vec<Option<EventRead>>, TraceError>);

/// `count` events are within `--max-records`, or the error naming the limit.
pub(crate) fn check_event_count(ctx: &Ctx<'_>, count: usize) -> Result<(), TraceError> {
    if count as u64 > ctx.options.max_records {
        return Err(crate::limits::too_many_records(
            ctx.source,
            None,
            ctx.options.max_records,
        ));
    }
    Ok(())
}

/// The run label: `run_label` when it is a string, else (when absent) `fallback_label` or the
/// file stem, with a warning (an error when strict).
fn run_label_of(
    ctx: &Ctx<'_>,
    path: &str,
    run_label: Option<Json>,
    fallback_label: Option<&str>,
    warnings: &mut Vec<Warning>,
) -> Result<String, TraceError> {
    match run_label {
        Some(Json::String(s)) => Ok(s.into()),
        Some(other) => Err(ctx.err(
            &join(path, "run_label"),
            format!("must be a string, found {}", other.type_phrase()),
        )),
        None => {
            let label = fallback_label
                .map(str::to_string)
                .unwrap_or_else(|| crate::agentlog::reader::file_stem(ctx.source));
            if ctx.options.strict {
                return Err(ctx.err(&join(path, "run_label"), "missing required field"));
            }
            warnings.push(Warning {
                file: ctx.source.into(),
                line: None,
                field: join(path, "run_label"),
                message: format!("missing; using \"{label}\""),
            });
            Ok(label)
        }
    }
}

/// One event as read: its origin and the path of its first unknown key, or its error.
/// (Both boxed: a list of them is a few words per event.)
type EventRead = Result<(Box<TraxrOrigin>, Option<String>), Box<TraceError>>;

/// The events read on all cores, taken in list order: the first bad event is the error, and the
/// first unknown key the one warning, as in order; then the records are built.
fn take_events(
    ctx: &Ctx<'_>,
    events_path: &str,
    mut trace: Trace,
    read: impl IntoIterator<Item = EventRead>,
) -> Result<Trace, TraceError> {
    let (source, options) = (ctx.source, ctx.options);
    let read = read.into_iter();
    let mut origins = Vec::with_capacity(read.size_hint().0);
    let mut warned_unknown = false;
    let mut previous_seq: Option<i64> = None;
    for (i, r) in read.into_iter().enumerate() {
        let (origin, unknown_key) = r.map_err(|e| *e)?;
        if let (Some(field), false) = (unknown_key, warned_unknown) {
            warned_unknown = true;
            trace.warnings.push(Warning {
                file: source.into(),
                line: None,
                field,
                message: "unknown event key; kept, ignored by metrics".into(),
            });
        }
        if options.strict {
            if let Some(prev) = previous_seq {
                if origin.sequence_index <= prev {
                    return Err(ctx.err(
                        &format!("{events_path}[{i}].sequence_index"),
                        format!(
                            "sequence_index {} does not increase (previous {prev})",
                            origin.sequence_index
                        ),
                    ));
                }
            }
            previous_seq = Some(origin.sequence_index);
        }
        origins.push(origin);
    }
    trace.records = build_records(trace.run_label.as_deref().unwrap_or(""), origins);
    Ok(trace)
}

/// `run_label` and `events` of a trace object, moved out (keys are unique in an [`Object`]).
fn take_label_and_events(obj: Object) -> (Option<Json>, Option<Json>) {
    let (mut label, mut events) = (None, None);
    for (k, v) in obj.into_entries() {
        match &*k {
            "run_label" => label = Some(v),
            "events" => events = Some(v),
            _ => {}
        }
    }
    (label, events)
}

/// `path.key`, or `key` at the top.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Reads event `index` of the list at `events_path`: its origin, and the path of its first
/// unknown key (permissive mode keeps such keys and warns once per file).
fn event(ctx: &Ctx<'_>, events_path: &str, index: usize, ev: Json) -> EventRead {
    let Json::Object(obj) = ev else {
        return Err(Box::new(ctx.err(
            &format!("{events_path}[{index}]"),
            format!("an event must be an object, found {}", ev.type_phrase()),
        )));
    };
    boxed(event_from_parts(
        ctx,
        events_path,
        index,
        EventParts::of(obj),
    ))
}

/// An event read, boxed.
fn boxed(read: Result<(TraxrOrigin, Option<String>), TraceError>) -> EventRead {
    read.map(|(origin, unknown_key)| (Box::new(origin), unknown_key))
        .map_err(Box::new)
}

/// Reads event `index` of a bare trace from its text; `None` when it does not parse.
fn event_of_text(
    ctx: &Ctx<'_>,
    index: usize,
    text: &str,
    scratch: &mut crate::json::JsonScratch,
) -> Option<EventRead> {
    if text.starts_with('{') && is_shallow(text) {
        let parts = parse_event_parts(text, scratch).ok()?;
        return Some(boxed(event_from_parts(ctx, "events", index, parts)));
    }
    parse_event(text, scratch).map(|ev| event(ctx, "events", index, ev))
}

/// The top level of `bytes` when they are one JSON object with `events` and no top-level key
/// but `run_label`, `events` and `event_count`: a bare traxr trace that no other format's sniff
/// can claim (each needs a key of its own). `None` for anything else (another key, another JSON
/// type, invalid JSON), which is then read the general way; parsing stops at the first other
/// key.
///
/// The document is checked whole by serde_json, which hands over each event's text; the events
/// are then parsed on all cores ([`parse_event`]).
fn parse_bare_trace(bytes: &[u8]) -> Option<BareTrace<'_>> {
    crate::value_builder::parse_whole(serde_json::Deserializer::from_slice(bytes), BareTraceSeed)
        .ok()
}

/// Events with at most this many opening brackets are parsed as they are: nested no deeper than
/// that, they stay clear of serde_json's limit of 128 levels wherever they sit in a document.
const SHALLOW_EVENT_OPENINGS: usize = 100;

/// Whether `text` has at most [`SHALLOW_EVENT_OPENINGS`] opening brackets.
fn is_shallow(text: &str) -> bool {
    text.bytes().filter(|&b| b == b'[' || b == b'{').count() <= SHALLOW_EVENT_OPENINGS
}

/// One event's text as a [`Json`], at the nesting depth it has inside the document (level 3):
/// a deep event is wrapped in two arrays so that serde_json's nesting limit falls exactly where
/// it falls when the whole document is parsed.
fn parse_event(text: &str, scratch: &mut crate::json::JsonScratch) -> Option<Json> {
    if is_shallow(text) {
        return crate::json::json_from_str(text, scratch).ok();
    }
    let mut wrapped = String::with_capacity(text.len() + 4);
    wrapped.push_str("[[");
    wrapped.push_str(text);
    wrapped.push_str("]]");
    let outer = crate::json::json_from_str(&wrapped, scratch).ok()?;
    let Json::Array(outer) = outer else {
        return None;
    };
    let Json::Array(inner) = outer.into_vec().pop()? else {
        return None;
    };
    inner.into_vec().pop()
}

/// The top level of a bare trace: its label parsed, its events' texts borrowed.
struct BareTrace<'de> {
    run_label: Option<Json>,
    events: Option<Vec<&'de serde_json::value::RawValue>>,
}

struct BareTraceSeed;

impl<'de> serde::de::DeserializeSeed<'de> for BareTraceSeed {
    type Value = BareTrace<'de>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<BareTrace<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for BareTraceSeed {
    type Value = BareTrace<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a bare traxr trace object")
    }

    /// A repeated key keeps its last value, as the general reader's parse does.
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> Result<BareTrace<'de>, A::Error> {
        let mut top = BareTrace {
            run_label: None,
            events: None,
        };
        let mut scratch = crate::json::JsonScratch::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "run_label" => {
                    top.run_label = Some(map.next_value_seed(crate::json::JsonSeed(&mut scratch))?)
                }
                "events" => top.events = Some(map.next_value()?),
                "event_count" => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                _ => return Err(serde::de::Error::custom("not a bare traxr trace")),
            }
        }
        Ok(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn bare(text: &[u8]) -> Result<Result<Trace, TraceError>, Vec<u8>> {
        read_bare_trace("t.json", text.to_vec(), &ReadOptions::default())
    }

    /// What the general path reads from `text` (a whole-document `Value`).
    fn general(text: &[u8]) -> Result<Trace, TraceError> {
        let v: Value = serde_json::from_slice(text).unwrap();
        crate::traxr::trace_from_value("t.json", "", v, None, &ReadOptions::default())
    }

    #[test]
    fn only_a_bare_trace_takes_the_compact_path() {
        for text in [
            &br#"{"run_label":"r","events":[{"event_type":"x"}],"event_count":1} "#[..],
            br#"{"run_label":"r","events":[{"event_type":"x","step_num":1,"payload":{}}]}"#,
            br#"{"events":[{"event_type":"x","step_num":1,"payload":{"a":[1]}},{"event_type":"y","step_num":1,"payload":{},"z":2}]}"#,
            br#"{"run_label":7,"events":[3]}"#,
            br#"{"events":[],"run_label":"r","run_label":"s"}"#,
        ] {
            let read = bare(text).unwrap();
            assert_eq!(
                format!("{read:?}"),
                format!("{:?}", general(text)),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        // Another top-level key, no events, not an object, or not JSON: the general path.
        for other in [
            &br#"{"run_label":"r","events":[],"run_type":"llm"}"#[..],
            br#"{"run_label":"r"}"#,
            br#"[{"events":[]}]"#,
            br#"{"events":[]} {}"#,
            br#"{"events":["#,
            br#"{"events":{}}"#,
            br#"{"events":[{"a":1}],"events":7}"#,
        ] {
            assert_eq!(bare(other).unwrap_err(), other);
        }
    }

    #[test]
    fn events_nest_as_deep_as_in_the_whole_document() {
        // serde_json stops at 128 levels; an event sits at level 3 of the document. Events
        // up to SHALLOW_EVENT_OPENINGS deep are parsed as they are, deeper ones wrapped.
        let nested = |depth: usize| {
            format!(
                r#"{{"events":[{}{}]}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        let mut outcomes = Vec::new();
        for depth in [1, 99, 100, 101, 120, 124, 125, 126, 127, 130] {
            let text = nested(depth);
            let whole = serde_json::from_str::<Value>(&text).is_ok();
            assert_eq!(bare(text.as_bytes()).is_ok(), whole, "depth {depth}");
            outcomes.push(whole);
        }
        // Both sides of the limit were tried.
        assert!(outcomes.contains(&true) && outcomes.contains(&false));
    }
}
