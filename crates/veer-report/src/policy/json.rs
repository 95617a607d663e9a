//! JSON rendering of `veer check`: one shape whatever the input (schema_version "2"):
//! `{schema_version, policy, traces: [{trace, violations}], gate}`, one entry for one trace,
//! with `errors: [{trace, file, line, error, hint}]` before `gate` when some traces of a
//! directory could not be read.

use super::{CheckReport, CheckedTrace, TraceFailure};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use veer_contract::policy::Gate;

/// Version of the `veer check` JSON document: "2" since one trace is printed in the `traces`
/// array like a directory's (version "1" printed a single trace under `trace`/`violations`).
pub const CHECK_SCHEMA_VERSION: &str = "2";

/// The `veer check --format json` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckDocument {
    /// JSON schema version ([`CHECK_SCHEMA_VERSION`]).
    pub schema_version: Cow<'static, str>,
    /// The policy file as given.
    pub policy: String,
    /// One entry per checked trace (relative to the directory in directory mode).
    pub traces: Vec<CheckedTrace>,
    /// Traces of a directory that could not be read; omitted when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<TraceFailure>,
    /// The gate over every violation (and error row).
    pub gate: Gate,
}

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
