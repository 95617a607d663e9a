//! `must_match_json_schema` support (spec `policy.md` §7): compiling a schema once at load with
//! `format` assertions on and every remote reference refused, strict JSON parsing of response
//! text (duplicate keys and NaN/Infinity rejected), and choosing one deterministic error.

use jsonschema::paths::LocationSegment;
use jsonschema::Validator;
use serde_json::Value;
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
        if let Some(cycle) = ref_cycle(schema) {
            return Err(format!(
                "$ref cycle that never reaches a constraint: {}",
                cycle.join(" -> ")
            ));
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

    #[cfg(test)]
    /// Checks one response text; `None` when it passes, else the violation detail.
    pub(crate) fn check_text(&self, text: &str) -> Option<String> {
        match parse_text(text) {
            Ok(v) => self.check_value(&v),
            Err(detail) => Some(detail),
        }
    }

    /// Checks an already parsed response text ([`parse_text`]).
    pub(crate) fn check_value(&self, instance: &Value) -> Option<String> {
        let mut errors: Vec<(Vec<PathKey>, String, String, String)> = self
            .validator
            .iter_errors(instance)
            .map(|e| {
                let (key, dotted) = instance_path(instance, e.instance_path());
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

/// Keywords whose subschemas apply to the same instance as their parent: following only
/// these, a schema that comes back to where it started loops without consuming input.
const IN_PLACE_ONE: [&str; 4] = ["not", "if", "then", "else"];
const IN_PLACE_MANY: [&str; 3] = ["allOf", "anyOf", "oneOf"];

/// A cycle of local `$ref`s (with `allOf`/`anyOf`/`oneOf`/`not`/`if`/`then`/`else` between
/// them) that returns to a schema without descending into the instance — e.g.
/// `a: {$ref: b}, b: {$ref: a}`. Such a schema constrains nothing and some validators loop
/// on it, so it is refused at load. Returns the pointers of the cycle, first repeated last.
/// Recursion through `properties`, `items`, … (a tree schema) is fine and not reported.
pub(crate) fn ref_cycle(schema: &Value) -> Option<Vec<String>> {
    let mut starts = Vec::new();
    collect_refs(schema, String::new(), &mut starts);
    let mut done = std::collections::HashSet::new();
    for start in starts {
        let mut stack = Vec::new();
        if let Some(c) = visit(schema, &start, &mut stack, &mut done) {
            return Some(c);
        }
    }
    None
}

/// Pointers of every object in `v` that holds a `$ref`.
fn collect_refs(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if m.contains_key("$ref") {
                out.push(at.clone());
            }
            for (k, x) in m {
                let k = k.replace('~', "~0").replace('/', "~1");
                collect_refs(x, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                collect_refs(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Depth-first search over same-instance edges from the schema at `at`.
fn visit(
    root: &Value,
    at: &str,
    stack: &mut Vec<String>,
    done: &mut std::collections::HashSet<String>,
) -> Option<Vec<String>> {
    if let Some(i) = stack.iter().position(|p| p == at) {
        let mut cycle: Vec<String> = stack[i..].iter().map(|p| format!("#{p}")).collect();
        cycle.push(format!("#{at}"));
        return Some(cycle);
    }
    if done.contains(at) {
        return None;
    }
    let Some(Value::Object(m)) = root.pointer(at) else {
        return None;
    };
    let mut next = Vec::new();
    if let Some(Value::String(r)) = m.get("$ref") {
        if let Some(target) = r.strip_prefix('#') {
            if target.is_empty() || target.starts_with('/') {
                next.push(target.to_string());
            }
        }
    }
    for k in IN_PLACE_ONE {
        if m.get(k).is_some_and(Value::is_object) {
            next.push(format!("{at}/{k}"));
        }
    }
    for k in IN_PLACE_MANY {
        if let Some(Value::Array(items)) = m.get(k) {
            next.extend((0..items.len()).map(|i| format!("{at}/{k}/{i}")));
        }
    }
    stack.push(at.to_string());
    for n in next {
        if let Some(c) = visit(root, &n, stack, done) {
            return Some(c);
        }
    }
    stack.pop();
    done.insert(at.to_string());
    None
}

/// A response text as the JSON a schema checks: trimmed, one surrounding code fence
/// stripped, parsed strictly; otherwise the violation detail (no text, or not JSON).
pub(crate) fn parse_text(text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("response has no text content to validate".into());
    }
    parse_strict(strip_fences(trimmed)).map_err(|e| format!("response text is not valid JSON: {e}"))
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
pub(crate) fn strip_fences(t: &str) -> &str {
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

use veer_trace::strict_json::parse_strict;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_cycles_that_consume_nothing_are_refused() {
        let cyc = serde_json::json!({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}});
        assert_eq!(
            ref_cycle(&cyc).unwrap(),
            vec!["#/$defs/a", "#/$defs/b", "#/$defs/b/allOf/0", "#/$defs/a"]
        );
        let err = Schema::compile(&cyc, "inline").unwrap_err();
        assert!(err.contains("$ref cycle"), "{err}");
        let own = serde_json::json!({"$ref": "#"});
        assert_eq!(ref_cycle(&own).unwrap(), vec!["#", "#"]);
        // A tree: recursion through `properties` descends into the instance.
        let tree = serde_json::json!({"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}});
        assert_eq!(ref_cycle(&tree), None);
        assert!(Schema::compile(&tree, "inline").is_ok());
        let shared = serde_json::json!({"allOf": [{"$ref": "#/$defs/x"}, {"$ref": "#/$defs/x"}], "$defs": {"x": {"type": "integer"}}});
        assert_eq!(ref_cycle(&shared), None);
    }
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
