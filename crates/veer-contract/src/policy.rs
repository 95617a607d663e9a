//! The policy's part of a report: rule kinds and severities, violations, a diff's regressions
//! and fixes, the merge gate's decision and the live-policy decisions read back from a
//! recording (spec `policy.md`, `cli.md` JSON names).

use serde::{Deserialize, Serialize};
use veer_base::level::{deserialize_threshold, serialize_threshold, threshold_schema};
use veer_base::Level;

/// A policy severity, ordered `info < warning < error < critical`.
#[derive(
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
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// `info` (gate rank minor).
    Info,
    /// `warning` (gate rank moderate).
    Warning,
    /// `error`, the default (gate rank severe).
    Error,
    /// `critical` (gate rank severe).
    Critical,
}

impl Severity {
    /// The four spellings.
    pub const NAMES: [&'static str; 4] = ["info", "warning", "error", "critical"];

    /// Parses a severity case-insensitively.
    pub fn parse(s: &str) -> Option<Severity> {
        Some(match s.to_ascii_lowercase().as_str() {
            "info" => Severity::Info,
            "warning" => Severity::Warning,
            "error" => Severity::Error,
            "critical" => Severity::Critical,
            _ => return None,
        })
    }

    /// The lowercase name.
    pub fn name(self) -> &'static str {
        Severity::NAMES[self as usize]
    }
}

/// The fifteen rule kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    /// Tool A must be called before tool B.
    MustCallBefore,
    /// A tool must be called exactly once.
    MustCallOnce,
    /// A tool must never be called.
    NoCall,
    /// At most N pairs.
    MaxTurns,
    /// The final response must stop with an allowed reason.
    RequiredStopReason,
    /// A token budget.
    MaxTotalTokens,
    /// Some response must contain a text.
    MustIncludeText,
    /// Every response must contain a text.
    MustIncludeTextEach,
    /// No response may contain a text.
    ForbiddenText,
    /// Every response's text must be JSON valid against a schema.
    MustMatchJsonSchema,
    /// Once a value is observed at a path, later values must equal it.
    MustRemainConsistent,
    /// When a trigger holds at pair N, pair N+1 must satisfy an obligation.
    MustFollowup,
    /// Responses must overlap with retrieved chunks.
    MustBeGrounded,
    /// An LTLf formula over the pairs.
    LtlFormula,
    /// The unit's tool calls must match a reference list (strict, unordered, subset, superset).
    TrajectoryMatch,
}

impl RuleKind {
    /// Every kind, sorted by name.
    pub const ALL: [RuleKind; 15] = [
        RuleKind::ForbiddenText,
        RuleKind::LtlFormula,
        RuleKind::MaxTotalTokens,
        RuleKind::MaxTurns,
        RuleKind::MustBeGrounded,
        RuleKind::MustCallBefore,
        RuleKind::MustCallOnce,
        RuleKind::MustFollowup,
        RuleKind::MustIncludeText,
        RuleKind::MustIncludeTextEach,
        RuleKind::MustMatchJsonSchema,
        RuleKind::MustRemainConsistent,
        RuleKind::NoCall,
        RuleKind::RequiredStopReason,
        RuleKind::TrajectoryMatch,
    ];

    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            RuleKind::MustCallBefore => "must_call_before",
            RuleKind::MustCallOnce => "must_call_once",
            RuleKind::NoCall => "no_call",
            RuleKind::MaxTurns => "max_turns",
            RuleKind::RequiredStopReason => "required_stop_reason",
            RuleKind::MaxTotalTokens => "max_total_tokens",
            RuleKind::MustIncludeText => "must_include_text",
            RuleKind::MustIncludeTextEach => "must_include_text_each",
            RuleKind::ForbiddenText => "forbidden_text",
            RuleKind::MustMatchJsonSchema => "must_match_json_schema",
            RuleKind::MustRemainConsistent => "must_remain_consistent",
            RuleKind::MustFollowup => "must_followup",
            RuleKind::MustBeGrounded => "must_be_grounded",
            RuleKind::LtlFormula => "ltl_formula",
            RuleKind::TrajectoryMatch => "trajectory_match",
        }
    }

    /// The kind for a wire name.
    pub fn parse(s: &str) -> Option<RuleKind> {
        RuleKind::ALL.iter().copied().find(|k| k.name() == s)
    }

    /// Every wire name, sorted.
    pub fn names() -> Vec<&'static str> {
        RuleKind::ALL.iter().map(|k| k.name()).collect()
    }
}

/// One broken rule at one place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Violation {
    /// The rule's id.
    pub rule_id: String,
    /// The rule's kind.
    pub kind: RuleKind,
    /// The rule's severity.
    pub severity: Severity,
    /// The policy session (session scope), else null.
    pub session: Option<usize>,
    /// Absolute pair index, null for unit-level violations.
    pub pair_index: Option<usize>,
    /// What is wrong, for people (never compared).
    pub detail: String,
    /// The rule's tags.
    pub tags: Vec<String>,
    /// `prevented` for a call the live policy blocked while the run was recorded (`veer check`
    /// on a recording made with `--enforce replace|raise`); omitted for a violation found in
    /// the trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ViolationStatus>,
}

