//! `must_followup` (spec §5.10): when the trigger holds at a gated pair, the next pair of the
//! unit (gated or not) must satisfy `must`; a trigger on the unit's last pair is a violation.

use crate::model::Must;
use crate::session::Scene;
use crate::violation::RuleFinding;
use crate::when::{all_match, Condition};

/// Checks one unit.
pub fn check(
    trigger: &[Condition],
    must: &Must,
    must_json: &str,
    s: &Scene<'_, '_>,
) -> Vec<RuleFinding> {
    let mut out = Vec::new();
    let pairs = &s.unit.pairs;
    for (k, &i) in pairs.iter().enumerate() {
        if !s.gate.pair(i) || !all_match(trigger, &s.view.pairs[i].context) {
            continue;
        }
        let Some(&next) = pairs.get(k + 1) else {
            out.push(
                RuleFinding::at(
                i,
                "trigger fired on the final pair \u{2014} no follow-up pair exists to satisfy the obligation",
                )
                // Only the end of the unit makes this pair the final one.
                .at_end_of_unit(),
            );
            continue;
        };
        let follow = &s.view.pairs[next];
        let met = match must {
            Must::ToolCall { tool_name } => follow
                .calls
                .iter()
                .any(|&c| s.view.calls[c].name == *tool_name),
            Must::TextIncludes(n) => n.found_in(follow.context.text()),
        };
        if !met {
            let kind = match must {
                Must::ToolCall { .. } => "tool_call",
                Must::TextIncludes(_) => "text_includes",
            };
            out.push(RuleFinding::at(
                next,
                format!("trigger fired at pair {i}; pair {next} did not satisfy must={kind} {must_json}"),
            ));
        }
    }
    out
}
