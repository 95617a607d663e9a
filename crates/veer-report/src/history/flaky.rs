//! `veer history flaky`: the flaky cases as a terminal table with, when asked, the quarantine
//! entries proposed for them as YAML to append, or the document as JSON.

use super::{head, pretty_json, StandingFormat};
use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use std::fmt::Write as _;
use veer_contract::history::HistoryFlaky;

/// `veer history flaky`'s document with what its terminal table needs besides it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlakyPage {
    /// The document (`--format json` prints it as is).
    pub doc: HistoryFlaky,
    /// The history database as named on the command line.
    pub database: String,
    /// Whether proposals were asked for (`--propose` or `--write`): the table then ends with
    /// them, or says there is nothing to propose.
    pub propose: bool,
}

impl OutputFormat<FlakyPage> for StandingFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<FlakyPage>> {
        match self {
            StandingFormat::Json => Box::new(|p: &FlakyPage| pretty_json(&p.doc)),
            StandingFormat::Terminal => Box::new(terminal),
        }
    }
}

/// The terminal table.
pub fn terminal(page: &FlakyPage) -> String {
    let doc = &page.doc;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: {} flaky case{} over {} comparisons (verdicts that flipped between comparisons of one commit on one branch)",
        page.database,
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
                head(&c.last_flip_commit, 12),
                head(&day, 10),
                if r.quarantined { "yes" } else { "no" }
            );
        }
    }
    if page.propose {
        let _ = writeln!(t);
        if doc.proposed.is_empty() {
            let _ = writeln!(t, "nothing to propose: every flaky case is quarantined");
        } else {
            let _ = writeln!(t, "proposed quarantine entries (append with --write):");
            let _ = writeln!(t, "quarantine:");
            for e in &doc.proposed {
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

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::history::{FlakyCase, FlakyRow, ProposedQuarantine};

    fn page(propose: bool, proposed: Vec<ProposedQuarantine>) -> FlakyPage {
        FlakyPage {
            doc: HistoryFlaky {
                schema_version: 1,
                comparisons: 6,
                flaky: vec![FlakyRow {
                    case: FlakyCase {
                        case: "refund".into(),
                        repeated_commits: 2,
                        flipped_commits: 1,
                        bad: 1,
                        good: 3,
                        last_flip_commit: "0123456789abcdef".into(),
                        last_flip_at_ms: 0,
                    },
                    quarantined: false,
                }],
                proposed,
            },
            database: "h.sqlite".into(),
            propose,
        }
    }

    #[test]
    fn the_table_lists_the_cases_and_the_proposals_as_yaml() {
        let style = Style { colour: false };
        let t = StandingFormat::Terminal.print(&page(false, Vec::new()), style);
        assert!(
            t.starts_with("h.sqlite: 1 flaky case over 6 comparisons"),
            "{t}"
        );
        assert!(t.contains("0123456789ab 1970-01-01  no"), "{t}");
        assert!(!t.contains("propose"), "{t}");
        let t = StandingFormat::Terminal.print(&page(true, Vec::new()), style);
        assert!(
            t.ends_with("nothing to propose: every flaky case is quarantined\n"),
            "{t}"
        );
        let proposed = vec![ProposedQuarantine {
            case: "refund".into(),
            reason: "it \"flipped\"".into(),
            expires: "2026-12-01".into(),
        }];
        let t = StandingFormat::Terminal.print(&page(true, proposed), style);
        assert!(
            t.ends_with("quarantine:\n  - case: \"refund\"\n    reason: \"it \\\"flipped\\\"\"\n    expires: 2026-12-01\n"),
            "{t}"
        );
    }
}
