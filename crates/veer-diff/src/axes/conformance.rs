//! `conformance`: does the candidate keep the baseline's structured-output contract (rate;
//! spec `diff.md` §5.9)? JSON intent is judged on the fence-stripped baseline text, tool
//! intent on the first object-input tool call's key set.

use super::{row_from_values, Axis, AxisStat, Kind, Row, TurnPair};
use crate::stats::Statistic;

/// Strips one Markdown code fence around `t` (with or without a language tag) and trims.
pub fn strip_fences(t: &str) -> &str {
    let t = t.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let body = match t.find('\n') {
        Some(nl) => &t[nl + 1..],
        None => rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric()),
    };
    let body = body.trim_end();
    body.strip_suffix("```").unwrap_or(body).trim()
}

/// Whether `text` parses as any JSON value.
pub fn parses(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// The row before its interval (see [`super::compute_axes`]).
pub(crate) fn prepare(pairs: &[TurnPair<'_>]) -> Row {
    let mut b = Vec::new();
    let mut c = Vec::new();
    let mut idx = Vec::new();
    for (i, (bt, ct)) in pairs.iter().enumerate() {
        let bs = strip_fences(&bt.features.text);
        if bs.starts_with('{') || bs.starts_with('[') {
            idx.push(i);
            b.push(f64::from(u8::from(parses(bs))));
            c.push(f64::from(u8::from(parses(strip_fences(&ct.features.text)))));
        } else if let Some(keys) = bt.first_object_keys() {
            idx.push(i);
            b.push(1.0);
            c.push(f64::from(u8::from(ct.first_object_keys() == Some(keys))));
        }
    }
    if b.is_empty() {
        return Row::Done(AxisStat::empty(Axis::Conformance));
    }
    row_from_values(
        Axis::Conformance,
        &b,
        &c,
        Statistic::MeanDifference,
        Kind::Rate,
    )
    .with_idx(idx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences() {
        assert_eq!(strip_fences("```json\n{\"a\":1}\n```"), "{\"a\":1}");
        assert_eq!(strip_fences("```json{\"a\":1}```"), "{\"a\":1}");
        assert_eq!(strip_fences("  {\"a\":1} "), "{\"a\":1}");
        assert!(parses("[1,2]"));
        assert!(!parses("{oops"));
    }
}
