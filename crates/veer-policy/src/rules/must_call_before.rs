//! `must_call_before` (spec §5.1): the first gated call of `then` must come after some call of
//! `first` anywhere in the unit (a confirmation in a non-matching pair still counts).

use crate::session::Scene;
use crate::violation::RuleFinding;

/// Checks one unit.
pub fn check(first: &str, then: &str, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    let Some((ti, then_call)) = s.calls().find(|(_, c)| c.name == then && s.gate.call(c)) else {
        return Vec::new();
    };
    let fi = s.calls().find(|(_, c)| c.name == first).map(|(p, _)| p);
    if fi.is_some_and(|fi| fi < ti) {
        return Vec::new();
    }
    let fi_text = fi.map_or("-1".to_string(), |f| f.to_string());
    vec![RuleFinding::new(
        then_call.pair_index,
        format!(
            "`{first}` must be called before `{then}` (was: first_idx={fi_text}, then_idx={ti})"
        ),
    )]
}
