//! `must_remain_consistent` (spec §5.9): the first value observed at `path` in a gated pair is
//! the anchor; every later gated observation must equal it. Missing and null are not
//! observations.

use crate::path::Path;
use crate::session::Scene;
use crate::violation::RuleFinding;
use crate::when::json_eq;

/// Checks one unit.
pub fn check(path: &Path, s: &Scene<'_, '_>) -> Vec<RuleFinding> {
    let mut anchor = None;
    let mut out = Vec::new();
    for p in s.gated_pairs() {
        let Some(v) = path.resolve(&s.view.pairs[p].context) else {
            continue;
        };
        if v.is_null() {
            continue;
        }
        match anchor {
            None => anchor = Some(v),
            Some(a) if !json_eq(a, v) => out.push(RuleFinding::at(
                p,
                format!(
                    "`{}` changed from {a} to {v} at pair {p}; must remain consistent once observed",
                    path.text
                ),
            )),
            Some(_) => {}
        }
    }
    out
}
