//! The gate with repeated trials: what trips it, as one function of the
//! trials block, so the engine's single `Verdict` can take it over unchanged.
//!
//! The behaviour (the primary endpoint) counts when the suite's stratified behaviour test is
//! significant and some case's change lies beyond the behaviour margin; it names the cases
//! `regressed` on behaviour (their own gated test) or `changed` (the descriptive rule), else the
//! cases beyond the margin. An axis counts when its suite-level change is statistically
//! supported (Holm-adjusted p < α), beyond its margin and in the worse direction. A rule counts when the candidate's violation rate is higher with adjusted p < α, or on a
//! deterministic break. A case that could not be measured, or that is on one side only, counts
//! unless the report was made with `--allow-missing` (an eval job that crashed halfway must not
//! go green); inconclusive cases count only with `--fail-on inconclusive`.
//!
//! [`trials_verdict`] turns these signals into the one [`Verdict`] every front end reads: the
//! exit code, the gate lines and `veer gate` on a saved report all come from it.

use super::measure::AXES;
use std::collections::BTreeMap;
use veer_base::Level;
use veer_contract::trials::describe;
use veer_contract::trials::stats::SuiteOutcome;
use veer_contract::trials::{CaseVerdict, TrialsBlock, TripKind, Tripped};
use veer_contract::verdict::{Cause, Trip, Verdict};

/// The gate level of a rule severity (`info` → minor, `warning` → moderate, `error` and
/// `critical` → severe), as the path-paired gate maps policy regressions.
fn rule_level(severity: &str) -> Level {
    match severity {
        "info" => Level::Minor,
        "warning" => Level::Moderate,
        _ => Level::Severe,
    }
}

/// One regressed case of a measure: (case, effect, adjusted p).
type CaseEvidence = (String, Option<f64>, Option<f64>);

