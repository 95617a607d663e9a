//! JSON rendering of `veer check`: `{schema_version, policy, trace, violations, gate}` for one
//! trace; `{schema_version, policy, traces: [{trace, violations}], gate}` for a directory.

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
    } else {
        json!({
            "schema_version": crate::SCHEMA_VERSION,
            "policy": r.policy,
            "traces": r.traces,
            "gate": r.gate,
        })
    };
    crate::json::to_json(&value)
}
