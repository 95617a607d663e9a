//! The `meta.traxr` envelope object that lets a traxr event survive a trip through `.agentlog`
//! (spec `trace-formats.md` §4.2, §4.4).

use crate::json::Json;
use crate::model::{Kind, TraxrOrigin};
use serde_json::{Map, Value};

/// `meta.traxr` for a record built from `origin`. The payload is included unless the record
/// is an `Event` (whose `.agentlog` payload already carries it as `attributes`).
pub(crate) fn origin_to_meta(origin: &TraxrOrigin, include_payload: bool) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "event_type".into(),
        Value::String(origin.event_type.clone()),
    );
    m.insert("sequence_index".into(), Value::from(origin.sequence_index));
    m.insert("step_num".into(), Value::from(origin.step_num));
    m.insert(
        "agent_name".into(),
        Value::String(origin.agent_name.clone()),
    );
    m.insert(
        "content_hash".into(),
        Value::String(origin.content_hash.clone()),
    );
    if include_payload {
        m.insert("payload".into(), Value::Object(origin.payload.to_map()));
    }
    if !origin.extra.is_empty() {
        m.insert("extra".into(), Value::Object(origin.extra.clone()));
    }
    m
}

/// Rebuilds the origin of a veer-written record from its `meta.traxr`, if it has a valid one.
pub(crate) fn origin_from_meta(
    meta: &Map<String, Value>,
    kind: &Kind,
    payload: &Json,
) -> Option<Box<TraxrOrigin>> {
    let t = meta.get("traxr")?.as_object()?;
    let event_payload = if *kind == Kind::HarnessEvent {
        if payload.get("category")?.as_str()? != "traxr" {
            return None;
        }
        payload.get("attributes")?.as_object()?.clone()
    } else {
        match Json::from(t.get("payload")?.as_object()?.clone()) {
            Json::Object(o) => o,
            _ => return None,
        }
    };
    Some(Box::new(TraxrOrigin {
        event_type: t.get("event_type")?.as_str()?.to_string(),
        sequence_index: t.get("sequence_index")?.as_i64()?,
        step_num: t.get("step_num")?.as_i64()?,
        agent_name: t.get("agent_name")?.as_str()?.to_string(),
        content_hash: t.get("content_hash")?.as_str()?.to_string(),
        timestamp: None,
        payload: event_payload,
        extra: t
            .get("extra")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
    }))
}
