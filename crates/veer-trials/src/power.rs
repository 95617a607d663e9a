//! Power: the minimum detectable effect at 80% power and two-sided α,
//! MDE = (z_{1−α/2} + z_{power})·√((ω² + σ²_B/k_B + σ²_C/k_C)/n), its floor when trials → ∞
//! ((z + z)·√(ω²/n): past it only more cases help), and the `plan` inversion: the cases needed
//! at given trials, and whether more trials can reach a target at all. Report the MDE, never
//! post-hoc power from the observed effect.

use serde::{Deserialize, Serialize};
use veer_contract::trials::plan::{Plan, TrialsAnswer};

use crate::error::{check_open_unit, TrialsError};
use crate::special::normal_quantile;

/// The power the MDE is computed at by default.
pub const DEFAULT_POWER: f64 = 0.8;
/// The largest count `plan` answers with (cases or trials); beyond it the answer is "not
/// reachable".
pub(crate) const PLAN_LIMIT: u64 = 10_000_000;

/// The variance inputs of a power computation for one axis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PowerInputs {
    /// ω²: between-case variance of the true effect, ≥ 0.
    pub omega_squared: f64,
    /// σ²_B: within-case variance of a baseline trial, ≥ 0.
    pub sigma_squared_baseline: f64,
    /// σ²_C: within-case variance of a candidate trial, ≥ 0.
    pub sigma_squared_candidate: f64,
}

impl PowerInputs {
    fn check(&self) -> Result<(), TrialsError> {
        for (what, v) in [
            ("omega_squared", self.omega_squared),
            ("sigma_squared_baseline", self.sigma_squared_baseline),
            ("sigma_squared_candidate", self.sigma_squared_candidate),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(TrialsError::OutOfRange {
                    what: what.to_string(),
                    value: v,
                });
            }
        }
        Ok(())
    }

    fn per_case_variance(&self, k_b: f64, k_c: f64) -> f64 {
        self.omega_squared + self.sigma_squared_baseline / k_b + self.sigma_squared_candidate / k_c
    }
}

/// z_{1−α/2} + z_{power}: 2.8016 at α = 0.05 and 80% power.
pub(crate) fn z_sum(alpha: f64, power: f64) -> Result<f64, TrialsError> {
    check_open_unit("alpha", alpha)?;
    check_open_unit("power", power)?;
    Ok(normal_quantile(1.0 - alpha / 2.0) + normal_quantile(power))
}

/// The minimum detectable effect with `cases` cases and `k_b`, `k_c` trials a side, ≥ 0 (+∞ at
/// zero cases).
pub fn minimum_detectable_effect(
    inputs: &PowerInputs,
    k_b: f64,
    k_c: f64,
    cases: u64,
    alpha: f64,
    power: f64,
) -> Result<f64, TrialsError> {
    inputs.check()?;
    let z = z_sum(alpha, power)?;
    if !(k_b >= 1.0 && k_c >= 1.0 && k_b.is_finite() && k_c.is_finite()) {
        return Err(TrialsError::OutOfRange {
            what: "trials".to_string(),
            value: k_b.min(k_c),
        });
    }
    if cases == 0 {
        return Ok(f64::INFINITY);
    }
    Ok(z * (inputs.per_case_variance(k_b, k_c) / cases as f64).sqrt())
}

/// The MDE's floor as trials → ∞ at `cases` cases: (z + z)·√(ω²/n), ≥ 0.
pub fn mde_floor(
    inputs: &PowerInputs,
    cases: u64,
    alpha: f64,
    power: f64,
) -> Result<f64, TrialsError> {
    inputs.check()?;
    let z = z_sum(alpha, power)?;
    if cases == 0 {
        return Ok(f64::INFINITY);
    }
    Ok(z * (inputs.omega_squared / cases as f64).sqrt())
}

