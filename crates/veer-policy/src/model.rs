//! A loaded policy: rules with their validated parameters. Built only by [`crate::load`].

use crate::ltl::Formula;
use crate::needle::Needle;
use crate::path::Path;
use crate::schema::Schema;
use crate::when::Condition;
use serde::{Deserialize, Serialize};

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

/// Where a rule looks: the whole trace or each policy session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// One unit: the whole trace (the default).
    Trace,
    /// One unit per policy session.
    Session,
}

/// The fourteen rule kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
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
}

impl Kind {
    /// Every kind, sorted by name.
    pub const ALL: [Kind; 14] = [
        Kind::ForbiddenText,
        Kind::LtlFormula,
        Kind::MaxTotalTokens,
        Kind::MaxTurns,
        Kind::MustBeGrounded,
        Kind::MustCallBefore,
        Kind::MustCallOnce,
        Kind::MustFollowup,
        Kind::MustIncludeText,
        Kind::MustIncludeTextEach,
        Kind::MustMatchJsonSchema,
        Kind::MustRemainConsistent,
        Kind::NoCall,
        Kind::RequiredStopReason,
    ];

    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::MustCallBefore => "must_call_before",
            Kind::MustCallOnce => "must_call_once",
            Kind::NoCall => "no_call",
            Kind::MaxTurns => "max_turns",
            Kind::RequiredStopReason => "required_stop_reason",
            Kind::MaxTotalTokens => "max_total_tokens",
            Kind::MustIncludeText => "must_include_text",
            Kind::MustIncludeTextEach => "must_include_text_each",
            Kind::ForbiddenText => "forbidden_text",
            Kind::MustMatchJsonSchema => "must_match_json_schema",
            Kind::MustRemainConsistent => "must_remain_consistent",
            Kind::MustFollowup => "must_followup",
            Kind::MustBeGrounded => "must_be_grounded",
            Kind::LtlFormula => "ltl_formula",
        }
    }

    /// The kind for a wire name.
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == s)
    }

    /// Every wire name, sorted.
    pub fn names() -> Vec<&'static str> {
        Kind::ALL.iter().map(|k| k.name()).collect()
    }
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
}

impl Check {
    /// The kind of this check.
    pub fn kind(&self) -> Kind {
        match self {
            Check::MustCallBefore { .. } => Kind::MustCallBefore,
            Check::MustCallOnce { .. } => Kind::MustCallOnce,
            Check::NoCall { .. } => Kind::NoCall,
            Check::MaxTurns { .. } => Kind::MaxTurns,
            Check::RequiredStopReason { .. } => Kind::RequiredStopReason,
            Check::MaxTotalTokens { .. } => Kind::MaxTotalTokens,
            Check::MustIncludeText(_) => Kind::MustIncludeText,
            Check::MustIncludeTextEach(_) => Kind::MustIncludeTextEach,
            Check::ForbiddenText(_) => Kind::ForbiddenText,
            Check::MustMatchJsonSchema(_) => Kind::MustMatchJsonSchema,
            Check::MustRemainConsistent { .. } => Kind::MustRemainConsistent,
            Check::MustFollowup { .. } => Kind::MustFollowup,
            Check::MustBeGrounded { .. } => Kind::MustBeGrounded,
            Check::LtlFormula { .. } => Kind::LtlFormula,
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
