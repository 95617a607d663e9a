//! `veer history show`: the trends of the stored comparisons as a terminal table with
//! sparklines (per axis, per policy rule, per case, each with its drift mark), or the document
//! as JSON.

use super::spark::{count_sparkline, level_sparkline, sparkline};
use super::{head, pretty_json, StandingFormat};
use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use std::fmt::Write as _;
use veer_contract::history::{DriftDirection, DriftMark, DriftStatus, HistoryShow, ShowCase};

/// Cases listed before "… and N more" (flippiest first).
const SHOWN_CASES: usize = 50;

/// `veer history show`'s document with what its terminal table needs besides it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShowPage {
    /// The document (`--format json` prints it as is).
    pub doc: HistoryShow,
    /// The history database as named on the command line.
    pub database: String,
    /// Sparkline width: the last this many comparisons are drawn.
    pub width: usize,
    /// Draw sparklines in Unicode blocks (a terminal) rather than ASCII.
    pub unicode: bool,
    /// The drift detector's warm-up (comparisons), named in the footnote on `?` marks.
    pub warmup: usize,
}

impl OutputFormat<ShowPage> for StandingFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<ShowPage>> {
        match self {
            StandingFormat::Json => Box::new(|p: &ShowPage| pretty_json(&p.doc)),
            StandingFormat::Terminal => Box::new(terminal),
        }
    }
}

/// A drift mark's cell: `↑ since 2026-11-20 3f2a1b9c` while drifting, `was ↑ 2026-11-20 …`
/// after a drift that ended, `-` in control, `?` inconclusive.
pub fn drift_cell(m: &DriftMark) -> String {
    let arrow = match m.direction {
        Some(DriftDirection::Up) => "↑",
        Some(DriftDirection::Down) => "↓",
        None => "",
    };
    let at = m.since.as_ref().map_or(String::new(), |at| {
        let day = veer_trace::timefmt::format_epoch_ms(at.recorded_at_ms);
        let commit = at
            .commit
            .as_deref()
            .map(|c| format!(" {}", head(c, 10)))
            .unwrap_or_default();
        format!("{}{commit}", head(&day, 10))
    });
    match m.status {
        DriftStatus::Drift => format!("{arrow} since {at}"),
        DriftStatus::PastDrift => format!("was {arrow} {at}"),
        DriftStatus::InControl => "-".into(),
        DriftStatus::Inconclusive => "?".into(),
    }
}

