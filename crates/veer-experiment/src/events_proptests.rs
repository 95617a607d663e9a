//! The experiment events as they were derived before they became views of their records (an
//! owned `serde_json::Map` payload per event): the oracle of a property test that the views
//! give every event the same type, step, record and payload, field by field.

use crate::events::events as views;
use crate::signatures::signature;
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use veer_base::format::Format;
use veer_trace::views::Response;
use veer_trace::{Json, Kind, Record, Trace};

/// One event as the old derivation built it.
pub struct OldEvent<'t> {
    event_type: Cow<'t, str>,
    step: i64,
    payload: Cow<'t, Map<String, Value>>,
    record_index: usize,
}

/// Which traxr type a record stands for, without building its payload.
fn native_type(r: &Record) -> Option<&'static str> {
    match r.kind {
        Kind::ChatResponse => Some("llm_call"),
        Kind::ToolCall => Some("tool_request"),
        Kind::ToolResult => Some("tool_result"),
        Kind::Error => Some("agent_error"),
        _ => None,
    }
}

fn traxr_harness_event(r: &Record) -> Option<(&str, Map<String, Value>)> {
    if r.kind != Kind::HarnessEvent || r.str_field("category") != Some("traxr") {
        return None;
    }
    let name = r.str_field("name")?;
    let attrs = match r.field("attributes") {
        Some(Json::Object(m)) => m.to_map(),
        _ => Map::new(),
    };
    Some((name, attrs))
}

fn response_of(r: &Record) -> Response<'_> {
    Response {
        record: r,
        record_index: 0,
        turn: 0,
    }
}

/// The events of `trace`, in record order.
pub fn events(trace: &Trace) -> Vec<OldEvent<'_>> {
    let records = &trace.records;
    // Pass 1: the response count at each record, and the step of each tool-use block id.
    let mut block_step: HashMap<&str, i64> = HashMap::new();
    let mut block_name: HashMap<&str, Value> = HashMap::new();
    let mut r_at = Vec::with_capacity(records.len());
    let mut r: i64 = 0;
    for rec in records {
        if rec.origin.is_none() && rec.kind == Kind::ChatResponse {
            r += 1;
            for block in response_of(rec).tool_uses() {
                if let Some(id) = block.id {
                    block_step.entry(id).or_insert(r);
                    let name = tool_use_name(rec, id);
                    block_name.entry(id).or_insert(name);
                }
            }
        }
        r_at.push(r);
    }
    // Pass 2: steps and names of native tool_call records, by call id.
    let mut call_step: HashMap<&str, i64> = HashMap::new();
    let mut call_name: HashMap<&str, Value> = HashMap::new();
    for (i, rec) in records.iter().enumerate() {
        if rec.origin.is_none() && rec.kind == Kind::ToolCall {
            if let Some(id) = rec.str_field("tool_call_id") {
                let step = block_step.get(id).copied().unwrap_or(r_at[i]);
                call_step.entry(id).or_insert(step);
                call_name.entry(id).or_insert_with(|| {
                    rec.field("tool_name")
                        .map(Json::to_value)
                        .unwrap_or_else(|| Value::String("?".into()))
                });
            }
        }
    }
    let mut out = Vec::new();
    for (i, rec) in records.iter().enumerate() {
        if let Some(o) = &rec.origin {
            out.push(OldEvent {
                event_type: Cow::Borrowed(o.event_type.as_str()),
                step: o.step_num,
                payload: Cow::Owned(o.payload.to_map()),
                record_index: i,
            });
            continue;
        }
        if let Some((name, attrs)) = traxr_harness_event(rec) {
            out.push(OldEvent {
                event_type: Cow::Borrowed(name),
                step: r_at[i],
                payload: Cow::Owned(attrs),
                record_index: i,
            });
            continue;
        }
        let Some(event_type) = native_type(rec) else {
            continue;
        };
        let call_id = rec.str_field("tool_call_id");
        let (step, payload) = match rec.kind {
            Kind::ChatResponse => (r_at[i], llm_call_payload(rec)),
            Kind::ToolCall => {
                let step = call_id
                    .and_then(|id| block_step.get(id).copied())
                    .unwrap_or(r_at[i]);
                let mut p = Map::with_capacity(2);
                copy(rec, "tool_name", &mut p, "tool_name");
                copy(rec, "tool_call_id", &mut p, "call_id");
                (step, p)
            }
            Kind::ToolResult => {
                let step = call_id
                    .and_then(|id| call_step.get(id).or_else(|| block_step.get(id)).copied())
                    .unwrap_or(r_at[i]);
                let name = call_id
                    .and_then(|id| call_name.get(id).or_else(|| block_name.get(id)))
                    .cloned()
                    .unwrap_or_else(|| Value::String("?".into()));
                let mut p = Map::with_capacity(2);
                p.insert("tool_name".into(), name);
                copy(rec, "tool_call_id", &mut p, "call_id");
                (step, p)
            }
            _ => {
                let mut p = Map::with_capacity(2);
                copy(rec, "code", &mut p, "exc_type");
                copy(rec, "message", &mut p, "message");
                (r_at[i], p)
            }
        };
        out.push(OldEvent {
            event_type: Cow::Borrowed(event_type),
            step,
            payload: Cow::Owned(payload),
            record_index: i,
        });
    }
    out
}

