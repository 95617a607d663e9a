//! `veer history add|show|export`, and `veer diff … --history`: comparison summaries kept in
//! the SQLite history (`veer_history`), trends printed as tables with sparklines. The store,
//! the report reading and the trend series are in `veer_history`; this file gathers
//! provenance, maps errors and prints.

use super::provenance;
use crate::cli::{
    ExportFormat, HistoryAddArgs, HistoryCommand, HistoryExportArgs, HistoryReportArgs,
    HistoryShowArgs, StandingFormat,
};
use crate::error::{CliError, Exit};
use crate::output::emit;
use serde::Serialize;
use std::io::IsTerminal;
use std::path::Path;
use veer_contract::history::{
    DriftMark, HistoryReport, HistoryShow, ReportCase, RuleTrend, ShowAxis, ShowCase,
};
use veer_history::drift::DriftSettings;
use veer_history::trend::{axis_trends, case_trends, level_rank, verdict_level};
use veer_history::{ComparisonSummary, Entry, Filter, History, HistoryError, Provenance};
use veer_report::history::show::ShowPage;
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;

/// Largest report read by `history add`: 256 MiB (as `veer gate`).
const MAX_REPORT_BYTES: u64 = 256 << 20;

pub(crate) fn err(e: HistoryError) -> CliError {
    CliError::input(e.message).hint(e.hint)
}

/// Runs one `veer history` subcommand.
pub fn run(command: &HistoryCommand) -> Result<Exit, CliError> {
    match command {
        HistoryCommand::Add(a) => add(a),
        HistoryCommand::Show(a) => show(a),
        HistoryCommand::Export(a) => export(a),
        HistoryCommand::Report(a) => report(a),
        HistoryCommand::Drift(a) => super::history_drift::drift(a),
        HistoryCommand::Flaky(a) => super::history_drift::flaky(a),
    }
}

/// Where a comparison comes from: the flags given, else the environment.
fn provenance_of(
    commit: Option<&str>,
    branch: Option<&str>,
    ci_run: Option<&str>,
    time: Option<&str>,
) -> Result<Provenance, CliError> {
    let recorded_at_ms = match time {
        Some(t) => provenance::parse_time(t).ok_or_else(|| {
            CliError::input(format!("--time {t}: not a date or instant"))
                .hint("use RFC 3339, e.g. 2026-11-01T12:00:00Z, or a date, 2026-11-01")
        })?,
        None => provenance::now_ms(),
    };
    Ok(Provenance {
        recorded_at_ms,
        commit: commit.map(str::to_string).or_else(provenance::commit),
        branch: branch.map(str::to_string).or_else(provenance::branch),
        ci_run: ci_run
            .map(str::to_string)
            .or_else(|| provenance::ci_run().0),
        veer_version: env!("CARGO_PKG_VERSION").to_string(),
    })
}

/// Opens (creating when missing, with its directory) the database at `db`.
fn open_for_write(db: &Path) -> Result<History, CliError> {
    if let Some(parent) = db.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            CliError::input(format!(
                "{}: cannot create the directory: {e}",
                parent.display()
            ))
            .hint("check that the path is writable")
        })?;
    }
    History::open(db, true).map_err(err)
}

/// Adds the summary of the JSON report `json` (named `source`) to the history at `db`, with
/// provenance from the environment. Used by `veer diff … --history`.
pub fn record_report(json: &[u8], source: &str, db: &Path) -> Result<i64, CliError> {
    let summary = ComparisonSummary::from_report_json(source, json).map_err(err)?;
    let p = provenance_of(None, None, None, None)?;
    open_for_write(db)?.add(&p, &summary).map_err(err)
}

fn add(a: &HistoryAddArgs) -> Result<Exit, CliError> {
    let source = a.report.display().to_string();
    let bytes = veer_base::capped::read_capped(&a.report, MAX_REPORT_BYTES).map_err(|e| match e
        .too_large_message("report", None)
    {
        Some((m, h)) => CliError::input(format!("{source}: {m}")).hint(h),
        None => match e {
            veer_base::capped::CappedError::Io(io) => {
                CliError::input(format!("{source}: cannot read: {io}")).hint("check the path")
            }
            _ => CliError::input(format!("{source}: cannot read")),
        },
    })?;
    let summary = ComparisonSummary::from_report_json(&source, &bytes).map_err(err)?;
    let p = provenance_of(
        a.commit.as_deref(),
        a.branch.as_deref(),
        a.ci_run.as_deref(),
        a.time.as_deref(),
    )?;
    let id = open_for_write(&a.db.db)?.add(&p, &summary).map_err(err)?;
    crate::output::diag::say(
        "",
        format!(
            "added comparison {id} to {} ({} report, gate {})",
            a.db.db.display(),
            summary.report_kind,
            if summary.gate.tripped {
                "tripped"
            } else {
                "passed"
            }
        ),
    );
    Ok(Exit::done())
}

