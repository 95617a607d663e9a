//! `must_match_json_schema` support (spec `policy.md` §7): compiling a schema once at load with
//! `format` assertions on and every remote reference refused, strict JSON parsing of response
//! text (duplicate keys and NaN/Infinity rejected), and choosing one deterministic error.

use jsonschema::paths::LocationSegment;
use jsonschema::Validator;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// A compiled JSON Schema.
#[derive(Clone)]
pub struct Schema {
    /// Where it came from: `inline` or the resolved `schema_path`.
    pub origin: String,
    validator: Arc<Validator>,
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Schema")
            .field("origin", &self.origin)
            .finish()
    }
}

/// A retriever that refuses every external resource: a policy never touches the network or
/// reads files it was not given.
struct RefuseRetriever;

impl jsonschema::Retrieve for RefuseRetriever {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "refusing to fetch '{}': veer never uses the network or external files for a schema; inline the referenced schema under $defs",
            uri.as_str()
        )
        .into())
    }
}

impl Schema {
    /// Compiles `schema` (draft from `$schema`, default 2020-12; `format` asserted).
    pub fn compile(schema: &Value, origin: &str) -> Result<Schema, String> {
        if !schema.is_object() {
            return Err("schema must be a JSON object".into());
        }
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .with_retriever(RefuseRetriever)
            .build(schema)
            .map_err(|e| e.to_string())?;
        Ok(Schema {
            origin: origin.to_string(),
            validator: Arc::new(validator),
        })
    }

    /// Checks one response text; `None` when it passes, else the violation detail.
    pub fn check_text(&self, text: &str) -> Option<String> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Some("response has no text content to validate".into());
        }
        let body = strip_fences(trimmed);
        let instance = match parse_strict(body) {
            Ok(v) => v,
            Err(e) => return Some(format!("response text is not valid JSON: {e}")),
        };
        let mut errors: Vec<(Vec<PathKey>, String, String, String)> = self
            .validator
            .iter_errors(&instance)
            .map(|e| {
                let (key, dotted) = instance_path(&instance, e.instance_path());
                (key, e.schema_path().to_string(), dotted, e.to_string())
            })
            .collect();
        errors.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| a.1.as_bytes().cmp(b.1.as_bytes()))
        });
        let (_, _, path, message) = errors.into_iter().next()?;
        Some(format!("json schema mismatch at {path}: {message}"))
    }
}

/// A segment of an instance path, ordered: indices numerically, keys by bytes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum PathKey {
    Index(usize),
    Key(Vec<u8>),
}

/// The sortable key and the dotted text (`items.1`, or `<root>`) of an instance location.
fn instance_path(instance: &Value, loc: &jsonschema::paths::Location) -> (Vec<PathKey>, String) {
    let mut cur = Some(instance);
    let mut keys = Vec::new();
    let mut parts = Vec::new();
    for seg in loc.iter() {
        let text = match &seg {
            LocationSegment::Property(p) => p.to_string(),
            LocationSegment::Index(i) => i.to_string(),
        };
        let key = match cur {
            Some(Value::Array(a)) => {
                let idx = text.parse::<usize>().unwrap_or(usize::MAX);
                cur = a.get(idx);
                PathKey::Index(idx)
            }
            Some(Value::Object(m)) => {
                cur = m.get(&text);
                PathKey::Key(text.clone().into_bytes())
            }
            _ => {
                cur = None;
                PathKey::Key(text.clone().into_bytes())
            }
        };
        keys.push(key);
        parts.push(text);
    }
    let dotted = if parts.is_empty() {
        "<root>".to_string()
    } else {
        parts.join(".")
    };
    (keys, dotted)
}

/// Strips one surrounding Markdown code fence (`diff.md` §5.9 `strip_fences`).
pub fn strip_fences(t: &str) -> &str {
    let t = t.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let body = match t.find('\n') {
        Some(i) => &t[i + 1..],
        None => rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric()),
    };
    let body = body.trim_end();
    body.strip_suffix("```").unwrap_or(body).trim()
}