fn copy(rec: &Record, from: &str, to: &mut Map<String, Value>, key: &str) {
    if let Some(v) = rec.field(from) {
        to.insert(key.into(), v.to_value());
    }
}

/// The `name` of the tool-use block with `id` in `rec` (`?` when absent).
fn tool_use_name(rec: &Record, id: &str) -> Value {
    let Some(Json::Array(parts)) = rec.field("content") else {
        return Value::String("?".into());
    };
    parts
        .iter()
        .filter_map(Json::as_object)
        .find(|o| {
            o.get("type").and_then(Json::as_str) == Some("tool_use")
                && o.get("id").and_then(Json::as_str) == Some(id)
        })
        .and_then(|o| o.get("name").map(Json::to_value))
        .unwrap_or_else(|| Value::String("?".into()))
}

/// The traxr `llm_call` payload of a native `chat_response`: `model` and `finish_reason`
/// (= `stop_reason`, verbatim) when present, `tool_call_names` from the tool-use blocks, and
/// `usage` in traxr's shape (or `null` when absent).
fn llm_call_payload(rec: &Record) -> Map<String, Value> {
    // Events live for the whole structural analysis: maps and lists at their final size.
    let mut p = Map::with_capacity(4);
    copy(rec, "model", &mut p, "model");
    copy(rec, "stop_reason", &mut p, "finish_reason");
    let mut names = Vec::new();
    if let Some(Json::Array(parts)) = rec.field("content") {
        for part in parts.iter().filter_map(Json::as_object) {
            if part.get("type").and_then(Json::as_str) == Some("tool_use") {
                names.push(
                    part.get("name")
                        .map(Json::to_value)
                        .unwrap_or_else(|| Value::String("?".into())),
                );
            }
        }
    }
    names.shrink_to_fit();
    p.insert("tool_call_names".into(), Value::Array(names));
    let usage = match rec.field("usage") {
        Some(Json::Object(u)) => {
            let count = |k: &str| u.get(k).filter(|v| v.is_number()).map(Json::to_value);
            let prompt = count("input_tokens").unwrap_or(Value::from(0));
            let completion = count("output_tokens").unwrap_or(Value::from(0));
            let total = match (prompt.as_i64(), completion.as_i64()) {
                (Some(a), Some(b)) => Value::from(a.saturating_add(b)),
                _ => serde_json::Number::from_f64(
                    prompt.as_f64().unwrap_or(0.0) + completion.as_f64().unwrap_or(0.0),
                )
                .map_or(Value::Null, Value::Number),
            };
            let mut m = Map::with_capacity(3);
            m.insert("prompt_tokens".into(), prompt);
            m.insert("completion_tokens".into(), completion);
            m.insert("total_tokens".into(), total);
            Value::Object(m)
        }
        _ => Value::Null,
    };
    p.insert("usage".into(), usage);
    p
}

fn rec(kind: Kind, payload: Value) -> Record {
    Record {
        line: None,
        kind,
        version: "0.1".into(),
        id: "".into(),
        ts: "".into(),
        parent: None,
        meta: None,
        payload: payload.into(),
        extra_envelope: None,
        origin: None,
    }
}

/// A small JSON scalar of any type (names and counts that are not what they should be).
fn odd() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-2i64..5).prop_map(Value::from),
        Just(json!(u64::MAX)),
        Just(json!(i64::MAX)),
        Just(json!(2.5)),
        "[ab?]{0,2}".prop_map(Value::String),
        Just(json!(["x"])),
    ]
}

/// An optional entry: absent (`None`), or `key: value`.
fn maybe(value: impl Strategy<Value = Value>) -> impl Strategy<Value = Option<Value>> {
    prop::option::of(value)
}

fn id() -> impl Strategy<Value = Option<Value>> {
    maybe(prop_oneof!["[abc]".prop_map(Value::String), odd()])
}

fn object(entries: Vec<(&str, Option<Value>)>) -> Value {
    Value::Object(
        entries
            .into_iter()
            .filter_map(|(k, v)| Some((k.to_string(), v?)))
            .collect(),
    )
}

