//! Python's `json.dumps(value, sort_keys=True)` byte for byte, for traxr's `content_hash`, and
//! its `indent=2` form, for traxr's results export.
//!
//! Separators `", "` and `": "`, keys sorted by code point, `ensure_ascii` escaping (everything
//! outside U+0020–U+007E as `\uXXXX`, surrogate pairs above the BMP), floats in Python `repr`.

use serde_json::{Number, Value};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// `json.dumps(value, sort_keys=True)` as Python writes it.
pub(crate) fn dumps_sorted(value: &Value) -> String {
    let mut out = String::new();
    write(&mut out, value, None);
    out
}

/// `json.dumps(value, sort_keys=True, indent=2)` as Python writes it: items on their own
/// lines, two spaces per level, `,` ending a line, empty containers as `[]` / `{}`.
pub fn dumps_sorted_indented(value: &Value) -> String {
    let mut out = String::new();
    write(&mut out, value, Some(0));
    out
}

/// traxr's `content_hash`: first 16 hex digits of SHA-256 over `dumps_sorted` of the payload.
pub fn traxr_content_hash(payload: &Value) -> String {
    let digest = Sha256::digest(dumps_sorted(payload).as_bytes());
    let mut s = String::with_capacity(16);
    crate::hex::push_hex(&mut s, &digest[..8]);
    s
}

/// Before an item: `", "` between items on one line, or a line break and the item's indent.
fn separate(out: &mut String, first: bool, level: Option<usize>) {
    match level {
        None if !first => out.push_str(", "),
        None => {}
        Some(l) => {
            if !first {
                out.push(',');
            }
            newline(out, l + 1);
        }
    }
}

fn newline(out: &mut String, level: usize) {
    out.push('\n');
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// `level`: None for one line, Some(depth) when indenting.
fn write(out: &mut String, v: &Value, level: Option<usize>) {
    let inner = level.map(|l| l + 1);
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                separate(out, i == 0, level);
                write(out, x, inner);
            }
            if let (Some(l), false) = (level, a.is_empty()) {
                newline(out, l);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            // Python sorts str keys by code point, which is UTF-8 byte order.
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (k, x)) in entries.iter().enumerate() {
                separate(out, i == 0, level);
                write_str(out, k);
                out.push_str(": ");
                write(out, x, inner);
            }
            if let (Some(l), false) = (level, m.is_empty()) {
                newline(out, l);
            }
            out.push('}');
        }
    }
}

fn write_number(out: &mut String, n: &Number) {
    if n.is_f64() {
        if let Some(f) = n.as_f64() {
            out.push_str(&py_float_repr(f));
        }
    } else if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    }
}

/// Python's `repr(float)`: shortest round-trip digits; scientific notation when the decimal
/// exponent is below -4 or at least 16; integral values keep `.0`.
pub fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "d.ddde<exp>".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if f < 0.0 { "-" } else { "" };
    let decpt = exp + 1; // position of the decimal point relative to the digit string
    if -4 < decpt && decpt <= 16 {
        let body = if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if (decpt as usize) >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(decpt as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..decpt as usize],
                &digits[decpt as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let mant = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        let e = decpt - 1;
        let esign = if e < 0 { '-' } else { '+' };
        format!("{sign}{mant}e{esign}{:02}", e.abs())
    }
}

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
                    let _ = write!(out, "\\u{:04x}", u);
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(json: &str) -> String {
        traxr_content_hash(&serde_json::from_str(json).unwrap())
    }

    /// The vectors of trace-formats.md §3.1.
    #[test]
    fn spec_vectors() {
        assert_eq!(
            hash(r#"{"answer_hash": "ff29438fb7a23c7e"}"#),
            "ce8ac0d1fc9556c1"
        );
        assert_eq!(
            hash(
                r#"{"content_hash": "e3b0c44298fc1c14", "finish_reason": "tool_calls", "model": "mock-model", "tool_call_names": ["lookup"], "usage": {"completion_tokens": 5, "prompt_tokens": 10, "total_tokens": 15}}"#
            ),
            "28eb57f12d9d1922"
        );
        assert_eq!(
            hash(
                r#"{"arguments_hash": "b734541e6c1c6e7f", "call_id": "call_g1", "tool_name": "lookup"}"#
            ),
            "144c49e5d17881a9"
        );
        let v = serde_json::json!({"a": 1e-05, "b": "é\u{7f}", "c": [true, null, 1.0]});
        assert_eq!(
            dumps_sorted(&v),
            r#"{"a": 1e-05, "b": "\u00e9\u007f", "c": [true, null, 1.0]}"#
        );
        assert_eq!(traxr_content_hash(&v), "23994391ef36e6a6");
    }

    #[test]
    fn float_repr_matches_python() {
        for (f, s) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-05, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789.125, "123456789.125"),
            (-2.5, "-2.5"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
            (12345678901234567890.0, "1.2345678901234567e+19"),
        ] {
            assert_eq!(py_float_repr(f), s, "{f}");
        }
    }

    #[test]
    fn non_bmp_is_a_surrogate_pair() {
        assert_eq!(
            dumps_sorted(&Value::String("😀".into())),
            r#""\ud83d\ude00""#
        );
    }
}
