//! `veer gate REPORT.json`: re-applies the merge gate to a saved diff report (spec `policy.md`
//! §12). The report is read into its type (a pair, a directory or a repeated-trials report;
//! Shadow's pair layout is also read), and a malformed one is refused naming the file, the
//! line, the JSON path and what was expected. The gate then decides through the engine, as
//! `veer diff` did: a pair's or a directory's [`Verdict`] at `--fail-on` (the trials gate for a
//! trials report), so the exit code is the one `veer diff --fail-on` gives on the same inputs.
//!
//! Without `--policy` the report's stored policy regressions count; with `--policy` (a pair
//! report only) both traces are required and the policy diff is recomputed once. A directory
//! report's error rows count as `veer diff` counts them: each trips a set gate (exit 1); with
//! `--fail-on never` they make the exit code 2.

use crate::cli::{GateArgs, GateFormat};
use crate::error::CliError;
use crate::output::{colour_enabled, emit};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Deserialize;
use veer_base::Level;
use veer_contract::diff::{DiffReport, DirectoryReport, DIFF_SCHEMA_VERSION};
use veer_contract::gate::GateRegression;
use veer_contract::gate::GateReport;
use veer_contract::policy::{PolicyDiff, RuleKind, Severity, Violation};
use veer_contract::trials::{TrialsReport, TripKind};
use veer_contract::verdict::Cause;
use veer_contract::verdict::Trip;
use veer_contract::verdict::Verdict;
use veer_engine::verdict::{self, DirectoryVerdict};
use veer_report::style::Style;

