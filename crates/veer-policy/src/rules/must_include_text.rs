//! `must_include_text` (spec §5.7): some gated response contains the needle (each response is
//! searched on its own; a needle never spans two responses).

use crate::needle::Needle;
use crate::session::Scene;
use crate::violation::RuleFinding;

/// Checks one unit.
pub fn check(needle: &Needle, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    let mut any = false;
    for p in s.gated_pairs() {
        any = true;
        if needle.found_in(s.view.pairs[p].context.text()) {
            return Vec::new();
        }
    }
    if !any {
        return Vec::new();
    }
    vec![RuleFinding::unit(format!(
        "required text {} not found in any response",
        needle.quoted()
    ))]
}
