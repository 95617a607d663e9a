//! Level labels and the two classification rules: relative for continuous axes, absolute
//! for rate axes, both with the confidence-interval downgrade (spec `diff.md` §4).

use veer_base::Level;

/// Tolerance below which a delta or a bound counts as zero.
const EPS: f64 = 1e-9;

/// Whether an interval lies on both sides of zero (a bound of exactly 0 does not straddle).
pub(crate) fn straddles(low: f64, high: f64) -> bool {
    low < -EPS && high > EPS
}

/// Level of a continuous axis: relative change `|delta / baseline|` (< 0.10 minor, < 0.30
/// moderate, else severe; minor when the baseline is ~0), with the straddle rules.
pub fn classify(delta: f64, baseline: f64, low: f64, high: f64) -> Level {
    if ![delta, baseline, low, high].iter().all(|v| v.is_finite()) {
        return Level::None;
    }
    if delta.abs() < EPS {
        return Level::None;
    }
    let crosses = straddles(low, high);
    if crosses && delta.abs() < (baseline.abs() * 0.05).max(EPS) {
        return Level::None;
    }
    let base = if baseline.abs() < EPS {
        Level::Minor
    } else {
        let rel = (delta / baseline).abs();
        if rel < 0.10 {
            Level::Minor
        } else if rel < 0.30 {
            Level::Moderate
        } else {
            Level::Severe
        }
    };
    downgrade(base, delta, low, high)
}

/// Level of a rate axis: absolute `|delta|` (< 0.05 minor, < 0.15 moderate, else severe),
/// with the same straddle downgrade.
pub(crate) fn classify_rate(delta: f64, low: f64, high: f64) -> Level {
    if ![delta, low, high].iter().all(|v| v.is_finite()) {
        return Level::None;
    }
    if delta.abs() < EPS {
        return Level::None;
    }
    let base = if delta.abs() < 0.05 {
        Level::Minor
    } else if delta.abs() < 0.15 {
        Level::Moderate
    } else {
        Level::Severe
    };
    downgrade(base, delta, low, high)
}

/// A straddling interval caps a moderate/severe base at minor unless the delta dominates the
/// interval width (or the width is ~0).
fn downgrade(base: Level, delta: f64, low: f64, high: f64) -> Level {
    if straddles(low, high) && base > Level::Minor {
        let w = (high - low).abs();
        if w < EPS || delta.abs() >= w {
            base
        } else {
            Level::Minor
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
        assert_eq!(classify(0.0, 1.0, 0.0, 0.0), Level::None);
        assert_eq!(classify(26.0, 26.0, -17.0, 40.0), Level::Minor);
        assert_eq!(classify(314.0, 98.0, 314.0, 419.0), Level::Severe);
        assert_eq!(classify(1.0, 0.0, 1.0, 1.0), Level::Minor);
        assert_eq!(classify(0.01, 1.0, -1.0, 1.0), Level::None);
        assert_eq!(classify(f64::NAN, 1.0, 0.0, 0.0), Level::None);
    }

    #[test]
    fn rate_rules() {
        assert_eq!(classify_rate(0.2, 0.0, 0.6), Level::Severe);
        assert_eq!(classify_rate(0.1, 0.0, 0.0), Level::Moderate);
        assert_eq!(classify_rate(0.01, 0.0, 0.0), Level::Minor);
        // Straddles, delta smaller than the width → minor.
        assert_eq!(classify_rate(0.2, -0.5, 0.5), Level::Minor);
        // Straddles, delta dominates → kept.
        assert_eq!(classify_rate(0.9, -0.1, 0.5), Level::Severe);
    }
}
