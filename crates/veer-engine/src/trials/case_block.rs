//! One case's entry in the report: its raw tests with their adjusted
//! p-values, the per-axis spreads, the behaviour, the rules and the first divergence, and the
//! verdict `veer-trials` gives it.

use super::measure::{AXES, AXIS_COUNT};
use super::raw::{mean, sd, CaseRaw, RawState};
use super::TrialsOptions;
use veer_contract::trials::*;
use veer_policy::Policy;
use veer_trials::{
    case_verdict, CaseDecision as Decided, CaseEvidence, MeasureTest, Presence, TrialWorseWhen,
};

/// The report's name of a severity.
pub(super) fn severity_name(s: veer_contract::policy::Severity) -> &'static str {
    match s {
        veer_contract::policy::Severity::Info => "info",
        veer_contract::policy::Severity::Warning => "warning",
        veer_contract::policy::Severity::Error => "error",
        veer_contract::policy::Severity::Critical => "critical",
    }
}

/// A rule's id and severity by its index in the policy (`rule-N`, error, without one).
pub(super) fn rule_of(
    policy: Option<&Policy>,
    index: usize,
) -> (String, veer_contract::policy::Severity) {
    policy.and_then(|p| p.rules.get(index)).map_or(
        (
            format!("rule-{index}"),
            veer_contract::policy::Severity::Error,
        ),
        |r| (r.id.clone(), r.severity),
    )
}

/// What a case's verdict needs from the whole run.
pub(super) struct CaseContext<'a> {
    /// Balanced trials per side at which a rule's exact test can reach its level.
    pub(super) rule_trials_needed: Option<u32>,
    /// Balanced trials per side at which the behaviour test can reach its level.
    pub(super) behaviour_trials_needed: Option<u32>,
    /// The suite's behaviour test (the gatekeeper of the case behaviour tests).
    pub(super) suite: Option<&'a SuiteBehaviour>,
}

