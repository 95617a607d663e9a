//! traxr's `ExperimentResults.to_json()` layout (spec `experiment.md` §11.4): Python's
//! `json.dumps(…, sort_keys=True, indent=2)` plus a trailing newline — keys sorted, two-space
//! indent, non-ASCII characters as `\uXXXX` escapes, floats in Python `repr` (shortest
//! round-trip). veer's generic [`crate::json::to_json`] keeps struct order and raw UTF-8, so an
//! experiment export that diffs cleanly against traxr's needs this writer.

use serde::Serialize;
use veer_base::pyjson::dumps_sorted_indented;
use veer_contract::experiment::ExperimentReport;

/// The experiment report in traxr's `to_json` layout (with veer's extra keys `schema_version`,
/// `errors` and the per-perturbation and per-group aggregates).
pub fn render(report: &ExperimentReport) -> String {
    to_sorted_json(report)
}

/// Any serialisable value as `json.dumps(value, sort_keys=True, indent=2) + "\n"`, its strings
/// redacted ([`crate::json::redacted_value`]), so the Python layout survives a secret.
pub(crate) fn to_sorted_json<T: Serialize>(value: &T) -> String {
    match crate::json::redacted_value(value) {
        Ok(v) => {
            let mut out = dumps_sorted_indented(&v);
            out.push('\n');
            out
        }
        // Report structs hold only strings, numbers, bools and maps with string keys.
        Err(e) => format!("{{\"error\": \"cannot serialise report: {e}\"}}\n"),
    }
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