pub(crate) fn since_ms(since: Option<&str>) -> Result<Option<i64>, CliError> {
    since
        .map(|s| {
            provenance::parse_time(s).ok_or_else(|| {
                CliError::input(format!("--since {s}: not a date or instant"))
                    .hint("use a date, 2026-11-01, or an instant, 2026-11-01T12:00:00Z")
            })
        })
        .transpose()
}

fn rule_trends(entries: &[Entry]) -> Vec<RuleTrend> {
    let mut names: Vec<String> = entries
        .iter()
        .flat_map(|e| e.summary.rules.iter().map(|r| r.rule.clone()))
        .collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|rule| {
            let regressions: Vec<u64> = entries
                .iter()
                .map(|e| {
                    e.summary
                        .rules
                        .iter()
                        .find(|r| r.rule == rule)
                        .map_or(0, |r| r.regressions)
                })
                .collect();
            RuleTrend {
                comparisons_with_regressions: regressions.iter().filter(|n| **n > 0).count(),
                rule,
                regressions,
            }
        })
        .collect()
}

fn show(a: &HistoryShowArgs) -> Result<Exit, CliError> {
    let since = since_ms(a.since.as_deref())?;
    let history = History::open(&a.db.db, false).map_err(err)?;
    let filter = Filter {
        since_ms: since,
        branch: a.branch.clone(),
        case: a.case.clone(),
        axis: a.axis.clone(),
        last: usize::try_from(a.last).ok(),
        without_cases: a.axis.is_some() && a.case.is_none(),
        without_rules: a.axis.is_some() || a.case.is_some(),
    };
    let entries = history.entries(&filter).map_err(err)?;
    let time = |e: Option<&Entry>| {
        e.map(|e| veer_trace::timefmt::format_epoch_ms(e.provenance.recorded_at_ms))
    };
    // The drift detector of `veer history drift`, over the comparisons shown.
    let drift = veer_history::drift::drift(&entries, &DriftSettings::default());
    let by_name =
        |list: &[veer_contract::history::SeriesDrift]| -> std::collections::BTreeMap<String, usize> {
            list.iter()
                .enumerate()
                .map(|(i, s)| (s.name.clone(), i))
                .collect()
        };
    let (axis_at, case_at) = (by_name(&drift.axes), by_name(&drift.cases));
    let mark =
        |list: &[veer_contract::history::SeriesDrift],
         at: &std::collections::BTreeMap<String, usize>,
         name: &str| { DriftMark::of(at.get(name).and_then(|&i| list.get(i))) };
    let cases = case_trends(&entries)
        .into_iter()
        .map(|trend| ShowCase {
            drift: mark(&drift.cases, &case_at, &trend.case),
            levels: verdict_levels(&trend.verdicts),
            trend,
        })
        .collect();
    let axes = axis_trends(&entries)
        .into_iter()
        .map(|trend| ShowAxis {
            drift: mark(&drift.axes, &axis_at, &trend.axis),
            worst: worst_level(&trend.levels),
            trend,
        })
        .collect();
    let doc = HistoryShow {
        schema_version: 1,
        comparisons: entries.len(),
        first: time(entries.first()),
        last: time(entries.last()),
        gate_tripped: entries.iter().filter(|e| e.summary.gate.tripped).count(),
        gate_worst: entries
            .iter()
            .map(|e| e.summary.gate.worst.clone())
            .collect(),
        axes,
        rules: if a.axis.is_some() || a.case.is_some() {
            Vec::new()
        } else {
            rule_trends(&entries)
        },
        cases,
    };
    let page = ShowPage {
        doc,
        database: a.db.db.display().to_string(),
        width: usize::try_from(a.width).unwrap_or(40),
        unicode: a.format == StandingFormat::Terminal
            && a.out.output.is_none()
            && std::io::stdout().is_terminal(),
        warmup: DriftSettings::default().warmup,
    };
    let text = a.format.print(&page, Style { colour: false });
    emit(&text, a.out.output.as_deref())?;
    Ok(Exit::done())
}

