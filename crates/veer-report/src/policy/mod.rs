//! Printers for policy results: `veer check` (terminal, JSON, Markdown, JUnit), the gate line,
//! and a policy-diff section the diff report can embed. Printers only format; every number
//! and decision comes from `veer-policy`.

pub mod gate;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod suggest;
pub mod terminal;
pub mod validation;

use veer_base::Level;
use veer_contract::policy::Gate;
use veer_contract::policy::Violation;

use veer_contract::check::{CheckReport, CheckedTrace};

/// Where a violation is: `session <s> · turn #<i>`, `turn #<i>`, `session <s> · trace` or
/// `trace`.
pub(crate) fn locus(v: &Violation) -> String {
    let place = match v.pair_index {
        Some(i) => format!("turn #{i}"),
        None => "trace".to_string(),
    };
    match v.session {
        Some(s) => format!("session {s} \u{b7} {place}"),
        None => place,
    }
}

/// One violation on one line: `[severity] rule_id @ where: detail`.
pub(crate) fn violation_line(v: &Violation) -> String {
    format!(
        "[{}] {} @ {}: {}",
        v.severity.name(),
        v.rule_id,
        locus(v),
        v.detail
    )
}

/// `N input(s) could not be read`, for the gate line and the reports' error sections.
pub fn unreadable(errors: usize, what: &str) -> String {
    if errors == 1 {
        format!("1 {what} could not be read or compared")
    } else {
        format!("{errors} {what}s could not be read or compared")
    }
}

/// A check in a few lines, before the gate's line: how many traces were checked and how many
/// violations they hold, then each trace that could not be read with its hint.
pub fn check_summary(r: &CheckReport) -> String {
    let violations: usize = r.traces.iter().map(|t| t.violations.len()).sum();
    let n = r.traces.len();
    let mut out = format!(
        "{n} trace{} checked against {} ({} rule{}): {violations} violation{}.\n",
        if n == 1 { "" } else { "s" },
        r.policy,
        r.rules.len(),
        if r.rules.len() == 1 { "" } else { "s" },
        if violations == 1 { "" } else { "s" },
    );
    for e in &r.errors {
        out.push_str(&format!("error: {}: {}\n", e.trace, e.error));
        if let Some(h) = &e.hint {
            out.push_str(&format!("hint: {h}\n"));
        }
    }
    out
}

/// The gate's one line (stderr): Shadow's `fail: …` line when tripped, else an `ok:` line.
/// Error rows trip a set gate whatever the worst signal; the line says so.
pub fn gate_line(g: &Gate) -> String {
    if g.tripped && g.errors > 0 {
        let signal = if g.worst >= g.fail_on { ">=" } else { "<" };
        format!(
            "fail: {}; worst signal severity {} {signal} --fail-on threshold {} ({}); exiting 1 to gate the merge.",
            unreadable(g.errors, "input"),
            g.worst.rank(),
            g.fail_on.threshold_name(),
            g.fail_on.rank()
        )
    } else if g.errors_without_gate() {
        format!(
            "incomplete: {}; worst signal severity {} ({}) over the rest; gate disabled (--fail-on never), exiting 2.",
            unreadable(g.errors, "input"),
            g.worst.rank(),
            g.worst.name()
        )
    } else if g.tripped {
        format!(
            "fail: worst signal severity {} >= --fail-on threshold {} ({}); exiting 1 to gate the merge.",
            g.worst.rank(),
            g.fail_on.threshold_name(),
            g.fail_on.rank()
        )
    } else if g.fail_on == Level::None {
        format!(
            "ok: worst signal severity {} ({}); gate disabled (--fail-on never).",
            g.worst.rank(),
            g.worst.name()
        )
    } else {
        format!(
            "ok: worst signal severity {} < --fail-on threshold {} ({}).",
            g.worst.rank(),
            g.fail_on.threshold_name(),
            g.fail_on.rank()
        )
    }
}

/// The gate line of a repeated-trials verdict: when it trips, what tripped it, each named
/// (e.g. `fail: cases on one side only: b, c; behaviour in refund: effect +0.333, adjusted p
/// 0.0020; exiting 1 to gate the merge.`), since a trials gate trips on named cases and
/// tests rather than on a severity reaching a threshold; otherwise the [`gate_line`], or with
/// `--fail-on inconclusive` (`inconclusive`) a line that names that threshold rather than the
/// level it stands for.
pub fn trials_gate_line(v: &veer_contract::verdict::Verdict, inconclusive: bool) -> String {
    if !v.tripped && inconclusive && v.unreadable == 0 {
        return "ok: no regression, no missing or failed case and no inconclusive case (--fail-on inconclusive).".to_string();
    }
    if !v.tripped {
        return gate_line(&v.gate());
    }
    let reasons: Vec<&str> = v.trips.iter().map(|t| t.reason.as_str()).collect();
    format!("fail: {}; exiting 1 to gate the merge.", reasons.join("; "))
}

