//! Severity labels and the two classification rules: relative for continuous axes, absolute
//! for rate axes, both with the confidence-interval downgrade (spec `diff.md` §4).

use serde::{Deserialize, Serialize};

/// How much an axis moved. Ordered `None < Minor < Moderate < Severe`.
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
    Default,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// No meaningful change.
    #[default]
    None,
    /// A small change.
    Minor,
    /// A notable change.
    Moderate,
    /// A large change.
    Severe,
}

impl Severity {
    /// The lowercase wire label.
    pub fn label(self) -> &'static str {
        match self {
            Severity::None => "none",
            Severity::Minor => "minor",
            Severity::Moderate => "moderate",
            Severity::Severe => "severe",
        }
    }
}

/// Tolerance below which a delta or a bound counts as zero.
const EPS: f64 = 1e-9;

/// Whether an interval lies on both sides of zero (a bound of exactly 0 does not straddle).
pub fn straddles(low: f64, high: f64) -> bool {
    low < -EPS && high > EPS
}

/// Severity of a continuous axis: relative change `|delta / baseline|` (< 0.10 minor, < 0.30
/// moderate, else severe; minor when the baseline is ~0), with the straddle rules.
pub fn classify(delta: f64, baseline: f64, low: f64, high: f64) -> Severity {
    if ![delta, baseline, low, high].iter().all(|v| v.is_finite()) {
        return Severity::None;
    }
    if delta.abs() < EPS {
        return Severity::None;
    }
    let crosses = straddles(low, high);
    if crosses && delta.abs() < (baseline.abs() * 0.05).max(EPS) {
        return Severity::None;
    }
    let base = if baseline.abs() < EPS {
        Severity::Minor
    } else {
        let rel = (delta / baseline).abs();
        if rel < 0.10 {
            Severity::Minor
        } else if rel < 0.30 {
            Severity::Moderate
        } else {
            Severity::Severe
        }
    };
    downgrade(base, delta, low, high)
}

/// Severity of a rate axis: absolute `|delta|` (< 0.05 minor, < 0.15 moderate, else severe),
/// with the same straddle downgrade.
pub fn classify_rate(delta: f64, low: f64, high: f64) -> Severity {
    if ![delta, low, high].iter().all(|v| v.is_finite()) {
        return Severity::None;
    }
    if delta.abs() < EPS {
        return Severity::None;
    }
    let base = if delta.abs() < 0.05 {
        Severity::Minor
    } else if delta.abs() < 0.15 {
        Severity::Moderate
    } else {
        Severity::Severe
    };
    downgrade(base, delta, low, high)
}

/// A straddling interval caps a moderate/severe base at minor unless the delta dominates the
/// interval width (or the width is ~0).
fn downgrade(base: Severity, delta: f64, low: f64, high: f64) -> Severity {
    if straddles(low, high) && base > Severity::Minor {
        let w = (high - low).abs();
        if w < EPS || delta.abs() >= w {
            base
        } else {
            Severity::Minor
        }
    } else {
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuous_rules() {
        assert_eq!(classify(0.0, 1.0, 0.0, 0.0), Severity::None);
        assert_eq!(classify(26.0, 26.0, -17.0, 40.0), Severity::Minor);
        assert_eq!(classify(314.0, 98.0, 314.0, 419.0), Severity::Severe);
        assert_eq!(classify(1.0, 0.0, 1.0, 1.0), Severity::Minor);
        assert_eq!(classify(0.01, 1.0, -1.0, 1.0), Severity::None);
        assert_eq!(classify(f64::NAN, 1.0, 0.0, 0.0), Severity::None);
    }

    #[test]
    fn rate_rules() {
        assert_eq!(classify_rate(0.2, 0.0, 0.6), Severity::Severe);
        assert_eq!(classify_rate(0.1, 0.0, 0.0), Severity::Moderate);
        assert_eq!(classify_rate(0.01, 0.0, 0.0), Severity::Minor);
        // Straddles, delta smaller than the width → minor.
        assert_eq!(classify_rate(0.2, -0.5, 0.5), Severity::Minor);
        // Straddles, delta dominates → kept.
        assert_eq!(classify_rate(0.9, -0.1, 0.5), Severity::Severe);
    }
}