/// Each verdict as a level word (`none` … `severe`).
fn verdict_levels(verdicts: &[String]) -> Vec<String> {
    verdicts
        .iter()
        .map(|v| verdict_level(v).to_string())
        .collect()
}

/// The most severe of `levels` (`none` when there are none).
fn worst_level(levels: &[String]) -> String {
    levels
        .iter()
        .max_by_key(|l| level_rank(l))
        .cloned()
        .unwrap_or_else(|| "none".into())
}

fn report(a: &HistoryReportArgs) -> Result<Exit, CliError> {
    let since = since_ms(a.since.as_deref())?;
    let history = History::open(&a.db.db, false).map_err(err)?;
    let filter = Filter {
        since_ms: since,
        branch: a.branch.clone(),
        last: usize::try_from(a.last).ok(),
        ..Filter::default()
    };
    let entries = history.entries(&filter).map_err(err)?;
    let time = |e: Option<&Entry>| {
        e.map(|e| veer_trace::timefmt::format_epoch_ms(e.provenance.recorded_at_ms))
            .unwrap_or_default()
    };
    let span = format!(
        "{} comparisons from {} to {}; gate tripped in {}",
        entries.len(),
        time(entries.first()),
        time(entries.last()),
        entries.iter().filter(|e| e.summary.gate.tripped).count()
    );
    let doc = HistoryReport {
        title: format!("veer history: {}", a.db.db.display()),
        span,
        axes: axis_trends(&entries),
        cases: case_trends(&entries)
            .into_iter()
            .map(|trend| ReportCase {
                levels: verdict_levels(&trend.verdicts),
                trend,
            })
            .collect(),
        drift: veer_history::drift::drift(&entries, &DriftSettings::default()),
    };
    let html = a.format.print(&doc, Style { colour: false });
    emit(&html, a.out.output.as_deref())?;
    Ok(Exit::done())
}

/// One line of `history export --format jsonl`.
#[derive(Serialize)]
struct ExportLine<'a> {
    id: i64,
    recorded_at: String,
    commit: Option<&'a str>,
    branch: Option<&'a str>,
    ci_run: Option<&'a str>,
    veer_version: &'a str,
    #[serde(flatten)]
    summary: &'a ComparisonSummary,
}

fn export(a: &HistoryExportArgs) -> Result<Exit, CliError> {
    let since = since_ms(a.since.as_deref())?;
    let history = History::open(&a.db.db, false).map_err(err)?;
    let filter = Filter {
        since_ms: since,
        branch: a.branch.clone(),
        ..Filter::default()
    };
    let entries = history.entries(&filter).map_err(err)?;
    if a.format == ExportFormat::Parquet {
        if a.out.output.is_none() && std::io::stdout().is_terminal() {
            return Err(
                CliError::input("a Parquet file is binary: not written to a terminal")
                    .hint("give -o FILE, e.g. -o history.parquet (or pipe stdout)"),
            );
        }
        let bytes = veer_history::parquet_export::to_parquet(&entries).map_err(|e| {
            CliError::input(format!("cannot build the Parquet file: {e}"))
                .hint("this is a bug in veer; --format jsonl exports the same data")
        })?;
        crate::output::emit_data(&bytes, a.out.output.as_deref())?;
        return Ok(Exit::done());
    }
    let mut text = String::new();
    match a.format {
        ExportFormat::Jsonl => {
            for e in &entries {
                let line = ExportLine {
                    id: e.id,
                    recorded_at: veer_trace::timefmt::format_epoch_ms(e.provenance.recorded_at_ms),
                    commit: e.provenance.commit.as_deref(),
                    branch: e.provenance.branch.as_deref(),
                    ci_run: e.provenance.ci_run.as_deref(),
                    veer_version: &e.provenance.veer_version,
                    summary: &e.summary,
                };
                text.push_str(&serde_json::to_string(&line).unwrap_or_default());
                text.push('\n');
            }
        }
        ExportFormat::Parquet => {}
    }
    emit(&text, a.out.output.as_deref())?;
    Ok(Exit::done())
}
