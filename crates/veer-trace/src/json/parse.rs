//! Parsing JSON text straight into [`Json`], every string, array and object allocated once at
//! its final size.
//!
//! The entries of the objects and arrays being parsed are parked on a reusable
//! [`JsonScratch`] stack and moved into an exact-size boxed slice when the container closes
//! (the same scheme as [`crate::value_builder`] uses for `serde_json::Value`). Numbers, the
//! duplicate-key rule and every error are serde_json's own (the deserializer is serde_json's).

use super::{has_duplicate_key, Json, Key, Object};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};
use std::collections::HashSet;
use std::fmt;

/// Reusable parking space for the entries of the objects and arrays being parsed. One per
/// reader thread; it keeps its capacity between records.
#[derive(Default)]
pub(crate) struct JsonScratch {
    entries: Vec<(Key, Json)>,
    elements: Vec<Json>,
    /// The keys seen so far, handed out shared: agent traces repeat a small vocabulary of keys.
    /// (A fast hash with a random seed: looking keys up was a tenth of reading a traxr file
    /// with SipHash, and a seed the input cannot know keeps collisions out of its reach.)
    keys: HashSet<Key, foldhash::fast::RandomState>,
}

/// Keys longer than this are not shared (they rarely repeat).
const SHARED_KEY_MAX_BYTES: usize = 64;
/// The shared keys are forgotten past this many, so input with endless distinct keys costs no
/// more than unshared keys would.
const SHARED_KEYS_MAX: usize = 4096;

impl JsonScratch {
    /// The key `k`, shared with its earlier occurrences.
    pub fn key(&mut self, k: &str) -> Key {
        if k.len() > SHARED_KEY_MAX_BYTES {
            return Key::from(k);
        }
        if let Some(shared) = self.keys.get(k) {
            return Key::clone(shared);
        }
        if self.keys.len() >= SHARED_KEYS_MAX {
            self.keys.clear();
        }
        let key = Key::from(k);
        self.keys.insert(Key::clone(&key));
        key
    }
}

impl JsonScratch {
    /// `v` as a [`Json`], its strings moved, its object keys shared with the keys this scratch
    /// has handed out (as parsing would share them): a tree built as a `serde_json::Value`
    /// costs one allocation per distinct key instead of one per key occurrence.
    pub(crate) fn adopt(&mut self, v: Value) -> Json {
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Number(n) => Json::Number(n),
            Value::String(s) => Json::String(s.into_boxed_str()),
            Value::Array(a) => Json::Array(a.into_iter().map(|x| self.adopt(x)).collect()),
            // A `Map`'s keys are already unique.
            Value::Object(m) => Json::Object(Object::from_unique(
                m.into_iter()
                    .map(|(k, x)| (self.key(&k), self.adopt(x)))
                    .collect(),
            )),
        }
    }

    /// Forgets whatever a failed parse left behind (the shared keys stay).
    pub fn reset(&mut self) {
        self.entries.clear();
        self.elements.clear();
    }
}

/// A seed that deserializes one JSON value into a [`Json`], using the scratch.
pub(crate) struct JsonSeed<'s>(pub &'s mut JsonScratch);

impl<'de> DeserializeSeed<'de> for JsonSeed<'_> {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for JsonSeed<'_> {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        // As serde_json's `Value`: a non-finite float becomes null.
        Ok(Number::from_f64(v).map_or(Json::Null, Json::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.into()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v.into_boxed_str()))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let scratch = self.0;
        let start = scratch.elements.len();
        while let Some(v) = seq.next_element_seed(JsonSeed(scratch))? {
            scratch.elements.push(v);
        }
        Ok(Json::Array(scratch.elements.drain(start..).collect()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let scratch = self.0;
        let start = scratch.entries.len();
        while let Some(key) = map.next_key_seed(KeySeed(&mut *scratch))? {
            let v = map.next_value_seed(JsonSeed(scratch))?;
            scratch.entries.push((key, v));
        }
        let fresh = &scratch.entries[start..];
        if has_duplicate_key(fresh) {
            let entries: Vec<_> = scratch.entries.drain(start..).collect();
            return Ok(Json::Object(Object::from_entries(entries)));
        }
        Ok(Json::Object(Object::from_unique(
            scratch.entries.drain(start..).collect(),
        )))
    }
}

/// An object key, shared through the scratch's keys.
struct KeySeed<'s>(&'s mut JsonScratch);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(self.0.key(v))
    }
}

impl<'de> de::Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        JsonSeed(&mut JsonScratch::default()).deserialize(d)
    }
}

/// Parses `text` as one JSON value (trailing whitespace only), as `serde_json::from_str`
/// would parse a `Value`.
pub(crate) fn json_from_str(text: &str, scratch: &mut JsonScratch) -> serde_json::Result<Json> {
    scratch.reset();
    crate::value_builder::parse_whole(serde_json::Deserializer::from_str(text), JsonSeed(scratch))
}

/// Parses `bytes` as one JSON value, as `serde_json::from_slice` would (strings must be UTF-8).
pub(crate) fn json_from_slice(bytes: &[u8], scratch: &mut JsonScratch) -> serde_json::Result<Json> {
    scratch.reset();
    crate::value_builder::parse_whole(
        serde_json::Deserializer::from_slice(bytes),
        JsonSeed(scratch),
    )
}
