//! `must_match_json_schema` (spec §5.8, §7): every gated response's text is JSON valid against
//! the schema; at most one violation per pair.

use crate::schema::Schema;
use crate::session::Scene;
use crate::violation::Finding;

/// Checks one unit.
pub fn check(schema: &Schema, s: &Scene<'_, '_>) -> Vec<Finding> {
    s.gated_pairs()
        .filter_map(|p| {
            schema
                .check_text(s.view.pairs[p].context.text())
                .map(|d| Finding::at(p, d))
        })
        .collect()
}
