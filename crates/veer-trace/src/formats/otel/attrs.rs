//! Reading OTLP attributes: typed look-ups by key and `AnyValue` → JSON.
//!
//! Spans carry a few dozen attributes, so a linear scan is as fast as a map and allocates
//! nothing. Values that hold JSON text (message lists, tool arguments) are parsed on demand.

use super::wire::{AnyValue, KeyValue};
use serde_json::{Map, Number, Value};

/// The value OpenInference writes in place of content it was told to hide.
pub const REDACTED: &str = "__REDACTED__";

/// Attribute look-ups over one attribute list.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attrs<'s, 'a> {
    /// The attributes, in file order.
    pub list: &'s [KeyValue<'a>],
}

impl<'s, 'a> Attrs<'s, 'a> {
    /// The first attribute named `key`.
    pub fn get(&self, key: &str) -> Option<&'s AnyValue<'a>> {
        self.list
            .iter()
            .find(|kv| kv.key == key)
            .map(|kv| &kv.value)
    }

    /// Whether an attribute named `key` exists.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// A string attribute (`None` when absent, not a string, or OpenInference's redaction).
    pub fn str(&self, key: &str) -> Option<&'s str> {
        self.get(key)
            .and_then(|v| v.string_value.as_deref())
            .filter(|s| *s != REDACTED)
    }

    /// The first present string among `keys`.
    pub(crate) fn first_str(&self, keys: &[&str]) -> Option<&'s str> {
        keys.iter().find_map(|k| self.str(k))
    }

    /// An integer attribute (an `intValue`, an integral `doubleValue`, or a numeric string).
    pub fn int(&self, key: &str) -> Option<i64> {
        let v = self.get(key)?;
        if let Some(i) = v.int_value {
            return Some(i.0);
        }
        if let Some(d) = v.double_value {
            if d.0.is_finite() && d.0.fract() == 0.0 && d.0.abs() < 9.0e15 {
                return Some(d.0 as i64);
            }
        }
        v.string_value.as_deref()?.trim().parse().ok()
    }

    /// The first present integer among `keys`.
    pub(crate) fn first_int(&self, keys: &[&str]) -> Option<i64> {
        keys.iter().find_map(|k| self.int(k))
    }

    /// A number attribute as JSON (integers stay integers).
    pub fn number(&self, key: &str) -> Option<Value> {
        let v = self.get(key)?;
        if let Some(i) = v.int_value {
            return Some(Value::from(i.0));
        }
        v.double_value
            .and_then(|d| Number::from_f64(d.0))
            .map(Value::Number)
    }

    /// Every attribute whose key starts with `prefix`, with the prefix removed, in file order.
    pub(crate) fn with_prefix<'p>(
        &self,
        prefix: &'p str,
    ) -> impl Iterator<Item = (&'s str, &'s AnyValue<'a>)> + 'p
    where
        's: 'p,
    {
        self.list
            .iter()
            .filter_map(move |kv| kv.key.strip_prefix(prefix).map(|rest| (rest, &kv.value)))
    }
}

/// An `AnyValue` as JSON: strings, numbers, booleans, arrays and key-value lists as objects;
/// bytes as their base64 text; an empty value as `null`.
pub fn to_json(v: &AnyValue<'_>) -> Value {
    if let Some(s) = &v.string_value {
        return Value::String(s.to_string());
    }
    if let Some(b) = v.bool_value {
        return Value::Bool(b);
    }
    if let Some(i) = v.int_value {
        return Value::from(i.0);
    }
    if let Some(d) = v.double_value {
        return Number::from_f64(d.0).map_or(Value::Null, Value::Number);
    }
    if let Some(a) = &v.array_value {
        return Value::Array(a.values.iter().map(to_json).collect());
    }
    if let Some(kv) = &v.kvlist_value {
        let mut m = Map::new();
        for p in &kv.values {
            m.insert(p.key.to_string(), to_json(&p.value));
        }
        return Value::Object(m);
    }
    if let Some(b) = &v.bytes_value {
        return Value::String(b.to_string());
    }
    Value::Null
}

/// A value that may hold JSON text: a string that parses as a JSON array or object is parsed;
/// any other string stays a string; structured values convert with [`to_json`].
pub fn json_of(v: &AnyValue<'_>) -> Value {
    match v.string_value.as_deref() {
        Some(s) => parse_json_text(s),
        None => to_json(v),
    }
}

/// `s` parsed when it holds a JSON object or array, else `s` as a JSON string.
pub(crate) fn parse_json_text(s: &str) -> Value {
    let t = s.trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        if let Ok(v) = serde_json::from_str::<Value>(s) {
            return v;
        }
    }
    Value::String(s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_and_json() {
        let list: Vec<KeyValue> = serde_json::from_str(
            r#"[{"key":"n","value":{"intValue":"7"}},{"key":"d","value":{"doubleValue":3.0}},
                {"key":"s","value":{"stringValue":"__REDACTED__"}},
                {"key":"j","value":{"stringValue":"{\"a\":[1]}"}},
                {"key":"kv","value":{"kvlistValue":{"values":[{"key":"x","value":{"boolValue":true}}]}}},
                {"key":"p.0.role","value":{"stringValue":"user"}}]"#,
        )
        .unwrap();
        let a = Attrs { list: &list };
        assert_eq!(a.int("n"), Some(7));
        assert_eq!(a.int("d"), Some(3));
        assert_eq!(a.str("s"), None);
        assert!(a.has("s"));
        assert_eq!(json_of(a.get("j").unwrap()), serde_json::json!({"a":[1]}));
        assert_eq!(to_json(a.get("kv").unwrap()), serde_json::json!({"x":true}));
        assert_eq!(
            a.with_prefix("p.").map(|(k, _)| k).collect::<Vec<_>>(),
            ["0.role"]
        );
    }
}
