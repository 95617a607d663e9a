//! The violation record (spec `policy.md` §4.3, `cli.md` JSON names).

/// A violation as a rule's checker reports it, before rule and unit are attached.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RuleFinding {
    /// Absolute pair index, or `None` for a unit-level finding.
    pub pair_index: Option<usize>,
    /// The detail text.
    pub detail: String,
    /// Whether the finding is only final once the unit has ended (a prefix of a running trace
    /// may still fix it: "called 0 times", the final stop reason, the final-pair follow-up,
    /// `must_include_text`, `ltl_formula`). Runtime enforcement reports these at the end.
    pub end_of_unit: bool,
}

impl RuleFinding {
    /// A finding at one pair (or unit-level when `pair_index` is `None`), final as soon as
    /// it appears.
    pub fn new(pair_index: Option<usize>, detail: impl Into<String>) -> RuleFinding {
        RuleFinding {
            pair_index,
            detail: detail.into(),
            end_of_unit: false,
        }
    }

    /// A finding at one pair.
    pub fn at(pair_index: usize, detail: impl Into<String>) -> RuleFinding {
        RuleFinding::new(Some(pair_index), detail)
    }

    /// A unit-level finding.
    pub fn unit(detail: impl Into<String>) -> RuleFinding {
        RuleFinding::new(None, detail)
    }

    /// The same finding, judged only at the end of its unit.
    pub(crate) fn at_end_of_unit(mut self) -> RuleFinding {
        self.end_of_unit = true;
        self
    }
}
