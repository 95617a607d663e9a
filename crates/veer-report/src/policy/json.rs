//! JSON rendering of `veer check`: one shape whatever the input (schema_version "2"):
//! `{schema_version, policy, traces: [{trace, violations}], gate}`, one entry for one trace,
//! with `errors: [{trace, file, line, error, hint}]` before `gate` when some traces of a
//! directory could not be read.

use super::CheckReport;
use serde_json::{json, Value};

/// Version of the `veer check` JSON document: "2" since one trace is printed in the `traces`
/// array like a directory's (version "1" printed a single trace under `trace`/`violations`).
pub const CHECK_SCHEMA_VERSION: &str = "2";

/// The `veer check` report as pretty JSON.
pub fn check(r: &CheckReport) -> String {
    let value: Value = if r.errors.is_empty() {
        json!({
            "schema_version": CHECK_SCHEMA_VERSION,
            "policy": r.policy,
            "traces": r.traces,
            "gate": r.gate,
        })
    } else {
        json!({
            "schema_version": CHECK_SCHEMA_VERSION,
            "policy": r.policy,
            "traces": r.traces,
            "errors": r.errors,
            "gate": r.gate,
        })
    };
    crate::json::to_json(&value)
}
