//! From spans to one ordered trace: the span tree, sessions, the tool spans that belong to
//! each model call, and the `.agentlog` records they become.
//!
//! Rules (written down in `docs/formats.md`):
//! * a session is the nearest `gen_ai.conversation.id` / `session.id` on the span or an
//!   ancestor, else the trace id; sessions are ordered by their first span, records inside a
//!   session by span start time, then span id, so files given in any order read the same;
//! * a model call becomes `chat_request` + `chat_response` (or `error`); the response's tool
//!   calls are the captured output's, else the tool spans that follow the call under the same
//!   parent (or under the call itself); every tool span becomes `tool_call` + `tool_result`;
//! * the same call recorded twice (same trace and `gen_ai.response.id`, e.g. by a provider SDK's
//!   own tracing and an instrumentation) is kept once: the recording with content wins;
//! * a model-call span whose parent is a model-call span records the same call (an agent
//!   framework's span around the SDK's): each such chain is one turn, at its outermost span.

mod emit;
mod span_tree;

use emit::Emitter;
use span_tree::{attach_tools, collapse_nested_calls, drop_duplicate_calls, sessions_of};

use super::attrs::Attrs;
use super::calls::{
    merge_content, model_call, own_session, role_of, tool_run, ModelCall, Role, ToolRun,
};
use super::wire::{id_hex, Event, KeyValue, LogRecord, Nanos, Span};
use crate::error::{TraceError, Warning};
use crate::json::JsonScratch;
use crate::model::Trace;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;
use veer_base::format::Format;

/// The metadata tag that carries "N of M" model calls without captured content into a
/// converted `.agentlog`, whose reader raises the same warning from it.
pub(crate) const NOT_CAPTURED_TAG: &str = "content_not_captured";

/// The field the not-captured warning names.
pub(crate) const NOT_CAPTURED_FIELD: &str = "gen_ai.output.messages";

/// The warning for model calls whose content was not captured (`count` is "N of M").
pub(crate) fn not_captured_message(count: &str) -> String {
    format!(
        "message content was not captured for {count} model calls, so their text is empty: the semantic, verbosity and refusal axes cannot be judged on them (enable content capture, e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)"
    )
}

/// One span as read, with the file line it came from (JSON Lines input).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpanAt<'s, 'a> {
    /// The span.
    pub span: &'s Span<'a>,
    /// 1-based line of the request that held it, for JSON Lines files.
    pub line: Option<u64>,
}

/// One log record as read, with the file line it came from (JSON Lines input).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LogAt<'s, 'a> {
    /// The record.
    pub record: &'s LogRecord<'a>,
    /// 1-based line of the request that held it, for JSON Lines files.
    pub line: Option<u64>,
}

/// A GenAI event read from the logs signal, owned: the span it belongs to, when, and the
/// event as a span event (its body in the `event.body` attribute).
pub(crate) struct LogEvent {
    trace: String,
    span: String,
    time: u64,
    line: Option<u64>,
    event: Event<'static>,
}

/// A span with normalised ids and its role.
struct Node {
    pub(super) trace: String,
    pub(super) id: String,
    pub(super) parent: Option<String>,
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) line: Option<u64>,
    pub(super) role: Role,
    pub(super) own_session: Option<String>,
}

/// What a relevant span contributes, computed in parallel.
enum Piece {
    Model(Box<ModelCall>),
    Tool(ToolRun),
    None,
}

thread_local! {
    /// The object keys handed out to the request payloads built on this thread, shared.
    static KEYS: std::cell::RefCell<JsonScratch> = std::cell::RefCell::new(JsonScratch::default());
}

/// What the spans of one request (one JSON line, or one document) say, owned: its wire
/// structs can be dropped as soon as this is built.
#[derive(Default)]
pub(crate) struct Part {
    nodes: Vec<Node>,
    pieces: Vec<Piece>,
    logs: Vec<LogEvent>,
}