/// How a violation stands when it is not simply found in the trace.
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationStatus {
    /// The live policy blocked the offending response (replaced it or refused it) while the
    /// run was recorded; the agent never acted on it.
    Prevented,
}

/// Where a violation sits inside its unit: one pair, or the unit as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Locus {
    /// The unit as a whole (`pair_index` null).
    Unit,
    /// One pair.
    Pair(usize),
}

impl Violation {
    /// The identity used to compare baseline and candidate: `(rule_id, session, locus)`.
    pub fn key(&self) -> (&str, Option<usize>, Locus) {
        (
            &self.rule_id,
            self.session,
            self.pair_index.map_or(Locus::Unit, Locus::Pair),
        )
    }
}

/// The policy comparison of two traces (`policy` in JSON reports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PolicyDiff {
    /// Violations of the baseline.
    pub baseline_violations: Vec<Violation>,
    /// Violations of the candidate.
    pub candidate_violations: Vec<Violation>,
    /// Candidate violations beyond the baseline's count for their key, in candidate order.
    pub regressions: Vec<Violation>,
    /// Baseline violations beyond the candidate's count for their key, in baseline order.
    pub fixes: Vec<Violation>,
}

impl From<Severity> for Level {
    fn from(s: Severity) -> Level {
        match s {
            Severity::Info => Level::Minor,
            Severity::Warning => Level::Moderate,
            Severity::Error | Severity::Critical => Level::Severe,
        }
    }
}

/// The gate's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Gate {
    /// The threshold (`never` when disabled).
    #[serde(
        serialize_with = "serialize_threshold",
        deserialize_with = "deserialize_threshold"
    )]
    #[schemars(schema_with = "threshold_schema")]
    pub fail_on: Level,
    /// The worst signal seen.
    pub worst: Level,
    /// Whether the gate trips (`worst >= fail_on`, or any `errors`; never with `fail_on`
    /// never).
    pub tripped: bool,
    /// Inputs of a directory run that could not be read or compared (the report's error rows);
    /// each is a failure of the gate. Omitted from JSON when 0, so runs without errors print
    /// as before.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub errors: usize,
}

impl Gate {
    /// The decision for a worst signal.
    pub fn decide(fail_on: Level, worst: Level) -> Gate {
        Gate::decide_with_errors(fail_on, worst, 0)
    }

    /// The decision for a worst signal and `errors` inputs that could not be measured: any
    /// error trips a gate that is set (`fail_on` other than never).
    pub fn decide_with_errors(fail_on: Level, worst: Level, errors: usize) -> Gate {
        Gate {
            fail_on,
            worst,
            tripped: fail_on != Level::None && (worst >= fail_on || errors > 0),
            errors,
        }
    }

    /// Whether the run ends in exit 2: inputs could not be measured and no gate is set to
    /// count them (with a gate set they trip it, exit 1).
    pub fn errors_without_gate(&self) -> bool {
        self.errors > 0 && self.fail_on == Level::None
    }
}

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
pub enum EnforcementAction {
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

impl EnforcementAction {
    /// The action of a `policy.<name>` event, `None` for other names.
    pub fn from_event(name: &str) -> Option<EnforcementAction> {
        Some(match name.strip_prefix("policy.")? {
            "replace" => EnforcementAction::Replaced,
            "raise" => EnforcementAction::Raised,
            "warn" => EnforcementAction::Warned,
            "late" => EnforcementAction::Late,
            "finish" => EnforcementAction::EndOfRun,
            _ => return None,
        })
    }

    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            EnforcementAction::Replaced => "replaced",
            EnforcementAction::Raised => "raised",
            EnforcementAction::Warned => "warned",
            EnforcementAction::Late => "late",
            EnforcementAction::EndOfRun => "end_of_run",
        }
    }

    /// Whether the call was blocked (the agent never got the response that broke the rule).
    pub fn blocked(self) -> bool {
        matches!(
            self,
            EnforcementAction::Replaced | EnforcementAction::Raised
        )
    }
}

/// One violation the live policy judged while the run was recorded.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveDecision {
    /// What the policy did.
    pub action: EnforcementAction,
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
        (EnforcementAction::Raised, Some(_)) => format!("{place} (refused; no response recorded)"),
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
    /// `N decision(s), B blocked` of one side.
    pub fn count(side: &[LiveDecision]) -> String {
        let blocked = side.iter().filter(|d| d.blocked).count();
        format!("{} decision(s), {blocked} blocked", side.len())
    }
}

/// The worst level among violations (each ranked by its severity).
pub(crate) fn worst_of(violations: &[Violation]) -> Level {
    violations
        .iter()
        .map(|v| Level::from(v.severity))
        .max()
        .unwrap_or(Level::None)
}

/// The gate of a diff: the worst of the axis severities and every policy regression.
pub fn gate(fail_on: Level, worst_axis: Level, diff: &PolicyDiff) -> Gate {
    Gate::decide(fail_on, worst_axis.max(worst_of(&diff.regressions)))
}

/// The gate of `veer check`: the violations themselves are the signal.
pub fn gate_violations(fail_on: Level, violations: &[Violation]) -> Gate {
    Gate::decide(fail_on, worst_of(violations))
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