/// The verdict's line for reports: the [`gate_line`], then what tripped the gate (up to five
/// trips, then a count).
pub(crate) fn verdict_line(v: &veer_contract::verdict::Verdict) -> String {
    let line = gate_line(&v.gate());
    let line = match v.tripped_by_line(5) {
        Some(by) => format!("{line} Tripped by: {by}."),
        None => line,
    };
    match v.quarantined_line(5) {
        Some(q) => format!("{line} Quarantined (measured, not gating): {q}."),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trials_gate_lines_name_what_tripped() {
        use veer_contract::verdict::{Cause, Trip, Verdict};
        let trip = Trip {
            trace: None,
            level: Level::Severe,
            cause: Cause::Trials {
                what: veer_contract::trials::TripKind::Inconclusive,
                measure: String::new(),
                cases: vec!["refund".to_string()],
            },
            reason: "inconclusive cases: refund".to_string(),
        };
        let v = Verdict::decide(Level::Minor, vec![trip]);
        assert_eq!(
            trials_gate_line(&v, true),
            "fail: inconclusive cases: refund; exiting 1 to gate the merge."
        );
        let ok = Verdict::decide(Level::Minor, Vec::new());
        assert!(!trials_gate_line(&ok, true).contains("minor"));
        assert_eq!(trials_gate_line(&ok, false), gate_line(&ok.gate()));
    }

    #[test]
    fn gate_lines() {
        let g = Gate::decide(Level::Severe, Level::Severe);
        assert_eq!(
            gate_line(&g),
            "fail: worst signal severity 3 >= --fail-on threshold severe (3); exiting 1 to gate the merge."
        );
        let g = Gate::decide(Level::Severe, Level::Minor);
        assert_eq!(
            gate_line(&g),
            "ok: worst signal severity 1 < --fail-on threshold severe (3)."
        );
        let g = Gate::decide(Level::None, Level::Minor);
        assert!(gate_line(&g).contains("gate disabled"));
        let g = Gate::decide_with_errors(Level::Severe, Level::Minor, 2);
        assert_eq!(
            gate_line(&g),
            "fail: 2 inputs could not be read or compared; worst signal severity 1 < --fail-on threshold severe (3); exiting 1 to gate the merge."
        );
    }
}

/// Formats `veer check` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum CheckFormat {
    /// One line per violation.
    Terminal,
    /// JSON: {schema_version, policy, traces: [{trace, violations}], gate} (`veer schema check`).
    Json,
    /// A Markdown table for a pull-request comment.
    Markdown,
    /// JUnit XML: one test case per rule and trace.
    Junit,
    /// One self-contained HTML page (inline CSS, JS and SVG; opens from disk, readable with
    /// JavaScript off).
    Html,
    /// SARIF 2.1.0: every violation at its trace file and line.
    Sarif,
    /// GitHub Actions workflow commands (::error/::warning); with GITHUB_STEP_SUMMARY set, the
    /// Markdown report is appended to that file.
    Github,
    /// GitLab Code Quality report (a JSON array of issues; docs/ci.md), for
    /// `artifacts:reports:codequality`.
    Gitlab,
}

/// What `veer check` prints: the report and the verdict the engine decided on it.
#[derive(Debug, Clone)]
pub struct CheckPage {
    /// The report.
    pub report: CheckReport,
    /// Its verdict (JUnit failures, SARIF and GitHub levels, the HTML banner read it).
    pub verdict: veer_contract::verdict::Verdict,
}

impl crate::printer::OutputFormat<CheckPage> for CheckFormat {
    fn printer(self, style: crate::style::Style) -> Box<dyn crate::printer::Printer<CheckPage>> {
        use crate::findings::check_findings;
        match self {
            CheckFormat::Terminal => {
                Box::new(move |p: &CheckPage| terminal::check(&p.report, style))
            }
            CheckFormat::Json => Box::new(|p: &CheckPage| json::check(&p.report)),
            CheckFormat::Markdown => Box::new(|p: &CheckPage| markdown::check(&p.report)),
            CheckFormat::Junit => Box::new(|p: &CheckPage| junit::check(&p.report, &p.verdict)),
            CheckFormat::Html => {
                Box::new(|p: &CheckPage| crate::html::check::render(&p.report, &p.verdict))
            }
            CheckFormat::Sarif => Box::new(|p: &CheckPage| {
                crate::sarif::render(&check_findings(&p.report, &p.verdict))
            }),
            CheckFormat::Github => Box::new(|p: &CheckPage| {
                crate::github::render(&check_findings(&p.report, &p.verdict), &p.verdict)
            }),
            CheckFormat::Gitlab => Box::new(|p: &CheckPage| {
                crate::gitlab::render(&check_findings(&p.report, &p.verdict))
            }),
        }
    }
}