impl Part {
    /// How many spans this part holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether this part holds no spans and no GenAI log events.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.logs.is_empty()
    }

    /// An empty part with room for `spans` spans.
    pub fn with_capacity(spans: usize) -> Part {
        Part {
            nodes: Vec::with_capacity(spans),
            pieces: Vec::with_capacity(spans),
            logs: Vec::new(),
        }
    }

    /// `parts`' spans in order, in arrays sized once (growing them by doubling would hold
    /// the old and new arrays of every span together).
    pub fn concat(parts: Vec<Part>) -> Part {
        let mut all = Part::with_capacity(parts.iter().map(Part::len).sum());
        for p in parts {
            all.append(p);
        }
        all
    }

    /// Appends `other`'s spans after this part's.
    pub fn append(&mut self, mut other: Part) {
        self.nodes.append(&mut other.nodes);
        self.pieces.append(&mut other.pieces);
        self.logs.append(&mut other.logs);
    }
}

/// What the spans say, owned: the file's bytes and parsed requests can be dropped before the
/// records are built.
pub struct Prepared {
    source: String,
    nodes: Vec<Node>,
    pieces: Vec<Piece>,
    logs: Vec<LogEvent>,
}

/// Reads what each span of one request is (on all cores); `source` names the input in errors.
pub(crate) fn prepare_part(source: &str, spans: &[SpanAt<'_, '_>]) -> Result<Part, TraceError> {
    let piece = |s: &SpanAt<'_, '_>, n: &Node| match n.role {
        Role::Model => Piece::Model(Box::new(
            KEYS.with_borrow_mut(|keys| model_call(s.span, keys)),
        )),
        Role::Tool => Piece::Tool(KEYS.with_borrow_mut(|keys| tool_run(s.span, keys))),
        Role::Other => Piece::None,
    };
    // A request of a JSON Lines file holds a handful of spans, and its lines are already read
    // on all cores: splitting it further would cost more than it gives.
    if spans.len() < 64 {
        let nodes: Vec<Node> = spans
            .iter()
            .map(|s| node(source, s))
            .collect::<Result<_, _>>()?;
        let pieces = spans.iter().zip(&nodes).map(|(s, n)| piece(s, n)).collect();
        return Ok(Part {
            nodes,
            pieces,
            logs: Vec::new(),
        });
    }
    // Collected before the first error is taken, so that it is the first in span order
    // whichever thread finds one first.
    let nodes: Vec<Result<Node, TraceError>> = spans.par_iter().map(|s| node(source, s)).collect();
    let nodes: Vec<Node> = nodes.into_iter().collect::<Result<_, _>>()?;
    let pieces: Vec<Piece> = spans
        .par_iter()
        .zip(nodes.par_iter())
        .map(|(s, n)| piece(s, n))
        .collect();
    Ok(Part {
        nodes,
        pieces,
        logs: Vec::new(),
    })
}

/// Reads the GenAI events among log records (other records are skipped); `source` names the
/// input in errors (an id that is not one).
pub(crate) fn prepare_logs(source: &str, records: &[LogAt<'_, '_>]) -> Result<Part, TraceError> {
    let mut logs = Vec::new();
    for r in records {
        let rec = r.record;
        let a = Attrs {
            list: &rec.attributes,
        };
        let name = if rec.event_name.is_empty() {
            a.str("event.name").unwrap_or("")
        } else {
            rec.event_name.as_ref()
        };
        if !name.starts_with("gen_ai.") || rec.trace_id.is_empty() {
            continue;
        }
        let bad = |field: &str, what: &str| {
            TraceError::new(source, r.line, field, format!("{what} (log event {name:?})"))
                .with_hint("OTLP/JSON ids are hex (32 digits for a trace, 16 for a span); the proto3 JSON mapping's base64 is read too")
        };
        let trace = id_hex(&rec.trace_id, 16).ok_or_else(|| bad("traceId", "not a trace id"))?;
        let span = if rec.span_id.is_empty() {
            String::new()
        } else {
            id_hex(&rec.span_id, 8).ok_or_else(|| bad("spanId", "not a span id"))?
        };
        let mut attributes: Vec<KeyValue<'static>> =
            rec.attributes.iter().map(KeyValue::to_owned_kv).collect();
        if let Some(body) = &rec.body {
            attributes.push(KeyValue {
                key: Cow::Borrowed("event.body"),
                value: body.to_owned_value(),
            });
        }
        let time = if rec.time_unix_nano.0 > 0 {
            rec.time_unix_nano.0
        } else {
            rec.observed_time_unix_nano.0
        };
        logs.push(LogEvent {
            trace,
            span,
            time,
            line: r.line,
            event: Event {
                name: Cow::Owned(name.to_string()),
                attributes,
            },
        });
    }
    Ok(Part {
        nodes: Vec::new(),
        pieces: Vec::new(),
        logs,
    })
}

