//! A saved report decided again: `veer gate REPORT.json` reads a report `veer diff --format
//! json` wrote (a pair, a directory or a repeated-trials report; Shadow's pair layout too)
//! into its type — a malformed one is refused naming the file, the line, the JSON path and
//! what was expected — and decides its gate at a new threshold with the same code `veer diff`
//! used, so the exit is the one `veer diff --fail-on` gives on the same inputs.
//!
//! Without a policy the report's stored policy regressions count; with one (a pair report
//! only) both traces are required and the policy diff is recomputed once. A directory report's
//! error rows count as the diff counts them: each trips a set gate; with no gate they make the
//! run an error.

use super::Outcome;
use crate::verdict::{self, DirectoryVerdict};
use crate::Error;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use veer_base::Level;
use veer_contract::diff::{DiffReport, DirectoryReport, DIFF_SCHEMA_VERSION};
use veer_contract::gate::{GateRegression, GateReport, GATE_SCHEMA_VERSION};
use veer_contract::policy::{PolicyDiff, RuleKind, Severity, Violation};
use veer_contract::report::{Gated, Report};
use veer_contract::trials::{TrialsReport, TripKind};
use veer_contract::verdict::Verdict;
use veer_contract::verdict::{Cause, Trip};
use veer_trace::ReadOptions;

/// How a saved report is gated again.
#[derive(Debug, Clone)]
pub struct RegateSettings {
    /// The new threshold.
    pub fail_on: Level,
    /// Recompute the policy diff with this policy on these two traces (baseline, candidate)
    /// instead of reading the stored one (pair reports only).
    pub policy: Option<(PathBuf, PathBuf, PathBuf)>,
    /// How those traces are read.
    pub read: ReadOptions,
}