/// Inverts the MDE: the cases needed at (`k_b`, `k_c`) trials, and at the current `cases`
/// (≥ 1; 0 is refused so every number in the plan is finite) whether (and how many balanced)
/// trials reach `target`, or "more trials cannot reach it; add cases".
pub fn plan(
    inputs: &PowerInputs,
    target: f64,
    k_b: f64,
    k_c: f64,
    cases: u64,
    alpha: f64,
    power: f64,
) -> Result<Plan, TrialsError> {
    if !(target.is_finite() && target > 0.0) {
        return Err(TrialsError::OutOfRange {
            what: "target".to_string(),
            value: target,
        });
    }
    if cases == 0 {
        return Err(TrialsError::OutOfRange {
            what: "cases".to_string(),
            value: 0.0,
        });
    }
    let current_mde = minimum_detectable_effect(inputs, k_b, k_c, cases, alpha, power)?;
    let floor = mde_floor(inputs, cases, alpha, power)?;
    let z = z_sum(alpha, power)?;
    let needed = (z / target).powi(2) * inputs.per_case_variance(k_b, k_c);
    let cases_needed =
        (needed.is_finite() && needed <= PLAN_LIMIT as f64).then(|| (needed.ceil() as u64).max(2));
    let trials = if current_mde <= target {
        TrialsAnswer::AlreadyMet
    } else if floor >= target {
        TrialsAnswer::AddCases
    } else {
        // (z/target)²·(ω² + (σ²_B + σ²_C)/k)/n ≤ 1  ⇔  k ≥ (σ²_B + σ²_C)/(n·(target/z)² − ω²).
        let room = cases as f64 * (target / z).powi(2) - inputs.omega_squared;
        let s = inputs.sigma_squared_baseline + inputs.sigma_squared_candidate;
        let k = (s / room).ceil().max(1.0);
        if room > 0.0 && k <= PLAN_LIMIT as f64 {
            TrialsAnswer::Trials { per_side: k as u64 }
        } else {
            TrialsAnswer::AddCases
        }
    };
    Ok(Plan {
        target,
        alpha,
        power,
        baseline_trials: k_b,
        candidate_trials: k_c,
        cases,
        current_mde,
        floor,
        cases_needed,
        trials,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mde_and_plan() {
        let inputs = PowerInputs {
            omega_squared: 1.0,
            sigma_squared_baseline: 4.0,
            sigma_squared_candidate: 4.0,
        };
        let z = z_sum(0.05, 0.8).unwrap();
        assert!((z - 2.801_585_218_927_5).abs() < 1e-9);
        let m = minimum_detectable_effect(&inputs, 4.0, 4.0, 100, 0.05, 0.8).unwrap();
        assert!((m - z * (3.0f64 / 100.0).sqrt()).abs() < 1e-12);
        let f = mde_floor(&inputs, 100, 0.05, 0.8).unwrap();
        assert!((f - z * 0.1).abs() < 1e-12);
        let p = plan(&inputs, 0.5, 4.0, 4.0, 100, 0.05, 0.8).unwrap();
        // n = (z/0.5)²·3 = 94.2 → 95.
        assert_eq!(p.cases_needed, Some(95));
        assert_eq!(p.trials, TrialsAnswer::AlreadyMet);
        let p = plan(&inputs, 0.2, 4.0, 4.0, 100, 0.05, 0.8).unwrap();
        assert_eq!(p.trials, TrialsAnswer::AddCases);
        let p = plan(&inputs, 0.4, 4.0, 4.0, 100, 0.05, 0.8).unwrap();
        // room = 100·(0.4/z)² − 1 = 1.0386; k = ceil(8/1.0386) = 8.
        assert_eq!(p.trials, TrialsAnswer::Trials { per_side: 8 });
        let check = minimum_detectable_effect(&inputs, 8.0, 8.0, 100, 0.05, 0.8).unwrap();
        assert!(check <= 0.4);
        assert!(plan(&inputs, 0.0, 4.0, 4.0, 100, 0.05, 0.8).is_err());
        assert!(plan(&inputs, 0.5, 4.0, 4.0, 0, 0.05, 0.8).is_err());
    }
}
