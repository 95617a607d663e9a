//! One traxr event read into its [`TraxrOrigin`]: its entries split into the seven event keys
//! and the others, then each checked.
//!
//! A bare trace's events are split while they are parsed ([`parse_event_parts`]): the event
//! keys are matched as they are read and their values parsed straight into place, so no tree of
//! the event object and no shared key for its seven keys is made. The split is the one
//! [`EventParts::of`] makes of a parsed object (property-tested), so the result is the same.

use crate::error::TraceError;
use crate::json::{Json, JsonScratch, JsonSeed, Key, Object};
use crate::model::TraxrOrigin;
use crate::traxr::{Ctx, EVENT_KEYS};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use veer_base::pyjson::traxr_content_hash;

/// An event object's entries, split: the values of the [`EVENT_KEYS`] (by their index there)
/// and the other entries in order. As in an [`Object`], a repeated key has its last value (and
/// an other key its first place).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct EventParts {
    /// The value of each of [`EVENT_KEYS`], when present.
    pub(crate) fields: [Option<Json>; 7],
    /// The entries of other keys, in order, keys unique.
    pub(crate) unknown: Vec<(Key, Json)>,
}

impl EventParts {
    /// The split of a parsed event object.
    pub(crate) fn of(obj: Object) -> EventParts {
        let mut parts = EventParts::default();
        for (k, v) in obj.into_entries() {
            match event_key_index(&k) {
                Some(i) => parts.fields[i] = Some(v),
                None => parts.unknown.push((k, v)),
            }
        }
        parts
    }
}

/// The index of `k` in [`EVENT_KEYS`].
fn event_key_index(k: &str) -> Option<usize> {
    EVENT_KEYS.iter().position(|e| *e == k)
}

/// Parses one event object's text (trailing whitespace only) straight into its parts, with the
/// errors serde_json would give parsing it whole. The text must be an object (`{` first) for the
/// result to be that of parsing it as a [`Json`] and splitting it ([`EventParts::of`]).
pub(crate) fn parse_event_parts(
    text: &str,
    scratch: &mut JsonScratch,
) -> serde_json::Result<EventParts> {
    scratch.reset();
    crate::value_builder::parse_whole(
        serde_json::Deserializer::from_str(text),
        EventPartsSeed(scratch),
    )
}

struct EventPartsSeed<'s>(&'s mut JsonScratch);

impl<'de> DeserializeSeed<'de> for EventPartsSeed<'_> {
    type Value = EventParts;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<EventParts, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EventPartsSeed<'_> {
    type Value = EventParts;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a traxr event object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EventParts, A::Error> {
        let scratch = self.0;
        let mut parts = EventParts::default();
        while let Some(key) = map.next_key_seed(EventKeySeed(&mut *scratch))? {
            let v = map.next_value_seed(JsonSeed(&mut *scratch))?;
            match key {
                EventKey::Known(i) => parts.fields[i] = Some(v),
                EventKey::Other(k) => parts.unknown.push((k, v)),
            }
        }
        if parts.unknown.len() > 1 {
            let unknown = std::mem::take(&mut parts.unknown);
            parts.unknown = Object::from_entries(unknown).into_entries().collect();
        }
        Ok(parts)
    }
}

/// A key of an event object: one of [`EVENT_KEYS`] (its index), or another (shared).
enum EventKey {
    Known(usize),
    Other(Key),
}

struct EventKeySeed<'s>(&'s mut JsonScratch);

impl<'de> DeserializeSeed<'de> for EventKeySeed<'_> {
    type Value = EventKey;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<EventKey, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for EventKeySeed<'_> {
    type Value = EventKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<EventKey, E> {
        Ok(match event_key_index(v) {
            Some(i) => EventKey::Known(i),
            None => EventKey::Other(self.0.key(v)),
        })
    }
}

