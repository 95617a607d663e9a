//! The `.agentlog` records of a traxr trace: each event's kind, payload, timestamp and content
//! id (spec `trace-formats.md` §4.3).
//!
//! The payloads are built as compact [`Json`] trees directly, with keys shared per worker, and
//! equal the `serde_json::Value`s the spec's mapping describes (property-tested against that
//! mapping written with `Value`s, in the tests below).

use crate::canonical::content_digest;
use crate::envelope_fields::{RecordId, Timestamp};
use crate::json::{Json, Key, Object};
use crate::model::{Kind, Record, TraxrOrigin};
use crate::timefmt::parse_iso_ms;
use crate::traxr::root_payload;
use rayon::prelude::*;
use serde_json::Number;

/// Maps traxr events (list order) onto records (spec `trace-formats.md` §4.3).
///
/// Which `tool_request` each `llm_call` tool name takes is decided first, in list order; the
/// payloads, timestamps and content ids are then built on all cores, and the parent chain
/// linked in order.
#[allow(
    clippy::vec_box,
    reason = "each boxed origin moves into its record's `origin` field as it is"
)]
pub(crate) fn build_records(run_label: &str, origins: Vec<Box<TraxrOrigin>>) -> Vec<Record> {
    let requests = match_tool_requests(&origins);
    // Each record is built in place in the list; its origin and parent are filled in after.
    let mut records: Vec<Record> = origins
        .par_iter()
        .enumerate()
        .map_init(PayloadKeys::default, |keys, (i, o)| {
            let (kind, payload) = record_payload(keys, &origins, i, &requests[i]);
            let ts = o.timestamp.as_deref().and_then(parse_iso_ms).map_or_else(
                || Timestamp::from_millis(o.sequence_index),
                Timestamp::from_millis,
            );
            let id = RecordId::Sha256(content_digest(&payload));
            Record {
                line: None,
                kind,
                version: "0.1".into(),
                id,
                ts,
                parent: None,
                meta: None,
                payload,
                extra_envelope: None,
                origin: None,
            }
        })
        .collect();
    drop(requests);
    let mut parent = RecordId::Sha256(content_digest(&root_payload(run_label)));
    for (r, origin) in records.iter_mut().zip(origins) {
        r.parent = Some(std::mem::replace(&mut parent, r.id.clone()));
        r.origin = Some(origin);
    }
    records
}

/// For each `llm_call`, one entry per name of its `tool_call_names`: the first `tool_request`
/// of that name after it and before the next `llm_call` not taken by an earlier name. Empty for
/// other events.
fn match_tool_requests(origins: &[Box<TraxrOrigin>]) -> Vec<Vec<Option<usize>>> {
    let mut used = vec![false; origins.len()];
    let mut next_llm = origins.len();
    let mut out = vec![Vec::new(); origins.len()];
    // Walk backwards so the next llm_call after each position is known.
    let mut next_llm_after = vec![origins.len(); origins.len()];
    for (i, o) in origins.iter().enumerate().rev() {
        next_llm_after[i] = next_llm;
        if o.event_type == "llm_call" {
            next_llm = i;
        }
    }
    for (at, o) in origins.iter().enumerate() {
        if o.event_type != "llm_call" {
            continue;
        }
        let Some(Json::Array(names)) = o.payload.get("tool_call_names") else {
            continue;
        };
        out[at] = names
            .iter()
            .map(|name| {
                let found = (at + 1..next_llm_after[at]).find(|&j| {
                    !used[j]
                        && origins[j].event_type == "tool_request"
                        && origins[j].payload.get("tool_name") == Some(name)
                });
                if let Some(j) = found {
                    used[j] = true;
                }
                found
            })
            .collect();
    }
    out
}

/// The keys of the `.agentlog` payloads built from traxr events, allocated once per worker and
/// shared by its payloads (as parsed keys are).
struct PayloadKeys {
    arguments: Key,
    code: Key,
    content: Key,
    id: Key,
    input: Key,
    input_tokens: Key,
    is_error: Key,
    message: Key,
    model: Key,
    name: Key,
    output: Key,
    output_tokens: Key,
    retriable: Key,
    source: Key,
    stop_reason: Key,
    text: Key,
    tool_call_id: Key,
    tool_name: Key,
    type_: Key,
    usage: Key,
}

