//! `veer history drift` and `veer history flaky`: the detectors of `veer_history::drift` and
//! `veer_history::flaky` over the stored comparisons, printed as text, Markdown or JSON, and
//! the quarantine entries proposed for flaky cases (appended to the quarantine file only with
//! `--write`). The statistics live in `veer_history`; the quarantine file in
//! `veer_engine::quarantine`; this file reads, maps errors and prints.

use super::history::{err, since_ms};
use crate::cli::{DriftFormat, HistoryDriftArgs, HistoryFlakyArgs, StandingFormat};
use crate::error::{CliError, EXIT_OK};
use crate::output::emit;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use veer_engine::quarantine::{self, Quarantine, QuarantineEntry};
use veer_history::drift::{self, DriftReport, DriftSettings, DriftStatus, SeriesDrift, SignalAt};
use veer_history::flaky::{flaky_cases, FlakyCase};
use veer_history::{Filter, History};

/// Exit code when a series is drifting at its latest comparison.
const EXIT_DRIFT: u8 = 1;

/// What `history drift --format json` prints.
#[derive(Serialize)]
struct DriftDoc<'a> {
    schema_version: u32,
    branch: &'a str,
    comparisons: usize,
    method: Method,
    drifting: bool,
    axes: Vec<SeriesDrift>,
    cases: Vec<SeriesDrift>,
}

/// The detector's settings, as printed.
#[derive(Serialize)]
struct Method {
    warmup: usize,
    axis: String,
    case: String,
}

