//! `veer history drift`: the drift detector's verdict on each axis and case as a terminal
//! table, a Markdown table, or the document as JSON.

use super::{head, pretty_json, DriftFormat};
use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use std::fmt::Write as _;
use veer_contract::history::{DriftDirection, DriftStatus, HistoryDrift, SeriesDrift};

/// `veer history drift`'s document with the database it was read from (the text's first line).
#[derive(Debug, Clone, PartialEq)]
pub struct DriftPage {
    /// The document (`--format json` prints it as is).
    pub doc: HistoryDrift,
    /// The history database as named on the command line.
    pub database: String,
}

impl OutputFormat<DriftPage> for DriftFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<DriftPage>> {
        match self {
            DriftFormat::Json => Box::new(|p: &DriftPage| pretty_json(&p.doc)),
            DriftFormat::Text => Box::new(text),
            DriftFormat::Markdown => Box::new(|p: &DriftPage| markdown(&p.doc)),
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
        Some(DriftDirection::Up) if d.status != DriftStatus::InControl => format!("{word} ↑"),
        Some(DriftDirection::Down) if d.status != DriftStatus::InControl => format!("{word} ↓"),
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
                .map(|c| format!(" {}", head(c, 10)))
                .unwrap_or_default();
            format!("#{} {}{commit}", at.id, head(&day, 10))
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

fn headline(doc: &HistoryDrift) -> String {
    let drifting: Vec<String> = doc
        .axes
        .iter()
        .map(|s| (s, "axis"))
        .chain(doc.cases.iter().map(|s| (s, "case")))
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

/// The terminal table.
pub fn text(page: &DriftPage) -> String {
    let doc = &page.doc;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: branch {}, {} comparisons; CUSUM limits from the first {} of each series (docs/history.md)",
        page.database,
        doc.branch,
        doc.comparisons,
        doc.method.warmup
    );
    if !doc.axes.is_empty() {
        let _ = writeln!(t);
        let _ = writeln!(
            t,
            "{:<12} {:>5}  {:<14} {:>10} {:>10} {:>9} {:>6}  first signal",
            "axis", "n", "status", "center", "sigma", "CUSUM", "limit"
        );
        for s in &doc.axes {
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
    if !doc.cases.is_empty() {
        let _ = writeln!(t);
        let _ = writeln!(
            t,
            "{:<32} {:>5}  {:<14} {:>8} {:>9} {:>6}  first signal",
            "case", "n", "status", "p0", "CUSUM", "limit"
        );
        for s in &doc.cases {
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
    let _ = writeln!(t, "{}", headline(doc));
    t
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The Markdown table (a job summary or a PR comment).
pub fn markdown(doc: &HistoryDrift) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "## veer history drift\n");
    let _ = writeln!(t, "**{}**\n", md_cell(&headline(doc)));
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
    rows(&mut t, "axis", &doc.axes);
    rows(&mut t, "case", &doc.cases);
    let _ = writeln!(
        t,
        "Branch `{}`, {} comparisons; limits from the first {} of each series (CUSUM, docs/history.md).",
        md_cell(&doc.branch),
        doc.comparisons,
        doc.method.warmup
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::history::{Detection, DriftMethod, SignalAt};

    fn doc() -> HistoryDrift {
        HistoryDrift {
            schema_version: 1,
            branch: "main".into(),
            comparisons: 40,
            method: DriftMethod {
                warmup: 30,
                axis: "a".into(),
                case: "c".into(),
            },
            drifting: true,
            axes: vec![SeriesDrift {
                name: "cost".into(),
                detection: Detection {
                    status: DriftStatus::Drift,
                    direction: Some(DriftDirection::Up),
                    n: 40,
                    center: Some(0.1),
                    sigma: Some(0.02),
                    first_signal: Some(35),
                    statistic: 7.5,
                    limit: 5.0,
                    reason: None,
                },
                signal_at: Some(SignalAt {
                    id: 36,
                    recorded_at_ms: 0,
                    commit: Some("abcdef0123456".into()),
                }),
            }],
            cases: vec![SeriesDrift {
                name: "a|b".into(),
                detection: Detection {
                    status: DriftStatus::Inconclusive,
                    direction: None,
                    n: 3,
                    center: None,
                    sigma: None,
                    first_signal: None,
                    statistic: 0.0,
                    limit: 6.0,
                    reason: Some("too few".into()),
                },
                signal_at: None,
            }],
        }
    }

    #[test]
    fn the_text_names_the_drifting_series() {
        let page = DriftPage {
            doc: doc(),
            database: "h.sqlite".into(),
        };
        let t = DriftFormat::Text.print(&page, Style { colour: false });
        assert!(
            t.starts_with("h.sqlite: branch main, 40 comparisons;"),
            "{t}"
        );
        assert!(t.contains("DRIFT ↑"), "{t}");
        assert!(t.contains("#36 1970-01-01 abcdef0123"), "{t}");
        assert!(
            t.ends_with("drift on branch main: axis cost (DRIFT ↑)\n"),
            "{t}"
        );
    }

    #[test]
    fn markdown_escapes_its_cells() {
        let page = DriftPage {
            doc: doc(),
            database: String::new(),
        };
        let t = DriftFormat::Markdown.print(&page, Style { colour: false });
        assert!(
            t.starts_with("## veer history drift\n\n**drift on branch main"),
            "{t}"
        );
        assert!(
            t.contains("| a\\|b | 3 | inconclusive | - | 0.00 | 6.00 | too few |"),
            "{t}"
        );
        let j = DriftFormat::Json.print(&page, Style { colour: false });
        assert!(j.contains("\"drifting\": true"), "{j}");
    }
}
