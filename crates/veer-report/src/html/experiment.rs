//! The HTML page of `veer experiment analyze` and `veer experiment pair`: the pairs table,
//! d_norm against t*/T with the noise-floor line, the manifestation groups as bars, and for a
//! single pair its event alignment.

use super::page;
use super::svg::{bars, scatter, Bar, Point};
use maud::{html, Markup};
use veer_contract::experiment::ExperimentReport;
use veer_contract::experiment::{AlignedPairDetail, PairReport};

fn opt(v: Option<f64>) -> String {
    v.map_or("—".to_string(), |v| format!("{v:.3}"))
}

fn flag(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => "—",
    }
}

/// Renders the experiment report as one HTML page.
pub fn render(r: &ExperimentReport) -> String {
    let points: Vec<Point> = r
        .pairs
        .iter()
        .filter_map(|p| {
            Some(Point {
                x: p.t_star_norm.unwrap_or(1.0),
                y: p.d_norm?,
                label: format!(
                    "{}: d_norm {}, t*/T {}",
                    p.perturbation.as_deref().unwrap_or("?"),
                    opt(p.d_norm),
                    opt(p.t_star_norm)
                ),
                within_floor: p.within_noise_floor == Some(true),
            })
        })
        .collect();
    let groups: Vec<Bar> = r
        .aggregates
        .by_manifestation_group
        .iter()
        .map(|g| Bar {
            label: label(&g.group),
            value: g.pairs as f64,
            note: format!("{} pair(s), {}", g.pairs, opt(g.fraction)),
        })
        .collect();
    page(
        "veer experiment",
        html! {
            h1 { "veer experiment" }
            p { (r.summary.pairs) " pair(s): " (r.summary.measured) " measured, " (r.summary.within_floor) " within the noise floor, " (r.summary.skipped) " skipped." }
            p { "Noise floor: " (opt(r.noise_floor)) " (from " (r.noise_floor_runs) " clean re-run(s))." }
            @if let Some(n) = &r.noise {
                p { "Noise-aware labels (traxr's classes kept): " (n.beyond_noise) " of " (n.beyond_noise + n.within_noise) " measured pair(s) beyond noise; clean-run spread over " (n.spread.clean_runs) " clean run(s): d_norm up to " (format!("{:.4}", n.spread.d_norm)) ", answers " (if n.spread.answer_changed { "vary" } else { "agree" }) "." }
            }
            h2 { "d_norm against t*/T" }
            p class="muted" { "Each dot is a pair; hollow dots are within the noise floor; pairs that never diverged sit at t*/T = 1." }
            (scatter(&points, r.noise_floor, "t*/T", "d_norm"))
            h2 { "Manifestation groups" }
            @if groups.is_empty() { p class="muted" { "No measured pair." } } @else { (bars(&groups)) }
            h2 { "Pairs" }
            (pairs_table(r))
            h2 { "Event alignment of each pair" }
            @for (k, p) in r.pairs.iter().enumerate() {
                section id={ "pair-" (k) } {
                    h3 { (p.perturbation.as_deref().unwrap_or("—")) " " span class="muted" { "d_norm " (opt(p.d_norm)) ", t* " (p.t_star.map_or("—".into(), |t| t.to_string())) } }
                    @match &p.alignment {
                        Some(rows) => details { summary { (rows.len()) " aligned event pair(s)" } (alignment(rows)) },
                        None => p class="muted" { "Not measured." },
                    }
                }
            }
            @if !r.errors.is_empty() { h2 { "Errors" } ul { @for e in &r.errors { li { (e) } } } }
        },
    )
}

fn pairs_table(r: &ExperimentReport) -> Markup {
    html! {
        table class="sortable pairs" {
            thead { tr { th { "perturbation" } th { "status" } th class="num" { "d_norm" } th class="num" { "t*" } th class="num" { "t*/T" } th { "divergence" } th { "manifestation" } th { "answer changed" } th { "within floor" } @if r.noise.is_some() { th { "within noise" } } } }
            tbody {
                @for (k, p) in r.pairs.iter().enumerate() {
                    tr { td { a href={ "#pair-" (k) } { (p.perturbation.as_deref().unwrap_or("—")) } }
                         td { (label(&p.status_perturbed)) }
                         td class="num" { (opt(p.d_norm)) } td class="num" { (p.t_star.map_or("—".into(), |t| t.to_string())) } td class="num" { (opt(p.t_star_norm)) }
                         td { (p.divergence_type.as_deref().unwrap_or("—")) }
                         td { (p.manifestation.as_ref().map(label).unwrap_or_default()) }
                         td { (flag(p.answer_changed)) } td { (flag(p.within_noise_floor)) }
                         @if r.noise.is_some() { td { (flag(p.within_noise)) } } }
                }
            }
        }
    }
}

/// Renders one perturbation pair: its metrics and, when the report carries it, the event
/// alignment as two lanes.
pub fn render_pair(r: &PairReport) -> String {
    page(
        "veer experiment pair",
        html! {
            h1 { "veer experiment pair" }
            table {
                tbody {
                    tr { th { "perturbation" } td { (r.perturbation_type.as_deref().unwrap_or("—")) } }
                    tr { th { "d_norm" } td { (format!("{:.3}", r.d_norm)) } }
                    tr { th { "t* / t*/T" } td { (r.t_star.map_or("—".into(), |t| t.to_string())) " / " (opt(r.t_star_norm)) } }
                    tr { th { "first divergence" } td { (r.first_divergence_type.as_deref().unwrap_or("none")) } }
                    tr { th { "edit distance" } td { (r.edit_distance.distance) " (" (r.edit_distance.substitutions) " substituted, " (r.edit_distance.insertions) " inserted, " (r.edit_distance.deletions) " deleted)" } }
                    tr { th { "steps" } td { (r.baseline_steps) " baseline, " (r.perturbed_steps) " perturbed" } }
                    tr { th { "answer changed" } td { (if r.answer_changed { "yes" } else { "no" }) } }
                }
            }
            (scatter(&[Point { x: r.t_star_norm.unwrap_or(1.0), y: r.d_norm, label: "this pair".into(), within_floor: false }], None, "t*/T", "d_norm"))
            h2 { "Event alignment" }
            @match &r.aligned_pairs {
                None => p class="muted" { "Not in the report." },
                Some(rows) => (alignment(rows)),
            }
        },
    )
}

/// Clean and perturbed events side by side, one row per aligned pair.
fn alignment(rows: &[AlignedPairDetail]) -> Markup {
    html! {
        table class="lanes" {
            thead { tr { th class="num" { "#" } th { "clean event" } th { "" } th { "perturbed event" } } }
            tbody {
                @for a in rows {
                    tr class=(if a.is_match { "st-matched" } else { "st-changed" }) {
                        td class="num" { (a.index) }
                        td { @if let Some(e) = &a.clean_event { code { (event(e)) } } }
                        td class="status" { @if a.is_match { "=" } @else { (a.divergence_type.as_deref().unwrap_or("≠")) } }
                        td { @if let Some(e) = &a.perturbed_event { code { (event(e)) } } }
                    }
                }
            }
        }
    }
}

/// An aligned event as compact JSON, cut to 160 characters.
fn event(e: &serde_json::Value) -> String {
    crate::text::preview(&e.to_string(), 160)
}

/// The wire label of a serde enum (`"answer_changed"` → `answer_changed`).
pub(super) fn label<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}
