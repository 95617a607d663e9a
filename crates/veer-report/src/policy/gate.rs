//! The `veer gate` report: what the gate saw in a saved diff report and what it decided.

use crate::style::Style;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use veer_contract::policy::Gate;
use veer_contract::policy::Violation;
use veer_contract::Level;

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
    /// (`--policy`) or `none` (the report has no policy section).
    pub policy_source: Cow<'static, str>,
    /// The policy regressions that count, each with the trace it came from.
    pub regressions: Vec<GateRegression>,
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

/// A short summary for a terminal.
pub fn terminal(r: &GateReport, style: Style) -> String {
    let mut out = style.heading(&r.report);
    out.push('\n');
    out.push_str(&format!("  worst axis severity: {}\n", r.worst_axis.name()));
    if r.gate.errors > 0 {
        out.push_str(&format!(
            "  {} (error rows of the report; each counts as a failure)\n",
            style.bad(&super::unreadable(r.gate.errors, "trace pair"))
        ));
    }
    if r.fingerprint != Level::None {
        out.push_str(&format!(
            "  behaviour fingerprint: {} (a powered rejection of the joint test)\n",
            r.fingerprint.name()
        ));
    }
    match r.policy_source.as_ref() {
        "none" => out.push_str("  policy: not part of this report\n"),
        source => {
            out.push_str(&format!(
                "  policy regressions ({source}): {}\n",
                r.regressions.len()
            ));
            for v in &r.regressions {
                out.push_str(&format!(
                    "    {}\n",
                    style.bad(&format!(
                        "\u{2717} {}: {}",
                        v.trace,
                        super::violation_line(&v.violation)
                    ))
                ));
            }
        }
    }
    out
}

fn is_none(level: &Level) -> bool {
    *level == Level::None
}

/// The report as JSON.
pub fn json(r: &GateReport) -> String {
    crate::json::to_json(r)
}