impl Default for PayloadKeys {
    fn default() -> PayloadKeys {
        PayloadKeys {
            arguments: "arguments".into(),
            code: "code".into(),
            content: "content".into(),
            id: "id".into(),
            input: "input".into(),
            input_tokens: "input_tokens".into(),
            is_error: "is_error".into(),
            message: "message".into(),
            model: "model".into(),
            name: "name".into(),
            output: "output".into(),
            output_tokens: "output_tokens".into(),
            retriable: "retriable".into(),
            source: "source".into(),
            stop_reason: "stop_reason".into(),
            text: "text".into(),
            tool_call_id: "tool_call_id".into(),
            tool_name: "tool_name".into(),
            type_: "type".into(),
            usage: "usage".into(),
        }
    }
}

/// An object of `entries`, whose keys are distinct.
fn object(entries: Vec<(Key, Json)>) -> Json {
    Json::Object(Object::from_unique(entries.into_boxed_slice()))
}

/// The record kind and `.agentlog` payload of event `i`; `requests` as from
/// [`match_tool_requests`]. Built as a [`Json`] directly; the same tree
/// [`record_payload_value`] builds as a `Value` (property-tested).
fn record_payload(
    keys: &PayloadKeys,
    origins: &[Box<TraxrOrigin>],
    i: usize,
    requests: &[Option<usize>],
) -> (Kind, Json) {
    let o = &origins[i];
    // `payload[key]` of the event, `null` when absent.
    let field = |key: &str| o.payload.get(key).cloned().unwrap_or_default();
    let k = Key::clone;
    match o.event_type.as_str() {
        "llm_call" => (
            Kind::ChatResponse,
            llm_call_payload(keys, origins, i, requests),
        ),
        "tool_request" => {
            let args = match o.payload.get("arguments") {
                Some(a @ Json::Object(_)) => a.clone(),
                _ => Json::empty_object(),
            };
            let p = object(vec![
                (k(&keys.tool_name), field("tool_name")),
                (k(&keys.tool_call_id), field("call_id")),
                (k(&keys.arguments), args),
            ]);
            (Kind::ToolCall, p)
        }
        "tool_result" => {
            let output = o
                .payload
                .get("content")
                .cloned()
                .unwrap_or_else(|| Json::from(""));
            let p = object(vec![
                (k(&keys.tool_call_id), field("call_id")),
                (k(&keys.output), output),
                (k(&keys.is_error), Json::Bool(false)),
            ]);
            (Kind::ToolResult, p)
        }
        "agent_error" => {
            let p = object(vec![
                (k(&keys.source), Json::from("user")),
                (k(&keys.code), field("exc_type")),
                (k(&keys.message), field("message")),
                (k(&keys.retriable), Json::Bool(false)),
            ]);
            (Kind::Error, p)
        }
        // The event's own payload, shared key for key (a compact copy).
        _ => (Kind::Event, Json::Object(o.payload.clone())),
    }
}

