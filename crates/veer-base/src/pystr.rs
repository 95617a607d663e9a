//! Python's view of JSON values, as traxr sees them: `str()`, `repr()` of strings, equality and
//! truthiness (spec `experiment.md` §1 "Python str() of a JSON value", §3).
//!
//! traxr builds signatures with f-strings and compares payload fields with `==`, so veer must
//! render and compare values exactly as CPython does. The rules are written once, over
//! [`PyValue`]: `serde_json::Value` (reports, the diff's fingerprints) here, and the compact
//! payload tree veer-trace holds events in, which implements the trait beside its type.

use crate::pyjson::py_float_repr;
use crate::unicode_tables::NON_PRINTABLE;
use serde_json::{Map, Number, Value};
use std::fmt::Write as _;

/// One level of a JSON value, borrowed: what the Python rules look at.
pub enum PyNode<'a, V: PyValue> {
    /// `null` (`None`).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number (`i64`, `u64` or finite `f64`).
    Number(&'a Number),
    /// A string.
    String(&'a str),
    /// A list.
    Array(&'a [V]),
    /// A dict, in input order.
    Object(&'a V::Object),
}

/// A JSON value type the Python rules read ([`Value`] here; veer-trace's payload tree beside its type).
pub trait PyValue: Sized + 'static {
    /// Its object type.
    type Object: PyObject<Self>;
    /// The value's top level.
    fn node(&self) -> PyNode<'_, Self>;
}

/// A JSON object as the Python rules read it.
pub trait PyObject<V: 'static> {
    /// Number of entries.
    fn len(&self) -> usize;
    /// Whether there are no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The value of `key`, if present.
    fn get(&self, key: &str) -> Option<&V>;
    /// The entries in order.
    fn entries(&self) -> impl Iterator<Item = (&str, &V)>;
}

impl PyValue for Value {
    type Object = Map<String, Value>;
    fn node(&self) -> PyNode<'_, Value> {
        match self {
            Value::Null => PyNode::Null,
            Value::Bool(b) => PyNode::Bool(*b),
            Value::Number(n) => PyNode::Number(n),
            Value::String(s) => PyNode::String(s),
            Value::Array(a) => PyNode::Array(a),
            Value::Object(o) => PyNode::Object(o),
        }
    }
}

impl PyObject<Value> for Map<String, Value> {
    fn len(&self) -> usize {
        Map::len(self)
    }
    fn get(&self, key: &str) -> Option<&Value> {
        Map::get(self, key)
    }
    fn entries(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// Python `str(value)` of a JSON value: a top-level string is itself; `None`, `True`, `False`;
/// integers in decimal; floats in Python `repr`; lists and dicts with nested `repr`.
pub fn py_str<V: PyValue>(value: &V) -> String {
    let mut out = String::new();
    push_py_str(&mut out, value);
    out
}

/// Appends Python `str(value)` to `out` (see [`py_str`]).
pub fn push_py_str<V: PyValue>(out: &mut String, value: &V) {
    match value.node() {
        PyNode::String(s) => out.push_str(s),
        _ => write_repr(out, value),
    }
}

/// Appends Python `repr(value)`: strings quoted and escaped, containers recursively.
pub fn write_repr<V: PyValue>(out: &mut String, value: &V) {
    match value.node() {
        PyNode::Null => out.push_str("None"),
        PyNode::Bool(true) => out.push_str("True"),
        PyNode::Bool(false) => out.push_str("False"),
        PyNode::Number(n) => write_number(out, n),
        PyNode::String(s) => write_str_repr(out, s),
        PyNode::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        PyNode::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.entries().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str_repr(out, k);
                out.push_str(": ");
                write_repr(out, v);
            }
            out.push('}');
        }
    }
}

fn write_number(out: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        // Also integers beyond 64 bits, which serde_json reads as f64 (spec §1 **veer:**).
        out.push_str(&py_float_repr(f));
    }
}

