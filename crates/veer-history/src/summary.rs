//! What history keeps of one comparison, read from a saved `veer diff --format json` report.
//!
//! Only the fields history needs are read, each through a private struct whose fields are all
//! optional (`#[serde(default)]`), so a report that gains fields (a `trials` block, a verdict)
//! still reads, and a report missing one gives a clear error naming it. Both report shapes are
//! read: a pair report (`axes[]`, `policy`, `gate`), a directory report (`aggregate.axes[]`,
//! `pairs[].report`, `gate`) and a repeated-trials report (`trials.axes[]`, `trials.cases[]` with
//! their per-rule counts, `gate`).
//!
//! Axes and levels are read as the contract's types: a diff axis as `veer_contract::axis::Axis`,
//! a trials suite axis by the name its block gives it, each level as `veer_base::Level`; the
//! database and every export write their names, as reports do.

use crate::error::{HistoryError, HistoryErrorKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use veer_base::Level;
use veer_contract::axis::Axis as DiffAxis;

/// The axis a comparison's row is about: one of the diff's nine axes (pair and directory
/// reports), or a repeated-trials suite axis as the trials block names it (`latency`,
/// `output_tokens`, `tool_calls`, `turns`). Written as its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ComparisonAxisName {
    /// A diff axis.
    Diff(DiffAxis),
    /// A trials suite axis.
    Trials(String),
}

impl ComparisonAxisName {
    /// The name as reports and the database write it.
    pub fn name(&self) -> &str {
        match self {
            ComparisonAxisName::Diff(a) => a.wire(),
            ComparisonAxisName::Trials(s) => s,
        }
    }

    /// The diff axis whose wire name is `name`.
    pub fn diff(name: &str) -> Option<ComparisonAxisName> {
        DiffAxis::ALL
            .into_iter()
            .find(|a| a.wire() == name)
            .map(ComparisonAxisName::Diff)
    }
}

/// One behaviour axis of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonAxis {
    /// The axis.
    pub axis: ComparisonAxisName,
    /// Its worst severity.
    pub level: Level,
    /// The candidate-minus-baseline delta in the axis' own unit (a pair report's `delta`, a
    /// directory report's `median_delta`); `None` when the report had none.
    pub delta: Option<f64>,
}

/// One policy rule's counts over a comparison (summed over a directory's pairs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleSummary {
    /// The rule's `id`.
    pub rule: String,
    /// Violations the candidate introduced.
    pub regressions: u64,
    /// Violations the candidate cleared.
    pub fixes: u64,
    /// Violations on the baseline side.
    pub baseline_violations: u64,
    /// Violations on the candidate side.
    pub candidate_violations: u64,
}

/// One case's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseSummary {
    /// The case: a `trials.cases[]` entry's name, or (without a trials block) a directory
    /// pair's relative path.
    pub case: String,
    /// The verdict: the trials block's own word (`pass`, `regressed`, …), or a pair's worst
    /// severity (`none` … `severe`) when the report has no trials block.
    pub verdict: String,
    /// Where the verdict came from: `trials` or `pair`.
    pub source: String,
}

/// The gate as the report decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateSummary {
    /// The `--fail-on` level (`never`, `minor`, `moderate`, `severe`).
    pub fail_on: String,
    /// The worst signal (`none` … `severe`).
    pub worst: String,
    /// Whether the gate tripped.
    pub tripped: bool,
    /// Pairs that could not be measured (directory reports).
    pub errors: u64,
}