fn llm_call_payload(
    keys: &PayloadKeys,
    origins: &[Box<TraxrOrigin>],
    at: usize,
    requests: &[Option<usize>],
) -> Json {
    let k = Key::clone;
    let src = &origins[at].payload;
    let mut p = Vec::with_capacity(4);
    if let Some(m) = src.get("model") {
        p.push((k(&keys.model), m.clone()));
    }
    let names = match src.get("tool_call_names") {
        Some(Json::Array(names)) => &names[..],
        _ => &[],
    };
    let mut content = Vec::with_capacity(1 + names.len());
    if let Some(Json::String(text)) = src.get("content") {
        content.push(object(vec![
            (k(&keys.type_), Json::from("text")),
            (k(&keys.text), Json::String(text.clone())),
        ]));
    }
    for (name, &found) in names.iter().zip(requests) {
        let mut block = Vec::with_capacity(4);
        block.push((k(&keys.type_), Json::from("tool_use")));
        let mut input = Json::empty_object();
        if let Some(j) = found {
            if let Some(id) = origins[j].payload.get("call_id") {
                block.push((k(&keys.id), id.clone()));
            }
            if let Some(a @ Json::Object(_)) = origins[j].payload.get("arguments") {
                input = a.clone();
            }
        }
        block.push((k(&keys.name), name.clone()));
        block.push((k(&keys.input), input));
        content.push(object(block));
    }
    p.push((k(&keys.content), Json::Array(content.into_boxed_slice())));
    if let Some(Json::String(fr)) = src.get("finish_reason") {
        let mapped = match &**fr {
            "stop" => "end_turn",
            "tool_calls" => "tool_use",
            "length" => "max_tokens",
            other => other,
        };
        p.push((k(&keys.stop_reason), Json::from(mapped)));
    } else if let Some(other) = src.get("finish_reason") {
        p.push((k(&keys.stop_reason), other.clone()));
    }
    if let Some(Json::Object(u)) = src.get("usage") {
        let count = |key: &str| {
            u.get(key)
                .filter(|v| v.is_number())
                .cloned()
                .unwrap_or_else(|| Json::Number(Number::from(0u8)))
        };
        let usage = object(vec![
            (k(&keys.input_tokens), count("prompt_tokens")),
            (k(&keys.output_tokens), count("completion_tokens")),
        ]);
        p.push((k(&keys.usage), usage));
    }
    object(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::content_id;
    use crate::proptests::json_value;
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};

    /// The `.agentlog` payload of event `i` as spec `trace-formats.md` §4.3 maps it, built as a
    /// `Value` (the mapping as it was written before payloads were built as [`Json`]).
    fn record_payload_value(
        origins: &[Box<TraxrOrigin>],
        i: usize,
        requests: &[Option<usize>],
    ) -> (Kind, Value) {
        let o = &origins[i];
        // `payload[key]` of the event, `null` when absent.
        let field = |key: &str| o.payload.get(key).map_or(Value::Null, Json::to_value);
        let object = |entries: Vec<(&str, Value)>| {
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            )
        };
        match o.event_type.as_str() {
            "llm_call" => (
                Kind::ChatResponse,
                llm_call_payload_value(origins, i, requests),
            ),
            "tool_request" => {
                let args = match o.payload.get("arguments") {
                    Some(Json::Object(m)) => Value::Object(m.to_map()),
                    _ => json!({}),
                };
                let p = object(vec![
                    ("tool_name", field("tool_name")),
                    ("tool_call_id", field("call_id")),
                    ("arguments", args),
                ]);
                (Kind::ToolCall, p)
            }
            "tool_result" => {
                let output = o
                    .payload
                    .get("content")
                    .map_or_else(|| json!(""), Json::to_value);
                let p = object(vec![
                    ("tool_call_id", field("call_id")),
                    ("output", output),
                    ("is_error", Value::Bool(false)),
                ]);
                (Kind::ToolResult, p)
            }
            "agent_error" => {
                let p = object(vec![
                    ("source", json!("user")),
                    ("code", field("exc_type")),
                    ("message", field("message")),
                    ("retriable", Value::Bool(false)),
                ]);
                (Kind::Error, p)
            }
            // The event's own payload.
            _ => (Kind::Event, Value::Object(o.payload.to_map())),
        }
    }

    fn llm_call_payload_value(
        origins: &[Box<TraxrOrigin>],
        at: usize,
        requests: &[Option<usize>],
    ) -> Value {
        let src = &origins[at].payload;
        let mut p = Map::new();
        if let Some(m) = src.get("model") {
            p.insert("model".into(), m.to_value());
        }
        let mut content = Vec::new();
        if let Some(Json::String(text)) = src.get("content") {
            content.push(json!({"type": "text", "text": &**text}));
        }
        if let Some(Json::Array(names)) = src.get("tool_call_names") {
            for (name, &found) in names.iter().zip(requests) {
                let mut block = Map::new();
                block.insert("type".into(), json!("tool_use"));
                let mut input = json!({});
                if let Some(j) = found {
                    if let Some(id) = origins[j].payload.get("call_id") {
                        block.insert("id".into(), id.to_value());
                    }
                    if let Some(Json::Object(a)) = origins[j].payload.get("arguments") {
                        input = Value::Object(a.to_map());
                    }
                }
                block.insert("name".into(), name.to_value());
                block.insert("input".into(), input);
                content.push(Value::Object(block));
            }
        }
        p.insert("content".into(), Value::Array(content));
        if let Some(Json::String(fr)) = src.get("finish_reason") {
            let mapped = match &**fr {
                "stop" => "end_turn",
                "tool_calls" => "tool_use",
                "length" => "max_tokens",
                other => other,
            };
            p.insert("stop_reason".into(), json!(mapped));
        } else if let Some(other) = src.get("finish_reason") {
            p.insert("stop_reason".into(), other.to_value());
        }
        if let Some(Json::Object(u)) = src.get("usage") {
            let count = |k: &str| {
                u.get(k)
                    .filter(|v| v.is_number())
                    .map_or(json!(0), Json::to_value)
            };
            p.insert(
                "usage".into(),
                json!({"input_tokens": count("prompt_tokens"), "output_tokens": count("completion_tokens")}),
            );
        }
        Value::Object(p)
    }

    /// A value for an event payload key: usually of the type the mapping expects, sometimes any.
    fn field(typical: BoxedStrategy<Value>) -> impl Strategy<Value = Option<Value>> {
        proptest::option::of(prop_oneof![4 => typical, 1 => json_value()])
    }

    fn name() -> BoxedStrategy<Value> {
        prop_oneof![Just(json!("a")), Just(json!("b"))].boxed()
    }

    fn event() -> impl Strategy<Value = TraxrOrigin> {
        let event_type = prop_oneof![
            Just("llm_call"),
            Just("tool_request"),
            Just("tool_result"),
            Just("agent_error"),
            Just("routing_decision"),
        ];
        let names = prop::collection::vec(name(), 0..4).prop_map(Value::Array);
        let usage = (
            proptest::option::of(json_value()),
            proptest::option::of(any::<u32>().prop_map(Value::from)),
        )
            .prop_map(|(p, c)| {
                let mut u = Map::new();
                if let Some(p) = p {
                    u.insert("prompt_tokens".into(), p);
                }
                if let Some(c) = c {
                    u.insert("completion_tokens".into(), c);
                }
                Value::Object(u)
            });
        let finish = prop_oneof![
            Just(json!("stop")),
            Just(json!("tool_calls")),
            Just(json!("length")),
            Just(json!("other")),
        ];
        let args = prop::collection::vec(("[a-c]{1,2}", json_value()), 0..3)
            .prop_map(|kv| Value::Object(kv.into_iter().collect()));
        let keys = [
            "model",
            "content",
            "tool_call_names",
            "finish_reason",
            "usage",
            "tool_name",
            "call_id",
            "arguments",
            "exc_type",
            "message",
        ];
        (
            event_type,
            (
                field("[a-z]{1,3}".prop_map(Value::from).boxed()),
                field("\\PC{0,6}".prop_map(Value::from).boxed()),
                field(names.boxed()),
                field(finish.boxed()),
                field(usage.boxed()),
            ),
            (
                field(name()),
                field("c[0-9]".prop_map(Value::from).boxed()),
                field(args.boxed()),
                field("[A-Z][a-z]{0,4}".prop_map(Value::from).boxed()),
                field("\\PC{0,6}".prop_map(Value::from).boxed()),
            ),
        )
            .prop_map(move |(event_type, (a, b, c, d, e), (f, g, h, i, j))| {
                let mut payload = Map::new();
                for (k, v) in keys.iter().zip([a, b, c, d, e, f, g, h, i, j]) {
                    if let Some(v) = v {
                        payload.insert((*k).into(), v);
                    }
                }
                let Json::Object(payload) = Json::from(payload) else {
                    unreachable!("a map converts to an object")
                };
                TraxrOrigin {
                    event_type: event_type.into(),
                    sequence_index: 0,
                    step_num: 1,
                    agent_name: "a".into(),
                    content_hash: String::new(),
                    timestamp: None,
                    payload,
                    extra: Map::new(),
                }
            })
    }

    proptest! {
        /// Each payload built as a [`Json`] writes the bytes of, and has the content id of, the
        /// `Value` the mapping gives.
        #[test]
        fn payloads_are_the_mapping_built_as_values(
            events in prop::collection::vec(event(), 0..12)
        ) {
            let origins: Vec<Box<TraxrOrigin>> = events.into_iter().map(Box::new).collect();
            let requests = match_tool_requests(&origins);
            let keys = PayloadKeys::default();
            let records = build_records("r", origins.clone());
            for i in 0..origins.len() {
                let (kind, json) = record_payload(&keys, &origins, i, &requests[i]);
                let (kind_v, value) = record_payload_value(&origins, i, &requests[i]);
                prop_assert_eq!(&kind, &kind_v);
                prop_assert_eq!(
                    serde_json::to_string(&json).unwrap(),
                    serde_json::to_string(&value).unwrap()
                );
                prop_assert_eq!(&records[i].id, &RecordId::from(content_id(&value)));
                prop_assert_eq!(&records[i].payload, &json);
                prop_assert_eq!(records[i].origin.as_ref(), Some(&origins[i]));
            }
        }
    }
}
