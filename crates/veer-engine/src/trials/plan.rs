//! `veer plan DIR --mde X`: how many cases and trials a suite needs so that a
//! change of X on an axis is detected with 80% power, from one side's repeated trials.
//!
//! One side tells the within-case (trial-to-trial) variance σ² of each axis; the between-case
//! variance of a true effect, ω², needs two sides and is taken as 0 here, so the cases needed are
//! a lower bound (docs/trials.md). The inversion itself is `veer_trials::plan`.

use super::layout::Layout;
use super::measure::{trial_numbers, AXES};
use rayon::prelude::*;
use veer_contract::trials::plan::TrialsPlan;
use veer_trace::ReadOptions;

/// The plan for `target` (> 0, in the axis's units) on axis `axis` (index into [`AXES`]) at
/// two-sided `alpha` and `power`, from the baseline side of `layout`. An error message when no
/// case has two readable trials (the noise cannot be estimated) or the inputs are out of range.
pub fn plan_directory(
    layout: &Layout,
    read: &ReadOptions,
    axis: usize,
    target: f64,
    alpha: f64,
    power: f64,
) -> Result<TrialsPlan, String> {
    let Some(spec) = AXES.get(axis) else {
        return Err(format!("no axis number {axis}"));
    };
    // A window of cases at a time: only each case's values are kept.
    let window = rayon::current_num_threads().max(1) * 4;
    let mut per_case: Vec<(Vec<f64>, usize)> = Vec::with_capacity(layout.len());
    let mut cases = layout.cases().map_err(|e| e.message)?;
    loop {
        let chunk: Vec<super::layout::Case> = cases
            .by_ref()
            .take(window)
            .collect::<Result<_, _>>()
            .map_err(|e| e.message)?;
        if chunk.is_empty() {
            break;
        }
        per_case.par_extend(chunk.par_iter().map(|case| {
            let mut values = Vec::new();
            let mut bad = 0;
            for f in &case.baseline {
                match veer_trace::load_trace(&f.path(), read) {
                    Ok(t) if !t.responses().is_empty() => {
                        values.push(trial_numbers(&t, None).axes[axis])
                    }
                    _ => bad += 1,
                }
            }
            (values, bad)
        }));
    }
    let unreadable = per_case.iter().map(|c| c.1).sum();
    let cases: Vec<&Vec<f64>> = per_case
        .iter()
        .map(|c| &c.0)
        .filter(|v| !v.is_empty())
        .collect();
    let variances: Vec<f64> = cases
        .iter()
        .filter(|v| v.len() >= 2)
        .map(|v| {
            let m = v.iter().sum::<f64>() / v.len() as f64;
            v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64
        })
        .collect();
    if variances.is_empty() {
        return Err(
            "no case has two readable trials, so the trial-to-trial noise cannot be estimated"
                .into(),
        );
    }
    let within = variances.iter().sum::<f64>() / variances.len() as f64;
    let k = cases.len() as f64 / cases.iter().map(|v| 1.0 / v.len() as f64).sum::<f64>();
    let inputs = veer_trials::PowerInputs {
        omega_squared: 0.0,
        sigma_squared_baseline: within,
        sigma_squared_candidate: within,
    };
    let plan = veer_trials::plan(&inputs, target, k, k, cases.len() as u64, alpha, power)
        .map_err(|e| e.to_string())?;
    Ok(TrialsPlan {
        axis: spec.name.into(),
        unit: spec.unit.into(),
        cases: layout.len(),
        cases_with_noise: variances.len(),
        trials_per_case: k,
        within_variance: within,
        unreadable,
        plan,
    })
}
