//! The knobs of the trials analysis: α, the seed, the practical margins (with their
//! documented defaults), the outcome rule, the quarantine and when to spill to disk.

use super::measure::AXIS_COUNT;
use std::collections::BTreeSet;

/// A practical margin: a change counts only beyond max(relative × baseline mean, absolute).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Margin {
    /// Share of the baseline mean, ≥ 0 (0.2 = 20%).
    pub relative: f64,
    /// In the measure's units, ≥ 0.
    pub absolute: f64,
}

impl Margin {
    /// The margin in units for a baseline mean.
    pub fn at(&self, baseline_mean: f64) -> f64 {
        (self.relative * baseline_mean.abs()).max(self.absolute)
    }
}

/// Default margins per axis of [`super::measure::AXES`]: latency +20% and +50 ms, output tokens +20% and +20,
/// tool calls +10% and +0.5, turns +10% and +0.5.
pub const DEFAULT_MARGINS: [Margin; AXIS_COUNT] = [
    Margin {
        relative: 0.2,
        absolute: 50.0,
    },
    Margin {
        relative: 0.2,
        absolute: 20.0,
    },
    Margin {
        relative: 0.1,
        absolute: 0.5,
    },
    Margin {
        relative: 0.1,
        absolute: 0.5,
    },
];

/// Default behaviour margin: an excess divergence E beyond 0.1 (behaviour-distance units).
pub const DEFAULT_BEHAVIOUR_MARGIN: f64 = 0.1;

/// Cases held in memory before the analysis spills case results to a temporary file: a few
/// hundred cases of results take about 1.5 MB, so small suites never touch the disk.
pub(crate) const DEFAULT_SPILL_AFTER: usize = 256;

/// The knobs of the trials analysis.
#[derive(Debug, Clone)]
pub struct TrialsOptions {
    /// Significance level α, in (0, 1) (default 0.05).
    pub alpha: f64,
    /// Seed of every Monte Carlo permutation.
    pub seed: u64,
    /// Margin per axis of [`super::measure::AXES`].
    pub margins: [Margin; AXIS_COUNT],
    /// Margin of the excess divergence, in behaviour-distance units (edits per aligned call), ≥ 0.
    pub behaviour_margin: f64,
    /// Where each trial's pass/fail outcome comes from (pass^k and the per-case pass rates).
    pub outcome: super::outcome::OutcomeRule,
    /// Quarantined case keys (`.veer/quarantine.yaml`, entries not expired): measured and
    /// shown, marked `quarantined`, left out of the suite-level tests and never tripping the
    /// gate (docs/trials.md, "Quarantine").
    pub quarantine: BTreeSet<String>,
    /// Warnings the report carries (e.g. expired quarantine entries, which are not honoured).
    pub warnings: Vec<String>,
    /// Cases whose results are held in memory before they are spilled to a temporary file
    /// ([`super::spill`]); past it memory stays flat in the number of cases. Default
    /// `DEFAULT_SPILL_AFTER`; 0 spills from the first case.
    pub spill_after: usize,
    /// `--allow-missing`: cases on one side only (and cases that could not be measured) are
    /// listed but do not trip the gate. Default false: they do.
    pub allow_missing: bool,
    /// `--fail-on-schema`: a case whose offered tools changed at or above this class trips
    /// the gate; None: the schema never gates.
    pub fail_on_schema: Option<veer_contract::tool_schema::SchemaClass>,
}

impl Default for TrialsOptions {
    fn default() -> Self {
        TrialsOptions {
            alpha: 0.05,
            seed: 42,
            margins: DEFAULT_MARGINS,
            behaviour_margin: DEFAULT_BEHAVIOUR_MARGIN,
            outcome: super::outcome::OutcomeRule::default(),
            quarantine: BTreeSet::new(),
            warnings: Vec::new(),
            spill_after: DEFAULT_SPILL_AFTER,
            allow_missing: false,
            fail_on_schema: None,
        }
    }
}
