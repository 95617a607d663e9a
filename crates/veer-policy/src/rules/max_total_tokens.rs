//! `max_total_tokens` (spec §5.6): input + output + thinking tokens summed over the gated
//! pairs stay within `limit`. A number counts as its value, a string holding a decimal number
//! as that number, anything else as 0.

use super::number_text;
use crate::session::Scene;
use crate::violation::RuleFinding;

/// Checks one unit.
pub fn check(limit: f64, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    let mut total = 0.0;
    for p in s.gated_pairs() {
        let pair = &s.view.pairs[p];
        // Field by field, in order, so the sum rounds as it always has.
        for x in pair.usage_tokens {
            total += x;
        }
        for (key, raw) in &pair.usage_problems {
            s.warn(format!(
                "pair {p}: usage.{key} is not a number ({raw}); counted as 0"
            ));
        }
    }
    if total <= limit {
        return Vec::new();
    }
    vec![RuleFinding::unit(format!(
        "total token usage {} exceeds max {}",
        number_text(total),
        number_text(limit)
    ))]
}
