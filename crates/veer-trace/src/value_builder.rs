//! Building `serde_json::Value`s while parsing, with every object and array allocated once at
//! its final size.
//!
//! serde_json's own `Value` visitor grows each object map and array as entries arrive (0 → 4 →
//! 8 …), rehashing the map's index at every step. Reading is allocation-bound (most of its time
//! is spent building payload values), so this builder parks the entries of the object or array
//! being parsed on a reusable [`Scratch`] stack and moves them into a container of exactly the
//! right size when it closes. The result is the same `Value` serde_json would build — the same
//! numbers, key order and duplicate-key rule (the last value wins, at the first key's place) —
//! only built with fewer allocations. Nesting depth is still limited by the deserializer.

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Reusable parking space for the entries of the objects and arrays being parsed. One per
/// reader; it keeps its capacity between records.
#[derive(Default)]
pub struct Scratch {
    entries: Vec<(String, Value)>,
    elements: Vec<Value>,
    /// The same for payloads parsed into the compact [`crate::json::Json`].
    pub(crate) json: crate::json::JsonScratch,
}

impl Scratch {
    /// Forgets whatever a failed parse left behind.
    pub fn reset(&mut self) {
        self.entries.clear();
        self.elements.clear();
        self.json.reset();
    }
}

/// A seed that deserializes one JSON value into a `serde_json::Value`, using `scratch`.
pub(crate) struct ValueSeed<'s>(pub &'s mut Scratch);

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let scratch = self.0;
        let start = scratch.elements.len();
        while let Some(v) = seq.next_element_seed(ValueSeed(scratch))? {
            scratch.elements.push(v);
        }
        Ok(Value::Array(scratch.elements.drain(start..).collect()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let scratch = self.0;
        let start = scratch.entries.len();
        while let Some(key) = map.next_key::<String>()? {
            let v = map.next_value_seed(ValueSeed(scratch))?;
            scratch.entries.push((key, v));
        }
        // `Map`'s `FromIterator` reserves the drain's exact length, then inserts in input
        // order: a repeated key keeps its first place and its last value.
        let object: Map<String, Value> = scratch.entries.drain(start..).collect();
        Ok(Value::Object(object))
    }
}

/// Runs `seed` over the one JSON document `de` reads; nothing but whitespace may follow it.
pub(crate) fn parse_whole<'de, R, S>(
    mut de: serde_json::Deserializer<R>,
    seed: S,
) -> serde_json::Result<S::Value>
where
    R: serde_json::de::Read<'de>,
    S: DeserializeSeed<'de>,
{
    let v = seed.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

#[cfg(test)]
/// Parses `text` as one JSON value (trailing whitespace only), as `serde_json::from_str` would.
pub(crate) fn value_from_str(text: &str, scratch: &mut Scratch) -> serde_json::Result<Value> {
    scratch.reset();
    parse_whole(serde_json::Deserializer::from_str(text), ValueSeed(scratch))
}

/// Parses `bytes` as one JSON value, as `serde_json::from_slice` would (strings must be UTF-8).
pub(crate) fn value_from_slice(bytes: &[u8], scratch: &mut Scratch) -> serde_json::Result<Value> {
    scratch.reset();
    parse_whole(
        serde_json::Deserializer::from_slice(bytes),
        ValueSeed(scratch),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proptests::json_value;
    use proptest::prelude::*;

    fn both(text: &str) -> (serde_json::Result<Value>, serde_json::Result<Value>) {
        let mut scratch = Scratch::default();
        let from_str = value_from_str(text, &mut scratch);
        let from_slice = value_from_slice(text.as_bytes(), &mut scratch);
        assert_eq!(
            format!("{from_str:?}"),
            format!("{from_slice:?}"),
            "str and slice disagree on {text}"
        );
        (from_str, serde_json::from_str::<Value>(text))
    }

    #[test]
    fn slices_reject_what_serde_json_rejects() {
        let bad: &[u8] = b"{\"a\":\"\xff\"}";
        let ours = value_from_slice(bad, &mut Scratch::default()).unwrap_err();
        let theirs = serde_json::from_slice::<Value>(bad).unwrap_err();
        assert_eq!(ours.to_string(), theirs.to_string());
    }

    #[test]
    fn same_values_as_serde_json() {
        for text in [
            "null",
            "true",
            "-0",
            "1e300",
            "18446744073709551615",
            "-9223372036854775808",
            "0.1",
            "\"a\\u00e9\\n\"",
            "[]",
            "{}",
            "[1,[2,[3,{}]],{\"a\":[]}]",
            "{\"b\":1,\"a\":2,\"b\":3}",
            "{\"x\":{\"y\":{\"z\":[1,2,{\"w\":null}]}},\"v\":\"s\"}",
            "  {\"k\" : [ true , false ] }  ",
        ] {
            let (ours, theirs) = both(text);
            let (ours, theirs) = (ours.unwrap(), theirs.unwrap());
            assert_eq!(ours, theirs, "{text}");
            // Key order too, not only map equality.
            assert_eq!(
                serde_json::to_string(&ours).unwrap(),
                serde_json::to_string(&theirs).unwrap()
            );
        }
    }

    #[test]
    fn duplicate_key_keeps_first_place_and_last_value() {
        let mut scratch = Scratch::default();
        let v = value_from_str("{\"b\":1,\"a\":2,\"b\":3}", &mut scratch).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), "{\"b\":3,\"a\":2}");
    }

    #[test]
    fn errors_where_serde_json_errors() {
        for text in ["", "{", "[1,]", "{\"a\":1} x", "{\"a\" 1}", "nul", "1e400"] {
            let (ours, theirs) = both(text);
            let (ours, theirs) = (ours.unwrap_err(), theirs.unwrap_err());
            assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
        }
        let deep = "[".repeat(200);
        assert!(both(&deep)
            .0
            .unwrap_err()
            .to_string()
            .contains("recursion limit"));
    }

    #[test]
    fn scratch_is_reusable_after_a_failure() {
        let mut scratch = Scratch::default();
        assert!(value_from_str("{\"a\":[1,2,{\"b\":", &mut scratch).is_err());
        let v = value_from_str("{\"c\":[3]}", &mut scratch).unwrap();
        assert_eq!(v, serde_json::json!({"c": [3]}));
    }

    proptest! {
        #[test]
        fn round_trips_like_serde_json(v in json_value(), pretty in any::<bool>()) {
            let text = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            let (ours, theirs) = both(&text);
            let (ours, theirs) = (ours.unwrap(), theirs.unwrap());
            prop_assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(&theirs).unwrap());
            prop_assert_eq!(ours, theirs);
        }
    }
}
