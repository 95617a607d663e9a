//! Answers: where a run's answer is found, traxr's normalisation and its default scorer
//! `check_answer_match` (spec `experiment.md` §6, §7, §12.3).

use crate::events::MetricEvent;
use serde_json::Value;
use veer_base::pytext::{decimal_value, is_py_space};
use veer_base::unicode_tables::CASEFOLD_EXCEPTIONS;
use veer_trace::canonical::hex16_of;
use veer_trace::views::Response;
use veer_trace::{Kind, Trace};

/// A run's answer as the divergence report sees it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TraceAnswer {
    /// The raw answer (`final_answer.answer`, or the last response's text for `.agentlog`);
    /// `None` when absent or null.
    pub raw: Option<Value>,
    /// Its hash (`final_answer.answer_hash`, or SHA-256[:16] of the response text).
    pub hash: Option<Value>,
}

impl TraceAnswer {
    /// The answer shown in reports: the raw answer if known, else the hash.
    pub fn shown(&self) -> Option<&Value> {
        self.raw.as_ref().or(self.hash.as_ref())
    }

    /// The answer as a string for the scorer: the raw answer, else the hash; non-strings are
    /// rendered with Python `str()`.
    pub fn scored(&self) -> Option<String> {
        self.shown().map(veer_base::pystr::py_str)
    }
}

