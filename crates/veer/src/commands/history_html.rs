//! `veer history report --format html`: the trends of `veer history show` as one
//! self-contained HTML page — inline CSS and SVG, no script, nothing fetched — that opens from
//! disk, with each axis' and case's CUSUM drift status. A printer only: the series come from
//! `veer_history::trend`, the statuses from `veer_history::drift`.

use std::fmt::Write as _;
use veer_history::drift::{DriftDirection, DriftReport, DriftStatus, SeriesDrift};
use veer_history::trend::{level_rank, AxisTrend, CaseTrend};

/// Width and height of one chart, in SVG user units (pixels at 100 %).
const CHART_W: f64 = 480.0;
const CHART_H: f64 = 60.0;
/// Width of one level strip, in SVG user units.
const STRIP_W: f64 = 240.0;

/// `s` with `&`, `<`, `>`, `"` and `'` escaped for HTML text and attributes.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An SVG line chart of `values` (missing values break the line), scaled to their range.
fn line_chart(values: &[Option<f64>], label: &str) -> String {
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
    let mut svg = format!(
        "<svg viewBox=\"0 0 {CHART_W} {CHART_H}\" width=\"{CHART_W}\" height=\"{CHART_H}\" role=\"img\" aria-label=\"{}\">",
        esc(label)
    );
    let mut run: Vec<String> = Vec::new();
    let flush = |run: &mut Vec<String>, svg: &mut String| {
        if !run.is_empty() {
            let _ = write!(
                svg,
                "<polyline fill=\"none\" stroke=\"#2563eb\" stroke-width=\"1.5\" points=\"{}\"/>",
                run.join(" ")
            );
            run.clear();
        }
    };
    for (i, v) in values.iter().enumerate() {
        match v {
            Some(v) if v.is_finite() => run.push(format!("{:.1},{:.1}", x(i), y(*v))),
            _ => flush(&mut run, &mut svg),
        }
    }
    flush(&mut run, &mut svg);
    if finite.is_empty() {
        svg.push_str("<text x=\"8\" y=\"34\" font-size=\"12\">no deltas</text>");
    }
    svg.push_str("</svg>");
    svg
}

/// An SVG strip of coloured cells, one per level word (none … severe).
fn level_strip(levels: &[String], label: &str) -> String {
    const COLOURS: [&str; 4] = ["#d1fae5", "#fde68a", "#fb923c", "#dc2626"];
    let n = levels.len().max(1) as f64;
    let w = STRIP_W / n;
    let mut svg = format!(
        "<svg viewBox=\"0 0 {STRIP_W} 16\" width=\"{STRIP_W}\" height=\"16\" role=\"img\" aria-label=\"{}\">",
        esc(label)
    );
    for (i, l) in levels.iter().enumerate() {
        let _ = write!(
            svg,
            "<rect x=\"{:.2}\" y=\"0\" width=\"{:.2}\" height=\"16\" fill=\"{}\"><title>{}</title></rect>",
            i as f64 * w,
            w,
            COLOURS[usize::from(level_rank(l))],
            esc(l)
        );
    }
    svg.push_str("</svg>");
    svg
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

/// The whole page. `verdict_level` maps a case verdict to a level word; `drift` is the CUSUM
/// status of each axis and case over the comparisons shown.
pub fn render(
    title: &str,
    span: &str,
    (axes, cases): (&[AxisTrend], &[CaseTrend]),
    drift: &DriftReport,
    verdict_level: impl Fn(&str) -> &'static str,
) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>body{{font:14px system-ui,sans-serif;margin:2em;color:#111}}table{{border-collapse:collapse}}\
         td,th{{padding:4px 10px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:middle}}\
         .n{{text-align:right}}</style></head><body>\n<h1>{}</h1>\n<p>{}</p>\n",
        esc(title),
        esc(title),
        esc(span)
    );
    h.push_str("<h2>Axes</h2>\n<table><tr><th>axis</th><th class=\"n\">n</th><th>latest</th><th>delta, oldest → newest</th><th>level</th><th>drift</th></tr>\n");
    for a in axes {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&a.axis),
            a.levels.len(),
            esc(a.levels.last().map_or("-", String::as_str)),
            line_chart(&a.deltas, &format!("{} delta", a.axis)),
            level_strip(&a.levels, &format!("{} level", a.axis)),
            esc(&drift_cell(&drift.axes, &a.axis))
        );
    }
    h.push_str("</table>\n");
    if !cases.is_empty() {
        h.push_str("<h2>Cases</h2>\n<table><tr><th>case</th><th class=\"n\">n</th><th>latest</th><th class=\"n\">flips</th><th>verdicts, oldest → newest</th><th>drift</th></tr>\n");
        for c in cases {
            let levels: Vec<String> = c
                .verdicts
                .iter()
                .map(|v| verdict_level(v).to_string())
                .collect();
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
                esc(&c.case),
                c.verdicts.len(),
                esc(c.verdicts.last().map_or("-", String::as_str)),
                c.flips,
                level_strip(&levels, &format!("{} verdicts", c.case)),
                esc(&drift_cell(&drift.cases, &c.case))
            );
        }
        h.push_str("</table>\n");
    }
    h.push_str("</body></html>\n");
    h
}
