//! Live-policy decisions read back from a recording. `veer record --policy … --enforce` writes
//! each decision as a `harness_event {category: guardrail, name: policy.<action>}` record (docs
//! record.md); a blocked call leaves no response behind for a later `evaluate` to judge, so
//! these records are the only trace of it. This module turns them into rows `inspect`, `check`
//! and `diff` show, and into the `prevented` violations `check` reports.

use crate::model::Policy;
use veer_contract::policy::RuleKind;
use veer_contract::policy::Severity;
use veer_contract::policy::Violation;
use veer_contract::policy::ViolationStatus;
use veer_contract::policy::{Enforcement, EnforcementAction, LiveDecision};
use veer_trace::{Json, Kind as RecordKind, Trace};

fn text(v: Option<&Json>) -> String {
    v.and_then(Json::as_str).unwrap_or("").to_string()
}

fn index(v: Option<&Json>) -> Option<usize> {
    v.and_then(Json::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

/// The live-policy decisions recorded in `trace`, in file order (one row per violation of each
/// decision). Empty for a trace recorded without `--policy`.
pub fn decisions(trace: &Trace) -> Vec<LiveDecision> {
    let mut out = Vec::new();
    for r in &trace.records {
        if r.kind != RecordKind::HarnessEvent || r.str_field("category") != Some("guardrail") {
            continue;
        }
        let Some(action) = r.str_field("name").and_then(EnforcementAction::from_event) else {
            continue;
        };
        let violations = r
            .field("attributes")
            .and_then(|a| a.get("violations"))
            .and_then(Json::as_array)
            .unwrap_or(&[]);
        for v in violations {
            out.push(LiveDecision {
                action,
                blocked: action.blocked(),
                rule_id: text(v.get("rule_id")),
                kind: text(v.get("kind")),
                severity: text(v.get("severity")),
                session: index(v.get("session")),
                pair_index: index(v.get("pair_index")),
                detail: text(v.get("detail")),
                line: r.line,
            });
        }
    }
    out
}

/// The blocked decisions as violations with status `prevented`, for `veer check`: kind,
/// severity and tags from `policy`'s rule of the same id when it has one, else as recorded (a
/// decision whose kind or severity cannot be read is left out). The detail says how the call
/// was stopped.
pub fn prevented(policy: &Policy, decisions: &[LiveDecision]) -> Vec<Violation> {
    decisions
        .iter()
        .filter(|d| d.blocked)
        .filter_map(|d| {
            let rule = policy.rules.iter().find(|r| r.id == d.rule_id);
            let kind = match rule {
                Some(r) => r.check.kind(),
                None => RuleKind::parse(&d.kind)?,
            };
            let severity = match rule {
                Some(r) => r.severity,
                None => Severity::parse(&d.severity)?,
            };
            let how = match d.action {
                EnforcementAction::Raised => "the agent got an error",
                _ => "the response was replaced",
            };
            Some(Violation {
                rule_id: d.rule_id.clone(),
                kind,
                severity,
                session: d.session,
                pair_index: d.pair_index,
                detail: format!("prevented live ({how}): {}", d.detail),
                tags: rule.map(|r| r.tags.clone()).unwrap_or_default(),
                status: Some(ViolationStatus::Prevented),
            })
        })
        .collect()
}

/// The live-policy decisions of both traces of a diff; `None` when neither holds any (a diff
/// report then has no `enforcement` block).
pub fn enforcement(baseline: &Trace, candidate: &Trace) -> Option<Enforcement> {
    let e = Enforcement {
        baseline: decisions(baseline),
        candidate: decisions(candidate),
    };
    (!e.baseline.is_empty() || !e.candidate.is_empty()).then_some(e)
}
