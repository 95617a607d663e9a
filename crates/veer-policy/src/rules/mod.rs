//! The fifteen rule kinds, one file each (spec `policy.md` §5). Every checker takes its
//! parameters and a [`Scene`] (trace view, unit, gate) and returns findings with absolute pair
//! indices; the caller attaches rule id, kind, severity, session and tags.

pub(crate) mod forbidden_text;
pub(crate) mod ltl_formula;
pub(crate) mod max_total_tokens;
pub(crate) mod max_turns;
pub(crate) mod must_be_grounded;
pub(crate) mod must_call_before;
pub(crate) mod must_call_once;
pub(crate) mod must_followup;
pub(crate) mod must_include_text;
pub(crate) mod must_include_text_each;
pub(crate) mod must_match_json_schema;
pub(crate) mod must_remain_consistent;
pub(crate) mod no_call;
pub(crate) mod required_stop_reason;
pub(crate) mod trajectory_match;

use crate::model::Check;
use crate::session::Scene;
use crate::violation::RuleFinding;

/// Runs the checker of `check` on one unit.
pub fn run(check: &Check, scene: &Scene<'_, '_>) -> Vec<RuleFinding> {
    let findings = run_checker(check, scene);
    // A strict trajectory is decided by its prefix: a call that differs from its reference
    // call, or one past the reference's end, is final as soon as it is made (no later call can
    // undo it); only a missing call waits for the end of the unit.
    if let Check::TrajectoryMatch(t) = check {
        let strict = t.mode == crate::model::TrajectoryMode::Strict;
        return findings
            .into_iter()
            .map(|f| {
                if strict && f.pair_index.is_some() {
                    f
                } else {
                    f.at_end_of_unit()
                }
            })
            .collect();
    }
    // These kinds judge the unit as a whole: a running trace may still satisfy them.
    if matches!(
        check,
        Check::RequiredStopReason { .. } | Check::MustIncludeText(_) | Check::LtlFormula { .. }
    ) {
        return findings
            .into_iter()
            .map(RuleFinding::at_end_of_unit)
            .collect();
    }
    findings
}

fn run_checker(check: &Check, scene: &Scene<'_, '_>) -> Vec<RuleFinding> {
    match check {
        Check::MustCallBefore { first, then } => must_call_before::check(first, then, scene),
        Check::MustCallOnce { tool } => must_call_once::check(tool, scene),
        Check::NoCall { tool } => no_call::check(tool, scene),
        Check::MaxTurns { limit } => max_turns::check(*limit, scene),
        Check::RequiredStopReason { allowed } => required_stop_reason::check(allowed, scene),
        Check::MaxTotalTokens { limit } => max_total_tokens::check(*limit, scene),
        Check::MustIncludeText(n) => must_include_text::check(n, scene),
        Check::MustIncludeTextEach(n) => must_include_text_each::check(n, scene),
        Check::ForbiddenText(n) => forbidden_text::check(n, scene),
        Check::MustMatchJsonSchema(s) => must_match_json_schema::check(s, scene),
        Check::MustRemainConsistent { path } => must_remain_consistent::check(path, scene),
        Check::MustFollowup {
            trigger,
            must,
            must_json,
        } => must_followup::check(trigger, must, must_json, scene),
        Check::MustBeGrounded {
            retrieval_path,
            min_unigram_precision,
        } => must_be_grounded::check(retrieval_path, *min_unigram_precision, scene),
        Check::LtlFormula { formula, ast } => ltl_formula::check(formula, ast, scene),
        Check::TrajectoryMatch(t) => trajectory_match::check(t, scene),
    }
}

/// A number for a detail: integers without a fraction, others in shortest form.
pub(crate) fn number_text(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}
