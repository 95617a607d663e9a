//! `no_call` (spec §5.3): one violation per gated call of `tool`, at its pair.

use crate::session::Scene;
use crate::violation::RuleFinding;

/// Checks one unit.
pub fn check(tool: &str, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    s.calls()
        .filter(|(_, c)| c.name == tool && s.gate.call(c))
        .map(|(_, c)| RuleFinding::new(c.pair_index, format!("forbidden tool `{tool}` called")))
        .collect()
}