/// Everything that counts against the candidate in `block`, in a fixed order: suite axes,
/// suite rules, the suite's behaviour test, then per-measure case regressions not already named, failed cases, and (with
/// `inconclusive`) inconclusive cases. Axes and the behaviour are `severe`; rules take their
/// severity's level. Quarantined cases never count, except a case that could not be measured
/// (quarantine excuses flaky behaviour, not broken inputs). The cases are read in one pass (a
/// spilled report reads its file once).
pub fn trials_gate(block: &TrialsBlock, inconclusive: bool) -> Vec<Tripped> {
    let allow_missing = block.allow_missing;
    let mut out = Vec::new();
    // Cases per measure that regressed, for naming them.
    let mut regressed: BTreeMap<String, Vec<CaseEvidence>> = BTreeMap::new();
    // Per regressed suite axis, the cases whose own change lies beyond its margin, worse.
    let suite_axes: Vec<&str> = block
        .axes
        .iter()
        .filter(|a| a.outcome == SuiteOutcome::Regressed)
        .map(|a| a.axis.as_ref())
        .collect();
    let mut beyond: Vec<Vec<String>> = vec![Vec::new(); suite_axes.len()];
    // The suite's behaviour test: the cases it names (regressed on behaviour, or `changed`),
    // and the cases whose excess lies beyond the behaviour margin.
    let behaviour_margin = block
        .margins
        .iter()
        .find(|m| m.measure == "behaviour")
        .map_or(0.0, |m| m.absolute);
    let suite_behaviour = block.behaviour.as_ref().filter(|b| b.significant);
    let (mut behaviour_named, mut behaviour_beyond) = (Vec::new(), Vec::new());
    let (mut failed, mut missing, mut undecided) = (Vec::new(), Vec::new(), Vec::new());
    for case in block.cases.iter() {
        match case.verdict {
            CaseVerdict::Failed => failed.push(case.case.clone()),
            CaseVerdict::Missing if !case.quarantined => missing.push(case.case.clone()),
            _ => {}
        }
        if case.quarantined {
            continue;
        }
        if inconclusive && case.verdict == CaseVerdict::Inconclusive {
            undecided.push(case.case.clone());
        }
        if suite_behaviour.is_some() {
            let on_behaviour = case.measures.iter().any(|m| m == "behaviour");
            if case.verdict == CaseVerdict::Changed
                || (case.verdict == CaseVerdict::Regressed && on_behaviour)
            {
                behaviour_named.push(case.case.clone());
            } else if case
                .behaviour
                .as_ref()
                .is_some_and(|b| b.excess > behaviour_margin)
            {
                behaviour_beyond.push(case.case.clone());
            }
        }
        for (axis, cases) in suite_axes.iter().zip(&mut beyond) {
            if case
                .axes
                .iter()
                .any(|x| x.axis == *axis && x.effect > x.margin)
            {
                cases.push(case.case.clone());
            }
        }
        if case.verdict != CaseVerdict::Regressed {
            continue;
        }
        for measure in &case.measures {
            let (effect, p) = if let Some(a) = case.axes.iter().find(|a| a.axis == measure.as_str())
            {
                (Some(a.effect), a.p_adjusted)
            } else if let (Some(b), "behaviour") = (&case.behaviour, measure.as_str()) {
                (Some(b.excess), b.p_adjusted)
            } else if let Some(r) = case.rules.iter().find(|r| &r.rule == measure) {
                let rate = |v: u32, k: usize| f64::from(v) / k.max(1) as f64;
                let effect = rate(r.candidate_violations, case.candidate_trials)
                    - rate(r.baseline_violations, case.baseline_trials);
                (
                    Some(effect),
                    if r.deterministic_break {
                        None
                    } else {
                        r.p_adjusted
                    },
                )
            } else {
                (None, None)
            };
            regressed
                .entry(measure.clone())
                .or_default()
                .push((case.case.clone(), effect, p));
        }
    }
    let cases_of = |m: &str| -> Vec<String> {
        regressed
            .get(m)
            .map(|v| v.iter().map(|(c, _, _)| c.to_string()).collect())
            .unwrap_or_default()
    };
    for (a, cases) in block
        .axes
        .iter()
        .filter(|a| a.outcome == SuiteOutcome::Regressed)
        .zip(beyond)
    {
        out.push(Tripped {
            kind: TripKind::Axis,
            measure: a.axis.to_string(),
            cases,
            effect: Some(a.effect),
            p: Some(a.p_adjusted),
            level: Level::Severe,
        });
    }
    for r in &block.rules {
        if r.outcome == SuiteOutcome::Regressed || !r.deterministic_breaks.is_empty() {
            let mut cases = cases_of(&r.rule);
            for c in &r.deterministic_breaks {
                if !cases.contains(c) {
                    cases.push(c.clone());
                }
            }
            let supported = r.outcome == SuiteOutcome::Regressed;
            out.push(Tripped {
                kind: TripKind::Rule,
                measure: r.rule.clone(),
                cases,
                effect: Some(r.effect),
                p: supported.then_some(r.p_adjusted),
                level: rule_level(&r.severity),
            });
        }
    }
    if let Some(b) = suite_behaviour {
        // Significant, and some case's change lies beyond the margin: the named cases, else
        // those beyond the margin.
        let cases = if behaviour_named.is_empty() {
            behaviour_beyond
        } else {
            behaviour_named
        };
        if !cases.is_empty() {
            out.push(Tripped {
                kind: TripKind::Behaviour,
                measure: "behaviour".to_string(),
                cases,
                effect: Some(b.excess_sum),
                p: Some(b.p_adjusted),
                level: Level::Severe,
            });
        }
    }
    let named: Vec<String> = out.iter().map(|t| t.measure.clone()).collect();
    for (measure, cases) in &regressed {
        if named.iter().any(|n| n == measure) {
            continue;
        }
        let severity = block
            .rules
            .iter()
            .find(|r| r.rule == *measure)
            .map(|r| r.severity.as_ref());
        let kind = if *measure == "behaviour" {
            TripKind::Behaviour
        } else if AXES.iter().any(|a| a.name == *measure) {
            TripKind::Axis
        } else {
            TripKind::Rule
        };
        // The strongest case: the smallest p (a deterministic break, p null, first).
        let best = cases
            .iter()
            .min_by(|x, y| x.2.unwrap_or(0.0).total_cmp(&y.2.unwrap_or(0.0)));
        out.push(Tripped {
            kind,
            measure: measure.to_string(),
            cases: cases.iter().map(|(c, _, _)| c.to_string()).collect(),
            effect: best.and_then(|b| b.1),
            p: best.and_then(|b| b.2),
            level: severity.map_or(Level::Severe, rule_level),
        });
    }
    if !failed.is_empty() && !allow_missing {
        out.push(Tripped {
            kind: TripKind::Failed,
            measure: String::new(),
            cases: failed,
            effect: None,
            p: None,
            level: Level::Severe,
        });
    }
    if !missing.is_empty() && !allow_missing {
        out.push(Tripped {
            kind: TripKind::Missing,
            measure: String::new(),
            cases: missing,
            effect: None,
            p: None,
            level: Level::Severe,
        });
    }
    // The offered tools: each case's block holds its own threshold (`--fail-on-schema`).
    let mut schema: Vec<(String, veer_contract::tool_schema::SchemaClass)> = Vec::new();
    for case in block.cases.iter() {
        if let Some(t) = case
            .tool_schema
            .as_ref()
            .filter(|t| t.tripped && !case.quarantined)
        {
            if let Some(w) = t.worst {
                schema.push((case.case.clone(), w));
            }
        }
    }
    if let Some(worst) = schema.iter().map(|(_, w)| *w).max() {
        out.push(Tripped {
            kind: TripKind::ToolSchema,
            measure: worst.label().to_string(),
            cases: schema.into_iter().map(|(c, _)| c).collect(),
            effect: None,
            p: None,
            level: crate::verdict::schema_level(worst),
        });
    }
    if !undecided.is_empty() {
        out.push(Tripped {
            kind: TripKind::Inconclusive,
            measure: String::new(),
            cases: undecided,
            effect: None,
            p: None,
            level: Level::Severe,
        });
    }
    out
}

