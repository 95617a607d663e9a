//! `must_include_text_each` (spec §5.7): every gated response contains the needle.

use crate::needle::Needle;
use crate::session::Scene;
use crate::violation::RuleFinding;

/// Checks one unit.
pub fn check(needle: &Needle, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    s.gated_pairs()
        .filter(|&p| !needle.found_in(s.view.pairs[p].context.text()))
        .map(|p| {
            RuleFinding::at(
                p,
                format!("required text {} not found in response", needle.quoted()),
            )
        })
        .collect()
}
