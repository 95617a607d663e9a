//! Trends from stored comparisons: one series per axis and per case, and the sparklines that
//! draw them. Pure functions of the entries; the CLI only prints what they return.

use crate::store::Entry;
use serde::Serialize;
use std::collections::BTreeMap;

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

/// One axis over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AxisTrend {
    /// The axis.
    pub axis: String,
    /// Its level in each comparison that has it, oldest first.
    pub levels: Vec<String>,
    /// Its delta in each comparison that has it (`None` where the report had none).
    pub deltas: Vec<Option<f64>>,
}

/// One case over time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseTrend {
    /// The case.
    pub case: String,
    /// Its verdict in each comparison that has it, oldest first.
    pub verdicts: Vec<String>,
    /// How often the verdict changed from one comparison to the next.
    pub flips: usize,
}

/// Per-axis series, axes in first-seen order.
pub fn axis_trends(entries: &[Entry]) -> Vec<AxisTrend> {
    let mut order: Vec<String> = Vec::new();
    let mut by: BTreeMap<String, AxisTrend> = BTreeMap::new();
    for e in entries {
        for a in &e.summary.axes {
            let t = by.entry(a.axis.clone()).or_insert_with(|| {
                order.push(a.axis.clone());
                AxisTrend {
                    axis: a.axis.clone(),
                    levels: Vec::new(),
                    deltas: Vec::new(),
                }
            });
            t.levels.push(a.level.clone());
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

/// The bars of a sparkline, lowest first: Unicode blocks for a terminal, ASCII otherwise.
fn ramp(unicode: bool) -> &'static [char] {
    if unicode {
        &['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█']
    } else {
        &['_', '.', '-', '~', '=', '+', '*', '#']
    }
}

/// A sparkline of `values` (the last `width` of them), scaled from their minimum to their
/// maximum; a missing value is a space, a constant series the lowest bar.
pub fn sparkline(values: &[Option<f64>], width: usize, unicode: bool) -> String {
    let bars = ramp(unicode);
    let start = values.len().saturating_sub(width);
    let shown = &values[start..];
    let finite = shown.iter().flatten().filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
        (lo.min(v), hi.max(v))
    });
    let top = (bars.len() - 1) as f64;
    shown
        .iter()
        .map(|v| match v {
            Some(v) if v.is_finite() => {
                let k = if hi > lo {
                    ((v - lo) / (hi - lo) * top).round()
                } else {
                    0.0
                };
                bars[(k as usize).min(bars.len() - 1)]
            }
            _ => ' ',
        })
        .collect()
}

/// A sparkline of counts on a scale from 0 to their maximum (so a steady non-zero count is a
/// steady high bar, and 0 is always the lowest), the last `width` of them.
pub fn count_sparkline(counts: &[u64], width: usize, unicode: bool) -> String {
    let bars = ramp(unicode);
    let start = counts.len().saturating_sub(width);
    let shown = &counts[start..];
    let max = shown.iter().copied().max().unwrap_or(0).max(1) as f64;
    let top = (bars.len() - 1) as f64;
    shown
        .iter()
        .map(|&n| bars[((n as f64 / max * top).round() as usize).min(bars.len() - 1)])
        .collect()
}

/// A sparkline of severity words: `none` lowest, `severe` highest (fixed scale), the last
/// `width` of them.
pub fn level_sparkline(levels: &[String], width: usize, unicode: bool) -> String {
    let bars = ramp(unicode);
    let start = levels.len().saturating_sub(width);
    levels[start..]
        .iter()
        .map(|l| bars[[0, 2, 5, 7][usize::from(level_rank(l))]])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparklines_scale_and_keep_the_last_values() {
        let v = [Some(0.0), Some(1.0), None, Some(0.5)];
        assert_eq!(sparkline(&v, 10, true), "▁█ ▅");
        assert_eq!(sparkline(&v, 2, false), " _");
        assert_eq!(sparkline(&[Some(3.0), Some(3.0)], 10, true), "▁▁");
        assert_eq!(sparkline(&[Some(f64::NAN)], 10, true), " ");
        let levels: Vec<String> = ["none", "severe", "minor"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(level_sparkline(&levels, 10, true), "▁█▃");
        assert_eq!(count_sparkline(&[1, 1, 0, 2], 10, true), "▅▅▁█");
        assert_eq!(count_sparkline(&[], 10, true), "");
    }
}
