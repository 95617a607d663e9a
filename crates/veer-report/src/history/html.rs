//! `veer history report --format html`: the trends of `veer history show` as one
//! self-contained HTML page — inline CSS and SVG, no script, nothing fetched — that opens from
//! disk, with each axis' and case's CUSUM drift status. Written with maud, as the other pages.

use super::spark::level_rank;
use super::ReportFormat;
use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use veer_contract::history::{DriftDirection, DriftStatus, HistoryReport, SeriesDrift};

/// Width and height of one chart, in SVG user units (pixels at 100 %).
const CHART_W: f64 = 480.0;
const CHART_H: f64 = 60.0;
/// Width of one level strip, in SVG user units.
const STRIP_W: f64 = 240.0;

/// The page's style sheet.
const CSS: &str =
    "body{font:14px system-ui,sans-serif;margin:2em;color:#111}table{border-collapse:collapse}\
td,th{padding:4px 10px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:middle}\
.n{text-align:right}";

impl OutputFormat<HistoryReport> for ReportFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<HistoryReport>> {
        match self {
            ReportFormat::Html => Box::new(page),
        }
    }
}

/// An SVG line chart of `values` (missing values break the line), scaled to their range.
fn line_chart(values: &[Option<f64>], label: &str) -> Markup {
    let finite: Vec<f64> = values
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let n = values.len().max(2) - 1;
    let x = |i: usize| 4.0 + (CHART_W - 8.0) * i as f64 / n as f64;
    let y = |v: f64| {
        if hi > lo {
            CHART_H - 4.0 - (CHART_H - 8.0) * (v - lo) / (hi - lo)
        } else {
            CHART_H / 2.0
        }
    };
    // Runs of consecutive finite values, each one polyline.
    let mut runs: Vec<Vec<String>> = vec![Vec::new()];
    for (i, v) in values.iter().enumerate() {
        match v {
            Some(v) if v.is_finite() => {
                if let Some(run) = runs.last_mut() {
                    run.push(format!("{:.1},{:.1}", x(i), y(*v)));
                }
            }
            _ => runs.push(Vec::new()),
        }
    }
    html! {
        svg viewBox={ "0 0 " (CHART_W) " " (CHART_H) } width=(CHART_W) height=(CHART_H) role="img" aria-label=(label) {
            @for run in runs.iter().filter(|r| !r.is_empty()) {
                polyline fill="none" stroke="#2563eb" stroke-width="1.5" points=(run.join(" ")) {}
            }
            @if finite.is_empty() {
                text x="8" y="34" font-size="12" { "no deltas" }
            }
        }
    }
}

/// An SVG strip of coloured cells, one per level word (none … severe).
fn level_strip(levels: &[String], label: &str) -> Markup {
    const COLOURS: [&str; 4] = ["#d1fae5", "#fde68a", "#fb923c", "#dc2626"];
    let n = levels.len().max(1) as f64;
    let w = STRIP_W / n;
    html! {
        svg viewBox={ "0 0 " (STRIP_W) " 16" } width=(STRIP_W) height="16" role="img" aria-label=(label) {
            @for (i, l) in levels.iter().enumerate() {
                rect x=(format!("{:.2}", i as f64 * w)) y="0" width=(format!("{w:.2}")) height="16" fill=(COLOURS[usize::from(level_rank(l))]) {
                    title { (l) }
                }
            }
        }
    }
}

/// The drift cell of a series: its CUSUM status (docs/history.md, Drift), with where it first
/// signalled.
fn drift_cell(list: &[SeriesDrift], name: &str) -> String {
    let Some(s) = list.iter().find(|s| s.name == name) else {
        return "-".into();
    };
    let d = &s.detection;
    let arrow = match d.direction {
        Some(DriftDirection::Up) => " ↑",
        Some(DriftDirection::Down) => " ↓",
        None => "",
    };
    let word = match d.status {
        DriftStatus::InControl => return "in control".into(),
        DriftStatus::Inconclusive => return "inconclusive".into(),
        DriftStatus::Drift => "drift",
        DriftStatus::PastDrift => "past drift",
    };
    match &s.signal_at {
        Some(at) => format!("{word}{arrow} from #{}", at.id),
        None => format!("{word}{arrow}"),
    }
}

