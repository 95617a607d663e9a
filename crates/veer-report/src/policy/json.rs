//! JSON rendering of `veer check`: one shape whatever the input (schema_version "2"):
//! `{schema_version, policy, traces: [{trace, violations}], gate}`, one entry for one trace,
//! with `errors: [{trace, file, line, error, hint}]` before `gate` when some traces of a
//! directory could not be read.

use super::CheckReport;
use veer_contract::check::{CheckDocument, CHECK_SCHEMA_VERSION};

/// The `veer check` report as pretty JSON.
pub fn check(r: &CheckReport) -> String {
    check_with(r, veer_secrets::display::redactor())
}

/// [`check`] with the strings redacted by `redactor` (none: verbatim, as `--no-redact`).
pub fn check_with(r: &CheckReport, redactor: Option<&veer_secrets::Detector>) -> String {
    crate::json::to_json_with(
        &CheckDocument {
            schema_version: CHECK_SCHEMA_VERSION.into(),
            policy: r.policy.clone(),
            traces: r.traces.clone(),
            errors: r.errors.clone(),
            gate: r.gate,
        },
        redactor,
    )
}
