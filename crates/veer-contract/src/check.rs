//! The report of `veer check`: each checked trace with its violations, the traces that could
//! not be read, the policy's rules and the gate over every violation.

use crate::policy::{Gate, Violation};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// One checked trace and its violations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckedTrace {
    /// The trace path (relative to the directory in directory mode).
    pub trace: String,
    /// Its violations, in rule order.
    pub violations: Vec<Violation>,
    /// The trace file as given (for a directory, the file inside it); locations of SARIF
    /// results and CI annotations. Not part of the JSON report.
    #[serde(skip)]
    pub path: String,
    /// 1-based source line of every response record, by turn. Not part of the JSON report.
    #[serde(skip)]
    pub lines: Vec<Option<u64>>,
    /// 1-based source line where each policy session starts. Not part of the JSON report.
    #[serde(skip)]
    pub session_lines: Vec<Option<u64>>,
}

/// A trace of a directory that could not be read: an error row of `veer check`, a failure of
/// the gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TraceFailure {
    /// The trace path relative to the directory.
    pub trace: String,
    /// The file as given (the file inside the directory).
    pub file: String,
    /// 1-based line of the problem, when there is one.
    pub line: Option<u64>,
    /// What went wrong (names the file, and the line and field where there are some).
    pub error: String,
    /// What to do about it.
    pub hint: Option<String>,
}

/// A rule as listed by the JUnit printer (one test case per rule).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckRule {
    /// Rule id.
    pub id: String,
    /// Kind name.
    pub kind: String,
    /// Severity name.
    pub severity: String,
}

/// The result of `veer check`.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// The policy file.
    pub policy: String,
    /// The policy's rules, in file order.
    pub rules: Vec<CheckRule>,
    /// One entry per checked trace (one for a file, one per trace for a directory).
    pub traces: Vec<CheckedTrace>,
    /// The traces of a directory that could not be read, in path order (error rows).
    pub errors: Vec<TraceFailure>,
    /// Whether the input was a directory.
    pub directory: bool,
    /// The gate over every violation.
    pub gate: Gate,
}

impl CheckReport {
    /// The report with its gate decided without the `prevented` violations (`veer check
    /// --allow-prevented`): a call the live policy blocked is still listed but does not fail
    /// the gate. Call before [`CheckReport::with_errors`].
    pub fn allow_prevented(mut self) -> CheckReport {
        let counted: Vec<Violation> = self
            .traces
            .iter()
            .flat_map(|c| c.violations.iter())
            .filter(|v| v.status.is_none())
            .cloned()
            .collect();
        self.gate = crate::policy::gate_violations(self.gate.fail_on, &counted);
        self
    }

    /// The report with the traces that could not be read as error rows; each is a failure of
    /// the gate.
    pub fn with_errors(mut self, errors: Vec<TraceFailure>) -> CheckReport {
        self.gate = Gate::decide_with_errors(self.gate.fail_on, self.gate.worst, errors.len());
        self.errors = errors;
        self
    }
}

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