/// One case's block; `adjusted(slot, worse)` is its adjusted p for a slot and direction.
pub(super) fn case_block(
    raw: &CaseRaw,
    policy: Option<&Policy>,
    options: &TrialsOptions,
    adjusted: &dyn Fn(usize, bool) -> Option<f64>,
    context: &CaseContext<'_>,
) -> CaseBlock {
    let trials_needed = context.rule_trials_needed;
    let mut block = CaseBlock {
        case: raw.key.clone(),
        baseline_trials: raw.k_b,
        candidate_trials: raw.k_c,
        verdict: CaseVerdict::Missing,
        quarantined: raw.quarantined,
        measures: Vec::new(),
        trials_needed: None,
        reason: None,
        noise_estimated: raw.k_b >= 2 || raw.k_c >= 2,
        axes: Vec::new(),
        behaviour: None,
        rules: Vec::new(),
        first_divergence: None,
        passes: None,
        error: None,
        changes: Vec::new(),
        modal: None,
        lanes: None,
        tool_schema: None,
    };
    let m = match &raw.state {
        RawState::Missing => return block,
        RawState::Failed(e) => {
            block.verdict = CaseVerdict::Failed;
            block.error = Some(e.clone());
            return block;
        }
        RawState::Measured(m) => m,
    };
    block.changes = m.changes.clone();
    block.tool_schema = m.tool_schema.clone().map(|mut t| {
        t.set_gate(options.fail_on_schema);
        t
    });
    block.modal = m.modal.clone();
    block.lanes = m.lanes.clone();
    block.passes = m.passes.clone().map(|(b, c, outcome)| CasePasses {
        outcome,
        baseline: b,
        candidate: c,
        baseline_rate: f64::from(b) / raw.k_b.max(1) as f64,
        candidate_rate: f64::from(c) / raw.k_c.max(1) as f64,
    });
    let mut tests = Vec::new();
    let testable_needed = |p: Option<f64>| if p.is_none() { trials_needed } else { None };
    // The per-trial axes are secondary endpoints, decided at suite level (see `case_family`):
    // per case they are reported, and never make a case inconclusive.
    for (a, (axis, r)) in AXES.iter().zip(&m.axes).enumerate() {
        let effect = mean(&r.candidate) - mean(&r.baseline);
        let p_adjusted = adjusted(a, true);
        block.axes.push(CaseAxis {
            axis: axis.name.into(),
            unit: axis.unit.into(),
            baseline_mean: mean(&r.baseline),
            candidate_mean: mean(&r.candidate),
            baseline_sd: sd(&r.baseline),
            candidate_sd: sd(&r.candidate),
            effect,
            margin: r.margin,
            p_worse: r.p_worse,
            p_adjusted,
        });
    }
    let mut descriptive = Vec::new();
    let mut behaviour_reason = None;
    if let Some((t, within, across)) = &m.behaviour {
        let p_adjusted = adjusted(AXIS_COUNT, true);
        let margin = options.behaviour_margin;
        // Reachable: this k lets the case's own test pass BH's largest threshold.
        let reachable = p_adjusted.is_some();
        let beyond = t.excess > margin;
        let significant = p_adjusted.is_some_and(|p| p < options.alpha);
        let needed = (!reachable)
            .then_some(context.behaviour_trials_needed)
            .flatten();
        // Identical trials settle it only when the run-to-run noise could be estimated.
        let equivalent = m.identical && block.noise_estimated;
        if m.separated && !reachable && beyond && !m.identical {
            descriptive.push("behaviour".to_string());
            behaviour_reason = Some(changed_reason(raw, needed, context.suite));
        } else if !equivalent && !reachable {
            behaviour_reason = Some(match needed {
                Some(k) => format!(
                    "at {} vs {} trials this case's behaviour test cannot reach α; {k} trials a side would decide it",
                    raw.k_b, raw.k_c
                ),
                None => format!(
                    "at {} vs {} trials this case's behaviour test cannot reach α",
                    raw.k_b, raw.k_c
                ),
            });
        } else if reachable && beyond && !significant {
            behaviour_reason = Some(format!(
                "excess divergence {:+.3} beyond the margin {margin} but not significant (adjusted p {:.4}): below what {} vs {} trials can detect; more trials would decide it",
                t.excess,
                p_adjusted.unwrap_or(1.0),
                raw.k_b,
                raw.k_c
            ));
        }
        tests.push(MeasureTest {
            measure: "behaviour".to_string(),
            worse_when: TrialWorseWhen::AnyChange,
            effect: t.excess,
            margin,
            p_worse: p_adjusted,
            p_better: None,
            // Trials that cannot be told apart at all are equivalent within any margin.
            p_equivalence: equivalent.then_some(0.0),
            // A change beyond the margin that this k could not confirm stays undecided.
            testable: reachable && (significant || !beyond),
            trials_needed: needed,
        });
        block.behaviour = Some(CaseBehaviour {
            d_bb: t.d_bb,
            d_cc: t.d_cc,
            d_bc: t.d_bc,
            excess: t.excess,
            trajectory_within_baseline: *within,
            trajectory_across: *across,
            p_value: t.p_value,
            p_adjusted,
            method: t.method,
        });
    }
    let mut breaks = Vec::new();
    for (r, rule) in m.rules.iter().enumerate() {
        let (id, severity) = rule_of(policy, rule.index);
        let slot = AXIS_COUNT + 1 + r;
        let p_adjusted = adjusted(slot, true);
        let deterministic = matches!(
            severity,
            veer_contract::policy::Severity::Error | veer_contract::policy::Severity::Critical
        ) && veer_trials::is_deterministic_break(
            rule.baseline,
            raw.k_b as u32,
            rule.candidate,
            raw.k_c as u32,
        );
        if deterministic {
            breaks.push(id.clone());
        }
        tests.push(MeasureTest {
            measure: id.clone(),
            worse_when: TrialWorseWhen::Higher,
            effect: f64::from(rule.candidate) / raw.k_c as f64
                - f64::from(rule.baseline) / raw.k_b as f64,
            margin: 0.0,
            p_worse: p_adjusted,
            p_better: adjusted(slot, false),
            // Every trial of both sides violated it: no change is possible to see.
            p_equivalence: (rule.baseline as usize == raw.k_b
                && rule.candidate as usize == raw.k_c)
                .then_some(0.0),
            testable: p_adjusted.is_some(),
            trials_needed: testable_needed(p_adjusted),
        });
        block.rules.push(CaseRule {
            rule: id,
            severity: severity_name(severity).into(),
            baseline_violations: rule.baseline,
            candidate_violations: rule.candidate,
            p_worse: rule.p_worse,
            p_adjusted,
            deterministic_break: deterministic,
        });
    }
    block.first_divergence = m.first.clone().map(|f| FirstDivergenceBlock {
        turn: f.turn,
        cross: format!("{}/{}", f.cross_at_turn, f.cross_pairs),
        within: format!("{}/{}", f.within_at_turn, f.within_pairs),
        counts: f,
    });
    let evidence = CaseEvidence {
        presence: Presence::Both,
        failed: false,
        deterministic_breaks: breaks,
        baseline_flaky: m.baseline_flaky,
        descriptive_changes: descriptive,
        tests,
    };
    let verdict = case_verdict(&evidence, options.alpha).unwrap_or(Decided::Inconclusive {
        trials_needed: None,
        measures: Vec::new(),
    });
    (block.verdict, block.measures, block.trials_needed) = match verdict {
        Decided::Regressed { measures } => (CaseVerdict::Regressed, measures, None),
        Decided::Improved { measures } => (CaseVerdict::Improved, measures, None),
        Decided::Changed { measures } => (CaseVerdict::Changed, measures, None),
        Decided::Unchanged => (CaseVerdict::Unchanged, Vec::new(), None),
        Decided::Inconclusive {
            trials_needed,
            measures,
        } => (CaseVerdict::Inconclusive, measures, trials_needed),
        Decided::Flaky => (CaseVerdict::Flaky, Vec::new(), None),
        Decided::Missing => (CaseVerdict::Missing, Vec::new(), None),
        Decided::Failed => (CaseVerdict::Failed, Vec::new(), None),
    };
    if matches!(
        block.verdict,
        CaseVerdict::Changed | CaseVerdict::Inconclusive
    ) && block.measures.iter().any(|m| m == "behaviour")
    {
        block.reason = behaviour_reason;
    }
    // A deterministic break is also a supported change: name each measure once.
    let mut seen = std::collections::BTreeSet::new();
    block.measures.retain(|m| seen.insert(m.clone()));
    block
}

/// Why a case is `changed`: the descriptive rule, the k a test would need, and whether it
/// counts for the gate (the suite's behaviour test).
fn changed_reason(raw: &CaseRaw, needed: Option<u32>, suite: Option<&SuiteBehaviour>) -> String {
    let k = match needed {
        Some(k) => format!(" ({k} a side would)"),
        None => String::new(),
    };
    let gate = match suite {
        Some(s) if s.significant => format!(
            "counts for the gate: the suite's behaviour test is significant (adjusted p {:.4})",
            s.p_adjusted
        ),
        Some(s) => format!(
            "not gating: the suite's behaviour test is not significant (adjusted p {:.4})",
            s.p_adjusted
        ),
        None => "not gating: no suite behaviour test".to_string(),
    };
    format!(
        "descriptive: every cross-side pair of trials differs and no pair within a side does; at {} vs {} trials no per-case test can reach α{k}; {gate}",
        raw.k_b, raw.k_c
    )
}
