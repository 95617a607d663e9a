//! What `veer policy validate` found: the file loads (its rule count) and, when traces were
//! named, the rules that can never fire on them. The CLI prints it as text; `veer mcp`'s
//! `policy_validate` tool returns it as its structured content.

use serde::{Deserialize, Serialize};

/// The result of validating one policy file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PolicyValidation {
    /// The policy file, as named.
    pub file: String,
    /// Its number of rules.
    pub rules: usize,
    /// With traces named (`--against`): how many were read (a results file counts each of its
    /// runs) and the rules that can never fire on them; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against: Option<AgainstTraces>,
}

/// The rules of a policy watched against traces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgainstTraces {
    /// Traces read.
    pub traces: usize,
    /// The rules that can never fire on them, in rule order.
    pub dead: Vec<DeadRuleRow>,
    /// Files that could not be read as traces and were skipped: (path, error).
    pub unreadable: Vec<UnreadableFile>,
}

/// A rule that can never fire on the traces read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeadRuleRow {
    /// The rule's id.
    pub rule_id: String,
    /// What it names that never occurs.
    pub message: String,
    /// What was probably meant, or what to check.
    pub hint: String,
}

/// A file under a directory that could not be read as a trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UnreadableFile {
    /// Its path.
    pub file: String,
    /// Why.
    pub error: String,
}

impl PolicyValidation {
    /// Whether every rule can fire (true without traces named).
    pub fn all_can_fire(&self) -> bool {
        self.against.as_ref().is_none_or(|a| a.dead.is_empty())
    }
}
