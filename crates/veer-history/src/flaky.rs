//! Flaky cases from history: a case whose verdict flips between comparisons of unchanged code.
//!
//! "Unchanged code" is one commit on one branch: every comparison recorded with the same
//! commit SHA and branch measured the same code, so a case that is bad (see
//! `crate::drift::is_bad_verdict`) in some of them and not in others flipped on noise alone.
//! Comparisons without a commit are not grouped (nothing says their code was the same). A case
//! is flaky when it flipped on at least one such commit. Pure: entries in, list out; linear in
//! the number of case verdicts.

use crate::drift::is_bad_verdict;
use crate::store::Entry;
use std::collections::BTreeMap;
use veer_contract::history::FlakyCase;

/// The flaky cases of `entries` (any order), sorted by flipped commits (most first), then
/// name.
pub fn flaky_cases(entries: &[Entry]) -> Vec<FlakyCase> {
    // (case, branch, commit) → (bad, good, latest time)
    type Key = (String, String, String);
    let mut groups: BTreeMap<Key, (usize, usize, i64)> = BTreeMap::new();
    for e in entries {
        let Some(commit) = e.provenance.commit.as_ref() else {
            continue;
        };
        let branch = e.provenance.branch.clone().unwrap_or_default();
        for c in &e.summary.cases {
            let g = groups
                .entry((c.case.clone(), branch.clone(), commit.clone()))
                .or_insert((0, 0, i64::MIN));
            if is_bad_verdict(&c.verdict) {
                g.0 += 1;
            } else {
                g.1 += 1;
            }
            g.2 = g.2.max(e.provenance.recorded_at_ms);
        }
    }
    let mut by_case: BTreeMap<String, FlakyCase> = BTreeMap::new();
    for ((case, _branch, commit), (bad, good, at)) in groups {
        if bad + good < 2 {
            continue;
        }
        let f = by_case.entry(case.clone()).or_insert_with(|| FlakyCase {
            case,
            repeated_commits: 0,
            flipped_commits: 0,
            bad: 0,
            good: 0,
            last_flip_commit: String::new(),
            last_flip_at_ms: i64::MIN,
        });
        f.repeated_commits += 1;
        f.bad += bad;
        f.good += good;
        if bad > 0 && good > 0 {
            f.flipped_commits += 1;
            if at > f.last_flip_at_ms || (at == f.last_flip_at_ms && commit > f.last_flip_commit) {
                f.last_flip_at_ms = at;
                f.last_flip_commit = commit;
            }
        }
    }
    let mut out: Vec<FlakyCase> = by_case
        .into_values()
        .filter(|f| f.flipped_commits > 0)
        .collect();
    out.sort_by(|a, b| {
        b.flipped_commits
            .cmp(&a.flipped_commits)
            .then_with(|| a.case.cmp(&b.case))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Provenance;
    use crate::summary::{CaseSummary, ComparisonSummary, GateSummary};

    fn entry(id: i64, commit: Option<&str>, branch: &str, cases: &[(&str, &str)]) -> Entry {
        Entry {
            id,
            provenance: Provenance {
                recorded_at_ms: id * 1000,
                commit: commit.map(str::to_string),
                branch: Some(branch.into()),
                ci_run: None,
                veer_version: "0".into(),
            },
            summary: ComparisonSummary {
                report_kind: "directory".into(),
                pairs: 1,
                axes: vec![],
                rules: vec![],
                cases: cases
                    .iter()
                    .map(|(c, v)| CaseSummary {
                        case: c.to_string(),
                        verdict: v.to_string(),
                        source: "trials".into(),
                    })
                    .collect(),
                gate: GateSummary {
                    fail_on: "moderate".into(),
                    worst: "none".into(),
                    tripped: false,
                    errors: 0,
                },
            },
        }
    }

    #[test]
    fn flips_on_one_commit_are_flaky_flips_across_commits_are_not() {
        let entries = vec![
            // a flips on c1 (same branch): flaky
            entry(1, Some("c1"), "main", &[("a", "pass"), ("b", "pass")]),
            entry(2, Some("c1"), "main", &[("a", "regressed"), ("b", "pass")]),
            // b changes between commits: a real change, not flakiness
            entry(3, Some("c2"), "main", &[("a", "pass"), ("b", "regressed")]),
            // the same commit on another branch is another group
            entry(4, Some("c2"), "pr", &[("b", "pass")]),
            // no commit: never grouped
            entry(5, None, "main", &[("c", "pass")]),
            entry(6, None, "main", &[("c", "regressed")]),
            // minor vs none is not a flip (neither is bad)
            entry(7, Some("c3"), "main", &[("d", "none")]),
            entry(8, Some("c3"), "main", &[("d", "minor")]),
        ];
        let f = flaky_cases(&entries);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].case, "a");
        assert_eq!((f[0].repeated_commits, f[0].flipped_commits), (1, 1));
        assert_eq!((f[0].bad, f[0].good), (1, 1));
        assert_eq!(f[0].last_flip_commit, "c1");
        assert_eq!(f[0].last_flip_at_ms, 2000);
    }

    #[test]
    fn ordered_by_flipped_commits_then_name() {
        let mut entries = Vec::new();
        for (i, c) in ["c1", "c1", "c2", "c2"].iter().enumerate() {
            let v = if i % 2 == 0 { "pass" } else { "failed" };
            entries.push(entry(i as i64, Some(c), "main", &[("z", v), ("y", v)]));
        }
        entries.push(entry(10, Some("c9"), "main", &[("x", "pass")]));
        entries.push(entry(11, Some("c9"), "main", &[("x", "error")]));
        let names: Vec<_> = flaky_cases(&entries)
            .into_iter()
            .map(|f| (f.case, f.flipped_commits))
            .collect();
        assert_eq!(
            names,
            [
                ("y".to_string(), 2),
                ("z".to_string(), 2),
                ("x".to_string(), 1)
            ]
        );
    }
}
