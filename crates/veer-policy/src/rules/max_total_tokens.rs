//! `max_total_tokens` (spec §5.6): input + output + thinking tokens summed over the gated
//! pairs stay within `limit`. A number counts as its value, a string holding a decimal number
//! as that number, anything else as 0.

use super::number_text;
use crate::session::Scene;
use crate::violation::Finding;
use serde_json::Value;

/// The count of one usage field: `None` when present but not a number.
fn count(v: Option<&Value>) -> Option<f64> {
    match v {
        None | Some(Value::Null) => Some(0.0),
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok().filter(|x| x.is_finite()),
        Some(_) => None,
    }
}

/// Checks one unit.
pub fn check(limit: f64, s: &Scene<'_, '_>) -> Vec<Finding> {
    let mut total = 0.0;
    for p in s.gated_pairs() {
        let usage = s.view.pairs[p].context.response.get("usage");
        for key in ["input_tokens", "output_tokens", "thinking_tokens"] {
            let v = usage.and_then(|u| u.get(key));
            match count(v) {
                Some(x) => total += x,
                None => s.warn(format!(
                    "pair {p}: usage.{key} is not a number ({}); counted as 0",
                    v.map(Value::to_string).unwrap_or_default()
                )),
            }
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
