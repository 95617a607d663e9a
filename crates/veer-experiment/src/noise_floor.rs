//! The noise floor: how far clean re-runs drift from the baseline on their own (spec
//! `experiment.md` §10).

/// floor = max(0.0, d_norm of each clean re-run), a maximum, not a mean; a re-run without a
/// d_norm counts as 0.0. `None` when there are no re-runs (floor unmeasured). In [0, 1].
pub fn noise_floor(rerun_d_norms: &[Option<f64>]) -> Option<f64> {
    if rerun_d_norms.is_empty() {
        return None;
    }
    Some(
        rerun_d_norms
            .iter()
            .map(|d| d.unwrap_or(0.0))
            .fold(0.0, |acc: f64, d| if d > acc { d } else { acc }),
    )
}

/// Whether a pair's d_norm is within the floor (`d_norm <= floor`); `None` when either is
/// unknown. Only a flag: it changes no other metric.
pub fn within_noise_floor(floor: Option<f64>, d_norm: Option<f64>) -> Option<bool> {
    Some(d_norm? <= floor?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_is_the_maximum() {
        assert_eq!(noise_floor(&[]), None);
        assert_eq!(noise_floor(&[Some(0.0)]), Some(0.0));
        assert_eq!(noise_floor(&[Some(0.02), None, Some(0.05)]), Some(0.05));
        assert_eq!(within_noise_floor(Some(0.0), Some(0.0)), Some(true));
        assert_eq!(within_noise_floor(Some(0.05), Some(0.6)), Some(false));
        assert_eq!(within_noise_floor(None, Some(0.1)), None);
        assert_eq!(within_noise_floor(Some(0.1), None), None);
    }
}
