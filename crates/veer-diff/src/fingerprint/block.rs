//! The `fingerprint` block of a diff report: the Hotelling T² test of the baseline's response
//! fingerprints against the candidate's, with each dimension's means and contribution, and
//! the gate level a powered rejection carries (decision in `docs/diff.md`).

use super::{FingerprintScales, DIMENSIONS};
use crate::hotelling::moments::SampleMoments;
use crate::hotelling::{
    hotelling_t2, hotelling_t2_of_moments, HotellingResult, PValue, DEFAULT_ALPHA,
};
use veer_contract::fingerprint::{DimensionShift, FingerprintBlock};

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