/// Reads the saved report at `path` (at most `max_bytes`, UTF-8) into its type.
pub fn read(path: &Path, max_bytes: u64) -> Result<Saved, Error> {
    let file = path.display().to_string();
    let bytes = veer_base::capped::read_capped(path, max_bytes).map_err(|e| match e {
        veer_base::capped::CappedError::Io(e) => {
            Error::input(format!("{file}: cannot read: {e}")).hint("check the path")
        }
        other => {
            let (message, hint) = other
                .too_large_message("report", Some("--max-report-bytes"))
                .unwrap_or_default();
            Error::input(format!("{file}: {message}")).hint(hint)
        }
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::input(format!(
            "{file}: cannot read: not valid UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
        .hint("check the path")
    })?;
    read_report(&file, &text)
}

/// Decides the gate of `saved` (read from `file`) again with `settings`; a recomputing
/// policy's load warnings go to `warn`.
pub fn regate(
    file: &str,
    saved: Saved,
    settings: &RegateSettings,
    warn: &(dyn Fn(&str) + Sync),
) -> Result<Outcome, Error> {
    let recomputed = match &settings.policy {
        Some((p, b, c)) => {
            if !matches!(saved, Saved::Pair(_) | Saved::Shadow(_)) {
                return Err(Error::input(format!(
                    "{file}: --policy recomputes the policy diff of one trace pair, but this is a directory report"
                ))
                .hint("re-run `veer diff BASELINE_DIR CANDIDATE_DIR --policy FILE --format json` and gate that report"));
            }
            let policy = crate::policy::load_warned(p, warn)?;
            let baseline = veer_trace::load_trace(b, &settings.read)?;
            let candidate = veer_trace::load_trace(c, &settings.read)?;
            Some((
                crate::policy::compare(&policy, &baseline, &candidate),
                c.display().to_string(),
            ))
        }
        None => None,
    };
    let fail_on = settings.fail_on;
    let (decided, gated) = match saved {
        Saved::Pair(report) => (decide_pair(file, *report, recomputed, fail_on), Gated::Pair),
        Saved::Directory(report) => (decide_directory(file, &report, fail_on), Gated::Directory),
        Saved::Trials(report) => (decide_trials(file, *report, fail_on), Gated::Trials),
        Saved::Shadow(report) => (
            decide_shadow(file, &report, recomputed, fail_on),
            Gated::Shadow,
        ),
    };
    Ok(Outcome::of(
        Report::Gate(Box::new(decided.report), gated),
        decided.verdict,
    ))
}

/// A saved report as `veer gate` reads it.
pub enum Saved {
    /// `veer diff BASELINE CANDIDATE --format json`.
    Pair(Box<DiffReport>),
    /// `veer diff BASELINE_DIR CANDIDATE_DIR --format json`, paired by path.
    Directory(Box<DirectoryReport>),
    /// A directory diff of cases with repeated trials.
    Trials(Box<TrialsReport>),
    /// Shadow's pair report (the conformance vectors): axis rows and a policy diff.
    Shadow(ShadowReport),
}

/// The top-level keys that tell the report kinds apart (every other key is skipped unread).
#[derive(Deserialize)]
struct Probe {
    schema_version: Option<serde_json::Value>,
    pairs: Option<IgnoredAny>,
    trials: Option<IgnoredAny>,
    rows: Option<IgnoredAny>,
    axes: Option<IgnoredAny>,
    /// `veer check`'s document.
    traces: Option<IgnoredAny>,
}

/// Shadow's pair report: what its gate reads.
#[derive(Deserialize)]
pub struct ShadowReport {
    /// One row per axis.
    rows: Vec<ShadowRow>,
    /// With a policy: its regressions.
    #[serde(default)]
    policy_diff: Option<ShadowPolicy>,
}

/// One axis row of a Shadow report.
#[derive(Deserialize)]
struct ShadowRow {
    /// The axis' wire name.
    axis: String,
    /// Its severity (`none` … `severe`).
    severity: Level,
    /// `regression` or `improvement` (absent in Shadow's own reports: every change counts).
    #[serde(default)]
    direction: Option<String>,
}

/// The policy block of a Shadow report.
#[derive(Deserialize)]
struct ShadowPolicy {
    /// Candidate violations beyond the baseline's.
    regressions: Vec<ShadowViolation>,
}

/// A violation as Shadow writes it: veer's fields, tags optional.
#[derive(Deserialize)]
struct ShadowViolation {
    rule_id: String,
    kind: RuleKind,
    severity: Severity,
    #[serde(default)]
    session: Option<usize>,
    #[serde(default)]
    pair_index: Option<usize>,
    detail: String,
    #[serde(default)]
    tags: Vec<String>,
}

impl From<&ShadowViolation> for Violation {
    fn from(v: &ShadowViolation) -> Violation {
        Violation {
            rule_id: v.rule_id.clone(),
            kind: v.kind,
            severity: v.severity,
            session: v.session,
            pair_index: v.pair_index,
            detail: v.detail.clone(),
            tags: v.tags.clone(),
            status: None,
        }
    }
}

const HINT: &str = "pass a report written by `veer diff --format json` (of this veer version)";

/// Reads `text` (the contents of `file`) into the report type its keys announce.
pub fn read_report(file: &str, text: &str) -> Result<Saved, Error> {
    let probe: Probe = serde_json::from_str(text).map_err(|e| {
        let what = if e.is_data() {
            "not a veer diff report (a JSON object is expected)".to_string()
        } else {
            format!("not valid JSON: {e}")
        };
        Error::input(format!("{file}: {what}")).hint(HINT)
    })?;
    if probe.rows.is_some() && probe.schema_version.is_none() {
        return typed(file, text).map(Saved::Shadow);
    }
    if probe.traces.is_some() && probe.axes.is_none() && probe.pairs.is_none() {
        return Err(Error::input(format!(
            "{file}: this is a `veer check` report; `veer gate` re-applies the gate to diff reports"
        ))
        .hint("`veer check TRACE --policy P --fail-on LEVEL` gates a trace on its violations"));
    }
    match &probe.schema_version {
        Some(serde_json::Value::String(v)) if v == DIFF_SCHEMA_VERSION => {}
        Some(v) => {
            return Err(Error::input(format!(
                "{file}: schema_version {v} is not a diff report of version \"{DIFF_SCHEMA_VERSION}\", the one this veer reads"
            ))
            .hint("re-run `veer diff … --format json` with this veer and gate that report"))
        }
        None => {
            return Err(Error::input(format!(
                "{file}: no schema_version: not a report written by `veer diff --format json`"
            ))
            .hint(HINT))
        }
    }
    Ok(if probe.trials.is_some() {
        Saved::Trials(Box::new(typed(file, text)?))
    } else if probe.pairs.is_some() {
        Saved::Directory(Box::new(typed(file, text)?))
    } else {
        Saved::Pair(Box::new(typed(file, text)?))
    })
}

/// `text` read into `T`; an error names the file, its line and column, the JSON path and what
/// was expected there.
fn typed<T: DeserializeOwned>(file: &str, text: &str) -> Result<T, Error> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.inner();
        let message = inner.to_string();
        // serde_json appends the position; it is given up front instead.
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m);
        let at = if path == "." {
            String::new()
        } else {
            format!(" at .{path}")
        };
        Error::input(format!(
            "{file}:{}:{}: malformed report{at}: {message}",
            inner.line(),
            inner.column()
        ))
        .hint(HINT)
    })
}