/// The terminal table.
pub fn terminal(page: &ShowPage) -> String {
    let (doc, width, unicode) = (&page.doc, page.width, page.unicode);
    let mut t = String::new();
    if doc.comparisons == 0 {
        let _ = writeln!(t, "{}: no comparisons match", page.database);
        return t;
    }
    let _ = writeln!(
        t,
        "{}: {} comparison{}, {} to {}",
        page.database,
        doc.comparisons,
        if doc.comparisons == 1 { "" } else { "s" },
        doc.first.as_deref().unwrap_or(""),
        doc.last.as_deref().unwrap_or("")
    );
    let _ = writeln!(
        t,
        "gate tripped in {} of {}; worst signal {}",
        doc.gate_tripped,
        doc.comparisons,
        level_sparkline(&doc.gate_worst, width, unicode)
    );
    // The drift column is as wide as its widest cell.
    let dw = doc
        .axes
        .iter()
        .map(|r| &r.drift)
        .chain(doc.cases.iter().map(|r| &r.drift))
        .map(|m| drift_cell(m).chars().count())
        .max()
        .unwrap_or(0)
        .max("drift".len());
    if !doc.axes.is_empty() {
        let _ = writeln!(t);
        let _ = writeln!(
            t,
            "{:<12} {:>6}  {:<9} {:<9} {:>12}  {:<dw$}  trend of Δ (oldest → newest)",
            "axis", "n", "latest", "worst", "latest Δ", "drift"
        );
        for row in &doc.axes {
            let a = &row.trend;
            let delta = match a.deltas.last().copied().flatten() {
                Some(d) => format!("{d:+.4}"),
                None => "-".into(),
            };
            let _ = writeln!(
                t,
                "{:<12} {:>6}  {:<9} {:<9} {:>12}  {:<dw$}  {}",
                a.axis,
                a.levels.len(),
                a.levels.last().map_or("-", String::as_str),
                row.worst,
                delta,
                drift_cell(&row.drift),
                sparkline(&a.deltas, width, unicode)
            );
        }
    }
    if !doc.rules.is_empty() {
        let _ = writeln!(t);
        let _ = writeln!(
            t,
            "{:<32} {:>12}  regressions per comparison",
            "rule", "regressed in"
        );
        for r in &doc.rules {
            let _ = writeln!(
                t,
                "{:<32} {:>12}  {}",
                r.rule,
                r.comparisons_with_regressions,
                count_sparkline(&r.regressions, width, unicode)
            );
        }
    }
    if !doc.cases.is_empty() {
        let mut cases: Vec<&ShowCase> = doc.cases.iter().collect();
        cases.sort_by(|a, b| {
            (b.trend.flips.cmp(&a.trend.flips)).then_with(|| a.trend.case.cmp(&b.trend.case))
        });
        let _ = writeln!(t);
        let _ = writeln!(
            t,
            "{:<40} {:>6}  {:<12} {:>5}  {:<dw$}  verdicts (oldest → newest)",
            "case", "n", "latest", "flips", "drift"
        );
        for row in cases.iter().take(SHOWN_CASES) {
            let c = &row.trend;
            let _ = writeln!(
                t,
                "{:<40} {:>6}  {:<12} {:>5}  {:<dw$}  {}",
                c.case,
                c.verdicts.len(),
                c.verdicts.last().map_or("-", String::as_str),
                c.flips,
                drift_cell(&row.drift),
                level_sparkline(&row.levels, width, unicode)
            );
        }
        if cases.len() > SHOWN_CASES {
            let _ = writeln!(
                t,
                "… and {} more cases (--case NAME shows one; --format json lists all)",
                cases.len() - SHOWN_CASES
            );
        }
    }
    let marks = doc.axes.iter().map(|r| &r.drift);
    if marks
        .chain(doc.cases.iter().map(|r| &r.drift))
        .any(DriftMark::inconclusive)
    {
        let _ = writeln!(
            t,
            "\ndrift: CUSUM over the comparisons shown (docs/history.md); ? = inconclusive (fewer than {} comparisons, or no spread in them; `veer history drift` says which)",
            page.warmup
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::history::{AxisTrend, CaseTrend, RuleTrend, ShowAxis, SignalAt};

    fn page(doc: HistoryShow) -> ShowPage {
        ShowPage {
            doc,
            database: "h.sqlite".into(),
            width: 40,
            unicode: false,
            warmup: 30,
        }
    }

    fn empty() -> HistoryShow {
        HistoryShow {
            schema_version: 1,
            comparisons: 0,
            first: None,
            last: None,
            gate_tripped: 0,
            gate_worst: Vec::new(),
            axes: Vec::new(),
            rules: Vec::new(),
            cases: Vec::new(),
        }
    }

    #[test]
    fn no_comparisons_is_one_line() {
        let text = StandingFormat::Terminal.print(&page(empty()), Style { colour: false });
        assert_eq!(text, "h.sqlite: no comparisons match\n");
    }

    #[test]
    fn the_table_draws_each_series_and_the_json_skips_the_terminal_fields() {
        let inconclusive = DriftMark {
            status: DriftStatus::Inconclusive,
            direction: None,
            since: None,
        };
        let doc = HistoryShow {
            comparisons: 2,
            first: Some("2026-11-01T00:00:00.000Z".into()),
            last: Some("2026-11-02T00:00:00.000Z".into()),
            gate_tripped: 1,
            gate_worst: vec!["none".into(), "severe".into()],
            axes: vec![ShowAxis {
                trend: AxisTrend {
                    axis: "cost".into(),
                    levels: vec!["none".into(), "moderate".into()],
                    deltas: vec![Some(0.0), Some(0.5)],
                },
                drift: DriftMark {
                    status: DriftStatus::Drift,
                    direction: Some(DriftDirection::Up),
                    since: Some(SignalAt {
                        id: 2,
                        recorded_at_ms: 0,
                        commit: Some("0123456789abcdef".into()),
                    }),
                },
                worst: "moderate".into(),
            }],
            rules: vec![RuleTrend {
                rule: "no-refunds".into(),
                regressions: vec![0, 2],
                comparisons_with_regressions: 1,
            }],
            cases: vec![ShowCase {
                trend: CaseTrend {
                    case: "refund".into(),
                    verdicts: vec!["pass".into(), "regressed".into()],
                    flips: 1,
                },
                drift: inconclusive,
                levels: vec!["none".into(), "severe".into()],
            }],
            ..empty()
        };
        let text = StandingFormat::Terminal.print(&page(doc.clone()), Style { colour: false });
        assert!(text.starts_with("h.sqlite: 2 comparisons, 2026-11-01T00:00:00.000Z to 2026-11-02T00:00:00.000Z\ngate tripped in 1 of 2; worst signal _#\n"), "{text}");
        assert!(text.contains("↑ since 1970-01-01 0123456789"), "{text}");
        assert!(text.contains("moderate "), "{text}");
        assert!(text.contains("no-refunds"), "{text}");
        assert!(text.contains("fewer than 30 comparisons"), "{text}");
        let json = StandingFormat::Json.print(&page(doc), Style { colour: false });
        assert!(!json.contains("\"worst\""), "{json}");
        assert!(
            !json.contains("\"levels\": [\n        \"none\",\n        \"severe\""),
            "{json}"
        );
        assert!(json.ends_with("}\n"));
    }
}
