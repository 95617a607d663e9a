//! Printers for policy results: `veer check` (terminal, JSON, Markdown, JUnit), the gate line,
//! and a policy-diff section the diff report can embed. Printers only format; every number
//! and decision comes from `veer-policy`.

pub mod gate;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod terminal;

use serde::{Deserialize, Serialize};
use veer_policy::{Gate, Level, Violation};

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
pub struct RuleSummary {
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
    pub rules: Vec<RuleSummary>,
    /// One entry per checked trace (one for a file, one per trace for a directory).
    pub traces: Vec<CheckedTrace>,
    /// The traces of a directory that could not be read, in path order (error rows).
    pub errors: Vec<TraceFailure>,
    /// Whether the input was a directory.
    pub directory: bool,
    /// The gate over every violation.
    pub gate: Gate,
}

/// One trace to check: the name shown in the report, the file it came from, the trace.
pub type NamedTrace<'a> = (String, String, &'a veer_trace::Trace);

impl CheckReport {
    /// Evaluates `policy` (loaded from `policy_name`) on each trace and gathers the report
    /// `veer check` prints, with the gate at `fail_on`. Also returns the evaluation's warnings,
    /// each prefixed with its trace's name, for the caller to show.
    pub fn build(
        policy_name: String,
        policy: &veer_policy::Policy,
        traces: &[NamedTrace<'_>],
        directory: bool,
        fail_on: Level,
    ) -> (CheckReport, Vec<String>) {
        let mut warnings = Vec::new();
        let checked: Vec<CheckedTrace> = traces
            .iter()
            .map(|(name, path, t)| {
                let e = veer_policy::evaluate_with_warnings(policy, t);
                warnings.extend(e.warnings.iter().map(|w| format!("{name}: {w}")));
                CheckedTrace {
                    trace: name.clone(),
                    violations: with_prevented(policy, e.violations, t),
                    path: path.clone(),
                    lines: t.responses().iter().map(|r| r.record.line).collect(),
                    session_lines: t.policy_session_lines(),
                }
            })
            .collect();
        let all: Vec<Violation> = checked
            .iter()
            .flat_map(|c| c.violations.iter().cloned())
            .collect();
        let rules = policy
            .rules
            .iter()
            .map(|r| RuleSummary {
                id: r.id.clone(),
                kind: r.check.kind().name().to_string(),
                severity: r.severity.name().to_string(),
            })
            .collect();
        let report = CheckReport {
            policy: policy_name,
            rules,
            traces: checked,
            errors: Vec::new(),
            directory,
            gate: veer_policy::gate_violations(fail_on, &all),
        };
        (report, warnings)
    }

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
        self.gate = veer_policy::gate_violations(self.gate.fail_on, &counted);
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

/// The violations `evaluate` found plus the calls the live policy blocked while `trace` was
/// recorded (status `prevented`; one already found at the same rule, session and turn is not
/// repeated), in rule order (a rule the policy does not have last), found before prevented.
fn with_prevented(
    policy: &veer_policy::Policy,
    mut found: Vec<Violation>,
    trace: &veer_trace::Trace,
) -> Vec<Violation> {
    let decisions = veer_policy::live::decisions(trace);
    if decisions.is_empty() {
        return found;
    }
    for p in veer_policy::live::prevented(policy, &decisions) {
        if !found.iter().any(|v| v.key() == p.key()) {
            found.push(p);
        }
    }
    let rank = |v: &Violation| {
        policy
            .rules
            .iter()
            .position(|r| r.id == v.rule_id)
            .unwrap_or(usize::MAX)
    };
    found.sort_by_key(|v| (rank(v), v.status.is_some()));
    found
}

/// Where a violation is: `session <s> · turn #<i>`, `turn #<i>`, `session <s> · trace` or
/// `trace`.
pub fn locus(v: &Violation) -> String {
    let place = match v.pair_index {
        Some(i) => format!("turn #{i}"),
        None => "trace".to_string(),
    };
    match v.session {
        Some(s) => format!("session {s} \u{b7} {place}"),
        None => place,
    }
}

/// One violation on one line: `[severity] rule_id @ where: detail`.
pub fn violation_line(v: &Violation) -> String {
    format!(
        "[{}] {} @ {}: {}",
        v.severity.name(),
        v.rule_id,
        locus(v),
        v.detail
    )
}

/// `N input(s) could not be read`, for the gate line and the reports' error sections.
pub fn unreadable(errors: usize, what: &str) -> String {
    if errors == 1 {
        format!("1 {what} could not be read or compared")
    } else {
        format!("{errors} {what}s could not be read or compared")
    }
}

/// The gate's one line (stderr): Shadow's `fail: …` line when tripped, else an `ok:` line.
/// Error rows trip a set gate whatever the worst signal; the line says so.
pub fn gate_line(g: &Gate) -> String {
    if g.tripped && g.errors > 0 {
        let signal = if g.worst >= g.fail_on { ">=" } else { "<" };
        format!(
            "fail: {}; worst signal severity {} {signal} --fail-on threshold {} ({}); exiting 1 to gate the merge.",
            unreadable(g.errors, "input"),
            g.worst.rank(),
            g.fail_on.threshold_name(),
            g.fail_on.rank()
        )
    } else if g.errors_without_gate() {
        format!(
            "incomplete: {}; worst signal severity {} ({}) over the rest; gate disabled (--fail-on never), exiting 2.",
            unreadable(g.errors, "input"),
            g.worst.rank(),
            g.worst.name()
        )
    } else if g.tripped {
        format!(
            "fail: worst signal severity {} >= --fail-on threshold {} ({}); exiting 1 to gate the merge.",
            g.worst.rank(),
            g.fail_on.threshold_name(),
            g.fail_on.rank()
        )
    } else if g.fail_on == Level::None {
        format!(
            "ok: worst signal severity {} ({}); gate disabled (--fail-on never).",
            g.worst.rank(),
            g.worst.name()
        )
    } else {
        format!(
            "ok: worst signal severity {} < --fail-on threshold {} ({}).",
            g.worst.rank(),
            g.fail_on.threshold_name(),
            g.fail_on.rank()
        )
    }
}

/// The verdict's line for reports: the [`gate_line`], then what tripped the gate (up to five
/// trips, then a count).
pub fn verdict_line(v: &veer_engine::Verdict) -> String {
    let line = gate_line(&v.gate());
    let line = match v.tripped_by_line(5) {
        Some(by) => format!("{line} Tripped by: {by}."),
        None => line,
    };
    match v.quarantined_line(5) {
        Some(q) => format!("{line} Quarantined (measured, not gating): {q}."),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_lines() {
        let g = Gate::decide(Level::Severe, Level::Severe);
        assert_eq!(
            gate_line(&g),
            "fail: worst signal severity 3 >= --fail-on threshold severe (3); exiting 1 to gate the merge."
        );
        let g = Gate::decide(Level::Severe, Level::Minor);
        assert_eq!(
            gate_line(&g),
            "ok: worst signal severity 1 < --fail-on threshold severe (3)."
        );
        let g = Gate::decide(Level::None, Level::Minor);
        assert!(gate_line(&g).contains("gate disabled"));
        let g = Gate::decide_with_errors(Level::Severe, Level::Minor, 2);
        assert_eq!(
            gate_line(&g),
            "fail: 2 inputs could not be read or compared; worst signal severity 1 < --fail-on threshold severe (3); exiting 1 to gate the merge."
        );
    }
}
