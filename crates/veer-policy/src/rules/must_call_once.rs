//! `must_call_once` (spec §5.2): the gated calls of `tool` number exactly one.

use crate::session::Scene;
use crate::violation::RuleFinding;

/// Checks one unit.
pub fn check(tool: &str, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    let count = s
        .calls()
        .filter(|(_, c)| c.name == tool && s.gate.call(c))
        .count();
    if count == 1 {
        return Vec::new();
    }
    let f = RuleFinding::unit(format!(
        "tool `{tool}` called {count} times; expected exactly 1"
    ));
    // "Called 0 times" can still be fixed by a later call; "more than once" cannot.
    vec![if count == 0 { f.at_end_of_unit() } else { f }]
}