/// Parses strict RFC 8259 JSON: NaN/Infinity are syntax errors and a duplicate key is an
/// error `duplicate key "<key>" at line <l> column <c>`.
pub fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = de.deserialize_any(StrictVisitor)?;
    de.end()?;
    Ok(v)
}

struct Strict(Value);

impl<'de> de::Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("non-finite number"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            if out.contains_key(&k) {
                return Err(de::Error::custom(format!(
                    "duplicate key {}",
                    Value::String(k)
                )));
            }
            let Strict(v) = map.next_value()?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Schema {
        Schema::compile(
            &json!({"type": "object", "required": ["decision"], "properties": {
                "decision": {"type": "string"}, "amount": {"type": "number"},
                "email": {"type": "string", "format": "email"},
                "items": {"type": "array", "items": {"type": "integer"}}}}),
            "inline",
        )
        .unwrap()
    }

    #[test]
    fn valid_and_invalid() {
        let s = schema();
        assert_eq!(
            s.check_text(r#"{"decision": "refund", "amount": 49.99}"#),
            None
        );
        assert!(s
            .check_text("plain prose")
            .unwrap()
            .starts_with("response text is not valid JSON: expected value at line 1 column 1"));
        let d = s
            .check_text(r#"{"decision": "x", "amount": "forty-nine"}"#)
            .unwrap();
        assert!(d.starts_with("json schema mismatch at amount: "), "{d}");
        assert_eq!(
            s.check_text("  ").unwrap(),
            "response has no text content to validate"
        );
        assert_eq!(s.check_text("```json\n{\"decision\": \"a\"}\n```"), None);
        assert_eq!(
            s.check_text(r#"{"decision": "a", "items": [1, 1.0]}"#),
            None
        );
        let d = s
            .check_text(r#"{"decision": "a", "items": [1, "x"]}"#)
            .unwrap();
        assert!(d.starts_with("json schema mismatch at items.1: "), "{d}");
        let d = s.check_text(r#"{"amount": "x"}"#).unwrap();
        assert!(d.contains("at <root>") && d.contains("decision"), "{d}");
        assert!(s
            .check_text(r#"{"decision": "a", "email": "nope"}"#)
            .is_some());
    }

    #[test]
    fn strict_parsing() {
        for t in ["NaN", "Infinity", "-Infinity", r#"{"a": NaN}"#] {
            assert!(parse_strict(t).is_err(), "{t}");
        }
        let e = parse_strict(r#"{"a": 1, "a": 2}"#).unwrap_err().to_string();
        assert!(e.starts_with("duplicate key \"a\" at line 1"), "{e}");
    }

    #[test]
    fn invalid_schema_and_remote_refs_are_refused() {
        assert!(Schema::compile(&json!({"type": "not-a-real-type"}), "inline").is_err());
        let e =
            Schema::compile(&json!({"$ref": "https://example.com/s.json"}), "inline").unwrap_err();
        assert!(e.contains("refusing to fetch"), "{e}");
        assert!(Schema::compile(
            &json!({"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"}),
            "inline"
        )
        .is_ok());
    }

    #[test]
    fn known_drafts_compile_offline() {
        for draft in [
            "http://json-schema.org/draft-04/schema#",
            "http://json-schema.org/draft-06/schema#",
            "http://json-schema.org/draft-07/schema#",
            "https://json-schema.org/draft/2019-09/schema",
            "https://json-schema.org/draft/2020-12/schema",
        ] {
            let s = Schema::compile(&json!({"$schema": draft, "type": "integer"}), "inline");
            assert!(s.is_ok(), "{draft}: {:?}", s.err());
            assert!(s.unwrap().check_text("\"x\"").is_some());
        }
        assert!(Schema::compile(&json!({"$ref": "other.json"}), "inline").is_err());
        assert!(Schema::compile(&json!({"$ref": "#/$defs/missing"}), "inline").is_err());
    }

    #[test]
    fn fences() {
        assert_eq!(strip_fences("```json\n{}\n```"), "{}");
        assert_eq!(strip_fences("```json {} ```"), "{}");
        assert_eq!(strip_fences("{}"), "{}");
    }
}
