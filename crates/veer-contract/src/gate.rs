//! The `veer gate` document: what the gate saw in a saved diff report and what it decided.

use crate::policy::{Gate, Violation};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use veer_base::Level;

/// Version of the `veer gate` JSON document (added in this version; earlier reports had none).
pub const GATE_SCHEMA_VERSION: &str = "1";

/// The result of `veer gate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GateReport {
    /// JSON schema version ([`GATE_SCHEMA_VERSION`]).
    pub schema_version: Cow<'static, str>,
    /// The report file.
    pub report: String,
    /// Worst axis severity over every pair of the report.
    pub worst_axis: Level,
    /// The behaviour-fingerprint signal: `moderate` when a stored fingerprint test (of a pair,
    /// or a directory's pooled test) is a powered rejection; omitted from JSON when none.
    #[serde(default, skip_serializing_if = "is_none")]
    pub fingerprint: Level,
    /// Where the policy regressions came from: `report` (stored by `veer diff`), `recomputed`
    /// (`--policy`), `rates` (a repeated-trials report: its rules are compared as violation rates
    /// per case, so it has no regressions; a tripped rule is among `tripped`) or `none` (the
    /// report has no policy section).
    pub policy_source: Cow<'static, str>,
    /// The policy regressions that count, each with the trace it came from.
    pub regressions: Vec<GateRegression>,
    /// What tripped the gate, one line each, as `veer diff` printed them (a repeated-trials
    /// report: its suite tests and named cases); omitted from JSON when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tripped: Vec<String>,
    /// The decision.
    pub gate: Gate,
}

/// A policy regression `veer gate` counts, with the trace it came from: the pair's relative
/// path in a directory report, else the candidate trace's path.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateRegression {
    /// The trace (pair) the regression is in.
    pub trace: String,
    /// The regression.
    #[serde(flatten)]
    pub violation: Violation,
}

fn is_none(level: &Level) -> bool {
    *level == Level::None
}
