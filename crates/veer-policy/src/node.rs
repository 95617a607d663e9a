//! A policy document as a tree of values that remember where they were written.
//!
//! YAML is read with `serde-saphyr` (YAML 1.2 core schema, duplicate keys rejected); `.json`
//! files are first checked by `serde_json` (strict JSON syntax) and then read the same way, since
//! JSON is YAML. Every node carries its 1-based line and column so a load error can point at it.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// A value of the policy document with its source position.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PolicyNode {
    /// The value.
    pub value: NodeValue,
    /// 1-based line (0 when unknown).
    pub line: u64,
    /// 1-based column (0 when unknown).
    pub column: u64,
}

/// The value held by a [`PolicyNode`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NodeValue {
    /// `null` / `~` / an empty value.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number (never NaN or infinite).
    Number(Number),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<PolicyNode>),
    /// A mapping, in document order; keys are nodes too.
    Map(Vec<(PolicyNode, PolicyNode)>),
}

impl PolicyNode {
    /// The YAML-style type name used in messages: `int`, `float`, `bool`, `str`, `list`,
    /// `mapping`, `null`.
    pub fn type_name(&self) -> &'static str {
        match &self.value {
            NodeValue::Null => "null",
            NodeValue::Bool(_) => "bool",
            NodeValue::Number(n) if n.is_f64() => "float",
            NodeValue::Number(_) => "int",
            NodeValue::Str(_) => "str",
            NodeValue::Seq(_) => "list",
            NodeValue::Map(_) => "mapping",
        }
    }

    /// The string, when this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            NodeValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The entries, when this is a mapping.
    pub(crate) fn as_map(&self) -> Option<&[(PolicyNode, PolicyNode)]> {
        match &self.value {
            NodeValue::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The value under `key`, when this is a mapping with a string key `key`.
    pub fn get(&self, key: &str) -> Option<&PolicyNode> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// Whether this is null.
    pub fn is_null(&self) -> bool {
        matches!(self.value, NodeValue::Null)
    }

    /// The value as JSON (mapping keys that are not strings are written as their text).
    pub fn to_json(&self) -> Value {
        match &self.value {
            NodeValue::Null => Value::Null,
            NodeValue::Bool(b) => Value::Bool(*b),
            NodeValue::Number(n) => Value::Number(n.clone()),
            NodeValue::Str(s) => Value::String(s.clone()),
            NodeValue::Seq(items) => Value::Array(items.iter().map(PolicyNode::to_json).collect()),
            NodeValue::Map(entries) => {
                let mut m = Map::new();
                for (k, v) in entries {
                    m.insert(k.key_text(), v.to_json());
                }
                Value::Object(m)
            }
        }
    }

    /// The text of a mapping key: a string as is, anything else as compact JSON.
    pub(crate) fn key_text(&self) -> String {
        match &self.value {
            NodeValue::Str(s) => s.clone(),
            _ => self.to_json().to_string(),
        }
    }
}

/// Why a document could not be parsed: a message with the position it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// What is wrong.
    pub message: String,
    /// 1-based line, 0 when unknown.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
    /// What to do about it, when the parser's own problem calls for a particular hint.
    pub hint: Option<String>,
}

/// Parses a YAML 1.2 document (anchors and aliases allowed, duplicate keys rejected).
pub(crate) fn parse_yaml(text: &str) -> Result<PolicyNode, SyntaxError> {
    let options = serde_saphyr::options! {
        strict_booleans: true,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        with_snippet: false,
    };
    if text.trim().is_empty() {
        return Ok(PolicyNode {
            value: NodeValue::Null,
            line: 1,
            column: 1,
        });
    }
    serde_saphyr::from_str_with_options::<PolicyNode>(text, options).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((0, 0));
        let mut message = e.without_snippet().to_string();
        if let Some(first) = message.lines().next() {
            message = first.to_string();
        }
        let mut hint = None;
        if message.starts_with("recursion limit exceeded") {
            hint = Some("a policy nests only a few levels deep; look for runaway brackets".into());
        }
        if message.starts_with("duplicate mapping key") {
            if let Some(i) = message.find(", set DuplicateKeyPolicy") {
                message.truncate(i);
            }
            hint = Some("a key may appear only once in a mapping; remove or rename one".into());
        }
        if let Some(breach) = message.strip_prefix("budget breached: ") {
            message = budget_message(breach);
            hint = Some(
                "write the rules out instead of building them from anchors and aliases".to_string(),
            );
        }
        // The position is reported separately; drop the parser's own copy of it.
        if let Some(i) = message.rfind(" at line ") {
            if message[i..].contains(", column ") {
                message.truncate(i);
            }
        }
        SyntaxError {
            message,
            line,
            column,
            hint,
        }
    })
}

