//! pass^k (τ-bench, Yao et al. 2024): the chance that k independent trials of a case all pass,
//! estimated without bias per case by C(c, k)/C(n, k) for c passes of n trials and averaged
//! over cases, for k = 1..K with K the smallest trial count among the cases.

use veer_contract::trials::stats::PassHatK;

use crate::error::TrialsError;
use crate::rates::Count;

/// pass^k for k = 1..K over the cases' pass counts (an empty list gives K = 0 and no values).
pub fn pass_hat_k(cases: &[Count]) -> Result<PassHatK, TrialsError> {
    crate::error::check_cases(cases.len())?;
    for c in cases {
        crate::error::check_trials("side", c.trials as usize)?;
        if c.successes > c.trials {
            return Err(TrialsError::CountExceedsTrials {
                successes: c.successes,
                trials: c.trials,
            });
        }
    }
    let max_k = cases.iter().map(|c| c.trials).min().unwrap_or(0);
    let mut values = Vec::with_capacity(max_k as usize);
    for k in 1..=max_k {
        let mut sum = 0.0;
        for c in cases {
            // C(c, k)/C(n, k) = Π_{i<k} (c − i)/(n − i); 0 as soon as c < k.
            let mut v = 1.0;
            for i in 0..k {
                if c.successes <= i {
                    v = 0.0;
                    break;
                }
                v *= f64::from(c.successes - i) / f64::from(c.trials - i);
            }
            sum += v;
        }
        values.push((sum / cases.len() as f64).clamp(0.0, 1.0));
    }
    Ok(PassHatK {
        cases: cases.len() as u32,
        max_k,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_values() {
        // Case 1: 3 of 4 pass; case 2: 4 of 4; K = 4.
        let r = pass_hat_k(&[Count::new(3, 4), Count::new(4, 4)]).unwrap();
        assert_eq!(r.max_k, 4);
        // k=1: (0.75 + 1)/2; k=2: (C(3,2)/C(4,2) = 0.5 + 1)/2; k=4: (0 + 1)/2.
        assert!((r.values[0] - 0.875).abs() < 1e-15);
        assert!((r.values[1] - 0.75).abs() < 1e-15);
        assert!((r.values[3] - 0.5).abs() < 1e-15);
        assert!(pass_hat_k(&[]).unwrap().values.is_empty());
    }
}
