//! Flakiness: how much a side's own trials disagree. For rates, the unbiased Bernoulli variance
//! p̂(1−p̂)·k/(k−1); for behaviour, the within-side spread D_BB against the cross spread D_BC.
//! The rule that calls a side flaky is here so the engine and the docs say the same thing.

/// A side is flaky on a rate when its flakiness is at least this: the variance of a Bernoulli
/// trial with a 20% minority outcome (0.2·0.8). At k = 3 one odd trial out is flaky; at k = 10
/// one of ten is not, two are.
pub(crate) const RATE_FLAKY_THRESHOLD: f64 = 0.16;

/// The rate flakiness of `successes` of `trials`: p̂(1−p̂)·k/(k−1), in [0, 0.5] (at most
/// ¼·k/(k−1), largest at k = 2). None at k ≤ 1: one trial says nothing about its spread.
pub(crate) fn rate_flakiness(successes: u32, trials: u32) -> Option<f64> {
    if trials < 2 || successes > trials {
        return None;
    }
    let k = f64::from(trials);
    let p = f64::from(successes) / k;
    Some(p * (1.0 - p) * k / (k - 1.0))
}

/// Whether a side is flaky on a rate: its trials disagree with a minority share large enough
/// that the rate flakiness reaches `RATE_FLAKY_THRESHOLD`.
pub fn is_rate_flaky(successes: u32, trials: u32) -> bool {
    rate_flakiness(successes, trials).is_some_and(|f| f >= RATE_FLAKY_THRESHOLD - 1e-12)
}

/// Behaviour flakiness of one side: its within spread relative to the cross spread, D_ss/D_BC,
/// ≥ 0 (≈ 1 when the sides are alike, ≪ 1 when the change dominates the noise). None when the
/// side has one trial or the cross spread is 0.
#[cfg(test)]
fn behaviour_flakiness(d_within: Option<f64>, d_cross: f64) -> Option<f64> {
    match d_within {
        Some(w) if d_cross > 0.0 => Some(w / d_cross),
        _ => None,
    }
}

/// Whether a side is flaky on behaviour: its own trials are, on average, farther apart than
/// the practical margin for that distance (a change smaller than the side's own disagreement
/// cannot be told from it).
pub fn is_behaviour_flaky(d_within: Option<f64>, margin: f64) -> bool {
    d_within.is_some_and(|w| w > margin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_values() {
        assert_eq!(rate_flakiness(0, 5), Some(0.0));
        assert_eq!(rate_flakiness(1, 1), None);
        assert!((rate_flakiness(1, 2).unwrap() - 0.5).abs() < 1e-12);
        assert!(is_rate_flaky(1, 3));
        assert!(!is_rate_flaky(1, 10));
        assert!(is_rate_flaky(2, 10));
        assert!(!is_rate_flaky(0, 10));
        assert!(!is_rate_flaky(1, 1));
        assert_eq!(behaviour_flakiness(Some(1.0), 2.0), Some(0.5));
        assert!(is_behaviour_flaky(Some(0.3), 0.2));
        assert!(!is_behaviour_flaky(None, 0.2));
    }
}