/// A readable message for a breached YAML budget (the parser names it by its `Debug` form,
/// e.g. `Nodes { nodes: 250001 }`): an alias bomb or a document too big to be a policy.
fn budget_message(breach: &str) -> String {
    let what = breach.split([' ', '{']).next().unwrap_or(breach);
    let reason = match what {
        "Nodes" | "Events" | "Aliases" | "AliasAnchorRatio" | "MergeKeys" => {
            "the document expands (through its anchors and aliases) to more nodes than a policy may have"
        }
        "Depth" => "the document nests deeper than a policy may",
        "ScalarBytes" | "InputBytes" => "the document's text is larger than a policy may be",
        "Anchors" => "the document defines more anchors than a policy may",
        "Documents" => "the file holds more YAML documents than a policy may",
        _ => "the document exceeds the YAML parser's safety limits",
    };
    let limit = breach.split(" at line ").next().unwrap_or(breach).trim();
    format!("{reason} (limit breached: {limit})")
}

/// Parses a strict JSON document (RFC 8259 syntax), keeping positions.
pub(crate) fn parse_json(text: &str) -> Result<PolicyNode, SyntaxError> {
    if let Err(e) = serde_json::from_str::<de::IgnoredAny>(text) {
        let full = e.to_string();
        let message = match full.rfind(" at line ") {
            Some(i) => full[..i].to_string(),
            None => full,
        };
        return Err(SyntaxError {
            message,
            line: e.line() as u64,
            column: e.column() as u64,
            hint: None,
        });
    }
    parse_yaml(text)
}

impl<'de> Deserialize<'de> for PolicyNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = serde_saphyr::Spanned::<NodeValue>::deserialize(deserializer)?;
        Ok(PolicyNode {
            value: spanned.value,
            line: spanned.referenced.line(),
            column: spanned.referenced.column(),
        })
    }
}

impl<'de> Deserialize<'de> for NodeValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = NodeValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<NodeValue, E> {
        Ok(NodeValue::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<NodeValue, E> {
        Ok(NodeValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<NodeValue, D::Error> {
        NodeValue::deserialize(d)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<NodeValue, E> {
        Ok(NodeValue::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<NodeValue, E> {
        Ok(NodeValue::Number(Number::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<NodeValue, E> {
        Ok(NodeValue::Number(Number::from(v)))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<NodeValue, E> {
        match i64::try_from(v) {
            Ok(i) => self.visit_i64(i),
            Err(_) => self.visit_f64(v as f64),
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<NodeValue, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => self.visit_f64(v as f64),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<NodeValue, E> {
        Number::from_f64(v)
            .map(NodeValue::Number)
            .ok_or_else(|| E::custom("NaN and infinite numbers are not allowed in a policy"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<NodeValue, E> {
        Ok(NodeValue::Str(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<NodeValue, E> {
        Ok(NodeValue::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NodeValue, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<PolicyNode>()? {
            items.push(item);
        }
        Ok(NodeValue::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NodeValue, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<PolicyNode>()? {
            let value = map.next_value::<PolicyNode>()?;
            entries.push((key, value));
        }
        Ok(NodeValue::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_nodes_carry_positions() {
        let n = parse_yaml("rules:\n  - id: a\n    kind: no_call\n    n: 2.0\n").unwrap();
        let rules = n.get("rules").unwrap();
        assert_eq!((rules.line, rules.column), (2, 3));
        let NodeValue::Seq(items) = &rules.value else {
            panic!("not a list")
        };
        let (k, v) = &items[0].as_map().unwrap()[1];
        assert_eq!(k.as_str(), Some("kind"));
        assert_eq!((k.line, k.column), (3, 5));
        assert_eq!((v.line, v.column), (3, 11));
        assert_eq!(items[0].get("n").unwrap().type_name(), "float");
    }

    #[test]
    fn yaml_duplicate_keys_are_errors() {
        let e = parse_yaml("a: 1\na: 2\n").unwrap_err();
        assert!(e.message.contains("duplicate"), "{e:?}");
        assert_eq!(e.line, 2);
    }

    #[test]
    fn yaml_one_point_two_booleans() {
        let n = parse_yaml("a: yes\nb: true\nc: 01\n").unwrap();
        assert_eq!(n.get("a").unwrap().type_name(), "str");
        assert_eq!(n.get("b").unwrap().type_name(), "bool");
    }

    #[test]
    fn json_is_strict_and_positioned() {
        let e = parse_json("{\"a\": 1,}").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.column > 0);
        let n = parse_json("{\n  \"rules\": [\n    {\"kind\": \"no_call\"}\n  ]\n}").unwrap();
        let r = n.get("rules").unwrap();
        assert_eq!(r.line, 2);
    }

    #[test]
    fn anchors_and_aliases_resolve() {
        let n = parse_yaml("x: &p {tool: a}\ny: *p\n").unwrap();
        assert_eq!(n.get("y").unwrap().get("tool").unwrap().as_str(), Some("a"));
    }
}
