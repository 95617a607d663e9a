//! traxr's `ExperimentResults.to_json()` layout (spec `experiment.md` §11.4): Python's
//! `json.dumps(…, sort_keys=True, indent=2)` plus a trailing newline — keys sorted, two-space
//! indent, non-ASCII characters as `\uXXXX` escapes, floats in Python `repr` (shortest
//! round-trip). veer's generic [`crate::json::to_json`] keeps struct order and raw UTF-8, so an
//! experiment export that diffs cleanly against traxr's needs this writer.

use serde::Serialize;
use serde_json::{Number, Value};
use std::fmt::Write as _;
use veer_experiment::ExperimentReport;
use veer_trace::pyjson::py_float_repr;

/// The experiment report in traxr's `to_json` layout (with veer's extra keys `schema_version`,
/// `errors` and the per-perturbation and per-group aggregates).
pub fn render(report: &ExperimentReport) -> String {
    to_sorted_json(report)
}

/// Any serialisable value as `json.dumps(value, sort_keys=True, indent=2) + "\n"`.
pub fn to_sorted_json<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(v) => {
            let mut out = String::new();
            write_value(&mut out, &v, 0);
            out.push('\n');
            out
        }
        // Report structs hold only strings, numbers, bools and maps with string keys.
        Err(e) => format!("{{\"error\": \"cannot serialise report: {e}\"}}\n"),
    }
}

fn indent(out: &mut String, level: usize) {
    out.push('\n');
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_value(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str(out, s),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                write_value(out, x, level + 1);
            }
            indent(out, level);
            out.push(']');
        }
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        Value::Object(m) => {
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            // Python sorts str keys by code point, which is UTF-8 byte order.
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (k, x)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                write_str(out, k);
                out.push_str(": ");
                write_value(out, x, level + 1);
            }
            indent(out, level);
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
        out.push_str(&py_float_repr(f));
    }
}

/// A JSON string with Python's `ensure_ascii` escaping.
fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_layout() {
        let v = json!({"b": [1, 2.0, 1e-5], "a": {}, "c": [], "d": "é\u{1F600}\"", "e": null});
        assert_eq!(
            to_sorted_json(&v),
            "{\n  \"a\": {},\n  \"b\": [\n    1,\n    2.0,\n    1e-05\n  ],\n  \"c\": [],\n  \
             \"d\": \"\\u00e9\\ud83d\\ude00\\\"\",\n  \"e\": null\n}\n"
        );
    }
}
