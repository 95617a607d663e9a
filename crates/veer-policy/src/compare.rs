//! Baseline vs candidate (spec `policy.md` §9): regressions and fixes, compared as multisets
//! keyed on `(rule_id, session, locus)` — never on the detail text, kind or severity.

use crate::eval::evaluate;
use crate::model::Policy;
use std::collections::HashMap;
use veer_contract::policy::Locus;
use veer_contract::policy::PolicyDiff;
use veer_contract::policy::Violation;
use veer_trace::Trace;

type Key<'a> = (&'a str, Option<usize>, Locus);

fn counts(vs: &[Violation]) -> HashMap<Key<'_>, usize> {
    let mut m = HashMap::new();
    for v in vs {
        *m.entry(v.key()).or_insert(0) += 1;
    }
    m
}

/// The violations of `of` whose occurrence number within their key exceeds the count of that
/// key in `against`.
fn beyond(of: &[Violation], against: &[Violation]) -> Vec<Violation> {
    let limits = counts(against);
    let mut seen: HashMap<Key<'_>, usize> = HashMap::new();
    let mut out = Vec::new();
    for v in of {
        let k = v.key();
        let n = seen.entry(k).or_insert(0);
        *n += 1;
        if *n > limits.get(&k).copied().unwrap_or(0) {
            out.push(v.clone());
        }
    }
    out
}

/// Compares two violation lists.
pub fn diff_violations(baseline: Vec<Violation>, candidate: Vec<Violation>) -> PolicyDiff {
    let regressions = beyond(&candidate, &baseline);
    let fixes = beyond(&baseline, &candidate);
    PolicyDiff {
        baseline_violations: baseline,
        candidate_violations: candidate,
        regressions,
        fixes,
    }
}

/// Evaluates `policy` on both traces and compares the results.
pub fn compare(policy: &Policy, baseline: &Trace, candidate: &Trace) -> PolicyDiff {
    diff_violations(evaluate(policy, baseline), evaluate(policy, candidate))
}
