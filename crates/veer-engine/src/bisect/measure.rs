//! One run of a bisect measured against the runs of the baseline configuration (the all-A
//! point), with the measures veer already has (docs/bisect.md, "Measures"):
//!
//! * `trajectory`: normalised Levenshtein distance of the tool-name sequences, in [0, 1],
//!   averaged over the baseline runs;
//! * `d_norm`: the event-level structural distance, in [0, 1], averaged likewise;
//! * `first_divergence`: where the run first departs from a baseline run, as a fraction of the
//!   aligned length (t*/T in [0, 1); 1 when it never does), averaged likewise — lower is an
//!   earlier divergence;
//! * the per-run axes of `veer diff` on trials: `tool_calls`, `turns`, `output_tokens`,
//!   `latency` (the run's own value);
//! * `policy:RULE_ID`: 1 when the run violates the rule, else 0 (the effect is a change in the
//!   violation rate).
//!
//! A baseline run is compared with the other baseline runs only (never with itself).

use crate::trials::measure::{trial_numbers, AXES};
use veer_experiment::divergence::{structural_parts, PreparedTrace};
use veer_policy::Policy;
use veer_trace::Trace;

/// A measure's name and unit, in report order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MeasureName {
    /// `trajectory`, `d_norm`, `first_divergence`, an axis, or `policy:RULE_ID`.
    pub name: String,
    /// Its unit.
    pub unit: &'static str,
}

/// The measures of a bisect with `policy`, in report order.
pub(crate) fn measure_names(policy: Option<&Policy>) -> Vec<MeasureName> {
    let mut v = vec![
        MeasureName {
            name: "trajectory".into(),
            unit: "distance",
        },
        MeasureName {
            name: "d_norm".into(),
            unit: "distance",
        },
        MeasureName {
            name: "first_divergence".into(),
            unit: "position",
        },
    ];
    for axis in [2usize, 3, 1, 0] {
        if let Some(a) = AXES.get(axis) {
            v.push(MeasureName {
                name: a.name.into(),
                unit: a.unit,
            });
        }
    }
    if let Some(p) = policy {
        for r in &p.rules {
            v.push(MeasureName {
                name: format!("policy:{}", r.id),
                unit: "violation rate",
            });
        }
    }
    v
}

/// Measures every run against the reference runs (`reference[i]` is the index in `runs` of a
/// baseline run). Returns, per run, one value per [`measure_names`] entry; every value is
/// finite. `max_align_cells` bounds each structural comparison.
pub(crate) fn measure_runs(
    runs: &[&Trace],
    reference: &[usize],
    policy: Option<&Policy>,
    max_align_cells: u64,
) -> Vec<Vec<f64>> {
    use rayon::prelude::*;
    let prepared: Vec<PreparedTrace<'_>> = runs.par_iter().map(|t| PreparedTrace::new(t)).collect();
    let tools: Vec<Vec<String>> = runs
        .iter()
        .map(|t| t.tool_calls().into_iter().map(|c| c.name).collect())
        .collect();
    (0..runs.len())
        .into_par_iter()
        .map(|i| {
            let mut traj = 0.0;
            let mut dn = 0.0;
            let mut first = 0.0;
            let mut n = 0usize;
            for &r in reference.iter().filter(|&&r| r != i) {
                let (script, fd, _, _) =
                    structural_parts(&prepared[r], &prepared[i], max_align_cells);
                let d = script.normalized();
                dn += if d.is_finite() { d } else { 1.0 };
                let t = veer_diff::levenshtein::normalized_levenshtein(&tools[r], &tools[i]);
                traj += if t.is_finite() { t } else { 1.0 };
                first += fd.map_or(1.0, |f| {
                    if f.normalized_position.is_finite() {
                        f.normalized_position
                    } else {
                        0.0
                    }
                });
                n += 1;
            }
            let avg = |s: f64| if n == 0 { 0.0 } else { s / n as f64 };
            // A baseline run with no other baseline run to compare with is at distance 0.
            let first = if n == 0 { 1.0 } else { avg(first) };
            let numbers = trial_numbers(runs[i], policy);
            let mut v = vec![avg(traj), avg(dn), first];
            for axis in [2usize, 3, 1, 0] {
                v.push(numbers.axes.get(axis).copied().unwrap_or(0.0));
            }
            v.extend(numbers.violated.iter().map(|&b| if b { 1.0 } else { 0.0 }));
            v.into_iter()
                .map(|x| if x.is_finite() { x } else { 0.0 })
                .collect()
        })
        .collect()
}