/// The whole page, ending with a newline.
pub fn page(r: &HistoryReport) -> String {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { (r.title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                h1 { (r.title) }
                p { (r.span) }
                h2 { "Axes" }
                table {
                    tr { th { "axis" } th class="n" { "n" } th { "latest" } th { "delta, oldest → newest" } th { "level" } th { "drift" } }
                    @for a in &r.axes {
                        tr {
                            td { (a.axis) }
                            td class="n" { (a.levels.len()) }
                            td { (a.levels.last().map_or("-", String::as_str)) }
                            td { (line_chart(&a.deltas, &format!("{} delta", a.axis))) }
                            td { (level_strip(&a.levels, &format!("{} level", a.axis))) }
                            td { (drift_cell(&r.drift.axes, &a.axis)) }
                        }
                    }
                }
                @if !r.cases.is_empty() {
                    h2 { "Cases" }
                    table {
                        tr { th { "case" } th class="n" { "n" } th { "latest" } th class="n" { "flips" } th { "verdicts, oldest → newest" } th { "drift" } }
                        @for c in &r.cases {
                            tr {
                                td { (c.trend.case) }
                                td class="n" { (c.trend.verdicts.len()) }
                                td { (c.trend.verdicts.last().map_or("-", String::as_str)) }
                                td class="n" { (c.trend.flips) }
                                td { (level_strip(&c.levels, &format!("{} verdicts", c.trend.case))) }
                                td { (drift_cell(&r.drift.cases, &c.trend.case)) }
                            }
                        }
                    }
                }
            }
        }
    };
    let mut out = markup.into_string();
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::history::{AxisTrend, CaseTrend, Detection, DriftReport, ReportCase};

    fn report() -> HistoryReport {
        HistoryReport {
            title: "veer history: h.sqlite".into(),
            span: "2 comparisons".into(),
            axes: vec![AxisTrend {
                axis: "cost".into(),
                levels: vec!["none".into(), "severe".into()],
                deltas: vec![Some(0.0), None, Some(1.0)],
            }],
            cases: vec![ReportCase {
                trend: CaseTrend {
                    case: "cancel <b>&".into(),
                    verdicts: vec!["pass".into(), "regressed".into()],
                    flips: 1,
                },
                levels: vec!["none".into(), "severe".into()],
            }],
            drift: DriftReport {
                axes: vec![SeriesDrift {
                    name: "cost".into(),
                    detection: Detection {
                        status: DriftStatus::InControl,
                        direction: None,
                        n: 2,
                        center: None,
                        sigma: None,
                        first_signal: None,
                        statistic: 0.0,
                        limit: 5.0,
                        reason: None,
                    },
                    signal_at: None,
                }],
                cases: Vec::new(),
            },
        }
    }

    #[test]
    fn the_page_is_self_contained_and_escapes_names() {
        let h = ReportFormat::Html.print(&report(), Style { colour: false });
        assert!(
            h.starts_with("<!DOCTYPE html>") && h.ends_with("</html>\n"),
            "{h}"
        );
        assert_eq!(h.matches("<svg").count(), 3, "{h}");
        // a missing delta breaks the line: two runs of one point each
        assert_eq!(h.matches("<polyline").count(), 2, "{h}");
        assert!(h.contains("aria-label=\"cost delta\""), "{h}");
        assert!(h.contains("cancel &lt;b&gt;&amp;"), "{h}");
        assert!(!h.contains("<b>"), "{h}");
        assert!(h.contains("<td>in control</td>"), "{h}");
        assert!(h.contains("<td>-</td>"), "{h}");
        assert!(h.contains("<title>severe</title>"), "{h}");
        assert!(!h.contains("http") && !h.contains("<script"), "{h}");
    }

    #[test]
    fn no_finite_delta_says_so() {
        let svg = line_chart(&[None, Some(f64::NAN)], "x").into_string();
        assert!(
            svg.contains("no deltas") && !svg.contains("polyline"),
            "{svg}"
        );
    }
}