fn method(s: &DriftSettings) -> Method {
    Method {
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
pub fn drift(a: &HistoryDriftArgs) -> Result<u8, CliError> {
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
    let doc = DriftDoc {
        schema_version: 1,
        branch: &a.branch,
        comparisons: entries.len(),
        method: method(&settings),
        drifting: report.drifting(),
        axes: report.axes.clone(),
        cases: report.cases.clone(),
    };
    let text = match a.format {
        DriftFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ),
        DriftFormat::Text => render_text(&doc, &report, &a.db.db),
        DriftFormat::Markdown => render_markdown(&doc, &report),
    };
    emit(&text, a.out.output.as_deref())?;
    Ok(if doc.drifting { EXIT_DRIFT } else { EXIT_OK })
}

/// One series' drift as `veer history show` prints it (its `drift` column and JSON field): the
/// detector's status over the comparisons shown, its direction, and the comparison where it
/// first signalled.
#[derive(Serialize)]
pub(crate) struct DriftMark {
    status: DriftStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    direction: Option<drift::DriftDirection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    since: Option<SignalAt>,
}

impl DriftMark {
    /// The mark of `series` (None: a series the detector had no value of, inconclusive).
    pub(crate) fn of(series: Option<&SeriesDrift>) -> DriftMark {
        match series {
            Some(s) => DriftMark {
                status: s.detection.status,
                direction: match s.detection.status {
                    DriftStatus::Drift | DriftStatus::PastDrift => s.detection.direction,
                    _ => None,
                },
                since: s.signal_at.clone(),
            },
            None => DriftMark {
                status: DriftStatus::Inconclusive,
                direction: None,
                since: None,
            },
        }
    }

    /// Whether the detector could not judge the series.
    pub(crate) fn inconclusive(&self) -> bool {
        self.status == DriftStatus::Inconclusive
    }

    /// The column's cell: `↑ since 2026-11-20 3f2a1b9c` while drifting, `was ↑ 2026-11-20 …`
    /// after a drift that ended, `-` in control, `?` inconclusive.
    pub(crate) fn cell(&self) -> String {
        let arrow = match self.direction {
            Some(drift::DriftDirection::Up) => "↑",
            Some(drift::DriftDirection::Down) => "↓",
            None => "",
        };
        let at = self.since.as_ref().map_or(String::new(), |at| {
            let day = veer_trace::timefmt::format_epoch_ms(at.recorded_at_ms);
            let commit = at
                .commit
                .as_deref()
                .map(|c| format!(" {}", &c[..c.len().min(10)]))
                .unwrap_or_default();
            format!("{}{commit}", &day[..day.len().min(10)])
        });
        match self.status {
            DriftStatus::Drift => format!("{arrow} since {at}"),
            DriftStatus::PastDrift => format!("was {arrow} {at}"),
            DriftStatus::InControl => "-".into(),
            DriftStatus::Inconclusive => "?".into(),
        }
    }
}

fn status_word(s: &SeriesDrift) -> String {
    let d = &s.detection;
    let word = match d.status {
        DriftStatus::InControl => "in control",
        DriftStatus::Drift => "DRIFT",
        DriftStatus::PastDrift => "past drift",
        DriftStatus::Inconclusive => "inconclusive",
    };
    match d.direction {
        Some(drift::DriftDirection::Up) if d.status != DriftStatus::InControl => {
            format!("{word} ↑")
        }
        Some(drift::DriftDirection::Down) if d.status != DriftStatus::InControl => {
            format!("{word} ↓")
        }
        _ => word.to_string(),
    }
}

fn signal_word(s: &SeriesDrift) -> String {
    match &s.signal_at {
        Some(at) => {
            let day = veer_trace::timefmt::format_epoch_ms(at.recorded_at_ms);
            let commit = at
                .commit
                .as_deref()
                .map(|c| format!(" {}", &c[..c.len().min(10)]))
                .unwrap_or_default();
            format!("#{} {}{commit}", at.id, &day[..day.len().min(10)])
        }
        None => match &s.detection.reason {
            Some(r) => r.clone(),
            None => "-".into(),
        },
    }
}

fn num(v: Option<f64>, plus: bool) -> String {
    match v {
        Some(x) if plus => format!("{x:+.4}"),
        Some(x) => format!("{x:.4}"),
        None => "-".into(),
    }
}

fn headline(doc: &DriftDoc<'_>, report: &DriftReport) -> String {
    let drifting: Vec<String> = report
        .axes
        .iter()
        .map(|s| (s, "axis"))
        .chain(report.cases.iter().map(|s| (s, "case")))
        .filter(|(s, _)| s.detection.status == DriftStatus::Drift)
        .map(|(s, kind)| format!("{kind} {} ({})", s.name, status_word(s)))
        .collect();
    if drifting.is_empty() {
        format!(
            "no drift on branch {} over {} comparisons",
            doc.branch, doc.comparisons
        )
    } else {
        format!("drift on branch {}: {}", doc.branch, drifting.join(", "))
    }
}

fn render_text(doc: &DriftDoc<'_>, report: &DriftReport, db: &Path) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: branch {}, {} comparisons; CUSUM limits from the first {} of each series (docs/history.md)",
        db.display(),
        doc.branch,
        doc.comparisons,
        doc.method.warmup
    );
    if !report.axes.is_empty() {
        let _ = writeln!(t);
        let _ = writeln!(
            t,
            "{:<12} {:>5}  {:<14} {:>10} {:>10} {:>9} {:>6}  first signal",
            "axis", "n", "status", "center", "sigma", "CUSUM", "limit"
        );
        for s in &report.axes {
            let d = &s.detection;
            let _ = writeln!(
                t,
                "{:<12} {:>5}  {:<14} {:>10} {:>10} {:>9.2} {:>6.2}  {}",
                s.name,
                d.n,
                status_word(s),
                num(d.center, true),
                num(d.sigma, false),
                d.statistic,
                d.limit,
                signal_word(s)
            );
        }
    }
    if !report.cases.is_empty() {
        let _ = writeln!(t);
        let _ = writeln!(
            t,
            "{:<32} {:>5}  {:<14} {:>8} {:>9} {:>6}  first signal",
            "case", "n", "status", "p0", "CUSUM", "limit"
        );
        for s in &report.cases {
            let d = &s.detection;
            let _ = writeln!(
                t,
                "{:<32} {:>5}  {:<14} {:>8} {:>9.2} {:>6.2}  {}",
                s.name,
                d.n,
                status_word(s),
                num(d.center, false),
                d.statistic,
                d.limit,
                signal_word(s)
            );
        }
    }
    let _ = writeln!(t);
    let _ = writeln!(t, "{}", headline(doc, report));
    t
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn render_markdown(doc: &DriftDoc<'_>, report: &DriftReport) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "## veer history drift\n");
    let _ = writeln!(t, "**{}**\n", md_cell(&headline(doc, report)));
    let rows = |t: &mut String, kind: &str, list: &[SeriesDrift]| {
        if list.is_empty() {
            return;
        }
        let _ = writeln!(
            t,
            "| {kind} | n | status | center | CUSUM | limit | first signal |"
        );
        let _ = writeln!(t, "|---|---:|---|---:|---:|---:|---|");
        for s in list {
            let d = &s.detection;
            let _ = writeln!(
                t,
                "| {} | {} | {} | {} | {:.2} | {:.2} | {} |",
                md_cell(&s.name),
                d.n,
                status_word(s),
                num(d.center, kind == "axis"),
                d.statistic,
                d.limit,
                md_cell(&signal_word(s))
            );
        }
        let _ = writeln!(t);
    };
    rows(&mut t, "axis", &report.axes);
    rows(&mut t, "case", &report.cases);
    let _ = writeln!(
        t,
        "Branch `{}`, {} comparisons; limits from the first {} of each series (CUSUM, docs/history.md).",
        md_cell(doc.branch),
        doc.comparisons,
        doc.method.warmup
    );
    t
}

/// One flaky case as printed, with whether the quarantine file already holds it.
#[derive(Serialize)]
struct FlakyRow {
    #[serde(flatten)]
    case: FlakyCase,
    quarantined: bool,
}

/// A proposed quarantine entry.
#[derive(Serialize)]
struct Proposed {
    case: String,
    reason: String,
    expires: String,
}

/// What `history flaky --format json` prints.
#[derive(Serialize)]
struct FlakyDoc {
    schema_version: u32,
    comparisons: usize,
    flaky: Vec<FlakyRow>,
    proposed: Vec<Proposed>,
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
pub fn flaky(a: &HistoryFlakyArgs) -> Result<u8, CliError> {
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
    let doc = FlakyDoc {
        schema_version: 1,
        comparisons: entries.len(),
        proposed: if want_proposal {
            proposed
                .iter()
                .map(|e| Proposed {
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
    let text = match a.format {
        StandingFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ),
        StandingFormat::Terminal => render_flaky(&doc, &a.db.db, &proposed, want_proposal),
    };
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
    Ok(EXIT_OK)
}

fn render_flaky(doc: &FlakyDoc, db: &Path, proposed: &[QuarantineEntry], propose: bool) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: {} flaky case{} over {} comparisons (verdicts that flipped between comparisons of one commit on one branch)",
        db.display(),
        doc.flaky.len(),
        if doc.flaky.len() == 1 { "" } else { "s" },
        doc.comparisons
    );
    if !doc.flaky.is_empty() {
        let _ = writeln!(t);
        let _ = writeln!(
            t,
            "{:<32} {:>8} {:>8} {:>5} {:>5}  {:<12} {:<10}  quarantined",
            "case", "flipped", "re-run", "bad", "good", "last flip", "on"
        );
        for r in &doc.flaky {
            let c = &r.case;
            let day = veer_trace::timefmt::format_epoch_ms(c.last_flip_at_ms);
            let _ = writeln!(
                t,
                "{:<32} {:>8} {:>8} {:>5} {:>5}  {:<12} {:<10}  {}",
                c.case,
                c.flipped_commits,
                c.repeated_commits,
                c.bad,
                c.good,
                &c.last_flip_commit[..c.last_flip_commit.len().min(12)],
                &day[..day.len().min(10)],
                if r.quarantined { "yes" } else { "no" }
            );
        }
    }
    if propose {
        let _ = writeln!(t);
        if proposed.is_empty() {
            let _ = writeln!(t, "nothing to propose: every flaky case is quarantined");
        } else {
            let _ = writeln!(t, "proposed quarantine entries (append with --write):");
            let _ = writeln!(t, "quarantine:");
            for e in proposed {
                let _ = writeln!(
                    t,
                    "  - case: {}\n    reason: {}\n    expires: {}",
                    serde_json::to_string(&e.case).unwrap_or_default(),
                    serde_json::to_string(&e.reason).unwrap_or_default(),
                    e.expires
                );
            }
        }
    }
    t
}