/// The one verdict of a trials block at `fail_on` (`Level::None`: the gate is off), with
/// inconclusive cases counting when `inconclusive` (`--fail-on inconclusive`): every signal of
/// [`trials_gate`] as a [`Trip`] whose reason is its [`describe`] line.
pub fn trials_verdict(block: &TrialsBlock, fail_on: Level, inconclusive: bool) -> Verdict {
    decide(block, fail_on, inconclusive).1
}

/// The verdict of a trials block and the signals that tripped it (what the report's `tripped`
/// lists): the `--fail-on` signals at or above it, and the tool-schema signal, which has its
/// own threshold.
pub fn decide(block: &TrialsBlock, fail_on: Level, inconclusive: bool) -> (Vec<Tripped>, Verdict) {
    let all = trials_gate(block, inconclusive);
    let verdict = verdict_of(&all, fail_on);
    let kept = if verdict.tripped {
        all.into_iter()
            .filter(|t| {
                t.kind == TripKind::ToolSchema || (fail_on > Level::None && t.level >= fail_on)
            })
            .collect()
    } else {
        Vec::new()
    };
    (kept, verdict)
}

fn verdict_of(all: &[Tripped], fail_on: Level) -> Verdict {
    let (schema, signals): (Vec<&Tripped>, Vec<&Tripped>) =
        all.iter().partition(|t| t.kind == TripKind::ToolSchema);
    let mut verdict = Verdict::decide(fail_on, signals.into_iter().map(trip).collect());
    // The schema gate has its own threshold, held in the cases' blocks: it trips whatever
    // `--fail-on` is, as in a pair diff.
    for t in schema {
        verdict.trip_also(trip(t));
    }
    verdict
}

/// A trials signal as a verdict's [`Trip`].
pub fn trip(t: &Tripped) -> Trip {
    Trip {
        trace: None,
        level: t.level,
        cause: Cause::Trials {
            what: t.kind,
            measure: t.measure.clone(),
            cases: t.cases.clone(),
        },
        reason: describe(t),
    }
}
