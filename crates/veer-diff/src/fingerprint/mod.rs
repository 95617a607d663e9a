//! The behaviour fingerprint (Shadow 3.2.5's `shadow.statistical.fingerprint`): one
//! 12-dimensional vector per response, every entry in [0, 1], so that a joint test (the
//! Hotelling T² in [`crate::hotelling`]) sees content drift that leaves tokens, latency and tool
//! patterns unchanged. The definitions are written out in `docs/diff.md`.

pub(crate) mod block;
#[doc(hidden)]
pub mod fuzzing;

use veer_base::pystr::{py_str, truthy};
use veer_base::pytext::{self, is_py_space, lowercase, py_float, py_int};
use veer_trace::json::{Json, Object};
use veer_trace::{Kind, Trace};

/// Fingerprint width.
pub const DIM: usize = 12;

/// The dimension names, in vector order: eight behaviour-pattern dimensions, then four
/// content dimensions.
pub(crate) const DIMENSIONS: [&str; DIM] = [
    "tool_call_rate",
    "distinct_tool_frac",
    "stop_end_turn",
    "stop_tool_use",
    "stop_other",
    "output_len_log",
    "latency_log",
    "refusal_flag",
    "text_chars_log",
    "arg_keys_total_log",
    "error_token_flag",
    "numeric_token_density",
];

/// Substrings of the lowercased response text that set `error_token_flag`.
pub(crate) const ERROR_TOKENS: [&str; 9] = [
    "error",
    "exception",
    "failed",
    "cannot",
    "unable",
    "not found",
    "no such",
    "i don't have",
    "i can't access",
];

/// Characters stripped from both ends of a token before the number test.
const NUMBER_PUNCTUATION: &[char] = &[
    '.', ',', ';', ':', '!', '?', '(', ')', '[', ']', '"', '\'', '$', '%',
];

/// The saturation points of the log-scaled dimensions: a value at its scale maps to 1.0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FingerprintScales {
    /// Output tokens (default 4,096).
    pub output_tokens: f64,
    /// Latency in milliseconds (default 30,000).
    pub latency_ms: f64,
    /// Tool calls in one response (default 8).
    pub tool_calls: f64,
    /// Characters of response text (default 16,384).
    pub text_chars: f64,
    /// Argument keys summed over a response's tool calls (default 32).
    pub arg_keys: f64,
}

impl Default for FingerprintScales {
    fn default() -> Self {
        FingerprintScales {
            output_tokens: 4096.0,
            latency_ms: 30_000.0,
            tool_calls: 8.0,
            text_chars: 16_384.0,
            arg_keys: 32.0,
        }
    }
}

/// `ln(1 + value) / ln(1 + scale)`, at most 1; 0 for `value ≤ 0`.
fn log_scale(value: f64, scale: f64) -> f64 {
    if value <= 0.0 {
        return 0.0;
    }
    ((value + 1.0).ln() / (scale + 1.0).ln()).min(1.0)
}

/// Python's `str(x or "")` of an optional JSON value.
fn py_str_or_empty(v: Option<&Json>) -> String {
    match v {
        Some(Json::String(s)) => s.to_string(),
        // Rare (a non-string name or stop reason): Python's rendering of the value.
        Some(other) => {
            let v = other.to_value();
            if truthy(&v) {
                py_str(&v)
            } else {
                String::new()
            }
        }
        None => String::new(),
    }
}

