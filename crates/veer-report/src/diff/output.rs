//! The output formats of `veer diff` and the one place each picks its printer: a pair report,
//! a repeated-trials report and a directory diff (streamed pair by pair) each print in every
//! format, so a new format is one variant here and one arm in each `printer`.

use super::junit::DirectorySuites;
use super::markdown::DirectoryComment;
use super::stream::DirectoryPrinter;
use super::terminal::DirectoryTable;
use crate::findings::diff_findings;
use crate::github::DirectoryCommands;
use crate::html::diff::DirectoryPage;
use crate::json::DirectoryJson;
use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use veer_contract::diff::DiffReport;
use veer_contract::trials::TrialsReport;
use veer_contract::verdict::Verdict;

/// Formats `veer diff` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum DiffFormat {
    /// Tables and text for a terminal.
    Terminal,
    /// JSON (`veer schema diff`, `veer schema diff-directory`).
    Json,
    /// A Markdown report for a pull-request comment.
    Markdown,
    /// JUnit XML: one test case per trace pair and axis.
    Junit,
    /// One self-contained HTML page (inline CSS, JS and SVG; opens from disk, readable with
    /// JavaScript off).
    Html,
    /// SARIF 2.1.0: the first divergence (a note), policy findings and severe axes at the
    /// candidate file and line; `error` exactly for what tripped the gate.
    Sarif,
    /// GitHub Actions workflow commands (::error/::warning/::notice); with
    /// GITHUB_STEP_SUMMARY set, the Markdown report is appended to that file.
    Github,
    /// GitLab Code Quality report (a JSON array of issues; docs/ci.md), for
    /// `artifacts:reports:codequality`.
    Gitlab,
}

/// A report and the verdict the engine decided on it: what the pair printers take.
#[derive(Debug, Clone, Copy)]
pub struct Judged<'a, R> {
    /// The report.
    pub report: &'a R,
    /// Its verdict.
    pub verdict: &'a Verdict,
}

impl DiffFormat {
    /// Whether this format's text is JSON (a streamed report is redacted inside its string
    /// literals only).
    pub fn is_json(self) -> bool {
        matches!(
            self,
            DiffFormat::Json | DiffFormat::Sarif | DiffFormat::Gitlab
        )
    }

    /// Whether this format shows the side-by-side view (the engine builds it only then).
    pub fn shows_lanes(self) -> bool {
        self == DiffFormat::Html
    }

    /// The printer of a directory diff in this format, fed pair by pair.
    pub fn directory_printer(self, style: Style) -> Box<dyn DirectoryPrinter> {
        match self {
            DiffFormat::Terminal => Box::new(DirectoryTable::new(style)),
            DiffFormat::Json => Box::new(DirectoryJson::new()),
            DiffFormat::Markdown => Box::new(DirectoryComment::default()),
            DiffFormat::Junit => Box::new(DirectorySuites::default()),
            DiffFormat::Html => Box::new(DirectoryPage::default()),
            DiffFormat::Sarif => Box::new(crate::sarif::directory_log()),
            DiffFormat::Github => Box::new(DirectoryCommands),
            DiffFormat::Gitlab => Box::new(crate::gitlab::directory_report()),
        }
    }
}

impl<'a> OutputFormat<Judged<'a, DiffReport>> for DiffFormat {
    fn printer(self, style: Style) -> Box<dyn Printer<Judged<'a, DiffReport>>> {
        match self {
            DiffFormat::Terminal => Box::new(move |j: &Judged<'a, DiffReport>| {
                super::terminal::render(j.report, j.verdict, style)
            }),
            DiffFormat::Json => {
                Box::new(|j: &Judged<'a, DiffReport>| crate::json::to_json(j.report))
            }
            DiffFormat::Markdown => {
                Box::new(|j: &Judged<'a, DiffReport>| super::markdown::render(j.report, j.verdict))
            }
            DiffFormat::Junit => {
                Box::new(|j: &Judged<'a, DiffReport>| super::junit::render(j.report, j.verdict))
            }
            DiffFormat::Html => Box::new(|j: &Judged<'a, DiffReport>| {
                crate::html::diff::render(j.report, j.verdict)
            }),
            DiffFormat::Sarif => Box::new(|j: &Judged<'a, DiffReport>| {
                crate::sarif::render(&diff_findings(j.report, j.verdict))
            }),
            DiffFormat::Github => Box::new(|j: &Judged<'a, DiffReport>| {
                crate::github::render(&diff_findings(j.report, j.verdict), j.verdict)
            }),
            DiffFormat::Gitlab => Box::new(|j: &Judged<'a, DiffReport>| {
                crate::gitlab::render(&diff_findings(j.report, j.verdict))
            }),
        }
    }
}

impl OutputFormat<TrialsReport> for DiffFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<TrialsReport>> {
        use super::trials;
        match self {
            DiffFormat::Terminal => Box::new(trials::terminal),
            DiffFormat::Json => Box::new(crate::json::trials_to_json),
            DiffFormat::Markdown => Box::new(trials::markdown),
            DiffFormat::Junit => Box::new(trials::junit),
            DiffFormat::Github => Box::new(trials::github),
            DiffFormat::Html => Box::new(trials::html),
            DiffFormat::Sarif => Box::new(trials::sarif),
            DiffFormat::Gitlab => Box::new(crate::gitlab::trials),
        }
    }
}

/// The lines `veer diff` prints on stderr after a trials report when a gate is set: each trip,
/// the quarantined cases that would have counted (at most five named), then the gate line.
pub fn trials_gate_lines(report: &TrialsReport, fail_on_inconclusive: bool) -> Vec<String> {
    use veer_contract::trials::CaseVerdict;
    let mut quarantined = Vec::new();
    for c in report.trials.cases.iter() {
        if c.verdict != CaseVerdict::Failed
            && c.quarantined
            && matches!(
                c.verdict,
                CaseVerdict::Regressed | CaseVerdict::Changed | CaseVerdict::Inconclusive
            )
        {
            quarantined.push(format!("{} {}", c.case, c.verdict));
        }
    }
    let verdict = &report.verdict;
    let mut lines: Vec<String> = verdict
        .trips
        .iter()
        .map(|t| format!("tripped: {}", t.reason))
        .collect();
    if !quarantined.is_empty() {
        let more = quarantined.len().saturating_sub(5);
        quarantined.truncate(5);
        if more > 0 {
            quarantined.push(format!("and {more} more"));
        }
        lines.push(format!(
            "quarantined (measured, not gating): {}",
            quarantined.join(", ")
        ));
    }
    lines.push(crate::policy::trials_gate_line(
        verdict,
        fail_on_inconclusive,
    ));
    lines
}
