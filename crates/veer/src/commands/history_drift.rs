//! `veer history drift` and `veer history flaky`: the detectors of `veer_history::drift` and
//! `veer_history::flaky` over the stored comparisons, and the quarantine entries proposed for
//! flaky cases (appended to the quarantine file only with `--write`). The statistics live in
//! `veer_history`, the quarantine file in `veer_engine::quarantine`, the printers in
//! `veer_report::history`; this file reads, builds the documents, maps errors and writes.

use super::history::{err, since_ms};
use crate::cli::{HistoryDriftArgs, HistoryFlakyArgs};
use crate::error::{CliError, Exit};
use crate::output::emit;
use veer_contract::history::{
    DriftMethod, FlakyCase, FlakyRow, HistoryDrift, HistoryFlaky, ProposedQuarantine,
};
use veer_engine::quarantine::{self, Quarantine, QuarantineEntry};
use veer_history::drift::{self, DriftSettings};
use veer_history::flaky::flaky_cases;
use veer_history::{Filter, History};
use veer_report::history::drift::DriftPage;
use veer_report::history::flaky::FlakyPage;
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;

fn method(s: &DriftSettings) -> DriftMethod {
    DriftMethod {
        warmup: s.warmup,
        axis: format!(
            "two-sided tabular CUSUM on deltas standardized by the warm-up's screened mean and SD; k = {}, h = {}, |z| clipped at {}",
            s.k, s.h, s.z_clip
        ),
        case: format!(
            "Bernoulli CUSUM on bad verdicts; p0 = (bad + 0.5)/(warm-up + 1), tuned to an odds ratio of {}, h = {}",
            s.case_odds_ratio, s.case_h
        ),
    }
}

/// Runs `veer history drift`.
pub fn drift(a: &HistoryDriftArgs) -> Result<Exit, CliError> {
    let since = since_ms(a.since.as_deref())?;
    let history = History::open(&a.db.db, false).map_err(err)?;
    let filter = Filter {
        since_ms: since,
        branch: Some(a.branch.clone()),
        case: a.case.clone(),
        axis: a.axis.clone(),
        last: usize::try_from(a.last).ok(),
        without_cases: a.axis.is_some() && a.case.is_none(),
        without_rules: true,
    };
    let entries = history.entries(&filter).map_err(err)?;
    let settings = DriftSettings {
        warmup: usize::try_from(a.warmup).unwrap_or(30),
        ..DriftSettings::default()
    };
    let mut report = drift::drift(&entries, &settings);
    if a.case.is_some() && a.axis.is_none() {
        report.axes.clear();
    }
    let drifting = report.drifting();
    let verdict = veer_engine::verdict::drift_verdict(&report);
    let page = DriftPage {
        doc: HistoryDrift {
            schema_version: 1,
            branch: a.branch.clone(),
            comparisons: entries.len(),
            method: method(&settings),
            drifting,
            axes: report.axes,
            cases: report.cases,
        },
        database: a.db.db.display().to_string(),
    };
    let text = a.format.print(&page, Style { colour: false });
    emit(&text, a.out.output.as_deref())?;
    Ok(Exit::Verdict(verdict))
}

fn reason(f: &FlakyCase) -> String {
    let day = veer_trace::timefmt::format_epoch_ms(f.last_flip_at_ms);
    format!(
        "verdict flipped on {} of {} re-run commit{} ({} bad, {} good verdicts); last on {} ({})",
        f.flipped_commits,
        f.repeated_commits,
        if f.repeated_commits == 1 { "" } else { "s" },
        f.bad,
        f.good,
        &f.last_flip_commit[..f.last_flip_commit.len().min(12)],
        &day[..day.len().min(10)]
    )
}

/// Runs `veer history flaky`.
pub fn flaky(a: &HistoryFlakyArgs) -> Result<Exit, CliError> {
    let since = since_ms(a.since.as_deref())?;
    let qpath = a.quarantine.display().to_string();
    let existing = super::quarantine::read_text(&a.quarantine)?;
    let held = match &existing {
        Some(text) => Quarantine::parse(&qpath, text)?,
        None => Quarantine::default(),
    };
    let history = History::open(&a.db.db, false).map_err(err)?;
    let filter = Filter {
        since_ms: since,
        branch: a.branch.clone(),
        last: usize::try_from(a.last).ok(),
        without_rules: true,
        ..Filter::default()
    };
    let entries = history.entries(&filter).map_err(err)?;
    let found = flaky_cases(&entries);
    let expires = super::quarantine::today().plus_days(i64::try_from(a.expires_in).unwrap_or(14));
    let rows: Vec<FlakyRow> = found
        .into_iter()
        .map(|case| FlakyRow {
            quarantined: held.entries.iter().any(|e| e.case == case.case),
            case,
        })
        .collect();
    let proposed: Vec<QuarantineEntry> = rows
        .iter()
        .filter(|r| !r.quarantined)
        .map(|r| QuarantineEntry {
            case: r.case.case.clone(),
            reason: reason(&r.case),
            expires,
            line: 0,
        })
        .collect();
    let want_proposal = a.propose || a.write;
    let doc = HistoryFlaky {
        schema_version: 1,
        comparisons: entries.len(),
        proposed: if want_proposal {
            proposed
                .iter()
                .map(|e| ProposedQuarantine {
                    case: e.case.clone(),
                    reason: e.reason.clone(),
                    expires: e.expires.to_string(),
                })
                .collect()
        } else {
            Vec::new()
        },
        flaky: rows,
    };
    // Prepare the new file first, so a file that cannot be appended to stops before output.
    let new_text = if a.write && !proposed.is_empty() {
        Some(quarantine::append(&qpath, existing.as_deref(), &proposed)?)
    } else {
        None
    };
    let page = FlakyPage {
        doc,
        database: a.db.db.display().to_string(),
        propose: want_proposal,
    };
    let text = a.format.print(&page, Style { colour: false });
    emit(&text, a.out.output.as_deref())?;
    if let Some((text, added)) = new_text {
        if let Some(parent) = a.quarantine.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| {
                CliError::input(format!(
                    "{}: cannot create the directory: {e}",
                    parent.display()
                ))
                .hint("check that the path is writable")
            })?;
        }
        crate::output::write_file(&a.quarantine, text.as_bytes())?;
        crate::output::diag::say(
            "",
            format!(
                "added {} quarantine entr{} to {qpath} (expiring {expires})",
                added.len(),
                if added.len() == 1 { "y" } else { "ies" }
            ),
        );
    } else if a.write {
        crate::output::diag::say("", format!("nothing to add to {qpath}"));
    }
    Ok(Exit::done())
}
