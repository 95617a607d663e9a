//! The HTML page of a repeated-trials diff, in the pair report's style: the gate first, the
//! suite's tests, then one section per case — what changed in words, the spread of behaviour
//! within each side and across sides, the per-trial axes, and the typical (modal) trial of each
//! side turn by turn with a drill-down per changed turn. Any other pair of trials opens with the
//! `veer diff` command shown beside the case. Every number comes from the report.

use super::rows::RowKey;
use super::{gate_box, page};
use maud::{html, Markup};
use std::collections::BTreeMap;
use veer_contract::trials::{CaseBlock, CaseVerdict, SuiteOutcome, TrialsReport};

/// The severity-style class of a case verdict (the badge colours of the pair report).
fn verdict_class(v: CaseVerdict) -> &'static str {
    match v {
        CaseVerdict::Regressed | CaseVerdict::Failed | CaseVerdict::Missing => "severe",
        CaseVerdict::Changed => "moderate",
        CaseVerdict::Inconclusive | CaseVerdict::Flaky => "minor",
        CaseVerdict::Improved | CaseVerdict::Unchanged => "none",
    }
}

/// A case verdict as a badge coloured like the severity it stands for.
fn verdict_badge(v: CaseVerdict) -> Markup {
    html! { span class={ "sev sev-" (verdict_class(v)) } { (v.name()) } }
}

fn outcome(o: SuiteOutcome) -> &'static str {
    match o {
        SuiteOutcome::Regressed => "regressed",
        SuiteOutcome::Improved => "improved",
        SuiteOutcome::NoSupportedChange => "no supported change",
    }
}

fn num(v: Option<f64>) -> String {
    v.map_or("n/a".to_string(), |x| format!("{x:.3}"))
}

/// A case's id in the page: its position, so any case key is a valid fragment.
fn anchor(i: usize) -> String {
    format!("case-{i}")
}

fn suite(r: &TrialsReport) -> Markup {
    html! {
        @if !r.trials.axes.is_empty() || !r.trials.rules.is_empty() {
            h2 { "Suite" }
            p class="muted" { "Each measure tested over all cases compared (trial labels permuted within each case); p adjusted over the measures (Holm)." }
            table class="axes suite" {
                thead { tr { th { "measure" } th class="num" { "effect" } th { "95% interval" } th class="num" { "margin" } th class="num" { "adjusted p" } th { "outcome" } th class="num" { "MDE" } } }
                tbody {
                    @for a in &r.trials.axes {
                        tr { td { (a.axis) " (" (a.unit) ")" } td class="num" { (format!("{:+.2}", a.effect)) }
                             td { (a.interval.map_or("n/a".to_string(), |[l, h]| format!("{l:+.2} … {h:+.2}"))) }
                             td class="num" { (format!("{:.2}", a.margin)) } td class="num" { (format!("{:.4}", a.p_adjusted)) }
                             td { (outcome(a.outcome)) } td class="num" { (a.mde.map_or(String::new(), |m| format!("{m:.2}"))) } }
                    }
                    @for rule in &r.trials.rules {
                        tr { td { "rule " code { (rule.rule) } } td class="num" { (rule.baseline) " → " (rule.candidate) } td { "" } td { "" }
                             td class="num" { (format!("{:.4}", rule.p_adjusted)) } td { (outcome(rule.outcome)) } td { "" } }
                    }
                }
            }
        }
    }
}

