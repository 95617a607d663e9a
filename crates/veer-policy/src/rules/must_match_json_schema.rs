//! `must_match_json_schema` (spec §5.8, §7): every gated response's text is JSON valid against
//! the schema; at most one violation per pair.

use crate::schema::{parse_text, Schema};
use crate::session::Scene;
use crate::violation::RuleFinding;

/// Checks one unit.
pub fn check(schema: &Schema, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    s.gated_pairs()
        .filter_map(|p| {
            let pair = &s.view.pairs[p];
            let parsed = pair
                .text_json
                .get_or_init(|| parse_text(pair.context.text()));
            match parsed {
                Ok(v) => schema.check_value(v),
                Err(detail) => Some(detail.clone()),
            }
            .map(|d| RuleFinding::at(p, d))
        })
        .collect()
}
