//! From every case's raw results to the `trials` block: the case-test
//! family and its Benjamini–Hochberg adjustment over all cases, then each case's entry
//! (`super::case_block`) built as its raw results are read back, the suite-level tests
//! ([`super::suite`]), pass^k and the power plan. The raw tests of a case are computed as it is
//! measured ([`super::raw`], streamed); the statistics are `veer-trials`' pure functions.
//!
//! Error control (docs/trials.md, "Families and α"): α is split in two halves. Behaviour, the
//! primary endpoint, gets α/2: the suite's stratified behaviour test is the gate, then each
//! case's behaviour test by Benjamini–Hochberg over the cases that can reach the level, its
//! adjusted p never below the gate's (serial gatekeeping). Axes and rules get the other α/2:
//! Holm across the suite tests, and each case's rule tests by BH over Tarone's testable set,
//! gated by their rule's suite test. Reported adjusted p-values are doubled so that each
//! compares with α.
//!
//! Memory: the family holds a few numbers per case test (slot, raw and smallest attainable p,
//! adjusted p: about 80 bytes a test); the entries themselves are never all held once the
//! suite is past the spill threshold ([`super::spill`]).

use super::case_block::{case_block, rule_of, CaseContext};
use super::measure::{AXES, AXIS_COUNT};
use super::raw::SuiteRow;
use super::spill::{CaseListBuilder, RawStore};
use super::suite::{doubled, pass_hat, suite, suite_behaviour};
use super::TrialsOptions;
use crate::error::Error;
use veer_contract::trials::*;
use veer_policy::Policy;
use veer_trials::{
    balanced_trials_for_level, behaviour_trials_for_level, benjamini_hochberg,
    benjamini_hochberg_testable,
};

pub use super::raw::{case_raw_of, CaseRaw};

/// Where one case test sits: (case index, slot), slot < AXIS_COUNT an axis, = AXIS_COUNT the
/// behaviour, past it rule `slot − AXIS_COUNT − 1` of the case's `rules`.
type Slot = (usize, usize);

/// The case tests: every case's behaviour test and the tests of the rules its trials
/// violated, with raw p-values and smallest attainable p, in (case, slot) order; `behaviour`
/// marks the behaviour tests (the primary family), the others are rule tests (slot − AXIS_COUNT
/// − 1 indexes the case's `rules`, whose policy index is the last element). Per-case axis tests
/// stay out: axes are secondary endpoints, decided at suite level where the cases pool their
/// power, and per case only reported.
#[allow(clippy::type_complexity)]
fn case_family(rows: &[SuiteRow]) -> (Vec<Slot>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<Option<usize>>) {
    let (mut slots, mut worse, mut better, mut min_p, mut rule) =
        (vec![], vec![], vec![], vec![], vec![]);
    for (c, row) in rows.iter().enumerate() {
        let Some(m) = &row.measured else {
            continue;
        };
        if let Some((p, least)) = m.behaviour {
            slots.push((c, AXIS_COUNT));
            worse.push(p);
            better.push(1.0);
            min_p.push(least);
            rule.push(None);
        }
        for (r, raw) in m.rules.iter().enumerate() {
            slots.push((c, AXIS_COUNT + 1 + r));
            worse.push(raw.p_worse);
            better.push(raw.p_better);
            min_p.push(raw.min_p);
            rule.push(Some(raw.index));
        }
    }
    (slots, worse, better, min_p, rule)
}

/// Benjamini–Hochberg over the tests of `family` whose smallest attainable p is below `level`
/// (a test that can never pass BH's largest threshold neither counts in m nor gets an adjusted
/// p), doubled for the α split; None for the others.
fn bh_reachable(p: &[f64], min_p: &[f64], family: &[bool], level: f64) -> Vec<Option<f64>> {
    let members: Vec<usize> = (0..p.len())
        .filter(|&i| family[i] && min_p[i] < level)
        .collect();
    let subset: Vec<f64> = members.iter().map(|&i| p[i]).collect();
    let mut out = vec![None; p.len()];
    if let Ok(adjusted) = benjamini_hochberg(&subset) {
        for (i, a) in members.into_iter().zip(adjusted) {
            out[i] = Some(doubled(a));
        }
    }
    out
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
    // The suite tests first: they gate the case tests (serial gatekeeping).
    let (axes, rules, plan) = suite(&rows, policy, options);
    let behaviour = suite_behaviour(&rows, options);
    let behaviour_gate = behaviour.as_ref().map_or(1.0, |b| b.p_adjusted);
    let rule_gate = |index: usize| -> f64 {
        let id = rule_of(policy, index).0;
        rules
            .iter()
            .find(|r| r.rule == id)
            .map_or(1.0, |r| r.p_adjusted)
    };
    let (slots, worse, better, min_p, rule) = case_family(&rows);
    let is_behaviour: Vec<bool> = rule.iter().map(Option::is_none).collect();
    let is_rule: Vec<bool> = rule.iter().map(Option::is_some).collect();
    // Behaviour: BH at α/2 over the cases that can reach it, each gated by the suite's test
    // (an adjusted p is never below the gate's).
    let behaviour_adjusted = bh_reachable(&worse, &min_p, &is_behaviour, half);
    // Rules: BH over Tarone's testable set at α/2, each gated by its rule's suite test.
    let rule_adjust = |p: &[f64]| -> Vec<Option<f64>> {
        let members: Vec<usize> = (0..p.len()).filter(|&i| is_rule[i]).collect();
        let sub_p: Vec<f64> = members.iter().map(|&i| p[i]).collect();
        let sub_min: Vec<f64> = members.iter().map(|&i| min_p[i]).collect();
        let mut out = vec![None; p.len()];
        if let Ok(adjusted) = benjamini_hochberg_testable(&sub_p, &sub_min, half) {
            for (i, a) in members.into_iter().zip(adjusted) {
                out[i] = a.map(doubled);
            }
        }
        out
    };
    let (rule_worse, rule_better) = (rule_adjust(&worse), rule_adjust(&better));
    let gate_of = |i: usize| match rule[i] {
        None => behaviour_gate,
        Some(index) => rule_gate(index),
    };
    let adj_worse: Vec<Option<f64>> = (0..worse.len())
        .map(|i| {
            let a = if is_behaviour[i] {
                behaviour_adjusted[i]
            } else {
                rule_worse[i]
            };
            a.map(|a| a.max(gate_of(i)))
        })
        .collect();
    let adj_better: Vec<Option<f64>> = (0..better.len())
        .map(|i| {
            (!is_behaviour[i])
                .then(|| rule_better[i])
                .flatten()
                .map(|a| a.max(gate_of(i)))
        })
        .collect();
    let lookup = |c: usize, slot: usize, adjusted: &[Option<f64>]| -> Option<f64> {
        slots
            .binary_search(&(c, slot))
            .ok()
            .and_then(|i| adjusted.get(i).copied().flatten())
    };
    let trials_needed = balanced_trials_for_level(half);
    let context = CaseContext {
        rule_trials_needed: trials_needed,
        behaviour_trials_needed: behaviour_trials_for_level(half),
        suite: behaviour.as_ref(),
    };
    let mut cases = CaseListBuilder::new(spill_after);
    let mut counts = VerdictCounts::default();
    for (c, raw) in raws.enumerate() {
        let raw = raw?;
        let block = case_block(
            &raw,
            policy,
            options,
            &|slot, w| lookup(c, slot, if w { &adj_worse } else { &adj_better }),
            &context,
        );
        counts.count(block.verdict);
        cases.push(block)?;
    }
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
        behaviour,
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