/// What the gate decided on one report and how it prints.
struct Decided {
    /// The engine's verdict.
    verdict: Verdict,
    /// The printed report.
    report: GateReport,
}

impl Decided {
    /// The gate report of a decided `verdict` on the saved report `file`: `levels` are the
    /// worst axis and fingerprint levels, `policy_source` where the policy diff came from
    /// (`report`, `recomputed`, `rates`, `none`).
    fn new(
        file: &str,
        verdict: Verdict,
        levels: (Level, Level),
        policy_source: &'static str,
        regressions: Vec<GateRegression>,
        tripped: Vec<String>,
    ) -> Decided {
        Decided {
            report: GateReport {
                schema_version: GATE_SCHEMA_VERSION.into(),
                report: file.to_string(),
                worst_axis: levels.0,
                fingerprint: levels.1,
                policy_source: policy_source.into(),
                regressions,
                tripped,
                gate: verdict.gate(),
            },
            verdict,
        }
    }
}

/// The highest level among `signals` whose cause matches `of`.
fn worst_of(signals: &[Trip], of: fn(&Cause) -> bool) -> Level {
    signals
        .iter()
        .filter(|t| of(&t.cause))
        .map(|t| t.level)
        .max()
        .unwrap_or(Level::None)
}

fn is_axis(c: &Cause) -> bool {
    matches!(c, Cause::Axis { .. })
}

fn is_fingerprint(c: &Cause) -> bool {
    matches!(c, Cause::Fingerprint { .. })
}

/// The regressions of one pair report, named by `trace`.
fn regressions_of(report: &DiffReport, trace: &str) -> Vec<GateRegression> {
    report
        .policy
        .iter()
        .flat_map(|p| p.regressions.iter())
        .map(|v| GateRegression {
            trace: trace.to_string(),
            violation: v.clone(),
        })
        .collect()
}

/// The gate over a pair report; with `recomputed` (the policy diff of `--policy` and the
/// candidate trace it was computed on) in place of the stored policy diff.
fn decide_pair(
    file: &str,
    mut report: DiffReport,
    recomputed: Option<(PolicyDiff, String)>,
    fail_on: Level,
) -> Decided {
    let policy_source = match (&recomputed, &report.policy) {
        (Some(_), _) => "recomputed",
        (None, Some(_)) => "report",
        (None, None) => "none",
    };
    // Regressions are named by the candidate trace: the one given with --policy, else the
    // report's (a report without one names itself).
    let trace = match recomputed {
        Some((diff, candidate)) => {
            report.policy = Some(diff);
            candidate
        }
        None if report.candidate.path.is_empty() => file.to_string(),
        None => report.candidate.path.clone(),
    };
    let signals = verdict::pair_signals(&report);
    let verdict = verdict::pair_verdict(&report, fail_on);
    Decided::new(
        file,
        verdict,
        (
            worst_of(&signals, is_axis),
            worst_of(&signals, is_fingerprint),
        ),
        policy_source,
        regressions_of(&report, &trace),
        Vec::new(),
    )
}

