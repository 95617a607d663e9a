//! `veer check` composed: the policy evaluated on each trace, the calls the live policy
//! blocked while a trace was recorded added as `prevented` violations, and the gate over
//! them all. The binary and the Python package both call [`check`].

use veer_base::Level;
use veer_contract::check::{CheckReport, CheckRule, CheckedTrace};
use veer_contract::policy::Violation;

/// One trace to check: the name shown in the report, the file it came from, the trace.
pub type NamedTrace<'a> = (String, String, &'a veer_trace::Trace);

/// Evaluates `policy` (loaded from `policy_name`) on each trace and gathers the report
/// `veer check` prints, with the gate at `fail_on`. Also returns the evaluation's warnings,
/// each prefixed with its trace's name, for the caller to show.
pub fn check(
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
    let mut watch = veer_policy::coverage::Coverage::new(policy);
    for (_, _, t) in traces {
        watch.observe(policy, t);
    }
    warnings.extend(
        watch
            .dead_rules(policy)
            .into_iter()
            .map(|d| format!("policy rule `{}` {}; {}", d.rule_id, d.message, d.hint)),
    );
    let all: Vec<Violation> = checked
        .iter()
        .flat_map(|c| c.violations.iter().cloned())
        .collect();
    let rules = policy
        .rules
        .iter()
        .map(|r| CheckRule {
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
        gate: veer_contract::policy::gate_violations(fail_on, &all),
    };
    (report, warnings)
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
