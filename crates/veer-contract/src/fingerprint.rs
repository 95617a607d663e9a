//! The `fingerprint` block of a diff report: the Hotelling T² test of the baseline's response
//! fingerprints against the candidate's, each dimension's means and contribution, and the gate
//! level a powered rejection carries (decision in `docs/diff.md`).

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use veer_base::Level;

/// How the p-value is obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// `F(D, n1 + n2 − D − 1)` survival function of the F transform of T².
    FDistribution,
    /// Every one of the `C(n1 + n2, n1)` relabellings enumerated.
    ExactPermutation,
    /// Seeded random relabellings, Phipson–Smyth corrected `(b + 1) / (B + 1)`.
    MonteCarloPermutation,
}

/// The three-state verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// `p < α`: the two samples differ jointly.
    Reject,
    /// `p ≥ α` with post-hoc power ≥ 0.5: looked carefully, saw nothing.
    FailToReject,
    /// `p ≥ α` with power < 0.5, or `n1 + n2 ≤ D + 1` (the F approximation is undefined).
    Underpowered,
}

impl Decision {
    /// The wire label.
    pub fn label(self) -> &'static str {
        match self {
            Decision::Reject => "reject",
            Decision::FailToReject => "fail_to_reject",
            Decision::Underpowered => "underpowered",
        }
    }
}

/// Post-hoc power at or above which a rejection is "powered" (Cohen's 0.8).
pub(crate) const GATE_POWER: f64 = 0.8;

/// Smallest absolute mean shift (on the dimensions' 0–1 scale) of at least one dimension for a
/// powered rejection to reach the gate: 0.05 = five percentage points of a rate.
pub(crate) const GATE_MIN_SHIFT: f64 = 0.05;

/// One fingerprint dimension in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DimensionShift {
    /// Dimension name (see [`DIMENSIONS`]).
    pub name: Cow<'static, str>,
    /// Mean over the baseline's responses (0–1).
    pub baseline_mean: f64,
    /// Mean over the candidate's responses (0–1).
    pub candidate_mean: f64,
    /// The dimension's additive share of T² (T² units; the twelve sum to `t2`).
    pub contribution: f64,
}

/// The joint test of "the agent behaves differently".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FingerprintBlock {
    /// Baseline responses.
    pub n1: usize,
    /// Candidate responses.
    pub n2: usize,
    /// Hotelling's T² (≥ 0).
    pub t2: f64,
    /// The F transform of T²; null when `n1 + n2 ≤ 13`.
    pub f_stat: Option<f64>,
    /// Degrees of freedom of the F transform: 12 and `n1 + n2 − 13` (floored at 0).
    pub df: [usize; 2],
    /// p-value (0–1).
    pub p_value: f64,
    /// `exact_permutation` when at most 13,000 relabellings exist, else `f_distribution`.
    pub method: Method,
    /// OAS covariance shrinkage coefficient (0–1).
    pub shrinkage: f64,
    /// Post-hoc power (0–1); null when the F approximation is undefined.
    pub power: Option<f64>,
    /// Significance level.
    pub alpha: f64,
    /// `reject`, `fail_to_reject` or `underpowered`.
    pub decision: Decision,
    /// The twelve dimensions in fingerprint order.
    pub dimensions: Vec<DimensionShift>,
}

impl FingerprintBlock {
    /// The gate level of the test: `moderate` for a powered rejection (decision `reject`,
    /// power ≥ `GATE_POWER`, some dimension's mean moved by ≥ `GATE_MIN_SHIFT`), else none.
    pub fn gate_level(&self) -> Level {
        let largest_shift = self
            .dimensions
            .iter()
            .map(|d| (d.candidate_mean - d.baseline_mean).abs())
            .fold(0.0, f64::max);
        gate_level(self.decision, self.power, largest_shift)
    }

    /// The dimensions by contribution, largest first (ties in fingerprint order).
    pub fn top_dimensions(&self) -> Vec<&DimensionShift> {
        let mut v: Vec<&DimensionShift> = self.dimensions.iter().collect();
        v.sort_by(|a, b| b.contribution.total_cmp(&a.contribution));
        v
    }
}

/// The gate level of a fingerprint test from its decision, power (None when undefined) and
/// the largest absolute mean shift over the dimensions (0–1): `moderate` for a powered
/// rejection, else none. `veer gate` applies the same rule to a saved report.
pub fn gate_level(decision: Decision, power: Option<f64>, largest_shift: f64) -> Level {
    let powered = power.is_some_and(|p| p >= GATE_POWER);
    if decision == Decision::Reject && powered && largest_shift >= GATE_MIN_SHIFT {
        Level::Moderate
    } else {
        Level::None
    }
}
