//! The statistics' own results as a trials report shows them: the modal first divergence of a
//! case, pass^k of a side, how a permutation p-value was computed and a suite-level outcome.
//! `veer-trials` computes them; they are plain data here so the printers need no measure.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The modal first-divergence turn of a case.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModalDivergence {
    /// The turn most cross-side pairs first diverge at (the earliest on a tie); None when no
    /// cross pair diverges.
    pub turn: Option<u32>,
    /// Cross pairs diverging first at `turn`.
    pub cross_at_turn: u32,
    /// All cross pairs (k_B·k_C).
    pub cross_pairs: u32,
    /// Within-side pairs (baseline–baseline and candidate–candidate) diverging first at `turn`.
    pub within_at_turn: u32,
    /// All within-side pairs.
    pub within_pairs: u32,
    /// Cross pairs that never diverge.
    pub cross_identical: u32,
    /// Within pairs that never diverge.
    pub within_identical: u32,
}

impl fmt::Display for ModalDivergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.turn {
            Some(turn) => write!(
                f,
                "turn {turn}: {}/{} cross, {}/{} within",
                self.cross_at_turn, self.cross_pairs, self.within_at_turn, self.within_pairs
            ),
            None => write!(f, "no cross pair diverges ({} pairs)", self.cross_pairs),
        }
    }
}

/// pass^k for one side.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassHatK {
    /// Cases averaged over.
    pub cases: u32,
    /// K: the smallest trial count among the cases (pass^k is reported for k = 1..K).
    pub max_k: u32,
    /// `values[k − 1]` = pass^k, each in [0, 1], non-increasing in k.
    pub values: Vec<f64>,
}

/// How a permutation p-value was computed.
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum PermutationMethod {
    /// Every relabelling enumerated.
    Exact {
        /// Their number.
        relabellings: u64,
    },
    /// Seeded Monte Carlo: p = (b+1)/(B+1).
    MonteCarlo {
        /// B.
        draws: u32,
        /// The seed.
        seed: u64,
    },
}

/// The outcome of one suite-level test after Holm.
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SuiteOutcome {
    /// Holm-adjusted p < α in the worse direction and effect beyond the margin.
    Regressed,
    /// Likewise in the better direction.
    Improved,
    /// Neither.
    NoSupportedChange,
}
