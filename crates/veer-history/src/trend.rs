//! Trends from stored comparisons: one series per axis and per case, and the level words the
//! printers draw them with. Pure functions of the entries; veer-report's sparklines draw them.

use crate::store::Entry;
use std::collections::BTreeMap;
use veer_contract::history::{AxisTrend, CaseTrend};

/// The rank of a severity word: `none` 0, `minor` 1, `moderate` 2, `severe` 3; unknown words 0.
pub fn level_rank(level: &str) -> u8 {
    match level {
        "minor" => 1,
        "moderate" => 2,
        "severe" => 3,
        _ => 0,
    }
}

/// How strongly a case verdict says "worse", as a severity word: `none` (pass, none,
/// improved, unknown words), `minor` (minor, inconclusive, flaky, unknown, warn), `moderate`,
/// or `severe` (regressed, failed, severe, error). Matching is by substring, case-insensitive.
pub fn verdict_level(v: &str) -> &'static str {
    let v = v.to_ascii_lowercase();
    if ["regress", "fail", "severe", "error"]
        .iter()
        .any(|w| v.contains(w))
    {
        "severe"
    } else if v.contains("moderate") {
        "moderate"
    } else if ["minor", "inconclusive", "flaky", "unknown", "warn"]
        .iter()
        .any(|w| v.contains(w))
    {
        "minor"
    } else {
        "none"
    }
}

/// Per-axis series, axes in first-seen order.
pub fn axis_trends(entries: &[Entry]) -> Vec<AxisTrend> {
    let mut order: Vec<String> = Vec::new();
    let mut by: BTreeMap<String, AxisTrend> = BTreeMap::new();
    for e in entries {
        for a in &e.summary.axes {
            let name = a.axis.name();
            let t = by.entry(name.to_string()).or_insert_with(|| {
                order.push(name.to_string());
                AxisTrend {
                    axis: name.to_string(),
                    levels: Vec::new(),
                    deltas: Vec::new(),
                }
            });
            t.levels.push(a.level.name().to_string());
            t.deltas.push(a.delta);
        }
    }
    order.iter().filter_map(|a| by.remove(a)).collect()
}

/// Per-case series, cases sorted by name.
pub fn case_trends(entries: &[Entry]) -> Vec<CaseTrend> {
    let mut by: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in entries {
        for c in &e.summary.cases {
            by.entry(c.case.clone())
                .or_default()
                .push(c.verdict.clone());
        }
    }
    by.into_iter()
        .map(|(case, verdicts)| CaseTrend {
            flips: verdicts.windows(2).filter(|w| w[0] != w[1]).count(),
            case,
            verdicts,
        })
        .collect()
}
