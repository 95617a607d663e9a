//! Evaluating a policy on one trace (spec `policy.md` §4.2): every rule, in file order, on
//! each of its units; violations in rule order, then unit order, then checker order.

use crate::context::TraceView;
use crate::model::{Policy, Scope};
use crate::session::{units, Gate, Scene, Unit};
use crate::violation::Violation;
use crate::when::all_match;
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
pub enum Phase {
    /// Every unit has ended: every finding counts.
    Complete,
    /// The trace is a prefix: the trace unit and the last session are still open, and
    /// findings that only the end of a unit makes final are left out for open units.
    Running,
}

/// A violation with whether it is an end-of-unit finding.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The violation.
    pub violation: Violation,
    /// Whether only the end of its unit made it final.
    pub end_of_unit: bool,
}

/// The evaluation of `policy` on an already prepared view.
pub fn evaluate_view(policy: &Policy, view: &TraceView<'_>) -> Evaluation {
    let (judged, warnings) = evaluate_phase(policy, view, Phase::Complete);
    Evaluation {
        violations: judged.into_iter().map(|j| j.violation).collect(),
        warnings,
    }
}

/// Evaluates `policy` on `view` in a phase; returns the judged violations and the warnings.
pub fn evaluate_phase(
    policy: &Policy,
    view: &TraceView<'_>,
    phase: Phase,
) -> (Vec<Judged>, Vec<String>) {
    let last_session = view.pairs.last().map(|p| p.session);
    let warnings = std::cell::RefCell::new(Vec::new());
    let mut trace_units: Option<Vec<Unit>> = None;
    let mut session_units: Option<Vec<Unit>> = None;
    let mut out = Vec::new();
    let all = vec![true; view.pairs.len()];
    for rule in &policy.rules {
        let slot = match rule.scope {
            Scope::Trace => &mut trace_units,
            Scope::Session => &mut session_units,
        };
        let unit_list: &Vec<Unit> = slot.get_or_insert_with(|| units(view, rule.scope));
        let active = !rule.when.is_empty();
        let mask: Vec<bool>;
        let mask_ref: &[bool] = if active {
            mask = view
                .pairs
                .iter()
                .map(|p| all_match(&rule.when, &p.context))
                .collect();
            &mask
        } else {
            &all
        };
        let gate = Gate {
            active,
            mask: mask_ref,
        };
        for unit in unit_list {
            if active && !unit.pairs.iter().any(|&p| gate.pair(p)) {
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
                };
                out.push(Judged {
                    violation,
                    end_of_unit,
                });
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let warnings = warnings
        .into_inner()
        .into_iter()
        .filter(|w| seen.insert(w.clone()))
        .collect();
    (out, warnings)
}
