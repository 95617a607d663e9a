//! Deserialising one `.agentlog` line straight into its envelope slots.
//!
//! Parsing the line into a generic JSON object first and then taking it apart costs an extra
//! map and seven key allocations per record; reading is allocation-bound, so the envelope keys
//! are matched while parsing and only the values are kept, each built at its final size
//! ([`crate::value_builder`]).

use crate::json::{Json, JsonSeed};
use crate::value_builder::{parse_whole, Scratch, ValueSeed};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// The envelope fields of one record as parsed, before validation.
#[derive(Default)]
pub(crate) struct RawEnvelope {
    pub version: Option<Value>,
    pub id: Option<Value>,
    pub kind: Option<Value>,
    pub ts: Option<Value>,
    pub parent: Option<Value>,
    pub meta: Option<Value>,
    /// Parsed straight into the compact tree.
    pub payload: Option<Json>,
    /// Unknown envelope keys in input order.
    pub extra: Map<String, Value>,
}

/// One parsed line: an object's envelope, or the JSON type it was instead.
pub(crate) enum RawLine {
    /// The line is a JSON object.
    Object(Box<RawEnvelope>),
    /// The line is some other JSON value ("an array", "a number", …).
    NotObject(&'static str),
}

impl RawLine {
    /// Parses one line of JSON text (nothing but whitespace may follow the value), parking
    /// nested entries on `scratch` while they are built.
    pub fn parse(text: &str, scratch: &mut Scratch) -> serde_json::Result<RawLine> {
        scratch.reset();
        parse_whole(serde_json::Deserializer::from_str(text), LineSeed(scratch))
    }
}

struct LineSeed<'s>(&'s mut Scratch);

impl<'de> DeserializeSeed<'de> for LineSeed<'_> {
    type Value = RawLine;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RawLine, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LineSeed<'_> {
    type Value = RawLine;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_bool<E>(self, _: bool) -> Result<RawLine, E> {
        Ok(RawLine::NotObject("a boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<RawLine, E> {
        Ok(RawLine::NotObject("a number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<RawLine, E> {
        Ok(RawLine::NotObject("a number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<RawLine, E> {
        Ok(RawLine::NotObject("a number"))
    }
    fn visit_str<E>(self, _: &str) -> Result<RawLine, E> {
        Ok(RawLine::NotObject("a string"))
    }
    fn visit_unit<E>(self) -> Result<RawLine, E> {
        Ok(RawLine::NotObject("null"))
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<RawLine, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(RawLine::NotObject("an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawLine, A::Error> {
        let mut env = RawEnvelope::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let slot = match key.as_ref() {
                "version" => &mut env.version,
                "id" => &mut env.id,
                "kind" => &mut env.kind,
                "ts" => &mut env.ts,
                "parent" => &mut env.parent,
                "meta" => &mut env.meta,
                "payload" => {
                    env.payload = Some(map.next_value_seed(JsonSeed(&mut self.0.json))?);
                    continue;
                }
                _ => {
                    let v = map.next_value_seed(ValueSeed(self.0))?;
                    env.extra.insert(key.into_owned(), v);
                    continue;
                }
            };
            *slot = Some(map.next_value_seed(ValueSeed(self.0))?);
        }
        Ok(RawLine::Object(Box::new(env)))
    }
}
