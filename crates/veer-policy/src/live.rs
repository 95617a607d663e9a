//! Live-policy decisions read back from a recording. `veer record --policy … --enforce` writes
//! each decision as a `harness_event {category: guardrail, name: policy.<action>}` record (docs
//! record.md); a blocked call leaves no response behind for a later `evaluate` to judge, so
//! these records are the only trace of it. This module turns them into rows `inspect`, `check`
//! and `diff` show, and into the `prevented` violations `check` reports.

use crate::model::{Kind, Policy, Severity};
use crate::violation::{Violation, ViolationStatus};
use serde::{Deserialize, Serialize};
use veer_trace::{Json, Kind as RecordKind, Trace};

/// What the live policy did about a violation.
#[derive(
    schemars::JsonSchema,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// `--enforce replace`: the response was blocked and the agent got a replacement text.
    Replaced,
    /// `--enforce raise`: the response was blocked and the agent got an error (HTTP 422).
    Raised,
    /// `--enforce warn`: the response passed and veer warned.
    Warned,
    /// Found for a response already released (`policy.late`): a warning.
    Late,
    /// Found when the run ended (`policy.finish`): a warning.
    EndOfRun,
}

impl Action {
    /// The action of a `policy.<name>` event, `None` for other names.
    pub fn from_event(name: &str) -> Option<Action> {
        Some(match name.strip_prefix("policy.")? {
            "replace" => Action::Replaced,
            "raise" => Action::Raised,
            "warn" => Action::Warned,
            "late" => Action::Late,
            "finish" => Action::EndOfRun,
            _ => return None,
        })
    }

    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Action::Replaced => "replaced",
            Action::Raised => "raised",
            Action::Warned => "warned",
            Action::Late => "late",
            Action::EndOfRun => "end_of_run",
        }
    }

    /// Whether the call was blocked (the agent never got the response that broke the rule).
    pub fn blocked(self) -> bool {
        matches!(self, Action::Replaced | Action::Raised)
    }
}

/// One violation the live policy judged while the run was recorded.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveDecision {
    /// What the policy did.
    pub action: Action,
    /// True for `replaced` and `raised`: the agent never got the offending response.
    pub blocked: bool,
    /// The rule's id.
    pub rule_id: String,
    /// The rule's kind, as recorded.
    pub kind: String,
    /// The rule's severity, as recorded.
    pub severity: String,
    /// The policy session, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<usize>,
    /// The turn (absolute pair index of the enforcer's trace) the decision is about; null for a
    /// run-level violation.
    pub pair_index: Option<usize>,
    /// What was wrong.
    pub detail: String,
    /// 1-based source line of the decision's `harness_event` record.
    pub line: Option<u64>,
}

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
        let Some(action) = r.str_field("name").and_then(Action::from_event) else {
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
                None => Kind::parse(&d.kind)?,
            };
            let severity = match rule {
                Some(r) => r.severity,
                None => Severity::parse(&d.severity)?,
            };
            let how = match d.action {
                Action::Raised => "the agent got an error",
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

/// One line per decision: `<action> [severity] rule_id @ turn #i: detail` (terminal, JUnit,
/// SARIF); a refused call's turn is marked as having no response in the file.
pub fn decision_line(d: &LiveDecision) -> String {
    let place = match (d.session, d.pair_index) {
        (Some(s), Some(i)) => format!("session {s} \u{b7} turn #{i}"),
        (Some(s), None) => format!("session {s} \u{b7} trace"),
        (None, Some(i)) => format!("turn #{i}"),
        (None, None) => "trace".to_string(),
    };
    // A refused call left no response in the file: its turn is the one it would have been.
    let place = match (d.action, d.pair_index) {
        (Action::Raised, Some(_)) => format!("{place} (refused; no response recorded)"),
        _ => place,
    };
    format!(
        "{} [{}] {} @ {}: {}",
        d.action.name(),
        d.severity,
        d.rule_id,
        place,
        d.detail
    )
}

/// The live-policy decisions of both sides of a diff.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Enforcement {
    /// The baseline recording's decisions, in file order.
    pub baseline: Vec<LiveDecision>,
    /// The candidate recording's decisions, in file order.
    pub candidate: Vec<LiveDecision>,
}

impl Enforcement {
    /// The decisions of both traces; `None` when neither holds any (a diff report then has no
    /// `enforcement` block).
    pub fn of(baseline: &Trace, candidate: &Trace) -> Option<Enforcement> {
        let e = Enforcement {
            baseline: decisions(baseline),
            candidate: decisions(candidate),
        };
        (!e.baseline.is_empty() || !e.candidate.is_empty()).then_some(e)
    }

    /// `N decision(s), B blocked` of one side.
    pub fn count(side: &[LiveDecision]) -> String {
        let blocked = side.iter().filter(|d| d.blocked).count();
        format!("{} decision(s), {blocked} blocked", side.len())
    }
}