/// Reads event `index` of the list at `events_path` from its parts: its origin, and the path of
/// its first unknown key (permissive mode keeps such keys and warns once per file).
pub(crate) fn event_from_parts(
    ctx: &Ctx<'_>,
    events_path: &str,
    index: usize,
    parts: EventParts,
) -> Result<(TraxrOrigin, Option<String>), TraceError> {
    // Paths are only spelled out for a message.
    let f = |k: &str| format!("{events_path}[{index}].{k}");
    let strict = ctx.options.strict;
    let mut extra = Map::new();
    let mut unknown_key = None;
    for (k, v) in parts.unknown {
        if strict {
            return Err(ctx
                .err(&f(&k), "unknown event key")
                .with_hint(format!("event keys are: {}", EVENT_KEYS.join(", "))));
        }
        if unknown_key.is_none() {
            unknown_key = Some(f(&k));
        }
        extra.insert(k.to_string(), v.to_value());
    }
    let [event_type, sequence_index, step_num, agent_name, payload, content_hash, timestamp] =
        parts.fields;
    let event_type = match event_type {
        Some(Json::String(s)) if !s.is_empty() => String::from(s),
        Some(Json::String(_)) => return Err(ctx.err(&f("event_type"), "must not be empty")),
        Some(other) => {
            return Err(ctx.err(
                &f("event_type"),
                format!("must be a string, found {}", other.type_phrase()),
            ))
        }
        None => return Err(ctx.err(&f("event_type"), "missing required field")),
    };
    let int = |name: &str, v: Option<Json>, default: Option<i64>| -> Result<i64, TraceError> {
        match v {
            Some(Json::Number(n)) if n.is_i64() || n.is_u64() => n
                .as_i64()
                .ok_or_else(|| ctx.err(&f(name), "integer out of range")),
            Some(other) => Err(ctx.err(
                &f(name),
                format!("must be an integer, found {}", other.type_phrase()),
            )),
            None => default.ok_or_else(|| ctx.err(&f(name), "missing required field")),
        }
    };
    let sequence_index = int(
        "sequence_index",
        sequence_index,
        (!strict).then_some(index as i64),
    )?;
    let step_num = int("step_num", step_num, None)?;
    let agent_name = match agent_name {
        Some(Json::String(s)) => String::from(s),
        None if !strict => String::new(),
        None => return Err(ctx.err(&f("agent_name"), "missing required field")),
        Some(other) => {
            return Err(ctx.err(
                &f("agent_name"),
                format!("must be a string, found {}", other.type_phrase()),
            ))
        }
    };
    let payload = match payload {
        Some(Json::Object(m)) => m,
        Some(other) => {
            return Err(ctx.err(
                &f("payload"),
                format!("must be an object, found {}", other.type_phrase()),
            ))
        }
        None => return Err(ctx.err(&f("payload"), "missing required field")),
    };
    let computed = || traxr_content_hash(&Value::Object(payload.to_map()));
    let content_hash = match content_hash {
        Some(Json::String(s)) => {
            if strict {
                let c = computed();
                if *c != *s {
                    return Err(ctx.err(
                        &f("content_hash"),
                        format!("content hash mismatch (stored {s}, computed {c})"),
                    ));
                }
            }
            String::from(s)
        }
        None if !strict => computed(),
        None => return Err(ctx.err(&f("content_hash"), "missing required field")),
        Some(other) => {
            return Err(ctx.err(
                &f("content_hash"),
                format!("must be a string, found {}", other.type_phrase()),
            ))
        }
    };
    let timestamp = match timestamp {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(String::from(s)),
        Some(other) => {
            return Err(ctx.err(
                &f("timestamp"),
                format!("must be a string, found {}", other.type_phrase()),
            ))
        }
    };
    let origin = TraxrOrigin {
        event_type,
        sequence_index,
        step_num,
        agent_name,
        content_hash,
        timestamp,
        payload,
        extra,
    };
    Ok((origin, unknown_key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proptests::json_value;
    use proptest::prelude::*;

    /// An event object's text with entries `entries` (keys may repeat), spaced by `ws`.
    fn object_text(entries: &[(String, Value)], ws: &str) -> String {
        let body: Vec<String> = entries
            .iter()
            .map(|(k, v)| {
                let k = serde_json::to_string(k).unwrap_or_default();
                let v = serde_json::to_string(v).unwrap_or_default();
                format!("{ws}{k}{ws}:{ws}{v}{ws}")
            })
            .collect();
        format!("{{{}}}{ws}", body.join(","))
    }

    fn key() -> impl Strategy<Value = String> {
        let mut keys: Vec<String> = EVENT_KEYS.iter().map(|k| k.to_string()).collect();
        keys.extend(["x", "y", "event_typ", "Payload", ""].map(String::from));
        proptest::sample::select(keys)
    }

    /// The parts of `text` parsed whole as a [`Json`] and split.
    fn split_of_parsed(text: &str) -> Option<EventParts> {
        match crate::json::json_from_str(text, &mut JsonScratch::default()).ok()? {
            Json::Object(obj) => Some(EventParts::of(obj)),
            _ => None,
        }
    }

    #[test]
    fn repeated_keys_keep_their_last_value_and_first_place() {
        let text = r#"{"y":1,"event_type":"a","x":2,"y":3,"event_type":"b"}"#;
        let parts = parse_event_parts(text, &mut JsonScratch::default()).unwrap();
        assert_eq!(parts.fields[0], Some(Json::from("b")));
        let unknown: Vec<(String, Json)> = parts
            .unknown
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        assert_eq!(
            unknown,
            [
                ("y".to_string(), Json::Number(3.into())),
                ("x".to_string(), Json::Number(2.into()))
            ]
        );
        assert_eq!(Some(parts), split_of_parsed(text));
        // Not JSON, or more than one value: an error, as for a whole parse.
        for bad in [r#"{"a":1"#, r#"{"a":1} {}"#, r#"{"a":01}"#, r#"{"a\x":1}"#] {
            assert!(parse_event_parts(bad, &mut JsonScratch::default()).is_err());
            assert!(split_of_parsed(bad).is_none());
        }
    }

    proptest! {
        /// Splitting while parsing gives the split of the parsed object.
        #[test]
        fn parts_are_the_split_of_the_parsed_object(
            entries in prop::collection::vec((key(), json_value()), 0..10),
            ws in prop_oneof![Just(""), Just(" "), Just("\n\t")],
        ) {
            let text = object_text(&entries, ws);
            let parts = parse_event_parts(&text, &mut JsonScratch::default()).ok();
            prop_assert!(parts.is_some());
            prop_assert_eq!(parts, split_of_parsed(&text));
        }
    }
}