fn case_section(r: &TrialsReport, i: usize, c: &CaseBlock) -> Markup {
    let id = anchor(i);
    let open = matches!(
        c.verdict,
        CaseVerdict::Regressed | CaseVerdict::Changed | CaseVerdict::Failed
    );
    let sd = |v: Option<f64>| v.map_or(String::new(), |x| format!(" ± {x:.1}"));
    html! {
        section class="case" id=(id) {
            h3 {
                (c.case) " " (verdict_badge(c.verdict))
                @if c.quarantined { " (quarantined)" }
                span class="muted" { " — " (c.baseline_trials) " vs " (c.candidate_trials) " trials" }
            }
            p class="mono" { (crate::diff::trials::case_line(c)) }
            @if !c.changes.is_empty() {
                p { strong { "What changed" } " (the typical candidate trial against the typical baseline trial):" }
                ul class="changes" { @for ch in &c.changes { li { (ch) } } }
            }
            @if let Some(b) = &c.behaviour {
                table class="spread" {
                    thead { tr { th { "behaviour distance" } th class="num" { "within baseline" } th class="num" { "within candidate" } th class="num" { "across sides" } th class="num" { "excess" } th class="num" { "p" } } }
                    tbody { tr { td class="muted" { "mean pairwise distance of what the trials did (tools, order, arguments), 0 = the same, 1 = nothing shared" }
                                 td class="num" { (num(b.d_bb)) } td class="num" { (num(b.d_cc)) } td class="num" { (format!("{:.3}", b.d_bc)) }
                                 td class="num" { (format!("{:+.3}", b.excess)) } td class="num" { (format!("{:.4}", b.p_value)) } } }
                }
            }
            @if !c.axes.is_empty() {
                table class="axes" {
                    thead { tr { th { "axis" } th class="num" { "baseline" } th class="num" { "candidate" } th class="num" { "change" } th class="num" { "margin" } } }
                    tbody {
                        @for a in &c.axes {
                            tr { td { (a.axis) " (" (a.unit) ")" } td class="num" { (format!("{:.1}", a.baseline_mean)) (sd(a.baseline_sd)) }
                                 td class="num" { (format!("{:.1}", a.candidate_mean)) (sd(a.candidate_sd)) }
                                 td class="num" { (format!("{:+.1}", a.effect)) } td class="num" { (format!("{:.1}", a.margin)) } }
                        }
                    }
                }
            }
            @if let Some(m) = &c.modal {
                @let (b, k) = (format!("{}/{}", r.baseline.trim_end_matches('/'), m.baseline_file), format!("{}/{}", r.candidate.trim_end_matches('/'), m.candidate_file));
                details open[open] {
                    summary { "The typical trials, turn by turn: " span class="mono" { (m.baseline_file) } " ↔ " span class="mono" { (m.candidate_file) }
                        @if let Some(t) = m.turn { " (first differ at turn #" (t) @if let Some(l) = m.candidate_line { ", candidate line " (l) } ")" } }
                    @match &c.lanes {
                        Some(l) => (super::diff::lanes_table(l, (&b, &k), &BTreeMap::<RowKey, Vec<String>>::new(), &format!("{id}-"))),
                        None => p class="muted" { "Not drawn (past the cases the page draws)." },
                    }
                    p class="muted" { "Any other pair of trials: " code { "veer diff " (r.baseline.trim_end_matches('/')) "/" (c.case) "/TRIAL " (r.candidate.trim_end_matches('/')) "/" (c.case) "/TRIAL --format html -o pair.html" } }
                }
            }
        }
    }
}

/// One self-contained HTML page of a repeated-trials diff.
pub fn render(r: &TrialsReport) -> String {
    let detail = crate::diff::trials::headline(r);
    let body = html! {
        h1 { "veer diff — repeated trials" }
        p class="muted mono" { (r.baseline) " → " (r.candidate) }
        (gate_box(&r.verdict, &detail))
        @for w in &r.trials.warnings { p class="muted" { "warning: " (w) } }
        (suite(r))
        h2 { "Cases" }
        table class="cases" {
            thead { tr { th { "case" } th { "verdict" } th class="num" { "trials" } th { "what changed" } } }
            tbody {
                @for (i, c) in r.trials.cases.iter().enumerate() {
                    tr { td { a href={ "#" (anchor(i)) } { (c.case) } } td { (verdict_badge(c.verdict)) @if c.quarantined { " (quarantined)" } }
                         td class="num" { (c.baseline_trials) " vs " (c.candidate_trials) }
                         td { (c.changes.first().map_or(String::new(), String::clone)) @if c.changes.len() > 1 { " (+" (c.changes.len() - 1) " more)" } } }
                }
            }
        }
        @for (i, c) in r.trials.cases.iter().enumerate() { (case_section(r, i, &c)) }
    };
    page("veer: repeated trials", body)
}
