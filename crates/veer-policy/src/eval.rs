//! Evaluating a policy on one trace (spec `policy.md` §4.2): every rule, in file order, on
//! each of its units; violations in rule order, then unit order, then checker order.

use crate::context::TraceView;
use crate::model::{Policy, Rule, Scope};
use crate::session::{units, Scene, Unit, WhenSelection};
use crate::when::{all_match, Condition};
use rayon::prelude::*;
use veer_contract::policy::Violation;
use veer_trace::Trace;

/// Violations and the input problems noticed while checking.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The violations, in rule order.
    pub violations: Vec<Violation>,
    /// Problems in the trace that did not stop the check (each once), e.g. a non-numeric
    /// token count.
    pub warnings: Vec<String>,
}

/// The violations of `policy` on `trace`.
pub fn evaluate(policy: &Policy, trace: &Trace) -> Vec<Violation> {
    evaluate_view(policy, &TraceView::new(trace)).violations
}

/// The violations of `policy` on `trace`, with warnings.
pub fn evaluate_with_warnings(policy: &Policy, trace: &Trace) -> Evaluation {
    evaluate_view(policy, &TraceView::new(trace))
}

/// Whether the trace is complete or still being recorded (runtime enforcement).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Every unit has ended: every finding counts.
    Complete,
    /// The trace is a prefix: the trace unit and the last session are still open, and
    /// findings that only the end of a unit makes final are left out for open units.
    Running,
}

/// A violation with whether it is an end-of-unit finding.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Judged {
    /// The violation.
    pub violation: Violation,
    /// Whether only the end of its unit made it final.
    pub end_of_unit: bool,
}

/// The evaluation of `policy` on an already prepared view.
pub(crate) fn evaluate_view(policy: &Policy, view: &TraceView<'_>) -> Evaluation {
    let (judged, warnings) = evaluate_phase(policy, view, Phase::Complete);
    Evaluation {
        violations: judged.into_iter().map(|j| j.violation).collect(),
        warnings,
    }
}

/// Evaluates `policy` on `view` in a phase; returns the judged violations and the warnings.
pub(crate) fn evaluate_phase(
    policy: &Policy,
    view: &TraceView<'_>,
    phase: Phase,
) -> (Vec<Judged>, Vec<String>) {
    let last_session = view.pairs.last().map(|p| p.session);
    let scoped = |scope: Scope| {
        if policy.rules.iter().any(|r| r.scope == scope) {
            units(view, scope)
        } else {
            Vec::new()
        }
    };
    let (trace_units, session_units) =
        rayon::join(|| scoped(Scope::Trace), || scoped(Scope::Session));
    // One mask per distinct `when:` list: rules that share a condition share its evaluation.
    let mut distinct: Vec<&[Condition]> = Vec::new();
    let mask_of: Vec<Option<usize>> = policy
        .rules
        .iter()
        .map(|rule| {
            if rule.when.is_empty() {
                return None;
            }
            Some(
                match distinct.iter().position(|w| *w == rule.when.as_slice()) {
                    Some(i) => i,
                    None => {
                        distinct.push(&rule.when);
                        distinct.len() - 1
                    }
                },
            )
        })
        .collect();
    let masks: Vec<Vec<bool>> = distinct
        .par_iter()
        .map(|when| {
            view.pairs
                .iter()
                .map(|p| all_match(when, &p.context))
                .collect()
        })
        .collect();
    let all = vec![true; view.pairs.len()];
    // Rules are independent: evaluated in parallel, gathered in rule order, so the result is
    // the same with any number of threads.
    let per_rule: Vec<(Vec<Judged>, Vec<String>)> = policy
        .rules
        .par_iter()
        .zip(mask_of.par_iter())
        .map(|(rule, mask)| {
            let unit_list = match rule.scope {
                Scope::Trace => &trace_units,
                Scope::Session => &session_units,
            };
            let gate = WhenSelection {
                active: mask.is_some(),
                mask: mask.map_or(all.as_slice(), |i| masks[i].as_slice()),
            };
            evaluate_rule(rule, view, unit_list, gate, phase, last_session)
        })
        .collect();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut warnings = Vec::new();
    for (judged, rule_warnings) in per_rule {
        out.extend(judged);
        warnings.extend(rule_warnings.into_iter().filter(|w| seen.insert(w.clone())));
    }
    (out, warnings)
}

/// One rule on each of its units: the judged violations and the warnings, in unit order.
fn evaluate_rule(
    rule: &Rule,
    view: &TraceView<'_>,
    unit_list: &[Unit],
    gate: WhenSelection<'_>,
    phase: Phase,
    last_session: Option<usize>,
) -> (Vec<Judged>, Vec<String>) {
    let warnings = std::cell::RefCell::new(Vec::new());
    let mut out = Vec::new();
    for unit in unit_list {
        if gate.active && !unit.pairs.iter().any(|&p| gate.pair(p)) {
            continue;
        }
        let scene = Scene {
            view,
            unit,
            gate,
            warnings: &warnings,
        };
        let open =
            phase == Phase::Running && (unit.session.is_none() || unit.session == last_session);
        for f in crate::rules::run(&rule.check, &scene) {
            if open && f.end_of_unit {
                continue;
            }
            let end_of_unit = f.end_of_unit;
            let violation = Violation {
                rule_id: rule.id.clone(),
                kind: rule.check.kind(),
                severity: rule.severity,
                session: unit.session,
                pair_index: f.pair_index,
                detail: f.detail,
                tags: rule.tags.clone(),
                status: None,
            };
            out.push(Judged {
                violation,
                end_of_unit,
            });
        }
    }
    (out, warnings.into_inner())
}
