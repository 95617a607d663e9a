//! The violation record (spec `policy.md` §4.3, `cli.md` JSON names).

use crate::model::{Kind, Severity};
use serde::{Deserialize, Serialize};

/// One broken rule at one place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Violation {
    /// The rule's id.
    pub rule_id: String,
    /// The rule's kind.
    pub kind: Kind,
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

/// A violation as a rule's checker reports it, before rule and unit are attached.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Absolute pair index, or `None` for a unit-level finding.
    pub pair_index: Option<usize>,
    /// The detail text.
    pub detail: String,
    /// Whether the finding is only final once the unit has ended (a prefix of a running trace
    /// may still fix it: "called 0 times", the final stop reason, the final-pair follow-up,
    /// `must_include_text`, `ltl_formula`). Runtime enforcement reports these at the end.
    pub end_of_unit: bool,
}

impl Finding {
    /// A finding at one pair (or unit-level when `pair_index` is `None`), final as soon as
    /// it appears.
    pub fn new(pair_index: Option<usize>, detail: impl Into<String>) -> Finding {
        Finding {
            pair_index,
            detail: detail.into(),
            end_of_unit: false,
        }
    }

    /// A finding at one pair.
    pub fn at(pair_index: usize, detail: impl Into<String>) -> Finding {
        Finding::new(Some(pair_index), detail)
    }

    /// A unit-level finding.
    pub fn unit(detail: impl Into<String>) -> Finding {
        Finding::new(None, detail)
    }

    /// The same finding, judged only at the end of its unit.
    pub fn at_end_of_unit(mut self) -> Finding {
        self.end_of_unit = true;
        self
    }
}
