//! `max_turns` (spec §5.4): the number of gated pairs is at most `limit`.

use crate::session::Scene;
use crate::violation::RuleFinding;

/// Checks one unit.
pub fn check(limit: u64, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    let count = s.gated_pairs().count() as u64;
    if count <= limit {
        return Vec::new();
    }
    vec![RuleFinding::unit(format!(
        "{} has {count} turns; max is {limit}",
        s.unit_word()
    ))]
}