/// One content part of a response: a tool-use block (id and name optional), text, or junk.
fn part() -> impl Strategy<Value = Value> {
    prop_oneof![
        (id(), maybe(odd())).prop_map(|(id, name)| object(vec![
            ("type", Some(json!("tool_use"))),
            ("id", id),
            ("name", name),
            ("input", Some(json!({})))
        ])),
        "[a-z]{0,3}".prop_map(|t| json!({"type": "text", "text": t})),
        odd(),
    ]
}

fn record() -> impl Strategy<Value = Record> {
    let usage = prop_oneof![
        Just(None),
        Just(Some(json!("n/a"))),
        (maybe(odd()), maybe(odd()), maybe(odd())).prop_map(|(i, o, t)| Some(object(vec![
            ("input_tokens", i),
            ("output_tokens", o),
            ("total_tokens", t)
        ]))),
    ];
    let content = prop_oneof![
        prop::collection::vec(part(), 0..4).prop_map(|p| Some(Value::Array(p))),
        maybe(odd()),
    ];
    prop_oneof![
        (maybe(odd()), maybe(odd()), content, usage).prop_map(|(m, s, c, u)| rec(
            Kind::ChatResponse,
            object(vec![
                ("model", m),
                ("stop_reason", s),
                ("content", c),
                ("usage", u)
            ])
        )),
        (id(), maybe(odd())).prop_map(|(id, name)| rec(
            Kind::ToolCall,
            object(vec![
                ("tool_call_id", id),
                ("tool_name", name),
                ("arguments", Some(json!({})))
            ])
        )),
        id().prop_map(|id| rec(
            Kind::ToolResult,
            object(vec![("tool_call_id", id), ("output", Some(json!("ok")))])
        )),
        (maybe(odd()), maybe(odd()))
            .prop_map(|(c, m)| rec(Kind::Error, object(vec![("code", c), ("message", m)]))),
        (
            prop_oneof![Just("traxr"), Just("other")],
            maybe(odd()),
            maybe(odd())
        )
            .prop_map(|(cat, name, attrs)| rec(
                Kind::HarnessEvent,
                object(vec![
                    ("category", Some(json!(cat))),
                    ("name", name),
                    ("attributes", attrs)
                ])
            )),
        Just(rec(Kind::ChatRequest, json!({"messages": []}))),
    ]
}

/// Every payload key the metrics or the old payloads may hold.
const KEYS: [&str; 13] = [
    "model",
    "finish_reason",
    "tool_call_names",
    "usage",
    "tool_name",
    "call_id",
    "exc_type",
    "message",
    "a",
    "b",
    "x",
    "answer",
    "success",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    #[test]
    fn views_read_as_the_old_payloads(records in prop::collection::vec(record(), 0..16)) {
        let mut t = Trace::new("t", Format::Agentlog);
        t.records = records;
        let (new, old) = (views(&t), events(&t));
        prop_assert_eq!(new.len(), old.len());
        // The old payloads as traxr events: their signatures (through `field`) against the
        // views' (through the native shortcuts).
        // (traxr requires a type: harness events named "" are left out.)
        let typed = |t: &str| !t.is_empty();
        let as_traxr: Vec<(&str, i64, Value)> = old
            .iter()
            .filter(|o| typed(&o.event_type))
            .map(|o| (&*o.event_type, o.step, Value::Object(o.payload.clone().into_owned())))
            .collect();
        let traxr = crate::spec_cases::trace("t", &as_traxr);
        let typed_new = new.iter().filter(|n| typed(n.event_type()));
        for (n, o) in typed_new.zip(views(&traxr)) {
            let (mut wn, mut wo) = (Vec::new(), Vec::new());
            prop_assert_eq!(signature(n, &mut wn), signature(&o, &mut wo));
            prop_assert_eq!(wn.len(), wo.len());
        }
        for (n, o) in new.iter().zip(&old) {
            prop_assert_eq!(n.event_type(), &*o.event_type);
            prop_assert_eq!(n.step, o.step);
            prop_assert_eq!(n.record_index, o.record_index);
            prop_assert_eq!(&n.payload_map(), &*o.payload);
            for k in o.payload.keys().map(String::as_str).chain(KEYS) {
                prop_assert_eq!(n.field(k).map(|v| v.to_value()), o.payload.get(k).cloned());
            }
            let names: Option<Vec<Value>> = n
                .native_tool_call_names()
                .map(|it| it.map(|v| v.map_or(json!("?"), Json::to_value)).collect());
            if let Some(names) = names {
                prop_assert_eq!(Some(&Value::Array(names)), o.payload.get("tool_call_names"));
            }
        }
    }
}