/// The spans of all parts, ready for [`Prepared::finish`]; `source` names the trace.
pub fn prepared(source: &str, part: Part) -> Prepared {
    Prepared {
        source: source.to_string(),
        nodes: part.nodes,
        pieces: part.pieces,
        logs: part.logs,
    }
}

impl Prepared {
    /// The trace: sessions, ordering, tool attachment and the records.
    pub fn finish(self) -> Result<Trace, TraceError> {
        let Prepared {
            source,
            mut nodes,
            mut pieces,
            logs,
        } = self;
        let from_logs = join_logs(&mut nodes, &mut pieces, logs);
        let mut trace = finish(&source, nodes, pieces)?;
        if from_logs > 0 {
            trace.warnings.push(Warning {
                file: source.clone(),
                line: None,
                field: "resourceLogs".into(),
                message: format!("{from_logs} model calls were read from GenAI log events whose spans are not in the input: their model, tokens and latency are what the events say (give the trace export too)"),
            });
        }
        Ok(trace)
    }
}

fn finish(source: &str, nodes: Vec<Node>, mut pieces: Vec<Piece>) -> Result<Trace, TraceError> {
    let mut trace = Trace::new(source, Format::Otel);
    let mut warn = |line: Option<u64>, field: &str, message: String| {
        trace.warnings.push(Warning {
            file: source.to_string(),
            line,
            field: field.to_string(),
            message,
        });
    };
    // The tree: (trace, span) → first index; a repeated span is read once.
    let mut by_id: HashMap<(&str, &str), usize> = HashMap::with_capacity(nodes.len());
    let mut duplicates = 0usize;
    let mut keep = vec![true; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        // The first occurrence stays the target of parent links.
        match by_id.entry((&n.trace, &n.id)) {
            std::collections::hash_map::Entry::Occupied(_) => {
                duplicates += 1;
                keep[i] = false;
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(i);
            }
        }
    }
    if duplicates > 0 {
        warn(None, "spanId", format!("{duplicates} spans appear more than once (same trace and span id); each is read once"));
    }
    let mut missing_parent = 0usize;
    let parent_of: Vec<Option<usize>> = nodes
        .iter()
        .map(|n| {
            let p = n.parent.as_deref()?;
            let found = by_id.get(&(n.trace.as_str(), p)).copied();
            if found.is_none() {
                missing_parent += 1;
            }
            found
        })
        .collect();
    if missing_parent > 0 {
        warn(None, "parentSpanId", format!("{missing_parent} spans name a parent span that is not in the input; they are read as roots"));
    }
    let (sessions, cycles) = sessions_of(&nodes, &parent_of);
    if cycles > 0 {
        warn(None, "parentSpanId", format!("parent links form a cycle ({cycles} spans on one); the cycle is cut where it was found"));
    }

    for (p, k) in pieces.iter_mut().zip(&keep) {
        if !k {
            *p = Piece::None;
        }
    }
    let model_total = pieces
        .iter()
        .filter(|p| matches!(p, Piece::Model(_)))
        .count();
    if model_total == 0 {
        return Err(TraceError::new(
            source,
            None,
            "(file)",
            format!("no model calls found in {} spans", nodes.len()),
        )
        .with_hint("veer reads spans with OpenTelemetry GenAI attributes (gen_ai.operation.name, gen_ai.request.model, …) or OpenInference ones (openinference.span.kind); instrument the model client, e.g. with opentelemetry-instrumentation-openai-v2 or openinference-instrumentation-openai"));
    }
    let mut dropped = drop_duplicate_calls(&nodes, &pieces);
    let duplicated = dropped.iter().filter(|&&d| d).count();
    let nested = collapse_nested_calls(&nodes, &parent_of, &mut pieces, &mut dropped);
    let model_total = model_total - duplicated - nested;

    // Sessions, ordered by their first relevant span; spans by (start, span id).
    let mut order: Vec<usize> = (0..nodes.len())
        .filter(|&i| !dropped[i] && matches!(pieces[i], Piece::Model(_) | Piece::Tool(_)))
        .collect();
    order.sort_by(|&a, &b| {
        (nodes[a].start, &nodes[a].id, &nodes[a].trace).cmp(&(
            nodes[b].start,
            &nodes[b].id,
            &nodes[b].trace,
        ))
    });
    let mut session_order: Vec<&str> = Vec::new();
    let mut grouped: HashMap<&str, Vec<usize>> = HashMap::new();
    for &i in &order {
        let key = sessions[i].as_str();
        grouped
            .entry(key)
            .or_insert_with(|| {
                session_order.push(key);
                Vec::new()
            })
            .push(i);
    }
    let uncaptured = order
        .iter()
        .filter(|&&i| matches!(&pieces[i], Piece::Model(c) if !c.output_captured))
        .count();
    let not_captured = (uncaptured > 0).then(|| format!("{uncaptured} of {model_total}"));
    // At most two records (call and answer) per span and one per session, reserved at once:
    // growing by doubling would hold two arrays of records at the read's peak.
    let mut emit = Emitter {
        records: Vec::with_capacity(2 * order.len() + grouped.len()),
        ..Emitter::default()
    };
    for (k, key) in session_order.into_iter().enumerate() {
        let members = &grouped[key];
        let tag = if k == 0 {
            not_captured.as_deref()
        } else {
            None
        };
        emit.metadata(key, &nodes[members[0]], tag);
        let attached = attach_tools(members, &nodes, &parent_of, &pieces);
        for (pos, &i) in members.iter().enumerate() {
            match std::mem::replace(&mut pieces[i], Piece::None) {
                Piece::Model(call) => {
                    // Its tool spans are written with it (and taken, so not again on their own).
                    let tools: Vec<(usize, ToolRun)> = attached[pos]
                        .iter()
                        .filter_map(|&t| {
                            let j = members[t];
                            match std::mem::replace(&mut pieces[j], Piece::None) {
                                Piece::Tool(run) => Some((j, run)),
                                other => {
                                    pieces[j] = other;
                                    None
                                }
                            }
                        })
                        .collect();
                    emit.model_turn(&nodes[i], *call, tools, &nodes);
                }
                Piece::Tool(run) => emit.tool(&nodes[i], run, None),
                Piece::None => {}
            }
        }
    }
    if let Some(count) = &not_captured {
        warn(None, NOT_CAPTURED_FIELD, not_captured_message(count));
    }
    trace.records = emit.into_records();
    Ok(trace)
}

