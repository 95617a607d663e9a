//! JSON rendering of `veer check`: `{schema_version, policy, trace, violations, gate}` for one
//! trace; `{schema_version, policy, traces: [{trace, violations}], gate}` for a directory, with
//! `errors: [{trace, file, line, error, hint}]` before `gate` when some traces could not be
//! read.

use super::CheckReport;
use serde_json::{json, Value};

/// The `veer check` report as pretty JSON.
pub fn check(r: &CheckReport) -> String {
    let value: Value = if !r.directory && r.traces.len() == 1 {
        json!({
            "schema_version": crate::SCHEMA_VERSION,
            "policy": r.policy,
            "trace": r.traces[0].trace,
            "violations": r.traces[0].violations,
            "gate": r.gate,
        })
    } else if r.errors.is_empty() {
        json!({
            "schema_version": crate::SCHEMA_VERSION,
            "policy": r.policy,
            "traces": r.traces,
            "gate": r.gate,
        })
    } else {
        json!({
            "schema_version": crate::SCHEMA_VERSION,
            "policy": r.policy,
            "traces": r.traces,
            "errors": r.errors,
            "gate": r.gate,
        })
    };
    crate::json::to_json(&value)
}
