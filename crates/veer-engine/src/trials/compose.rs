//! From every case's raw results to the `trials` block (issue 28, items 2–3): the case-test
//! family and its Benjamini–Hochberg adjustment over all cases, then each case's entry
//! (`super::case_block`) built as its raw results are read back, the suite-level tests
//! ([`super::suite`]), pass^k and the power plan. The raw tests of a case are computed as it is
//! measured ([`super::raw`], streamed); the statistics are `veer-trials`' pure functions.
//!
//! Error control (docs/trials.md): α is split in two halves. The case tests — every testable
//! (case, measure) test of the run in one Benjamini–Hochberg family over the tests that can
//! reach significance (Tarone/Gilbert) — get α/2, as do the suite tests (Holm across axes and
//! rules). Reported adjusted p-values are doubled so that each compares with α.
//!
//! Memory: the family holds a few numbers per case test (slot, raw and smallest attainable p,
//! adjusted p: about 80 bytes a test); the entries themselves are never all held once the
//! suite is past the spill threshold ([`super::spill`]).

use super::case_block::case_block;
use super::measure::{AXES, AXIS_COUNT};
use super::raw::SuiteRow;
use super::report::*;
use super::spill::{CaseListBuilder, RawStore};
use super::suite::{doubled, pass_hat, suite};
use super::TrialsOptions;
use crate::error::Error;
use veer_policy::Policy;
use veer_trials::{balanced_trials_for_level, benjamini_hochberg_testable};

pub use super::raw::{case_raw_of, CaseRaw};

/// Where one case test sits: (case index, slot), slot < AXIS_COUNT an axis, = AXIS_COUNT the
/// behaviour, past it rule `slot − AXIS_COUNT − 1` of the case's `rules`.
type Slot = (usize, usize);

/// The case-test family: every case's behaviour test and the tests of the rules its trials
/// violated, with raw p-values and smallest attainable p. Per-case axis tests stay out of it:
/// at the usual k (3–10 trials a side) their permutation p-values cannot reach the level a
/// family of several axes per case would need, so axes are decided at suite level, where the
/// cases pool their power, and per case only reported (with their equivalence test).
fn case_family(rows: &[SuiteRow]) -> (Vec<Slot>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let (mut slots, mut worse, mut better, mut min_p) = (vec![], vec![], vec![], vec![]);
    for (c, row) in rows.iter().enumerate() {
        let Some(m) = &row.measured else {
            continue;
        };
        if let Some((p, least)) = m.behaviour {
            slots.push((c, AXIS_COUNT));
            worse.push(p);
            better.push(1.0);
            min_p.push(least);
        }
        for (r, rule) in m.rules.iter().enumerate() {
            slots.push((c, AXIS_COUNT + 1 + r));
            worse.push(rule.p_worse);
            better.push(rule.p_better);
            min_p.push(rule.min_p);
        }
    }
    (slots, worse, better, min_p)
}

/// The `trials` block of every case's raw results (stored in case-key order); `tripped` is
/// left empty for [`super::gate::trials_gate`]. The case entries are built one at a time as
/// the raw results are read back, and spilled again past `options.spill_after`; an error is a
/// temporary file that could not be written or read.
pub fn compose(
    layout: LayoutBlock,
    store: RawStore,
    policy: Option<&Policy>,
    options: &TrialsOptions,
) -> Result<TrialsBlock, Error> {
    let alpha = options.alpha;
    let half = alpha / 2.0;
    let spill_after = if store.spilled() {
        0
    } else {
        options.spill_after
    };
    let (rows, raws) = store.into_parts()?;
    let (slots, worse, better, min_p) = case_family(&rows);
    let adjust = |p: &[f64]| {
        benjamini_hochberg_testable(p, &min_p, half)
            .map(|v| v.into_iter().map(|x| x.map(doubled)).collect::<Vec<_>>())
            .unwrap_or_else(|_| vec![None; p.len()])
    };
    let (adj_worse, adj_better) = (adjust(&worse), adjust(&better));
    let lookup = |c: usize, slot: usize, adjusted: &[Option<f64>]| -> Option<f64> {
        slots
            .binary_search(&(c, slot))
            .ok()
            .and_then(|i| adjusted.get(i).copied().flatten())
    };
    let trials_needed = balanced_trials_for_level(half);
    let mut cases = CaseListBuilder::new(spill_after);
    let mut counts = VerdictCounts::default();
    for (c, raw) in raws.enumerate() {
        let raw = raw?;
        let block = case_block(
            &raw,
            policy,
            options,
            &|slot, w| lookup(c, slot, if w { &adj_worse } else { &adj_better }),
            trials_needed,
        );
        counts.count(block.verdict);
        cases.push(block)?;
    }
    let (axes, rules, plan) = suite(&rows, policy, options);
    Ok(TrialsBlock {
        layout,
        alpha,
        seed: options.seed,
        margins: AXES
            .iter()
            .zip(&options.margins)
            .map(|(a, m)| MarginRow {
                measure: a.name.to_string(),
                relative: m.relative,
                absolute: m.absolute,
            })
            .chain([MarginRow {
                measure: "behaviour".to_string(),
                relative: 0.0,
                absolute: options.behaviour_margin,
            }])
            .collect(),
        cases: cases.finish()?,
        axes,
        rules,
        pass_hat_k: pass_hat(&rows, &options.outcome),
        plan,
        verdicts: counts,
        tripped: Vec::new(),
        allow_missing: options.allow_missing,
        warnings: options.warnings.clone(),
    })
}
