//! `max_total_tokens` (spec §5.6): input + output + thinking tokens summed over the gated
//! pairs stay within `limit`. A number counts as its value, a string holding a decimal number
//! as that number, anything else as 0.

use super::number_text;
use crate::session::Scene;
use crate::violation::Finding;
use serde_json::Value;

fn count(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Checks one unit.
pub fn check(limit: f64, s: &Scene<'_, '_>) -> Vec<Finding> {
    let mut total = 0.0;
    for p in s.gated_pairs() {
        let usage = s.view.pairs[p].context.response.get("usage");
        for key in ["input_tokens", "output_tokens", "thinking_tokens"] {
            total += count(usage.and_then(|u| u.get(key)));
        }
    }
    if total <= limit {
        return Vec::new();
    }
    vec![Finding::unit(format!(
        "total token usage {} exceeds max {}",
        number_text(total),
        number_text(limit)
    ))]
}
