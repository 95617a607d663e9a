//! Property tests: canonical form is idempotent and order-blind; write → read round-trips.

use crate::agentlog::reader::read_agentlog_bytes;
use crate::agentlog::writer::write_agentlog;
use crate::canonical::{canonical_bytes, content_id};
use crate::model::{Kind, Record, Trace};
use crate::options::ReadOptions;
use proptest::prelude::*;
use serde_json::{Map, Value};
use veer_base::format::Format;

/// Arbitrary JSON values (also used by `value_builder`'s tests).
pub(crate) fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
        "[\\x00-\\x1f\"\\\\e\u{301}\u{e9}\u{212b}]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-cé\u{301}]{0,3}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn payload() -> impl Strategy<Value = Value> {
    prop::collection::vec(("[a-z_]{1,8}", json_value()), 0..6)
        .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>()))
}

fn record() -> impl Strategy<Value = Record> {
    let kind = prop_oneof![
        Just(Kind::Metadata),
        Just(Kind::ChatRequest),
        Just(Kind::ToolResult),
        Just(Kind::ReplaySummary),
        Just(Kind::BlobRef),
        "[a-z]{3,8}_x".prop_map(Kind::Opaque),
    ];
    (
        kind,
        payload(),
        proptest::option::of("[a-f0-9]{4}"),
        proptest::option::of(payload()),
        prop::collection::vec(("[a-z]{1,5}_extra", json_value()), 0..3),
    )
        .prop_map(|(kind, payload, parent, meta, extra)| Record {
            line: None,
            kind,
            version: "0.1".into(),
            id: content_id(&payload).into(),
            ts: "2026-01-01T00:00:00.000Z".into(),
            parent: parent.map(|p| format!("sha256:{p}").into()),
            meta: meta.and_then(|m| m.as_object().cloned()).map(Box::new),
            payload: payload.into(),
            extra_envelope: (!extra.is_empty()).then(|| Box::new(extra.into_iter().collect())),
            origin: None,
        })
}

proptest! {
    #[test]
    fn canonical_form_is_idempotent(v in json_value()) {
        let once = canonical_bytes(&v);
        let reparsed: Value = serde_json::from_slice(&once).unwrap();
        prop_assert_eq!(canonical_bytes(&reparsed), once);
    }

    #[test]
    fn content_id_ignores_key_order(kv in prop::collection::vec(("[a-z]{1,4}", json_value()), 0..6)) {
        let forward: Map<String, Value> = kv.iter().cloned().collect();
        let backward: Map<String, Value> = kv.iter().rev().cloned().collect::<Vec<_>>().into_iter().rev().collect();
        let mut reversed_insert = Map::new();
        for (k, v) in forward.iter().rev() {
            reversed_insert.insert(k.clone(), v.clone());
        }
        prop_assert_eq!(content_id(&Value::Object(forward.clone())), content_id(&Value::Object(reversed_insert)));
        prop_assert_eq!(content_id(&Value::Object(forward)), content_id(&Value::Object(backward)));
    }

    #[test]
    fn write_then_read_gives_the_same_records(records in prop::collection::vec(record(), 1..8)) {
        let mut trace = Trace::new("p.agentlog", Format::Agentlog);
        trace.records = records;
        let mut bytes = Vec::new();
        write_agentlog(&trace, &mut bytes).unwrap();
        let back = read_agentlog_bytes("p.agentlog", &bytes, &ReadOptions::default()).unwrap();
        prop_assert_eq!(back.records.len(), trace.records.len());
        for (i, (a, b)) in trace.records.iter().zip(&back.records).enumerate() {
            let mut b = b.clone();
            prop_assert_eq!(b.line, Some(i as u64 + 1));
            b.line = None;
            prop_assert_eq!(a, &b);
        }
        // And writing again reproduces the bytes exactly.
        let mut again = Vec::new();
        write_agentlog(&back, &mut again).unwrap();
        prop_assert_eq!(again, bytes);
    }
}
