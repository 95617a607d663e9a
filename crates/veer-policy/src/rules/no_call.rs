//! `no_call` (spec §5.3): one violation per gated call of `tool`, at its pair.

use crate::session::Scene;
use crate::violation::Finding;

/// Checks one unit.
pub fn check(tool: &str, s: &Scene<'_, '_>) -> Vec<Finding> {
    s.calls()
        .filter(|(_, c)| c.name == tool && s.gate.call(c))
        .map(|(_, c)| Finding::new(c.pair_index, format!("forbidden tool `{tool}` called")))
        .collect()
}
