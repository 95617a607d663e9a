//! Python's view of JSON values, as traxr sees them: `str()`, `repr()` of strings, equality and
//! truthiness (spec `experiment.md` §1 "Python str() of a JSON value", §3).
//!
//! traxr builds signatures with f-strings and compares payload fields with `==`, so veer must
//! render and compare values exactly as CPython does.

use crate::unicode_tables::NON_PRINTABLE;
use serde_json::{Number, Value};
use std::fmt::Write as _;
use veer_trace::pyjson::py_float_repr;

/// Python `str(value)` of a JSON value: a top-level string is itself; `None`, `True`, `False`;
/// integers in decimal; floats in Python `repr`; lists and dicts with nested `repr`.
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => {
            let mut out = String::new();
            write_repr(&mut out, other);
            out
        }
    }
}

/// Appends Python `str(value)` to `out` (see [`py_str`]).
pub fn push_py_str(out: &mut String, value: &Value) {
    match value {
        Value::String(s) => out.push_str(s),
        other => write_repr(out, other),
    }
}

/// Appends Python `repr(value)`: strings quoted and escaped, containers recursively.
pub fn write_repr(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str_repr(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
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
pub fn is_non_printable(c: char) -> bool {
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
pub fn write_str_repr(out: &mut String, s: &str) {
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

/// A JSON number or bool as Python sees it in `==`: bools are the integers 0 and 1.
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
        // Python compares int and float exactly; an integral float within range is exact.
        (PyNum::Int(i), PyNum::Float(f)) | (PyNum::Float(f), PyNum::Int(i)) => {
            f.fract() == 0.0 && f.abs() < 1.8e38 && (*f as i128) == *i
        }
    }
}

/// Python `a == b` on two JSON values (`1 == 1.0 == True`, dicts compared as key sets).
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
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => false,
    }
}

/// Python `a == b` where an absent field compares as `None`.
pub fn py_eq_opt(a: Option<&Value>, b: Option<&Value>) -> bool {
    py_eq(a.unwrap_or(&Value::Null), b.unwrap_or(&Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
