//! The HTML page of `veer check`: the gate, then each trace's violations with rule, severity,
//! session and turn; a directory gets a sortable table of traces first.

use super::{badge, errors_section, gate_box, page, ErrorRow};
use crate::policy::locus;
use maud::html;
use veer_contract::check::CheckReport;

/// Renders the check report as one HTML page.
pub fn render(r: &CheckReport, v: &veer_contract::verdict::Verdict) -> String {
    let total: usize = r.traces.iter().map(|t| t.violations.len()).sum();
    let errors: Vec<ErrorRow<'_>> = r
        .errors
        .iter()
        .map(|e| {
            (
                e.trace.as_str(),
                e.file.as_str(),
                e.error.as_str(),
                e.hint.as_deref(),
            )
        })
        .collect();
    page(
        "veer check",
        html! {
            h1 { "veer check" }
            p class="mono" { "policy " (r.policy) }
            (gate_box(v, &format!("{total} violation(s) in {} trace(s)", r.traces.len())))
            (errors_section("Traces that could not be read", "Not checked; each counts as a failure of the gate.", &errors))
            @if r.traces.len() > 1 {
                h2 { "Traces" }
                table class="sortable" {
                    thead { tr { th { "trace" } th class="num" { "violations" } th { "worst" } } }
                    tbody {
                        @for (k, t) in r.traces.iter().enumerate() {
                            @let worst = t.violations.iter().map(|v| v.severity).max();
                            tr { td { a href={ "#trace-" (k) } { (t.trace) } } td class="num" { (t.violations.len()) }
                                 td data-sort=(worst.map_or(0, |s| s as u8 + 1)) { (worst.map_or("none", |s| s.name())) } }
                        }
                    }
                }
            }
            h2 { "Rules" }
            table { thead { tr { th { "rule" } th { "kind" } th { "severity" } } }
                tbody { @for rule in &r.rules { tr { td { code { (rule.id) } } td { (rule.kind) } td { (rule.severity) } } } } }
            @for (k, t) in r.traces.iter().enumerate() {
                section id={ "trace-" (k) } {
                    h2 { (t.trace) }
                    @if t.violations.is_empty() { p class="muted" { "No violation." } } @else {
                        table class="violations" {
                            thead { tr { th { "severity" } th { "rule" } th { "where" } th { "line" } th { "detail" } } }
                            tbody {
                                @for v in &t.violations {
                                    tr { td { (badge(match v.severity { veer_contract::policy::Severity::Info => "minor", veer_contract::policy::Severity::Warning => "moderate", _ => "severe" })) " " (v.severity.name()) }
                                         td { code { (v.rule_id) } } td { (locus(v)) }
                                         td class="num" { @if let Some(l) = v.pair_index.and_then(|i| t.lines.get(i).copied().flatten()) { (l) } }
                                         td { (v.detail) } }
                                }
                            }
                        }
                    }
                }
            }
        },
    )
}