/// Python's `float(x or 0)` of an optional JSON value; 0 for values Python would reject.
fn py_float_or_zero(v: Option<&Json>) -> f64 {
    match v {
        Some(Json::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Json::Bool(true)) => 1.0,
        Some(Json::String(s)) if !s.is_empty() => py_float(s).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Python's `int(x or 0)` of an optional JSON value (floats truncate toward zero); 0 for
/// values Python would reject.
fn py_int_or_zero(v: Option<&Json>) -> f64 {
    match v {
        Some(Json::Number(n)) => match n.as_i64() {
            Some(i) => i as f64,
            None => n.as_f64().map_or(0.0, f64::trunc),
        },
        Some(Json::Bool(true)) => 1.0,
        Some(Json::String(s)) if !s.is_empty() => py_int(s).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Share (0–1) of the whitespace-separated tokens of `text` that Python's `float()` accepts
/// once `.,;:!?()[]"'$%` are stripped from their ends; 0 for empty text.
pub(crate) fn numeric_token_density(text: &str) -> f64 {
    let mut tokens = 0usize;
    let mut numeric = 0usize;
    for raw in text.split(is_py_space).filter(|t| !t.is_empty()) {
        tokens += 1;
        let cleaned = raw.trim_matches(NUMBER_PUNCTUATION);
        if !cleaned.is_empty() && pytext::py_float_accepts(cleaned) {
            numeric += 1;
        }
    }
    if tokens == 0 {
        0.0
    } else {
        numeric as f64 / tokens as f64
    }
}

/// 1.0 when the lowercased text contains one of [`ERROR_TOKENS`], else 0.0.
pub(crate) fn error_token_flag(text: &str) -> f64 {
    let lower = lowercase(text);
    if ERROR_TOKENS.iter().any(|t| lower.contains(t)) {
        1.0
    } else {
        0.0
    }
}

/// The fingerprint of one `chat_response` payload. A payload that is not an object, or fields
/// of unexpected types, count as absent (the reference would raise on some of them).
pub(crate) fn response_vector(payload: &Json, scales: &FingerprintScales) -> [f64; DIM] {
    let empty = Object::default();
    let p = payload.as_object().unwrap_or(&empty);
    let blocks: Vec<&Object> = p
        .get("content")
        .and_then(Json::as_array)
        .map(|a| a.iter().filter_map(Json::as_object).collect())
        .unwrap_or_default();
    let is_type = |b: &Object, t: &str| b.get("type").and_then(Json::as_str) == Some(t);

    let tools: Vec<&Object> = blocks
        .iter()
        .copied()
        .filter(|b| is_type(b, "tool_use"))
        .collect();
    let mut names: Vec<String> = tools
        .iter()
        .map(|b| py_str_or_empty(b.get("name")))
        .collect();
    names.sort_unstable();
    names.dedup();
    let tool_count = tools.len() as f64;
    let distinct = if tools.is_empty() {
        0.0
    } else {
        names.len() as f64 / tool_count
    };

    let stop = py_str_or_empty(p.get("stop_reason"));
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let known = matches!(
        stop.as_str(),
        "end_turn" | "tool_use" | "content_filter" | ""
    );

    let usage = p.get("usage").and_then(Json::as_object);
    let out_tokens = py_int_or_zero(usage.and_then(|u| u.get("output_tokens")));
    let latency = py_float_or_zero(p.get("latency_ms"));

    let texts: Vec<&str> = blocks
        .iter()
        .filter(|b| is_type(b, "text"))
        .filter_map(|b| b.get("text").and_then(Json::as_str))
        .collect();
    let text = texts.join("\n");
    let arg_keys: usize = tools
        .iter()
        .filter_map(|b| b.get("input").and_then(Json::as_object))
        .map(Object::len)
        .sum();

    [
        log_scale(tool_count, scales.tool_calls),
        distinct,
        flag(stop == "end_turn"),
        flag(stop == "tool_use"),
        flag(!known),
        log_scale(out_tokens, scales.output_tokens),
        log_scale(latency, scales.latency_ms),
        flag(stop == "content_filter"),
        log_scale(text.chars().count() as f64, scales.text_chars),
        log_scale(arg_keys as f64, scales.arg_keys),
        error_token_flag(&text),
        numeric_token_density(&text),
    ]
}

/// The fingerprints of every response of `trace`, in record order (rows computed in parallel,
/// gathered in order).
pub fn trace_matrix(trace: &Trace, scales: &FingerprintScales) -> Vec<[f64; DIM]> {
    use rayon::prelude::*;
    trace
        .records
        .par_iter()
        .filter(|r| r.kind == Kind::ChatResponse)
        .map(|r| response_vector(&r.payload, scales))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A response worked by hand: two tool calls of one name with 3 argument keys in all,
    /// stop `tool_use`, 99 output tokens, 2,999 ms, text "Found 2 items." (14 characters).
    #[test]
    fn a_response_by_hand() {
        let payload = json!({
            "content": [
                {"type": "text", "text": "Found 2 items."},
                {"type": "tool_use", "name": "lookup", "input": {"a": 1, "b": 2}},
                {"type": "tool_use", "name": "lookup", "input": {"c": 3}},
            ],
            "stop_reason": "tool_use",
            "usage": {"output_tokens": 99},
            "latency_ms": 2999,
        });
        let v = response_vector(&payload.into(), &FingerprintScales::default());
        let want = [
            3f64.ln() / 9f64.ln(),
            0.5,
            0.0,
            1.0,
            0.0,
            100f64.ln() / 4097f64.ln(),
            3000f64.ln() / 30_001f64.ln(),
            0.0,
            15f64.ln() / 16_385f64.ln(),
            4f64.ln() / 33f64.ln(),
            0.0,
            1.0 / 3.0,
        ];
        assert_eq!(v, want);
    }

    #[test]
    fn odd_shapes_count_as_absent() {
        let v = response_vector(
            &json!("not an object").into(),
            &FingerprintScales::default(),
        );
        assert_eq!(v, [0.0; DIM]);
        let v = response_vector(
            &json!({"content": "plain", "stop_reason": "max_tokens", "usage": [], "latency_ms": "12.5"}).into(),
            &FingerprintScales::default(),
        );
        assert_eq!(v[4], 1.0, "max_tokens is another stop");
        assert_eq!(
            v[6],
            13.5f64.ln() / 30_001f64.ln(),
            "a numeric string is parsed as Python does"
        );
        assert_eq!(v[8], 0.0, "string content holds no text blocks");
    }

    #[test]
    fn saturates_at_the_scale() {
        let payload = json!({"usage": {"output_tokens": 1_000_000}, "latency_ms": 30_000});
        let v = response_vector(&payload.into(), &FingerprintScales::default());
        assert_eq!(v[5], 1.0);
        assert_eq!(v[6], 1.0);
    }

    #[test]
    fn error_tokens_and_numbers() {
        assert_eq!(error_token_flag("Unable to complete"), 1.0);
        assert_eq!(error_token_flag("I DON'T HAVE it"), 1.0);
        assert_eq!(error_token_flag("fine"), 0.0);
        // "$12.50," and "(3)" are numbers; "items." is not; "—" is a token.
        assert_eq!(numeric_token_density("$12.50, (3) items. —"), 0.5);
        assert_eq!(numeric_token_density("   "), 0.0);
    }
}
