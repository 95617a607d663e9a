//! The `fingerprint` block of a diff report: the Hotelling T² test of the baseline's response
//! fingerprints against the candidate's, with each dimension's means and contribution, and
//! the gate level a powered rejection carries (decision in `docs/diff.md`).

use super::{FingerprintScales, DIMENSIONS};
use crate::hotelling::moments::SampleMoments;
use crate::hotelling::{
    hotelling_t2, hotelling_t2_of_moments, Decision, HotellingResult, Method, PValue, DEFAULT_ALPHA,
};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use veer_policy::Level;

/// Post-hoc power at or above which a rejection is "powered" (Cohen's 0.8).
pub const GATE_POWER: f64 = 0.8;
/// Smallest absolute mean shift (on the dimensions' 0–1 scale) of at least one dimension for a
/// powered rejection to reach the gate: 0.05 = five percentage points of a rate.
pub const GATE_MIN_SHIFT: f64 = 0.05;

/// Knobs of the fingerprint test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FingerprintOptions {
    /// Saturation points of the log-scaled dimensions.
    pub scales: FingerprintScales,
    /// Significance level (0–1, default 0.05).
    pub alpha: f64,
}

impl Default for FingerprintOptions {
    fn default() -> Self {
        FingerprintOptions {
            scales: FingerprintScales::default(),
            alpha: DEFAULT_ALPHA,
        }
    }
}

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
    /// power ≥ [`GATE_POWER`], some dimension's mean moved by ≥ [`GATE_MIN_SHIFT`]), else none.
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

/// The fingerprint block of two samples of response fingerprints (rows of [`super::DIM`] values, held
/// or borrowed: `[f64; DIM]` or `&[f64; DIM]`); None when a side has fewer than two responses
/// (the test needs a covariance on each side).
pub fn fingerprint_block<R: AsRef<[f64]>>(
    baseline: &[R],
    candidate: &[R],
    options: &FingerprintOptions,
) -> Option<FingerprintBlock> {
    let r = hotelling_t2(baseline, candidate, options.alpha, PValue::ExactWhenSmall).ok()?;
    Some(block_of(r, options))
}

/// [`fingerprint_block`] from the two samples' moments (rows passed over twice rather than
/// held, [`crate::hotelling::moments`]): the same block whenever the labellings are too many for
/// the exact permutation p-value (`C(n1 + n2, n1) > EXACT_PERM_LIMIT`, e.g. more than 200
/// responses in all).
pub fn fingerprint_block_of_moments(
    baseline: SampleMoments,
    candidate: SampleMoments,
    options: &FingerprintOptions,
) -> Option<FingerprintBlock> {
    let r = hotelling_t2_of_moments(baseline, candidate, options.alpha).ok()?;
    Some(block_of(r, options))
}

/// The block of a test result.
fn block_of(r: HotellingResult, options: &FingerprintOptions) -> FingerprintBlock {
    let dimensions = DIMENSIONS
        .iter()
        .enumerate()
        .map(|(j, &name)| DimensionShift {
            name: name.into(),
            baseline_mean: r.baseline_mean[j],
            candidate_mean: r.candidate_mean[j],
            // `+ 0.0` turns a -0.0 (a dimension that did not move) into 0.
            contribution: r.contributions[j] + 0.0,
        })
        .collect();
    FingerprintBlock {
        n1: r.n1,
        n2: r.n2,
        t2: r.t2,
        f_stat: r.f_stat,
        df: [r.d, r.df2],
        p_value: r.p_value,
        method: r.method,
        shrinkage: r.shrinkage,
        power: r.power,
        alpha: options.alpha,
        decision: r.decision,
        dimensions,
    }
}
