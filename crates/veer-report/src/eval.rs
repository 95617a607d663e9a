//! Printers of `veer eval`'s summary (docs/eval.md): how many cases and trials, how many were
//! run, reused from an earlier invocation or failed, the time, and each failed trial with what
//! went wrong. They format [`EvalReport`] and never count anything themselves; secrets are
//! redacted where every report is written (the binary's output layer).

use crate::style::Style;
use std::fmt::Write as _;
use veer_contract::eval::{EvalReport, EvalTrialStatus};

/// Formats of `veer eval`'s summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum EvalFormat {
    /// A few lines: the counts, then every failed trial.
    #[cfg_attr(feature = "cli", value(alias = "text"))]
    Terminal,
    /// The summary as JSON (`veer schema eval`).
    Json,
}

impl crate::printer::OutputFormat<EvalReport> for EvalFormat {
    fn printer(self, style: Style) -> Box<dyn crate::printer::Printer<EvalReport>> {
        match self {
            EvalFormat::Terminal => Box::new(move |r: &EvalReport| terminal(r, style)),
            EvalFormat::Json => Box::new(json),
        }
    }
}

/// The summary as JSON, strings redacted.
pub fn json(report: &EvalReport) -> String {
    crate::json::to_json(report)
}

/// The summary as terminal text.
pub fn terminal(report: &EvalReport, style: Style) -> String {
    let mut out = format!(
        "veer eval: {} case(s) × {} trial(s) in {}: {} run, {} reused (resumed), {} failed — {:.1}s\n",
        report.cases.len(),
        report.trials,
        report.out,
        report.done,
        report.skipped,
        report.failed,
        report.seconds,
    );
    for case in &report.cases {
        for t in &case.trials {
            if t.status == EvalTrialStatus::Failed {
                let label = format!("failed {}/trial-{}", case.case, t.trial);
                let label = if style.colour {
                    format!("\x1b[31m{label}\x1b[0m")
                } else {
                    label
                };
                let _ = writeln!(out, "  {label}: {}", t.problems.join("; "));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::eval::{EvalCaseEntry, EvalTrialEntry};

    #[test]
    fn the_terminal_summary_counts_and_names_failures() {
        let trial = |n: u32, status, problems: Vec<String>| EvalTrialEntry {
            trial: n,
            status,
            trace: format!("a/trial-{n}.agentlog"),
            reused: false,
            problems,
        };
        let r = EvalReport {
            schema_version: "1".into(),
            out: "runs/pr".into(),
            cases_from: "cases.txt".into(),
            trials: 2,
            done: 1,
            skipped: 1,
            failed: 1,
            seconds: 2.5,
            cases: vec![EvalCaseEntry {
                case: "a".into(),
                trials: vec![
                    trial(1, EvalTrialStatus::Ok, vec![]),
                    trial(
                        2,
                        EvalTrialStatus::Failed,
                        vec!["exited with code 3".into()],
                    ),
                ],
            }],
        };
        let text = terminal(&r, Style { colour: false });
        assert!(
            text.starts_with(
                "veer eval: 1 case(s) × 2 trial(s) in runs/pr: 1 run, 1 reused (resumed), 1 failed"
            ),
            "{text}"
        );
        assert!(
            text.contains("  failed a/trial-2: exited with code 3\n"),
            "{text}"
        );
        assert!(json(&r).contains("\"failed\": 1"));
    }
}