/// A saved report as `veer gate` reads it.
enum Saved {
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
struct ShadowReport {
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
fn read_report(file: &str, text: &str) -> Result<Saved, CliError> {
    let probe: Probe = serde_json::from_str(text).map_err(|e| {
        let what = if e.is_data() {
            "not a veer diff report (a JSON object is expected)".to_string()
        } else {
            format!("not valid JSON: {e}")
        };
        CliError::input(format!("{file}: {what}")).hint(HINT)
    })?;
    if probe.rows.is_some() && probe.schema_version.is_none() {
        return typed(file, text).map(Saved::Shadow);
    }
    if probe.traces.is_some() && probe.axes.is_none() && probe.pairs.is_none() {
        return Err(CliError::input(format!(
            "{file}: this is a `veer check` report; `veer gate` re-applies the gate to diff reports"
        ))
        .hint("`veer check TRACE --policy P --fail-on LEVEL` gates a trace on its violations"));
    }
    match &probe.schema_version {
        Some(serde_json::Value::String(v)) if v == DIFF_SCHEMA_VERSION => {}
        Some(v) => {
            return Err(CliError::input(format!(
                "{file}: schema_version {v} is not a diff report of version \"{DIFF_SCHEMA_VERSION}\", the one this veer reads"
            ))
            .hint("re-run `veer diff … --format json` with this veer and gate that report"))
        }
        None => {
            return Err(CliError::input(format!(
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
fn typed<T: DeserializeOwned>(file: &str, text: &str) -> Result<T, CliError> {
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
        CliError::input(format!(
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
    /// Whether it is a repeated-trials report's (its gate line names what tripped).
    trials: bool,
    /// The printed report.
    report: GateReport,
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
    Decided {
        report: GateReport {
            schema_version: veer_contract::gate::GATE_SCHEMA_VERSION.into(),
            report: file.to_string(),
            worst_axis: worst_of(&signals, is_axis),
            fingerprint: worst_of(&signals, is_fingerprint),
            policy_source: policy_source.into(),
            regressions: regressions_of(&report, &trace),
            tripped: Vec::new(),
            gate: verdict.gate(),
        },
        verdict,
        trials: false,
    }
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
    Decided {
        report: GateReport {
            schema_version: veer_contract::gate::GATE_SCHEMA_VERSION.into(),
            report: file.to_string(),
            worst_axis: worst_of(&signals, is_axis),
            fingerprint: worst_of(&signals, is_fingerprint),
            policy_source: if any_policy { "report" } else { "none" }.into(),
            regressions,
            tripped: Vec::new(),
            gate: verdict.gate(),
        },
        verdict,
        trials: false,
    }
}

/// The gate over a repeated-trials report: re-decided at `fail_on` by the engine's own code
/// (`veer_engine::trials::redecide`, which `veer diff` used), so it trips on the same signals
/// and names them the same way (inconclusive cases do not count: `veer gate` has no
/// `--fail-on inconclusive`; `--allow-missing` is read from the report).
fn decide_trials(file: &str, mut report: TrialsReport, fail_on: Level) -> Decided {
    veer_engine::trials::redecide(&mut report, fail_on, false);
    let verdict = report.verdict;
    let signals = veer_engine::trials::gate::trials_gate(&report.trials, false);
    let worst_axis = signals
        .iter()
        .filter(|t| matches!(t.kind, TripKind::Axis | TripKind::Behaviour))
        .map(|t| t.level)
        .max()
        .unwrap_or(Level::None);
    let has_rules =
        report.trials.cases.iter().any(|c| !c.rules.is_empty()) || !report.trials.rules.is_empty();
    Decided {
        report: GateReport {
            schema_version: veer_contract::gate::GATE_SCHEMA_VERSION.into(),
            report: file.to_string(),
            worst_axis,
            fingerprint: Level::None,
            policy_source: if has_rules { "report" } else { "none" }.into(),
            regressions: Vec::new(),
            tripped: verdict.trips.iter().map(|t| t.reason.clone()).collect(),
            gate: verdict.gate(),
        },
        verdict,
        trials: true,
    }
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
    Decided {
        report: GateReport {
            schema_version: veer_contract::gate::GATE_SCHEMA_VERSION.into(),
            report: file.to_string(),
            worst_axis: worst_of(&signals, is_axis),
            fingerprint: Level::None,
            policy_source: policy_source.into(),
            regressions: regressions
                .into_iter()
                .map(|violation| GateRegression {
                    trace: trace.clone(),
                    violation,
                })
                .collect(),
            tripped: Vec::new(),
            gate: verdict.gate(),
        },
        verdict,
        trials: false,
    }
}

/// Reads REPORT within `--max-report-bytes`, as UTF-8.
fn read_text(args: &GateArgs, file: &str) -> Result<String, CliError> {
    let bytes = veer_base::capped::read_capped(&args.report, args.max_report_bytes).map_err(
        |e| match e {
            veer_base::capped::CappedError::Io(e) => {
                CliError::input(format!("{file}: cannot read: {e}")).hint("check the path")
            }
            other => {
                let (message, hint) = other
                    .too_large_message("report", Some("--max-report-bytes"))
                    .unwrap_or_default();
                CliError::input(format!("{file}: {message}")).hint(hint)
            }
        },
    )?;
    String::from_utf8(bytes).map_err(|e| {
        CliError::input(format!(
            "{file}: cannot read: not valid UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
        .hint("check the path")
    })
}

/// Runs `veer gate`.
pub fn run(args: &GateArgs) -> Result<u8, CliError> {
    let file = args.report.display().to_string();
    if args.policy.is_some() && (args.baseline.is_none() || args.candidate.is_none()) {
        return Err(
            CliError::input("--policy requires --baseline and --candidate.")
                .hint("veer gate report.json --policy P --baseline B --candidate C"),
        );
    }
    let text = read_text(args, &file)?;
    let saved = read_report(&file, &text)?;
    drop(text);
    let recomputed = match (&args.policy, &args.baseline, &args.candidate) {
        (Some(p), Some(b), Some(c)) => {
            if !matches!(saved, Saved::Pair(_) | Saved::Shadow(_)) {
                return Err(CliError::input(format!(
                    "{file}: --policy recomputes the policy diff of one trace pair, but this is a directory report"
                ))
                .hint("re-run `veer diff BASELINE_DIR CANDIDATE_DIR --policy FILE --format json` and gate that report"));
            }
            let policy = super::policy::load(p)?;
            let options = args.read.options();
            let baseline = veer_trace::load_trace(b, &options)?;
            let candidate = veer_trace::load_trace(c, &options)?;
            Some((
                veer_engine::policy::compare(&policy, &baseline, &candidate),
                c.display().to_string(),
            ))
        }
        _ => None,
    };
    let decided = match saved {
        Saved::Pair(report) => decide_pair(&file, *report, recomputed, args.fail_on),
        Saved::Directory(report) => decide_directory(&file, &report, args.fail_on),
        Saved::Trials(report) => decide_trials(&file, *report, args.fail_on),
        Saved::Shadow(report) => decide_shadow(&file, &report, recomputed, args.fail_on),
    };
    let report = decided.report;
    let text = match args.format {
        GateFormat::Terminal => veer_report::policy::gate::terminal(
            &report,
            Style {
                colour: colour_enabled(args.out.output.is_some()),
            },
        ),
        GateFormat::Json => veer_report::policy::gate::json(&report),
    };
    emit(&text, args.out.output.as_deref())?;
    let line = if decided.trials {
        veer_report::policy::trials_gate_line(&decided.verdict, false)
    } else {
        veer_report::policy::gate_line(&report.gate)
    };
    crate::output::diag::say("", line);
    Ok(decided.verdict.exit_code())
}
