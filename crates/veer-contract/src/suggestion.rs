//! What `veer policy suggest --from REPORT` writes: policy rules proposed from a regression, each
//! checked against the recorded runs — it must fire on a regressed candidate run and stay silent
//! on every baseline run to be kept. The proposing and the checking happen in `veer-policy`; this
//! is the plain data the printers render (a policy file with comments, JSON, a terminal table).

use crate::policy::RuleKind;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Version of the suggestion document.
pub const SUGGEST_SCHEMA_VERSION: &str = "1";

/// Rules proposed from one diff or trials report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SuggestReport {
    /// JSON schema version ([`SUGGEST_SCHEMA_VERSION`]).
    pub schema_version: Cow<'static, str>,
    /// The report the rules were written from, as given.
    pub from: String,
    /// `pair`, `directory` or `trials`: the kind of that report.
    pub report_kind: String,
    /// Cases (pairs of a directory diff, cases of a trials diff, or the one pair) the report
    /// marks as changed: the rules are written from their candidate runs.
    pub regressed_cases: Vec<String>,
    /// Baseline runs every kept rule was checked against (≥ 0).
    pub baseline_runs: usize,
    /// Candidate runs of the regressed cases (≥ 0).
    pub candidate_runs: usize,
    /// Every proposed rule, kept ones first, each in proposal order.
    pub rules: Vec<SuggestedRule>,
    /// Things the reader should know (a case without baseline runs, a run that could not be
    /// read, …).
    pub warnings: Vec<String>,
}

impl SuggestReport {
    /// The rules that fire on a regressed run and on no baseline run.
    pub fn kept(&self) -> impl Iterator<Item = &SuggestedRule> {
        self.rules.iter().filter(|r| r.kept)
    }
}

/// One proposed rule and what checking it found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SuggestedRule {
    /// The rule id (unique in the document).
    pub id: String,
    /// The rule's kind.
    pub kind: RuleKind,
    /// The case whose runs it was written from; `null` when it was written from every
    /// regressed case at once.
    pub case: Option<String>,
    /// The rule as one item of a policy's `rules:` list (YAML; loads with `veer policy
    /// validate`), without comments.
    pub yaml: String,
    /// Why the rule was proposed, for people.
    pub rationale: String,
    /// True when it fires on at least one regressed candidate run and on no baseline run.
    pub kept: bool,
    /// Candidate runs it fires on (names relative to the side's root, or file paths).
    pub fires_on: Vec<String>,
    /// What the rule says on the first of those runs (its violation detail).
    pub first_violation: Option<String>,
    /// Baseline runs it fires on: non-empty means it is not kept (it would fail the baseline).
    pub fires_on_baseline: Vec<String>,
}
