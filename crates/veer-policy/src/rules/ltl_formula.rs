//! `ltl_formula` (spec §5.12, §8.5): the formula is evaluated over all pairs of the unit and
//! must hold at the anchor (the first gated pair). A failure is one unit-level violation listing
//! the pairs from the anchor on where the formula is false.

use crate::ltl::{evaluate, Formula, State};
use crate::session::Scene;
use crate::violation::RuleFinding;

/// Checks one unit.
pub fn check(formula: &str, ast: &Formula, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    let pairs = &s.unit.pairs;
    if pairs.is_empty() {
        return Vec::new();
    }
    let names: Vec<Vec<String>> = pairs
        .iter()
        .map(|&p| {
            s.view.pairs[p]
                .calls
                .iter()
                .map(|&c| s.view.calls[c].name.clone())
                .collect()
        })
        .collect();
    let states: Vec<State<'_>> = pairs
        .iter()
        .zip(&names)
        .map(|(&p, n)| {
            let ctx = &s.view.pairs[p].context;
            State {
                tool_calls: n,
                stop_reason: ctx.stop_reason().unwrap_or(""),
                text: ctx.text(),
            }
        })
        .collect();
    let truth = evaluate(ast, &states);
    let Some(anchor) = pairs.iter().position(|&p| s.gate.pair(p)) else {
        return Vec::new();
    };
    if truth[anchor] {
        return Vec::new();
    }
    let false_at: Vec<usize> = (anchor..pairs.len())
        .filter(|&k| !truth[k])
        .map(|k| pairs[k])
        .collect();
    vec![RuleFinding::unit(format!(
        "LTL formula violated: {formula} (false at pairs {})",
        ranges(&false_at)
    ))]
}

/// Writes sorted indices as ranges: `0–3, 7`.
pub fn ranges(xs: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < xs.len() {
        let start = xs[i];
        let mut end = start;
        while i + 1 < xs.len() && xs[i + 1] == end + 1 {
            i += 1;
            end = xs[i];
        }
        parts.push(if end == start {
            start.to_string()
        } else {
            format!("{start}\u{2013}{end}")
        });
        i += 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn ranges() {
        assert_eq!(super::ranges(&[0, 1, 2, 3, 7]), "0\u{2013}3, 7");
        assert_eq!(super::ranges(&[4]), "4");
        assert_eq!(super::ranges(&[0, 1]), "0\u{2013}1");
    }
}
