//! `when:` conditions (spec `policy.md` §3): a path, an operator and a literal, ANDed.
//!
//! A condition whose path is missing is false whatever the operator; present values (null
//! included) compare with JSON equality, where numbers compare by value and booleans equal only
//! booleans.

use crate::context::PairContext;
use crate::path::Path;
use serde_json::Value;
use std::cmp::Ordering;
use veer_trace::Json;

/// The ten operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `in`
    In,
    /// `not_in`
    NotIn,
    /// `contains`
    Contains,
    /// `not_contains`
    NotContains,
}

/// Operator spellings, sorted as Shadow lists them.
pub(crate) const OPS: [&str; 10] = [
    "!=",
    "<",
    "<=",
    "==",
    ">",
    ">=",
    "contains",
    "in",
    "not_contains",
    "not_in",
];

impl Op {
    /// The operator for a spelling.
    pub fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "==" => Op::Eq,
            "!=" => Op::Ne,
            ">" => Op::Gt,
            ">=" => Op::Ge,
            "<" => Op::Lt,
            "<=" => Op::Le,
            "in" => Op::In,
            "not_in" => Op::NotIn,
            "contains" => Op::Contains,
            "not_contains" => Op::NotContains,
            _ => return None,
        })
    }

    /// Whether the operator compares numbers.
    pub(crate) fn is_ordering(self) -> bool {
        matches!(self, Op::Gt | Op::Ge | Op::Lt | Op::Le)
    }
}

/// One condition of a `when:` (or `trigger:`) clause.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// Where to look.
    pub path: Path,
    /// How to compare.
    pub op: Op,
    /// The literal.
    pub value: Value,
}

impl Condition {
    /// Whether the condition holds in `ctx`.
    pub fn matches(&self, ctx: &PairContext<'_>) -> bool {
        let Some(a) = self.path.resolve(ctx) else {
            return false;
        };
        let v = &self.value;
        match self.op {
            Op::Eq => eq_literal(a, v),
            Op::Ne => !eq_literal(a, v),
            Op::Gt | Op::Ge | Op::Lt | Op::Le => {
                let (Json::Number(x), Value::Number(y)) = (a, v) else {
                    return false;
                };
                let Some(ord) = num_cmp(x, y) else {
                    return false;
                };
                match self.op {
                    Op::Gt => ord == Ordering::Greater,
                    Op::Ge => ord != Ordering::Less,
                    Op::Lt => ord == Ordering::Less,
                    _ => ord != Ordering::Greater,
                }
            }
            Op::In => v
                .as_array()
                .is_some_and(|l| l.iter().any(|e| eq_literal(a, e))),
            Op::NotIn => v
                .as_array()
                .is_some_and(|l| !l.iter().any(|e| eq_literal(a, e))),
            Op::Contains => contains(a, v),
            Op::NotContains => !contains(a, v),
        }
    }
}

/// Whether every condition holds (an empty list holds).
pub(crate) fn all_match(conditions: &[Condition], ctx: &PairContext<'_>) -> bool {
    conditions.iter().all(|c| c.matches(ctx))
}

fn contains(a: &Json, v: &Value) -> bool {
    match (a, v) {
        (Json::String(s), Value::String(n)) => s.contains(n.as_str()),
        (Json::Array(items), _) => items.iter().any(|e| eq_literal(e, v)),
        (Json::Object(m), Value::String(k)) => m.contains_key(k),
        _ => false,
    }
}

fn num_cmp(x: &serde_json::Number, y: &serde_json::Number) -> Option<Ordering> {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return Some(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return Some(a.cmp(&b));
    }
    x.as_f64()?.partial_cmp(&y.as_f64()?)
}

/// JSON equality: numbers by value (`500 == 500.0`), booleans only with booleans, arrays
/// element-wise, objects by key set and values (key order ignored).
pub(crate) fn json_eq(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Null, Json::Null) => true,
        (Json::Bool(x), Json::Bool(y)) => x == y,
        (Json::Number(x), Json::Number(y)) => num_cmp(x, y) == Some(Ordering::Equal),
        (Json::String(x), Json::String(y)) => x == y,
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| json_eq(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| json_eq(p, q)))
        }
        _ => false,
    }
}

/// [`json_eq`] between a value of the trace and a policy literal: the same rules.
pub(crate) fn eq_literal(a: &Json, b: &Value) -> bool {
    match (a, b) {
        (Json::Null, Value::Null) => true,
        (Json::Bool(x), Value::Bool(y)) => x == y,
        (Json::Number(x), Value::Number(y)) => num_cmp(x, y) == Some(Ordering::Equal),
        (Json::String(x), Value::String(y)) => **x == **y,
        (Json::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq_literal(p, q))
        }
        (Json::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| eq_literal(p, q)))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx(request: &Json) -> PairContext<'_> {
        PairContext {
            request,
            response: request,
            model: Json::Null,
            stop_reason: json!("end_turn").into(),
            text: json!("hello").into(),
            tool_names: json!(["a", "b"]).into(),
        }
    }

    fn cond(path: &str, op: &str, value: Value) -> Condition {
        Condition {
            path: Path::parse(path).unwrap(),
            op: Op::parse(op).unwrap(),
            value,
        }
    }

    #[test]
    fn equality_rules() {
        let j = |v: Value| Json::from(v);
        for (a, b, equal) in [
            (json!(500), json!(500.0), true),
            (json!(true), json!(1), false),
            (json!("500"), json!(500), false),
            (json!({"a": 1, "b": [1]}), json!({"b": [1.0], "a": 1}), true),
        ] {
            assert_eq!(json_eq(&j(a.clone()), &j(b.clone())), equal, "{a} {b}");
            assert_eq!(eq_literal(&j(a.clone()), &b), equal, "{a} {b}");
        }
    }

    #[test]
    fn operators() {
        let r = json!({"x": 1, "amount": 1000, "s": "abc", "o": {"k": 1}, "n": null});
        let r = Json::from(r);
        let c = ctx(&r);
        assert!(cond("request.amount", ">", json!(500)).matches(&c));
        assert!(!cond("request.s", ">", json!(500)).matches(&c));
        assert!(!cond("request.x", "==", json!(true)).matches(&c));
        assert!(!cond("request.missing", "!=", json!(5)).matches(&c));
        assert!(!cond("request.missing", "not_contains", json!("a")).matches(&c));
        assert!(cond("request.n", "==", Value::Null).matches(&c));
        assert!(cond("request.s", "contains", json!("b")).matches(&c));
        assert!(cond("request.o", "contains", json!("k")).matches(&c));
        assert!(cond("tool_names", "contains", json!("b")).matches(&c));
        assert!(cond("tool_names.1", "==", json!("b")).matches(&c));
        assert!(cond("stop_reason", "in", json!(["end_turn", "x"])).matches(&c));
        assert!(cond("stop_reason", "not_in", json!(["x"])).matches(&c));
        assert!(cond("text", "not_contains", json!("zzz")).matches(&c));
        assert!(cond("request.amount", "<=", json!(1000.0)).matches(&c));
    }
}
