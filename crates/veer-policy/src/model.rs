//! A loaded policy: rules with their validated parameters. Built only by [`crate::load`].

use crate::ltl::Formula;
use crate::needle::Needle;
use crate::path::Path;
pub use crate::rules::trajectory_match::{
    ArgMatcher, ArgMode, RefCall, Trajectory, TrajectoryMode,
};
use crate::schema::Schema;
use crate::when::Condition;
use serde::{Deserialize, Serialize};
use veer_contract::policy::{RuleKind, Severity};

/// Where a rule looks: the whole trace or each policy session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// One unit: the whole trace (the default).
    Trace,
    /// One unit per policy session.
    Session,
}

/// What `must_followup` requires of the follow-up pair.
#[derive(Debug, Clone, PartialEq)]
pub enum Must {
    /// A call named `tool_name` attached to the follow-up pair.
    ToolCall {
        /// The tool.
        tool_name: String,
    },
    /// The follow-up response contains a text.
    TextIncludes(Needle),
}

/// A rule's validated parameters, one variant per kind.
#[derive(Debug, Clone)]
pub enum Check {
    /// `must_call_before`.
    MustCallBefore {
        /// The tool that must come first.
        first: String,
        /// The tool that must come after.
        then: String,
    },
    /// `must_call_once`.
    MustCallOnce {
        /// The tool.
        tool: String,
    },
    /// `no_call`.
    NoCall {
        /// The tool.
        tool: String,
    },
    /// `max_turns`.
    MaxTurns {
        /// Largest allowed number of pairs.
        limit: u64,
    },
    /// `required_stop_reason`.
    RequiredStopReason {
        /// Allowed final stop reasons.
        allowed: Vec<String>,
    },
    /// `max_total_tokens`.
    MaxTotalTokens {
        /// Largest allowed total.
        limit: f64,
    },
    /// `must_include_text`.
    MustIncludeText(Needle),
    /// `must_include_text_each`.
    MustIncludeTextEach(Needle),
    /// `forbidden_text`.
    ForbiddenText(Needle),
    /// `must_match_json_schema`.
    MustMatchJsonSchema(Schema),
    /// `must_remain_consistent`.
    MustRemainConsistent {
        /// The observed path.
        path: Path,
    },
    /// `must_followup`.
    MustFollowup {
        /// Conditions that fire the obligation (empty: every pair).
        trigger: Vec<Condition>,
        /// The obligation, and its JSON form for details.
        must: Must,
        /// `must` as compact JSON, for details.
        must_json: String,
    },
    /// `must_be_grounded`.
    MustBeGrounded {
        /// Where the retrieved chunks are.
        retrieval_path: Path,
        /// Least unigram precision that passes.
        min_unigram_precision: f64,
    },
    /// `ltl_formula`.
    LtlFormula {
        /// The formula as written.
        formula: String,
        /// Its syntax tree.
        ast: Formula,
    },
    /// `trajectory_match`.
    TrajectoryMatch(Trajectory),
}

impl Check {
    /// The kind of this check.
    pub fn kind(&self) -> RuleKind {
        match self {
            Check::MustCallBefore { .. } => RuleKind::MustCallBefore,
            Check::MustCallOnce { .. } => RuleKind::MustCallOnce,
            Check::NoCall { .. } => RuleKind::NoCall,
            Check::MaxTurns { .. } => RuleKind::MaxTurns,
            Check::RequiredStopReason { .. } => RuleKind::RequiredStopReason,
            Check::MaxTotalTokens { .. } => RuleKind::MaxTotalTokens,
            Check::MustIncludeText(_) => RuleKind::MustIncludeText,
            Check::MustIncludeTextEach(_) => RuleKind::MustIncludeTextEach,
            Check::ForbiddenText(_) => RuleKind::ForbiddenText,
            Check::MustMatchJsonSchema(_) => RuleKind::MustMatchJsonSchema,
            Check::MustRemainConsistent { .. } => RuleKind::MustRemainConsistent,
            Check::MustFollowup { .. } => RuleKind::MustFollowup,
            Check::MustBeGrounded { .. } => RuleKind::MustBeGrounded,
            Check::LtlFormula { .. } => RuleKind::LtlFormula,
            Check::TrajectoryMatch(_) => RuleKind::TrajectoryMatch,
        }
    }
}

/// One rule of a policy.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule id (unique in the policy).
    pub id: String,
    /// What the rule checks, with its parameters.
    pub check: Check,
    /// How bad a violation is.
    pub severity: Severity,
    /// Trace or session.
    pub scope: Scope,
    /// Conditions gating where the rule looks (ANDed; empty = everywhere).
    pub when: Vec<Condition>,
    /// Free text, never evaluated.
    pub description: String,
    /// Tags copied onto every violation.
    pub tags: Vec<String>,
}

/// A loaded, validated policy.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The file it came from, as given.
    pub source: String,
    /// The rules, in file order.
    pub rules: Vec<Rule>,
    /// Warnings raised while loading (missing apiVersion, bare list, …).
    pub warnings: Vec<String>,
}
