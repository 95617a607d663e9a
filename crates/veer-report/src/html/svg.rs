//! Inline SVG charts: the axes forest plot, the d_norm × t*/T scatter and horizontal bars.
//! They place values that are already in the report on a canvas; coordinates are printed with
//! one decimal so no long run of digits appears in the page.

use maud::{html, Markup};

/// One row of a forest plot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ForestRow {
    /// Row label (the axis).
    pub label: String,
    /// The point estimate.
    pub delta: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
    /// Severity label (`none`, `minor`, `moderate`, `severe`): the colour.
    pub severity: String,
    /// The text shown right of the plot (formatted delta, interval, n, flags).
    pub note: String,
}

fn colour(severity: &str) -> &'static str {
    match severity {
        "severe" => "#cf222e",
        "moderate" => "#d1570f",
        "minor" => "#bf8700",
        _ => "#8c959f",
    }
}

fn f(v: f64) -> String {
    format!("{:.1}", if v.is_finite() { v } else { 0.0 })
}

/// A forest plot: each row on its own symmetric scale around 0 (axes have different units),
/// a dot at the delta and a bar over the 95% interval.
pub fn forest(rows: &[ForestRow]) -> Markup {
    let (label_w, plot_w, note_w, row_h) = (110.0, 300.0, 420.0, 24.0);
    let width = label_w + plot_w + note_w;
    let height = row_h * rows.len() as f64 + 24.0;
    let zero = label_w + plot_w / 2.0;
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="forest" width=(f(width)) height=(f(height))
            viewBox={ "0 0 " (f(width)) " " (f(height)) } role="img" aria-label="forest plot of the axis changes with 95% intervals" {
            line x1=(f(zero)) y1="4" x2=(f(zero)) y2=(f(height - 16.0)) stroke="#8c959f" stroke-dasharray="3,3" {}
            text x=(f(zero)) y=(f(height - 4.0)) text-anchor="middle" { "0 (no change)" }
            @for (i, r) in rows.iter().enumerate() {
                @let y = row_h * i as f64 + 14.0;
                @let scale = [r.delta.abs(), r.low.abs(), r.high.abs()].into_iter().filter(|v| v.is_finite()).fold(0.0_f64, f64::max);
                @let x = |v: f64| if scale > 0.0 { zero + v / scale * (plot_w / 2.0 - 8.0) } else { zero };
                @let c = colour(&r.severity);
                text x="4" y=(f(y + 4.0)) { (r.label) }
                line x1=(f(x(r.low))) y1=(f(y)) x2=(f(x(r.high))) y2=(f(y)) stroke=(c) stroke-width="3" {}
                circle cx=(f(x(r.delta))) cy=(f(y)) r="5" fill=(c) { title { (r.label) ": " (r.note) } }
                text x=(f(label_w + plot_w + 8.0)) y=(f(y + 4.0)) { (r.note) }
            }
        }
    }
}

/// One point of a scatter plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// x in [0, 1].
    pub x: f64,
    /// y in [0, 1].
    pub y: f64,
    /// Tooltip and label.
    pub label: String,
    /// Whether the point is within the noise floor (drawn hollow).
    pub within_floor: bool,
}

/// A unit-square scatter (x: t*/T, y: d_norm) with an optional horizontal noise-floor line.
pub fn scatter(points: &[Point], floor: Option<f64>, x_label: &str, y_label: &str) -> Markup {
    let (w, h, pad) = (520.0, 320.0, 40.0);
    let px = |v: f64| pad + v.clamp(0.0, 1.0) * (w - 2.0 * pad);
    let py = |v: f64| h - pad - v.clamp(0.0, 1.0) * (h - 2.0 * pad);
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="scatter" width=(f(w)) height=(f(h))
            viewBox={ "0 0 " (f(w)) " " (f(h)) } role="img" aria-label=(format!("{y_label} against {x_label}")) {
            rect x=(f(pad)) y=(f(pad)) width=(f(w - 2.0 * pad)) height=(f(h - 2.0 * pad)) fill="none" stroke="#d0d7de" {}
            text x=(f(w / 2.0)) y=(f(h - 8.0)) text-anchor="middle" { (x_label) " (0 to 1)" }
            text x="12" y=(f(h / 2.0)) transform={ "rotate(-90 12," (f(h / 2.0)) ")" } text-anchor="middle" { (y_label) " (0 to 1)" }
            @if let Some(fl) = floor {
                line class="noise-floor" x1=(f(pad)) y1=(f(py(fl))) x2=(f(w - pad)) y2=(f(py(fl))) stroke="#cf222e" stroke-dasharray="5,4" {}
                text x=(f(w - pad - 4.0)) y=(f(py(fl) - 4.0)) text-anchor="end" { "noise floor " (format!("{fl:.3}")) }
            }
            @for p in points {
                circle cx=(f(px(p.x))) cy=(f(py(p.y))) r="5" fill=(if p.within_floor { "none" } else { "#0969da" }) stroke="#0969da" { title { (p.label) } }
            }
        }
    }
}

/// One horizontal bar.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bar {
    /// Label left of the bar.
    pub label: String,
    /// Length relative to the longest bar (any non-negative unit).
    pub value: f64,
    /// Text right of the bar.
    pub note: String,
}

/// Horizontal bars scaled to the largest value.
pub fn bars(items: &[Bar]) -> Markup {
    let (label_w, bar_w, note_w, row_h) = (180.0, 280.0, 160.0, 22.0);
    let max = items
        .iter()
        .map(|b| b.value)
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max);
    let height = row_h * items.len() as f64 + 4.0;
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="bars" width=(f(label_w + bar_w + note_w)) height=(f(height))
            role="img" aria-label="bar chart" {
            @for (i, b) in items.iter().enumerate() {
                @let y = row_h * i as f64 + 2.0;
                @let len = if max > 0.0 && b.value.is_finite() { b.value / max * bar_w } else { 0.0 };
                text x="4" y=(f(y + 14.0)) { (b.label) }
                rect x=(f(label_w)) y=(f(y + 3.0)) width=(f(len)) height="14" fill="#0969da" {}
                text x=(f(label_w + len + 6.0)) y=(f(y + 14.0)) { (b.note) }
            }
        }
    }
}
