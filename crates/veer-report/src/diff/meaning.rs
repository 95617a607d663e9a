//! The "what this means" paragraph: the report's findings in plain sentences, built only from
//! values the report already holds.

use super::fingerprint;
use super::format::{change, pair_changes, turns};
use veer_base::Level;
use veer_contract::axis::Axis;
use veer_contract::axis::Flag;
use veer_contract::diff::DiffReport;
use veer_contract::diff::StatisticalPower;
use veer_contract::fingerprint::Decision;

/// Sentences summarising one diff, most important first.
pub(crate) fn what_this_means(r: &DiffReport) -> Vec<String> {
    let mut out = Vec::new();
    if r.pair_count == 0 {
        out.push("No response pairs could be formed, so no axis could be measured.".to_string());
        return out;
    }
    let moved: Vec<String> = r
        .axes
        .iter()
        .filter(|a| a.severity >= Level::Moderate)
        .map(|a| {
            format!(
                "{} {} ({}{})",
                a.axis.wire(),
                change(a.axis, a.delta),
                a.severity.label(),
                if a.direction == veer_contract::axis::Direction::Improvement {
                    ", an improvement"
                } else {
                    ""
                }
            )
        })
        .collect();
    let joint_reject = r
        .fingerprint
        .as_ref()
        .is_some_and(|f| f.decision == Decision::Reject);
    if moved.is_empty() && r.first_divergence.is_none() && joint_reject {
        out.push("No axis moved beyond minor and the alignment found no divergence.".to_string());
    } else if moved.is_empty() && r.first_divergence.is_none() {
        out.push(
            "No axis moved beyond minor and the alignment found no divergence: on these traces \
             the candidate behaves like the baseline."
                .to_string(),
        );
    } else if moved.is_empty() {
        out.push("No axis moved beyond minor in aggregate.".to_string());
    } else {
        out.push(format!(
            "The candidate's behaviour changed: {}.",
            moved.join("; ")
        ));
    }
    // Changes a median hides: pairs that moved on an axis whose row did not.
    let hidden: Vec<String> = r
        .axes
        .iter()
        .filter(|a| a.severity == Level::None && a.changed_pairs > 0)
        .map(|a| format!("{} {}", a.axis.wire(), pair_changes(a)))
        .collect();
    if !hidden.is_empty() {
        out.push(format!(
            "Single pairs changed where the aggregate did not: {}.",
            hidden.join("; ")
        ));
    }
    if let Some(d) = &r.first_divergence {
        out.push(format!(
            "It first diverges at {} ({} change on {}): {}.",
            turns(d),
            d.kind.label(),
            d.primary_axis.wire(),
            d.explanation
        ));
    }
    if let Some(f) = r
        .fingerprint
        .as_ref()
        .filter(|f| f.decision == Decision::Reject)
    {
        out.push(format!(
            "Taken together, the responses differ (behaviour fingerprint, p {}); moved most: {}.",
            fingerprint::p_value(f.p_value),
            fingerprint::movers(f).join(", ")
        ));
    }
    if let Some(p) = &r.policy {
        let rules = |vs: &[veer_contract::policy::Violation]| {
            let mut ids: Vec<&str> = vs.iter().map(|v| v.rule_id.as_str()).collect();
            ids.dedup();
            ids.join(", ")
        };
        match (p.regressions.len(), p.fixes.len()) {
            (0, 0) => out.push("The policy outcome is unchanged.".to_string()),
            (0, f) => out.push(format!(
                "The candidate clears {f} policy violation(s) ({}) and introduces none.",
                rules(&p.fixes)
            )),
            (n, _) => out.push(format!(
                "The candidate breaks the policy: {n} new violation(s) of {}.",
                rules(&p.regressions)
            )),
        }
    }
    match r.statistical_power {
        StatisticalPower::Low | StatisticalPower::Moderate => out.push(format!(
            "With {} response pair(s) the intervals are wide: treat severities as directional{}.",
            r.pair_count,
            r.recommended_sample_size
                .map(|n| format!(" and record {n}+ pairs for stable intervals"))
                .unwrap_or_default()
        )),
        _ => {}
    }
    if r.axis(Axis::Cost)
        .is_some_and(|a| a.flags.contains(&Flag::NoPricing))
    {
        out.push(
            "Cost was not compared: the models are not in a pricing table (pass --pricing FILE)."
                .to_string(),
        );
    }
    if let Some(rec) = r.recommendations.first() {
        out.push(format!("Start here: {}", rec.message));
    }
    out
}