/// Everything history keeps of one comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonSummary {
    /// `pair`, `directory` or `trials`.
    pub report_kind: String,
    /// Trace pairs measured (1 for a pair report); for a trials report, the cases compared.
    pub pairs: u64,
    /// Per axis, in report order.
    pub axes: Vec<ComparisonAxis>,
    /// Per policy rule, sorted by rule id.
    pub rules: Vec<RuleSummary>,
    /// Per case, sorted by case.
    pub cases: Vec<CaseSummary>,
    /// The gate.
    pub gate: GateSummary,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Report {
    schema_version: Option<serde_json::Value>,
    axes: Option<Vec<Axis>>,
    worst_severity: Option<String>,
    policy: Option<Policy>,
    gate: Option<Gate>,
    pairs: Option<Vec<Pair>>,
    aggregate: Option<Aggregate>,
    trials: Option<Trials>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Axis {
    axis: Option<DiffAxis>,
    severity: Option<Level>,
    worst_severity: Option<Level>,
    delta: Option<f64>,
    median_delta: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Policy {
    baseline_violations: Vec<Violation>,
    candidate_violations: Vec<Violation>,
    regressions: Vec<Violation>,
    fixes: Vec<Violation>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Violation {
    rule_id: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Gate {
    fail_on: Option<String>,
    worst: Option<String>,
    tripped: Option<bool>,
    errors: Option<u64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Pair {
    baseline: Option<String>,
    report: Option<Report>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Aggregate {
    trace_pairs: Option<u64>,
    axes: Option<Vec<Axis>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Trials {
    cases: Vec<TrialCase>,
    /// The suite's per-axis tests (trials reports).
    axes: Option<Vec<TrialAxis>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TrialCase {
    #[serde(alias = "name", alias = "id")]
    case: Option<String>,
    verdict: Option<serde_json::Value>,
    rules: Vec<TrialRule>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TrialAxis {
    axis: Option<String>,
    effect: Option<f64>,
    outcome: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TrialRule {
    rule: Option<String>,
    baseline_violations: u64,
    candidate_violations: u64,
}

fn bad(source: &str, msg: impl Into<String>) -> HistoryError {
    HistoryError::new(
        HistoryErrorKind::BadReport,
        format!("{source}: {}", msg.into()),
        "history reads the JSON report of `veer diff … --format json -o report.json`",
    )
}

/// A verdict as a word: a string as is; an object's `verdict`, `status` or `kind` string.
fn verdict_word(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(m) => ["verdict", "status", "kind", "level"]
            .iter()
            .find_map(|k| m.get(*k).and_then(|x| x.as_str()).map(str::to_string)),
        _ => None,
    }
}

/// A trials report's suite axes: each axis' outcome as a level on history's one scale (a
/// supported regression `severe`, as the gate counts it; an improvement or no supported change
/// `none`), its delta the suite effect (candidate minus baseline, in the axis' unit).
fn trial_axes(axes: &[TrialAxis], source: &str) -> Result<Vec<ComparisonAxis>, HistoryError> {
    axes.iter()
        .enumerate()
        .map(|(i, a)| {
            let axis = a
                .axis
                .clone()
                .ok_or_else(|| bad(source, format!("(trials.axes[{i}].axis): missing")))?;
            let level = match a.outcome.as_deref() {
                Some("regressed") => Level::Severe,
                _ => Level::None,
            };
            Ok(ComparisonAxis {
                axis: ComparisonAxisName::Trials(axis),
                level,
                delta: a.effect.filter(|d| d.is_finite()),
            })
        })
        .collect()
}

/// One trials case's per-rule violation counts added to `rules`: violating trials on each side,
/// and as regressions (fixes) the violating trials the candidate has beyond (below) the
/// baseline's.
fn add_trial_rules(rules: &mut BTreeMap<String, RuleSummary>, case_rules: &[TrialRule]) {
    for r in case_rules {
        let id = r.rule.clone().unwrap_or_else(|| "(unnamed)".into());
        let entry = rules.entry(id.clone()).or_insert_with(|| RuleSummary {
            rule: id,
            regressions: 0,
            fixes: 0,
            baseline_violations: 0,
            candidate_violations: 0,
        });
        entry.baseline_violations += r.baseline_violations;
        entry.candidate_violations += r.candidate_violations;
        entry.regressions += r.candidate_violations.saturating_sub(r.baseline_violations);
        entry.fixes += r.baseline_violations.saturating_sub(r.candidate_violations);
    }
}

impl ComparisonSummary {
    /// Reads the summary of a saved `veer diff --format json` report; `source` names the file
    /// in errors. Fields history does not use are ignored.
    pub fn from_report_json(source: &str, bytes: &[u8]) -> Result<ComparisonSummary, HistoryError> {
        let report: Report = serde_json::from_slice(bytes).map_err(|e| {
            bad(
                source,
                format!(
                    "not a veer diff JSON report: line {}, column {}: {e}",
                    e.line(),
                    e.column()
                ),
            )
        })?;
        if report.schema_version.is_none() {
            return Err(bad(source, "(schema_version): missing; not a veer report"));
        }
        let gate = report
            .gate
            .as_ref()
            .ok_or_else(|| bad(source, "(gate): missing; history needs the report's gate"))?;
        let gate = GateSummary {
            fail_on: gate.fail_on.clone().unwrap_or_else(|| "never".into()),
            worst: gate.worst.clone().unwrap_or_else(|| "none".into()),
            tripped: gate.tripped.unwrap_or(false),
            errors: gate.errors.unwrap_or(0),
        };
        let mut rules: BTreeMap<String, RuleSummary> = BTreeMap::new();
        let mut add_policy = |p: &Policy| {
            let mut count = |list: &[Violation], pick: fn(&mut RuleSummary) -> &mut u64| {
                for v in list {
                    let id = v.rule_id.clone().unwrap_or_else(|| "(unnamed)".into());
                    let entry = rules.entry(id.clone()).or_insert_with(|| RuleSummary {
                        rule: id,
                        regressions: 0,
                        fixes: 0,
                        baseline_violations: 0,
                        candidate_violations: 0,
                    });
                    *pick(entry) += 1;
                }
            };
            count(&p.regressions, |r| &mut r.regressions);
            count(&p.fixes, |r| &mut r.fixes);
            count(&p.baseline_violations, |r| &mut r.baseline_violations);
            count(&p.candidate_violations, |r| &mut r.candidate_violations);
        };
        let axes_of = |axes: &[Axis], at: &str| -> Result<Vec<ComparisonAxis>, HistoryError> {
            axes.iter()
                .enumerate()
                .map(|(i, a)| {
                    let axis = a
                        .axis
                        .ok_or_else(|| bad(source, format!("({at}[{i}].axis): missing")))?;
                    Ok(ComparisonAxis {
                        axis: ComparisonAxisName::Diff(axis),
                        level: a.worst_severity.or(a.severity).unwrap_or(Level::None),
                        delta: a.median_delta.or(a.delta).filter(|d| d.is_finite()),
                    })
                })
                .collect()
        };
        let mut cases: Vec<CaseSummary> = Vec::new();
        let (report_kind, pairs, axes) = match (&report.pairs, &report.aggregate) {
            (Some(pairs), Some(aggregate)) => {
                for p in pairs.iter().filter_map(|p| p.report.as_ref()) {
                    if let Some(policy) = &p.policy {
                        add_policy(policy);
                    }
                }
                if report.trials.is_none() {
                    for p in pairs {
                        if let Some(name) = &p.baseline {
                            let worst = p.report.as_ref().and_then(|r| r.worst_severity.clone());
                            cases.push(CaseSummary {
                                case: name.clone(),
                                verdict: worst.unwrap_or_else(|| "none".into()),
                                source: "pair".into(),
                            });
                        }
                    }
                }
                let axes = axes_of(aggregate.axes.as_deref().unwrap_or(&[]), "aggregate.axes")?;
                let n = aggregate.trace_pairs.unwrap_or(pairs.len() as u64);
                ("directory", n, axes)
            }
            (None, None) if report.axes.is_none() => {
                let trials = report.trials.as_ref().ok_or_else(|| {
                    bad(
                        source,
                        "(axes): missing; neither a pair, a directory nor a trials report",
                    )
                })?;
                for c in &trials.cases {
                    add_trial_rules(&mut rules, &c.rules);
                }
                let axes = trial_axes(trials.axes.as_deref().unwrap_or(&[]), source)?;
                ("trials", trials.cases.len() as u64, axes)
            }
            _ => {
                let axes = report.axes.as_deref().ok_or_else(|| {
                    bad(
                        source,
                        "(axes): missing; neither a pair, a directory nor a trials report",
                    )
                })?;
                if let Some(policy) = &report.policy {
                    add_policy(policy);
                }
                ("pair", 1, axes_of(axes, "axes")?)
            }
        };
        if let Some(trials) = &report.trials {
            for (i, c) in trials.cases.iter().enumerate() {
                let case = c
                    .case
                    .clone()
                    .ok_or_else(|| bad(source, format!("(trials.cases[{i}].case): missing")))?;
                let verdict = c
                    .verdict
                    .as_ref()
                    .and_then(verdict_word)
                    .unwrap_or_else(|| "unknown".into());
                cases.push(CaseSummary {
                    case,
                    verdict,
                    source: "trials".into(),
                });
            }
        }
        cases.sort_by(|a, b| a.case.cmp(&b.case));
        Ok(ComparisonSummary {
            report_kind: report_kind.into(),
            pairs,
            axes,
            rules: rules.into_values().collect(),
            cases,
            gate,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_report_reads() {
        let json = br#"{"schema_version":"1","axes":[{"axis":"semantic","severity":"minor","delta":0.25,"extra":1}],
            "policy":{"baseline_violations":[],"candidate_violations":[{"rule_id":"r1"}],"regressions":[{"rule_id":"r1"}],"fixes":[]},
            "gate":{"fail_on":"moderate","worst":"minor","tripped":false},"new_field":{"x":1}}"#;
        let s = ComparisonSummary::from_report_json("r.json", json).unwrap();
        assert_eq!(s.report_kind, "pair");
        assert_eq!(s.axes[0].level, Level::Minor);
        assert_eq!(s.axes[0].delta, Some(0.25));
        assert_eq!(s.rules[0].regressions, 1);
        assert_eq!(s.rules[0].candidate_violations, 1);
        assert!(s.cases.is_empty());
    }

    #[test]
    fn a_directory_report_with_trials_reads() {
        let json = br#"{"schema_version":"1","pairs":[{"baseline":"a/1.agentlog","candidate":"a/1.agentlog","report":{"worst_severity":"severe","policy":{"regressions":[{"rule_id":"r"}]}}}],
            "aggregate":{"trace_pairs":1,"axes":[{"axis":"cost","worst_severity":"severe","median_delta":2.0}]},
            "trials":{"cases":[{"case":"b","verdict":"regressed"},{"name":"a","verdict":{"verdict":"pass"}}]},
            "gate":{"fail_on":"never","worst":"severe","tripped":false,"errors":0}}"#;
        let s = ComparisonSummary::from_report_json("d.json", json).unwrap();
        assert_eq!(s.report_kind, "directory");
        assert_eq!(s.axes[0].axis, ComparisonAxisName::Diff(DiffAxis::Cost));
        assert_eq!(s.axes[0].level, Level::Severe);
        assert_eq!(s.rules[0].regressions, 1);
        let cases: Vec<_> = s
            .cases
            .iter()
            .map(|c| (c.case.as_str(), c.verdict.as_str()))
            .collect();
        assert_eq!(cases, [("a", "pass"), ("b", "regressed")]);
    }

    #[test]
    fn a_directory_report_without_trials_has_pair_cases() {
        let json = br#"{"schema_version":"1","pairs":[{"baseline":"x.agentlog","report":{"worst_severity":"minor"}}],
            "aggregate":{"axes":[]},"gate":{"fail_on":"never","worst":"minor","tripped":false}}"#;
        let s = ComparisonSummary::from_report_json("d.json", json).unwrap();
        assert_eq!(s.cases[0].case, "x.agentlog");
        assert_eq!(s.cases[0].verdict, "minor");
        assert_eq!(s.cases[0].source, "pair");
    }

    #[test]
    fn a_trials_report_reads_its_suite_axes_case_verdicts_and_rule_counts() {
        let json = br#"{"schema_version":"1","baseline":"runs/main","candidate":"runs/pr",
            "trials":{"cases":[
                {"case":"refund","verdict":"regressed","rules":[{"rule":"lookup-first","severity":"error","baseline_violations":0,"candidate_violations":3}]},
                {"case":"greet","verdict":"unchanged","rules":[{"rule":"lookup-first","severity":"error","baseline_violations":1,"candidate_violations":0}]}],
              "axes":[{"axis":"latency","effect":12.5,"outcome":"no_supported_change"},{"axis":"tool_calls","effect":-1.0,"outcome":"regressed"}]},
            "gate":{"fail_on":"moderate","worst":"severe","tripped":true}}"#;
        let s = ComparisonSummary::from_report_json("t.json", json).unwrap();
        assert_eq!(s.report_kind, "trials");
        assert_eq!(s.pairs, 2);
        let axes: Vec<_> = s
            .axes
            .iter()
            .map(|a| (a.axis.name(), a.level.name(), a.delta))
            .collect();
        assert_eq!(
            axes,
            [
                ("latency", "none", Some(12.5)),
                ("tool_calls", "severe", Some(-1.0))
            ]
        );
        assert_eq!(
            s.rules,
            [RuleSummary {
                rule: "lookup-first".into(),
                regressions: 3,
                fixes: 1,
                baseline_violations: 1,
                candidate_violations: 3,
            }]
        );
        let cases: Vec<_> = s
            .cases
            .iter()
            .map(|c| (c.case.as_str(), c.verdict.as_str(), c.source.as_str()))
            .collect();
        assert_eq!(
            cases,
            [
                ("greet", "unchanged", "trials"),
                ("refund", "regressed", "trials")
            ]
        );
        assert!(s.gate.tripped);
    }

    #[test]
    fn bad_reports_name_the_field() {
        let e = ComparisonSummary::from_report_json("r.json", b"{").unwrap_err();
        assert!(
            e.message.starts_with("r.json: not a veer diff JSON report"),
            "{}",
            e.message
        );
        let e = ComparisonSummary::from_report_json("r.json", br#"{"schema_version":"1"}"#)
            .unwrap_err();
        assert!(e.message.contains("(gate)"), "{}", e.message);
        let e =
            ComparisonSummary::from_report_json("r.json", br#"{"schema_version":"1","gate":{}}"#)
                .unwrap_err();
        assert!(e.message.contains("(axes)"), "{}", e.message);
        let e = ComparisonSummary::from_report_json("r.json", br#"[1]"#).unwrap_err();
        assert_eq!(e.kind, HistoryErrorKind::BadReport);
    }
}
