//! `required_stop_reason` (spec §5.5): the last gated pair stops with an allowed reason.

use crate::session::Scene;
use crate::violation::RuleFinding;
use serde_json::Value;

/// Checks one unit.
pub fn check(allowed: &[String], s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    let Some(last) = s.gated_pairs().last() else {
        if s.gate.active {
            return Vec::new();
        }
        return vec![RuleFinding::unit("trace has no responses")];
    };
    let stop = &s.view.pairs[last].context.stop_reason;
    if stop
        .as_str()
        .is_some_and(|r| allowed.iter().any(|a| a == r))
    {
        return Vec::new();
    }
    let allowed_json = Value::Array(allowed.iter().cloned().map(Value::String).collect());
    vec![RuleFinding::unit(format!(
        "final stop_reason {stop} not in allowed set {allowed_json}"
    ))]
}