/// Joins the GenAI log events to their spans by trace and span id. A model call's content
/// missing from its span is taken from its events; a span that is not a tool and has events
/// with content becomes a model call read from them; events whose span is not in the input
/// (a logs export alone) become a model call of their own, one per span id, in a session of
/// their trace. Returns how many calls were made from events alone.
fn join_logs(nodes: &mut Vec<Node>, pieces: &mut Vec<Piece>, mut logs: Vec<LogEvent>) -> usize {
    if logs.is_empty() {
        return 0;
    }
    logs.sort_by(|a, b| (&a.trace, &a.span, a.time).cmp(&(&b.trace, &b.span, b.time)));
    let mut by_id: HashMap<(String, String), usize> = HashMap::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        by_id.entry((n.trace.clone(), n.id.clone())).or_insert(i);
    }
    let mut made = 0usize;
    let mut keys = JsonScratch::default();
    let mut rest = logs.into_iter().peekable();
    while let Some(first) = rest.next() {
        let mut group = vec![first];
        while let Some(next) =
            rest.next_if(|l| l.trace == group[0].trace && l.span == group[0].span)
        {
            group.push(next);
        }
        let (start, end) = (group[0].time, group[group.len() - 1].time);
        let line = group[0].line;
        let (trace, span_id) = (group[0].trace.clone(), group[0].span.clone());
        // The events as one span: a details event's attributes (the current conventions) are
        // the span's attributes, the others its events.
        let mut attributes = Vec::new();
        let mut events = Vec::new();
        for l in group {
            if l.event.name == "gen_ai.client.inference.operation.details" {
                attributes.extend(l.event.attributes);
            } else {
                events.push(l.event);
            }
        }
        let span = Span {
            trace_id: Cow::Owned(trace.clone()),
            span_id: Cow::Owned(span_id.clone()),
            parent_span_id: None,
            name: Cow::Borrowed("gen_ai events"),
            kind: None,
            start_time_unix_nano: Nanos(start),
            end_time_unix_nano: Nanos(end),
            attributes,
            events,
            status: None,
        };
        let call = model_call(&span, &mut keys);
        if call.request_messages == 0 && !call.output_captured {
            continue;
        }
        match by_id.get(&(trace.clone(), span_id.clone())).copied() {
            Some(i) => match &mut pieces[i] {
                Piece::Model(own) => merge_content(own, call, &mut keys),
                Piece::Tool(_) => {}
                Piece::None => {
                    nodes[i].role = Role::Model;
                    pieces[i] = Piece::Model(Box::new(call));
                }
            },
            None => {
                let a = Attrs {
                    list: &span.attributes,
                };
                let own = own_session(a).or_else(|| {
                    span.events.iter().find_map(|e| {
                        own_session(Attrs {
                            list: &e.attributes,
                        })
                    })
                });
                let id = if span_id.is_empty() {
                    format!("log{made}")
                } else {
                    span_id
                };
                by_id.insert((trace.clone(), id.clone()), nodes.len());
                nodes.push(Node {
                    trace,
                    id,
                    parent: None,
                    start,
                    end: end.max(start),
                    line,
                    role: Role::Model,
                    own_session: own,
                });
                pieces.push(Piece::Model(Box::new(call)));
                made += 1;
            }
        }
    }
    made
}

fn node(source: &str, s: &SpanAt<'_, '_>) -> Result<Node, TraceError> {
    let sp = s.span;
    let bad = |field: &str, what: &str| {
        TraceError::new(source, s.line, field, format!("{what} (span {:?})", sp.name))
            .with_hint("OTLP/JSON ids are hex (32 digits for a trace, 16 for a span); the proto3 JSON mapping's base64 is read too")
    };
    let trace = id_hex(&sp.trace_id, 16).ok_or_else(|| bad("traceId", "not a trace id"))?;
    let id = id_hex(&sp.span_id, 8).ok_or_else(|| bad("spanId", "not a span id"))?;
    let parent = match sp.parent_span_id.as_deref() {
        None | Some("") => None,
        Some(p) => Some(id_hex(p, 8).ok_or_else(|| bad("parentSpanId", "not a span id"))?),
    };
    let a = Attrs {
        list: &sp.attributes,
    };
    Ok(Node {
        trace,
        id,
        parent,
        start: sp.start_time_unix_nano.0,
        end: sp.end_time_unix_nano.0.max(sp.start_time_unix_nano.0),
        line: s.line,
        role: role_of(a),
        own_session: own_session(a),
    })
}