/// The answer of a trace: the **last** `final_answer` event if there is one; otherwise, for
/// native `.agentlog` records, the text of the last `chat_response` (parts joined by `"\n"`)
/// with its SHA-256[:16]; otherwise nothing.
pub(crate) fn trace_answer(trace: &Trace, events: &[MetricEvent<'_>]) -> TraceAnswer {
    if let Some(e) = events
        .iter()
        .rev()
        .find(|e| e.event_type() == "final_answer")
    {
        let known = |k: &str| e.field(k).filter(|v| !v.is_null()).map(|v| v.to_value());
        return TraceAnswer {
            raw: known("answer"),
            hash: known("answer_hash"),
        };
    }
    let last = trace
        .records
        .iter()
        .enumerate()
        .rev()
        .find(|(_, r)| r.kind == Kind::ChatResponse && r.origin.is_none());
    match last {
        Some((record_index, record)) => {
            let text = Response {
                record,
                record_index,
                turn: 0,
            }
            .text("\n");
            let hash = hex16_of(text.as_bytes());
            TraceAnswer {
                raw: Some(Value::String(text)),
                hash: Some(Value::String(hash)),
            }
        }
        None => TraceAnswer::default(),
    }
}

/// The report-level `answer_changed` (§6): raw ≠ raw when both raws are known, else
/// hash ≠ hash (Python equality; two traces without answers → false).
pub(crate) fn report_answer_changed(a: &TraceAnswer, b: &TraceAnswer) -> bool {
    match (&a.raw, &b.raw) {
        (Some(x), Some(y)) => !veer_base::pystr::py_eq(x, y),
        _ => !veer_base::pystr::py_eq_opt(a.hash.as_ref(), b.hash.as_ref()),
    }
}

/// Python `str.casefold()`: full Unicode case folding.
pub(crate) fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match CASEFOLD_EXCEPTIONS.binary_search_by(|(k, _)| k.cmp(&c)) {
            Ok(i) => out.push_str(CASEFOLD_EXCEPTIONS[i].1),
            Err(_) => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// traxr's `normalize_answer`: collapse whitespace, strip, strip every leading and trailing
/// quote (`"`, `'`), case-fold, drop one trailing `.`. `None` → `""`.
pub(crate) fn normalize_answer(s: Option<&str>) -> String {
    let Some(s) = s else {
        return String::new();
    };
    let collapsed = s
        .split(is_py_space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let unquoted = collapsed.trim_matches(|c| c == '"' || c == '\'');
    let mut folded = casefold(unquoted);
    if folded.ends_with('.') {
        folded.pop();
    }
    folded
}

/// Parses `s` when it matches `^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$` (`\d` = any Unicode
/// decimal digit, mapped to ASCII).
fn parse_numeric(s: &str) -> Option<f64> {
    let mut ascii = String::with_capacity(s.len());
    for c in s.chars() {
        match decimal_value(c) {
            Some(d) => ascii.push(char::from(b'0' + d as u8)),
            None => ascii.push(c),
        }
    }
    let b = ascii.as_bytes();
    let mut k = 0;
    if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
        k += 1;
    }
    let int_start = k;
    while k < b.len() && b[k].is_ascii_digit() {
        k += 1;
    }
    let int_digits = k - int_start;
    if int_digits > 0 {
        if k < b.len() && b[k] == b'.' {
            k += 1;
            while k < b.len() && b[k].is_ascii_digit() {
                k += 1;
            }
        }
    } else {
        if k >= b.len() || b[k] != b'.' {
            return None;
        }
        k += 1;
        let frac_start = k;
        while k < b.len() && b[k].is_ascii_digit() {
            k += 1;
        }
        if k == frac_start {
            return None;
        }
    }
    if k < b.len() && (b[k] == b'e' || b[k] == b'E') {
        k += 1;
        if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
            k += 1;
        }
        let exp_start = k;
        while k < b.len() && b[k].is_ascii_digit() {
            k += 1;
        }
        if k == exp_start {
            return None;
        }
    }
    if k != b.len() {
        return None;
    }
    ascii.parse::<f64>().ok()
}

fn numeric_clean(s: &str) -> String {
    let no_commas: String = s.chars().filter(|&c| c != ',').collect();
    let no_dollar = no_commas.strip_prefix('$').unwrap_or(&no_commas);
    no_dollar.trim_end_matches('%').to_string()
}

/// traxr's default scorer: normalised strings equal, or both parse as numbers (after removing
/// `,`, one leading `$` and trailing `%`) within 1e-9. `None` vs `None` is a match.
pub fn check_answer_match(expected: Option<&str>, actual: Option<&str>) -> bool {
    let e = normalize_answer(expected);
    let a = normalize_answer(actual);
    if e == a {
        return true;
    }
    match (
        parse_numeric(&numeric_clean(&e)),
        parse_numeric(&numeric_clean(&a)),
    ) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-9,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_examples() {
        assert_eq!(normalize_answer(Some("  The  Answer. ")), "the answer");
        assert_eq!(normalize_answer(Some("42.")), "42");
        assert_eq!(normalize_answer(Some("\"quoted\"")), "quoted");
        assert_eq!(
            normalize_answer(Some("multi   space\ttabs")),
            "multi space tabs"
        );
        assert_eq!(normalize_answer(Some("\" Paris \"")), " paris ");
        assert_eq!(normalize_answer(Some("Straße\u{1c}X")), "strasse x");
        assert_eq!(normalize_answer(None), "");
        assert_eq!(normalize_answer(Some("\u{85}.\u{85}")), "");
    }

    #[test]
    fn scorer_examples() {
        let m = |a: Option<&str>, b: Option<&str>| check_answer_match(a, b);
        assert!(m(Some("Paris"), Some(" PARIS. ")));
        assert!(m(Some("42"), Some("42.0")));
        assert!(m(Some("1,000"), Some("1000")));
        assert!(m(Some("1,000"), Some("$1000")));
        assert!(m(Some("$5"), Some("5")));
        assert!(m(Some("12%"), Some("12")));
        assert!(!m(Some("42"), Some("43")));
        assert!(m(None, None));
        assert!(!m(Some("Paris"), None));
        assert!(m(Some("٤٢"), Some("42")));
        assert!(m(Some(".5"), Some("0.5")));
        assert!(m(Some("1e3"), Some("1000")));
        assert!(!m(Some("1e"), Some("1")));
        assert!(!m(Some("."), Some("0")));
        assert!(!m(Some("nan"), Some("nan ")) || normalize_answer(Some("nan")) == "nan");
    }
}
