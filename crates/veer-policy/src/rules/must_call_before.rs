//! `must_call_before` (spec §5.1): the first gated call of `then` must come after some call of
//! `first` anywhere in the unit (a confirmation in a non-matching pair still counts).
//! The detail names the calls in the order they happened.

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
    // Said in the agent's terms: which call came first, or that the required one never came
    // before; call positions are in the unit's call list, counted from 1.
    let detail = match fi {
        None => format!(
            "`{then}` was called (call {}) with no `{first}` call before it",
            ti + 1
        ),
        Some(fi) => format!(
            "`{then}` was called (call {}) before `{first}` (call {})",
            ti + 1,
            fi + 1
        ),
    };
    vec![RuleFinding::new(then_call.pair_index, detail)]
}