/// Whether Python's `str.isprintable()` is false for `c`.
pub(crate) fn is_non_printable(c: char) -> bool {
    let c = c as u32;
    NON_PRINTABLE
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Appends Python `repr(s)` of a string.
pub(crate) fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_non_printable(c) => {
                let v = c as u32;
                if v <= 0xff {
                    let _ = write!(out, "\\x{v:02x}");
                } else if v <= 0xffff {
                    let _ = write!(out, "\\u{v:04x}");
                } else {
                    let _ = write!(out, "\\U{v:08x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Python truthiness: `null`, `false`, `0`, `0.0`, `""`, `[]`, `{}` are falsy.
pub fn truthy<V: PyValue>(value: &V) -> bool {
    match value.node() {
        PyNode::Null => false,
        PyNode::Bool(b) => b,
        PyNode::Number(n) => {
            if let Some(i) = n.as_i64() {
                i != 0
            } else if let Some(u) = n.as_u64() {
                u != 0
            } else {
                n.as_f64().is_some_and(|f| f != 0.0)
            }
        }
        PyNode::String(s) => !s.is_empty(),
        PyNode::Array(a) => !a.is_empty(),
        PyNode::Object(m) => !m.is_empty(),
    }
}

/// A JSON number or bool as Python sees it in `==`: bools are the integers 0 and 1.
enum PyNum {
    Int(i128),
    Float(f64),
}

fn py_num<V: PyValue>(node: &PyNode<'_, V>) -> Option<PyNum> {
    match node {
        PyNode::Bool(b) => Some(PyNum::Int(i128::from(*b))),
        PyNode::Number(n) => {
            if let Some(i) = n.as_i64() {
                Some(PyNum::Int(i128::from(i)))
            } else if let Some(u) = n.as_u64() {
                Some(PyNum::Int(i128::from(u)))
            } else {
                n.as_f64().map(PyNum::Float)
            }
        }
        _ => None,
    }
}

fn num_eq(a: &PyNum, b: &PyNum) -> bool {
    match (a, b) {
        (PyNum::Int(x), PyNum::Int(y)) => x == y,
        (PyNum::Float(x), PyNum::Float(y)) => x == y,
        // Python compares int and float exactly; an integral float within range is exact.
        (PyNum::Int(i), PyNum::Float(f)) | (PyNum::Float(f), PyNum::Int(i)) => {
            f.fract() == 0.0 && f.abs() < 1.8e38 && (*f as i128) == *i
        }
    }
}

/// Python `a == b` on two JSON values (`1 == 1.0 == True`, dicts compared as key sets).
pub fn py_eq<V: PyValue>(a: &V, b: &V) -> bool {
    let (a, b) = (a.node(), b.node());
    if let (Some(x), Some(y)) = (py_num(&a), py_num(&b)) {
        return num_eq(&x, &y);
    }
    match (a, b) {
        (PyNode::Null, PyNode::Null) => true,
        (PyNode::String(x), PyNode::String(y)) => x == y,
        (PyNode::Array(x), PyNode::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (PyNode::Object(x), PyNode::Object(y)) => {
            x.len() == y.len()
                && x.entries()
                    .all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => false,
    }
}

/// Python `a == b` where an absent field compares as `None`.
pub fn py_eq_opt<V: PyValue>(a: Option<&V>, b: Option<&V>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => py_eq(x, y),
        (None, None) => true,
        (Some(x), None) | (None, Some(x)) => matches!(x.node(), PyNode::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn str_of_scalars_and_containers() {
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(py_str(&json!(3)), "3");
        assert_eq!(py_str(&json!(1.0)), "1.0");
        assert_eq!(py_str(&json!(1e-5)), "1e-05");
        assert_eq!(py_str(&json!(["a", 1])), "['a', 1]");
        assert_eq!(
            py_str(&json!({"k": [1, true, null]})),
            "{'k': [1, True, None]}"
        );
        assert_eq!(py_str(&json!("top")), "top");
    }

    #[test]
    fn repr_quotes_and_escapes() {
        let r = |s: &str| {
            let mut o = String::new();
            write_str_repr(&mut o, s);
            o
        };
        assert_eq!(r("it's"), "\"it's\"");
        assert_eq!(r("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(r("a\nb\t\\"), "'a\\nb\\t\\\\'");
        assert_eq!(r("\u{1}\u{7f}"), "'\\x01\\x7f'");
        assert_eq!(r("\u{a0}é"), "'\\xa0é'");
        assert_eq!(r("\u{200b}"), "'\\u200b'");
        assert_eq!(r("\u{e0001}"), "'\\U000e0001'");
        assert_eq!(r("日本 x"), "'日本 x'");
    }

    #[test]
    fn equality_is_pythons() {
        assert!(py_eq(&json!(1), &json!(1.0)));
        assert!(py_eq(&json!(true), &json!(1)));
        assert!(!py_eq(&json!(false), &json!(null)));
        assert!(py_eq(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1.0})));
        assert!(!py_eq(&json!("1"), &json!(1)));
        assert!(py_eq_opt(None, Some(&json!(null))));
    }

    #[test]
    fn truthiness() {
        for v in [
            json!(null),
            json!(0),
            json!(0.0),
            json!(""),
            json!([]),
            json!({}),
            json!(false),
        ] {
            assert!(!truthy(&v), "{v}");
        }
        for v in [
            json!("false"),
            json!(1),
            json!([0]),
            json!(true),
            json!(-0.5),
        ] {
            assert!(truthy(&v), "{v}");
        }
    }

    /// The comparison and truthiness as written for `serde_json::Value` before the rules were
    /// made generic: the oracle of the property test below.
    mod plain {
        use serde_json::Value;

        pub fn truthy(value: &Value) -> bool {
            match value {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => {
                    if let Some(i) = n.as_i64() {
                        i != 0
                    } else if let Some(u) = n.as_u64() {
                        u != 0
                    } else {
                        n.as_f64().is_some_and(|f| f != 0.0)
                    }
                }
                Value::String(s) => !s.is_empty(),
                Value::Array(a) => !a.is_empty(),
                Value::Object(m) => !m.is_empty(),
            }
        }

        enum PyNum {
            Int(i128),
            Float(f64),
        }

        fn py_num(value: &Value) -> Option<PyNum> {
            match value {
                Value::Bool(b) => Some(PyNum::Int(i128::from(*b))),
                Value::Number(n) => {
                    if let Some(i) = n.as_i64() {
                        Some(PyNum::Int(i128::from(i)))
                    } else if let Some(u) = n.as_u64() {
                        Some(PyNum::Int(i128::from(u)))
                    } else {
                        n.as_f64().map(PyNum::Float)
                    }
                }
                _ => None,
            }
        }

        fn num_eq(a: &PyNum, b: &PyNum) -> bool {
            match (a, b) {
                (PyNum::Int(x), PyNum::Int(y)) => x == y,
                (PyNum::Float(x), PyNum::Float(y)) => x == y,
                (PyNum::Int(i), PyNum::Float(f)) | (PyNum::Float(f), PyNum::Int(i)) => {
                    f.fract() == 0.0 && f.abs() < 1.8e38 && (*f as i128) == *i
                }
            }
        }

        pub fn py_eq(a: &Value, b: &Value) -> bool {
            if let (Some(x), Some(y)) = (py_num(a), py_num(b)) {
                return num_eq(&x, &y);
            }
            match (a, b) {
                (Value::Null, Value::Null) => true,
                (Value::String(x), Value::String(y)) => x == y,
                (Value::Array(x), Value::Array(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
                }
                (Value::Object(x), Value::Object(y)) => {
                    x.len() == y.len()
                        && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
                }
                _ => false,
            }
        }
    }

    /// Any JSON value: odd numbers (beyond i64, floats that equal integers), strings with
    /// quotes and non-printables, nested lists and dicts (small key set, so dicts collide).
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..3).prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            prop_oneof![
                Just(0.0),
                Just(-0.0),
                Just(1.0),
                Just(2.5),
                Just(1e300),
                any::<f64>()
            ]
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
            "[a'\"\\\n\u{0}\u{a0}\u{200b}é]{0,4}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(("[abc]", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The generic rules, on `serde_json::Value`, agree with a plain recursive reading.
        #[test]
        fn value_reads_as_python(a in value(), b in value(), same in any::<bool>()) {
            let b = if same { a.clone() } else { b };
            prop_assert_eq!(py_eq(&a, &b), plain::py_eq(&a, &b));
            prop_assert_eq!(py_eq(&b, &a), plain::py_eq(&b, &a));
            prop_assert_eq!(truthy(&a), plain::truthy(&a));
            prop_assert_eq!(py_eq_opt(Some(&a), None), plain::py_eq(&a, &Value::Null));
            prop_assert_eq!(py_eq_opt::<Value>(None, None), true);
        }
    }
}