/// The gate over a directory report, folded pair by pair as `veer diff` folds it.
fn decide_directory(file: &str, report: &DirectoryReport, fail_on: Level) -> Decided {
    // Pairs the diff marked quarantined stay excused (docs/history.md, "Quarantine").
    let quarantined = report
        .pairs
        .iter()
        .filter(|p| p.quarantined.is_some())
        .map(|p| p.baseline.clone())
        .collect();
    let mut fold = DirectoryVerdict::new(fail_on).with_quarantine(quarantined);
    let mut signals = Vec::new();
    let mut regressions = Vec::new();
    let mut any_policy = false;
    for pair in &report.pairs {
        fold.pair(&pair.baseline, &pair.report);
        signals.extend(verdict::pair_signals(&pair.report));
        any_policy |= pair.report.policy.is_some();
        regressions.extend(regressions_of(&pair.report, &pair.baseline));
    }
    signals.extend(verdict::fingerprint_signal(
        report.fingerprint.as_ref(),
        true,
    ));
    let verdict = fold.finish(report.fingerprint.as_ref(), &report.errors);
    Decided::new(
        file,
        verdict,
        (
            worst_of(&signals, is_axis),
            worst_of(&signals, is_fingerprint),
        ),
        if any_policy { "report" } else { "none" },
        regressions,
        Vec::new(),
    )
}

/// The gate over a repeated-trials report: re-decided at `fail_on` by the engine's own code
/// (`crate::trials::redecide`, which `veer diff` used), so it trips on the same signals
/// and names them the same way (inconclusive cases do not count: `veer gate` has no
/// `--fail-on inconclusive`; `--allow-missing` is read from the report).
fn decide_trials(file: &str, mut report: TrialsReport, fail_on: Level) -> Decided {
    crate::trials::redecide(&mut report, fail_on, false);
    let verdict = report.verdict;
    let signals = crate::trials::gate::trials_gate(&report.trials, false);
    let worst_axis = signals
        .iter()
        .filter(|t| matches!(t.kind, TripKind::Axis | TripKind::Behaviour))
        .map(|t| t.level)
        .max()
        .unwrap_or(Level::None);
    let has_rules =
        report.trials.cases.iter().any(|c| !c.rules.is_empty()) || !report.trials.rules.is_empty();
    // A trials report compares its rules as violation rates per case: it has no regressions
    // to count, and what tripped is listed with the other trips.
    let tripped = verdict.trips.iter().map(|t| t.reason.clone()).collect();
    Decided::new(
        file,
        verdict,
        (worst_axis, Level::None),
        if has_rules { "rates" } else { "none" },
        Vec::new(),
        tripped,
    )
}

/// The gate over Shadow's pair report: its worse-direction axis rows and policy regressions
/// (those of `recomputed`, the policy diff of `--policy` and its candidate trace, when given).
fn decide_shadow(
    file: &str,
    report: &ShadowReport,
    recomputed: Option<(PolicyDiff, String)>,
    fail_on: Level,
) -> Decided {
    let mut signals: Vec<Trip> = report
        .rows
        .iter()
        .filter(|r| r.direction.as_deref() != Some("improvement"))
        .map(|r| Trip {
            trace: None,
            level: r.severity,
            cause: Cause::Axis {
                axis: r.axis.clone(),
            },
            reason: format!("{} changed: {}", r.axis, r.severity.name()),
        })
        .collect();
    let (policy_source, trace, regressions): (&str, String, Vec<Violation>) = match recomputed {
        Some((diff, candidate)) => ("recomputed", candidate, diff.regressions),
        None => match &report.policy_diff {
            Some(p) => (
                "report",
                file.to_string(),
                p.regressions.iter().map(Violation::from).collect(),
            ),
            None => ("none", file.to_string(), Vec::new()),
        },
    };
    signals.extend(regressions.iter().map(|v| verdict::policy_signal(v, true)));
    let verdict = Verdict::decide(fail_on, signals.clone());
    Decided::new(
        file,
        verdict,
        (worst_of(&signals, is_axis), Level::None),
        policy_source,
        regressions
            .into_iter()
            .map(|violation| GateRegression {
                trace: trace.clone(),
                violation,
            })
            .collect(),
        Vec::new(),
    )
}
