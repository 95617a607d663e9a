//! The HTML diff report: verdict and gate, the axes as a forest plot and a table, the first
//! divergence and top-k linked to their turns, policy regressions and fixes, the two runs as
//! lanes joined by the alignment with a drill-down per turn, and the recommendations.
//! Directory mode adds a sortable table of pairs linking to one section per pair.

use super::rows::{RowIndex, RowKey};
use super::svg::{forest, ForestRow};
use super::{badge, errors_section, gate_box, page, ErrorRow};
use crate::diff::format::{
    axis_meaning, change, flags, interval, pair_changes, percent, turns, value,
};
use crate::diff::meaning::what_this_means;
use crate::diff::quarantine;
use crate::diff::stream::DirectoryPrinter;
use maud::{html, Markup, PreEscaped};
use std::collections::BTreeMap;
use veer_contract::axis::Direction;
use veer_contract::axis::Flag;
use veer_contract::diff::DiffReport;
use veer_contract::diff::DirectoryPair;
use veer_contract::diff::DirectorySummary;
use veer_contract::divergence::Divergence;
use veer_contract::fingerprint::FingerprintBlock;
use veer_contract::lanes::{LaneCell, LaneRow, Lanes, TurnDetail, TurnSide, WordChange};
use veer_contract::policy::Violation;
use veer_contract::verdict::Verdict;

/// The page of one pair diff, its banner the verdict's.
pub fn render(r: &DiffReport, v: &Verdict) -> String {
    let title = format!("veer diff: {} vs {}", r.baseline.path, r.candidate.path);
    page(
        &title,
        html! {
            h1 { "veer diff" }
            p class="mono" { "baseline " (r.baseline.path) br; "candidate " (r.candidate.path) }
            (verdict(v, r))
            (body(r, ""))
        },
    )
}

/// The HTML printer of a streamed directory diff. The page holds every pair (a table row and a
/// section each) under a heading that needs the summary, so it keeps each pair's rendered
/// markup until the end: memory about the size of the page.
#[derive(Debug, Default)]
pub struct DirectoryPage {
    /// Pairs seen (the next pair's anchor number).
    pairs: usize,
    /// The table rows, rendered.
    rows: String,
    /// The per-pair sections, rendered.
    sections: String,
}

impl DirectoryPrinter for DirectoryPage {
    fn pair(&mut self, p: &DirectoryPair, _: &Verdict) -> String {
        let k = self.pairs;
        self.pairs += 1;
        self.rows.push_str(
            &html! {
                tr {
                    td { a href={ "#pair-" (k) } { (p.baseline) }
                         @if let Some(m) = &p.quarantined { br; span class="muted" { (quarantine::tag(m)) } } }
                    td data-sort=(p.report.worst_regression as u8) { (badge(p.report.worst_regression.label())) }
                    td class="num" { (p.report.pair_count) }
                    td { @match &p.report.first_divergence { Some(f) => (turns(f)), None => span class="muted" { "none" } } }
                    td class="num" { (p.report.policy.as_ref().map_or(0, |x| x.regressions.len())) }
                }
            }
            .into_string(),
        );
        self.sections.push_str(
            &html! {
                section id={ "pair-" (k) } {
                    h2 { (p.baseline) " " (badge(p.report.worst_regression.label())) }
                    @if let Some(m) = &p.quarantined { p class="muted" { (quarantine::tag(m)) " — measured and shown, not gating." } }
                    (body(&p.report, &format!("p{k}-")))
                }
            }
            .into_string(),
        );
        String::new()
    }

    fn finish(self: Box<Self>, d: &DirectorySummary, v: &Verdict) -> String {
        let errors: Vec<ErrorRow<'_>> = d
            .errors
            .iter()
            .map(|e| {
                (
                    e.baseline.as_str(),
                    e.file.as_deref().unwrap_or(""),
                    e.error.as_str(),
                    e.hint.as_deref(),
                )
            })
            .collect();
        page(
            "veer diff: directory",
            html! {
                h1 { "veer diff — " (d.aggregate.trace_pairs) " trace pairs" }
                (gate_box(v, &format!("worst regression {} over {} response pairs; {} of {} trace pairs diverge",
                    d.aggregate.worst_regression.label(), d.aggregate.pair_count,
                    d.aggregate.traces_with_divergence, d.aggregate.trace_pairs)))
                @if let Some(q) = &d.quarantine {
                    p class="muted" id="quarantine" { (quarantine::summary_line(q)) }
                    @if !q.expired.is_empty() {
                        ul class="warnings" {
                            @for w in quarantine::expired_warnings(Some(q)) { li { "warning: " (w) } }
                        }
                    }
                }
                h2 { "Pairs" }
                p class="muted" { "Click a column heading to sort (rows are in the directory's order)." }
                table class="sortable" id="pairs" {
                    thead { tr { th { "trace" } th { "worst regression" } th class="num" { "pairs" } th { "first divergence" } th class="num" { "regressions" } } }
                    tbody { (PreEscaped(&self.rows)) }
                }
                (errors_section(
                    &crate::policy::unreadable(d.errors.len(), "trace pair"),
                    "Left out of the table above, the aggregate and the pooled fingerprint test; each counts as a failure of the gate.",
                    &errors,
                ))
                @if !d.unmatched.baseline_only.is_empty() || !d.unmatched.candidate_only.is_empty() {
                    h3 { "Unmatched files" }
                    ul {
                        @for n in &d.unmatched.baseline_only { li { "baseline only: " code { (n) } } }
                        @for n in &d.unmatched.candidate_only { li { "candidate only: " code { (n) } } }
                    }
                }
                @if let Some(t) = &d.tool_schema {
                    h2 { "Tool schema" }
                    p id="tool-schema" { (crate::diff::tool_schema::directory_line(t)) }
                }
                (fingerprint_section(d.fingerprint.as_ref(), "Behaviour fingerprint, every response of every pair"))
                h2 { "Axes over all pairs" }
                table {
                    thead { tr { th { "axis" } th class="num" { "none" } th class="num" { "minor" } th class="num" { "moderate" } th class="num" { "severe" } th { "worst regression" } th class="num" { "median delta" } } }
                    tbody {
                        @for a in &d.aggregate.axes {
                            tr { td { (a.axis.wire()) } td class="num" { (a.none) } td class="num" { (a.minor) } td class="num" { (a.moderate) } td class="num" { (a.severe) }
                                 td { (badge(a.worst_regression.label())) } td class="num" { (change(a.axis, a.median_delta)) } }
                        }
                    }
                }
                (PreEscaped(&self.sections))
            },
        )
    }
}

/// The behaviour-fingerprint test in a few lines: verdict, p-value, T², power, and the
/// dimensions that moved most (the same words as the terminal and Markdown reports).
fn fingerprint_section(block: Option<&FingerprintBlock>, title: &str) -> Markup {
    use crate::diff::fingerprint::{movers, movers_label, summary};
    html! {
        h2 { (title) " (Hotelling T²)" }
        @match block {
            Some(b) => {
                p class="fingerprint" { (summary(b)) }
                @let moved = movers(b);
                @if !moved.is_empty() {
                    p class="muted" { (movers_label(b)) ": " (moved.join(", ")) }
                }
            },
            None => p class="muted" { "Not tested (needs at least 2 responses a side)." },
        }
    }
}

fn verdict(g: &Verdict, r: &DiffReport) -> Markup {
    gate_box(
        g,
        &format!(
            "worst axis regression {} over {} response pairs ({} statistical power)",
            r.worst_regression.label(),
            r.pair_count,
            r.statistical_power.label()
        ),
    )
}

fn body(r: &DiffReport, prefix: &str) -> Markup {
    let rows = RowIndex::new(r.lanes.as_ref());
    let href = |k: RowKey| format!("#{prefix}{}", k.id());
    let link = |d: &Divergence| rows.divergence(d).map(href);
    html! {
        p class="headline" { (r.headline) }
        h2 { "What this means" }
        ul class="meaning" { @for s in what_this_means(r) { li { (s) } } }
        h2 { "Axes" }
        (forest(&r.axes.iter().map(|a| ForestRow {
            label: a.axis.wire().to_string(),
            delta: a.delta,
            low: a.ci95_low,
            high: a.ci95_high,
            severity: a.severity.label().to_string(),
            note: format!("{} {} · n {}{}", change(a.axis, a.delta), interval(a), a.n,
                if a.flags.contains(&Flag::LowPower) { " · low power" } else { "" }),
        }).collect::<Vec<_>>()))
        table class="axes" {
            thead { tr { th { "axis" } th { "measures" } th class="num" { "baseline" } th class="num" { "candidate" } th class="num" { "delta" } th { "95% CI" } th class="num" { "n" } th { "severity" } th { "changed pairs" } th { "flags" } } }
            tbody {
                @for a in &r.axes {
                    tr { td { (a.axis.wire()) } td class="muted" { (axis_meaning(a.axis)) }
                         td class="num" { (value(a.axis, a.baseline_median)) } td class="num" { (value(a.axis, a.candidate_median)) }
                         td class="num" { (change(a.axis, a.delta)) } td { (interval(a)) } td class="num" { (a.n) }
                         td { (badge(a.severity.label())) @if a.direction == Direction::Improvement { " improvement" } }
                         td { (pair_changes(a)) } td class="muted" { (flags(a)) } }
                }
            }
        }
        (fingerprint_section(r.fingerprint.as_ref(), "Behaviour fingerprint"))
        h2 { "Where it diverged" }
        @match &r.first_divergence {
            Some(f) => p class="first-divergence" {
                span class="tag first" { "first divergence" }
                @match link(f) { Some(h) => a href=(h) { (turns(f)) }, None => (turns(f)) }
                " — " (f.kind.label()) " on " (f.primary_axis.wire()) ": " (f.explanation)
            },
            None => p class="muted" { "No divergence above the noise floor." },
        }
        @if !r.divergences.is_empty() {
            table class="top-k" {
                thead { tr { th class="num" { "#" } th { "turns" } th { "kind" } th { "axis" } th class="num" { "confidence" } th { "what changed" } } }
                tbody {
                    @for (k, d) in r.divergences.iter().enumerate() {
                        tr { td class="num" { (k + 1) }
                             td { @match link(d) { Some(h) => a href=(h) { (turns(d)) }, None => (turns(d)) } }
                             td { (d.kind.label()) } td { (d.primary_axis.wire()) } td class="num" { (percent(d.confidence)) } td { (d.explanation) } }
                    }
                }
            }
        }
        @if let Some(p) = &r.policy {
            h2 { "Policy" }
            p { (p.regressions.len()) " regression(s), " (p.fixes.len()) " fix(es); baseline " (p.baseline_violations.len()) " violation(s), candidate " (p.candidate_violations.len()) "." }
            (violations("Regressions (candidate)", "regressions", &p.regressions, |i| rows.candidate(i).map(href)))
            (violations("Fixes (baseline)", "fixes", &p.fixes, |i| rows.baseline(i).map(href)))
        }
        @if let Some(e) = &r.enforcement {
            h2 { "Live policy (enforced while recording)" }
            p { "Baseline: " (veer_contract::policy::Enforcement::count(&e.baseline)) ". Candidate: " (veer_contract::policy::Enforcement::count(&e.candidate)) "." }
            (live_table("Baseline", &e.baseline, |i| rows.baseline(i).map(href)))
            (live_table("Candidate", &e.candidate, |i| rows.candidate(i).map(href)))
        }
        @if let Some(t) = &r.tool_schema {
            (tool_schema_section(t))
        }
        @if let Some(s) = &r.structural {
            h2 { "Structure" }
            p class="mono" { (crate::diff::format::structural(s)) }
        }
        h2 { "The two runs, turn by turn" }
        @match &r.lanes {
            Some(l) => (lanes(l, r, prefix)),
            None => p class="muted" { "Not drawn." },
        }
        @if !r.drill_down.is_empty() {
            h2 { "Most changed pairs" }
            table {
                thead { tr { th { "turns" } th class="num" { "regression score (0–32)" } th { "dominant axis" } } }
                tbody {
                    @for d in &r.drill_down {
                        @let target = rows.candidate(d.candidate_turn).map(href);
                        tr { td { @match target { Some(t) => a href=(t) { "baseline turn #" (d.baseline_turn) " ↔ candidate turn #" (d.candidate_turn) },
                                                  None => { "baseline turn #" (d.baseline_turn) " ↔ candidate turn #" (d.candidate_turn) } } }
                             td class="num" { (format!("{:.3}", d.regression_score)) } td { (d.dominant_axis.wire()) } }
                    }
                }
            }
        }
        @if !r.recommendations.is_empty() {
            h2 { "Recommendations" }
            ol class="recommendations" { @for rec in &r.recommendations { li { strong { (super::experiment::label(&rec.severity)) } " · " (super::experiment::label(&rec.action)) ": " (rec.message) br; span class="muted" { (rec.rationale) (crate::diff::format::evidence(rec)) } } } }
        }
        @if !r.warnings.is_empty() {
            h2 { "Warnings" }
            ul { @for w in &r.warnings { li { (w) } } }
        }
    }
}

fn violations(
    heading: &str,
    class: &str,
    vs: &[Violation],
    link: impl Fn(usize) -> Option<String>,
) -> Markup {
    html! {
        @if !vs.is_empty() {
            h3 { (heading) }
            table class=(class) {
                thead { tr { th { "severity" } th { "rule" } th { "where" } th { "detail" } } }
                tbody {
                    @for v in vs {
                        @let target = v.pair_index.and_then(&link);
                        tr { td { (v.severity.name()) } td { code { (v.rule_id) } }
                             td { @match target { Some(t) => a href=(t) { (crate::policy::locus(v)) }, None => (crate::policy::locus(v)) } }
                             td { (v.detail) } }
                    }
                }
            }
        }
    }
}

/// The tool-schema block: its summary and one row per change, classed by its class.
fn tool_schema_section(t: &veer_contract::tool_schema::ToolSchemaDiff) -> Markup {
    html! {
        h2 { "Tool schema" }
        p { (crate::diff::tool_schema::summary(t)) }
        table class="tool-schema" {
            thead { tr { th { "class" } th { "where" } th { "change" } th { "before" } th { "after" } } }
            tbody {
                @for c in &t.changes {
                    tr class=(format!("schema-{}", c.class.label())) {
                        @let sev = match c.class {
                            veer_contract::tool_schema::SchemaClass::Breaking => "severe",
                            veer_contract::tool_schema::SchemaClass::Compatible => "moderate",
                            veer_contract::tool_schema::SchemaClass::Cosmetic => "minor",
                        };
                        td { span class={ "sev sev-" (sev) } { (c.class.label()) } }
                        td { code { (c.location()) } }
                        td { (c.kind.label()) }
                        td { (c.before.as_deref().unwrap_or("")) }
                        td { (c.after.as_deref().unwrap_or("")) }
                    }
                }
            }
        }
        @for n in &t.notes { p class="muted" { "note: " (n) } }
    }
}

fn live_table(
    heading: &str,
    ds: &[veer_contract::policy::LiveDecision],
    link: impl Fn(usize) -> Option<String>,
) -> Markup {
    html! {
        @if !ds.is_empty() {
            h3 { (heading) }
            table class="live-policy" {
                thead { tr { th { "action" } th { "severity" } th { "rule" } th { "where" } th { "detail" } } }
                tbody {
                    @for d in ds {
                        @let place = d.pair_index.map_or("trace".to_string(), |i| format!("turn #{i}"));
                        @let target = d.pair_index.and_then(&link);
                        tr { td { @if d.blocked { strong { "blocked · " } } (d.action.name()) } td { (d.severity) } td { code { (d.rule_id) } }
                             td { @match target { Some(t) => a href=(t) { (place) }, None => (place) } }
                             td { (d.detail) } }
                    }
                }
            }
        }
    }
}

/// Marks per row: first divergence, top-k rank, policy regressions.
fn marks(r: &DiffReport, rows: &RowIndex) -> BTreeMap<RowKey, Vec<String>> {
    let mut m: BTreeMap<RowKey, Vec<String>> = BTreeMap::new();
    if let Some(k) = r.first_divergence.as_ref().and_then(|f| rows.divergence(f)) {
        m.entry(k).or_default().push("first divergence".into());
    }
    for (n, d) in r.divergences.iter().enumerate() {
        if let Some(k) = rows.divergence(d) {
            m.entry(k)
                .or_default()
                .push(format!("top-{} {}", n + 1, d.kind.label()));
        }
    }
    for v in r.policy.iter().flat_map(|p| &p.regressions) {
        if let Some(k) = v.pair_index.and_then(|i| rows.candidate(i)) {
            m.entry(k)
                .or_default()
                .push(format!("regression {}", v.rule_id));
        }
    }
    m
}

fn cell(c: Option<&LaneCell>, side: char, prefix: &str) -> Markup {
    html! {
        td {
            @if let Some(c) = c {
                @if side == 'b' { a id={ (prefix) "b" (c.turn) } {} }
                strong { "#" (c.turn) } " "
                @if let Some(l) = c.line { span class="muted" { "line " (l) } } " "
                @if !c.tools.is_empty() { span class="tools" { (c.tools.join(" · ")) } }
                div { (c.preview) }
            } @else {
                span class="muted" { "—" }
            }
        }
    }
}

fn lanes(l: &Lanes, r: &DiffReport, prefix: &str) -> Markup {
    let index = RowIndex::new(Some(l));
    let marks = marks(r, &index);
    lanes_table(l, (&r.baseline.path, &r.candidate.path), &marks, prefix)
}

/// The side-by-side turns of two runs (`paths`: baseline, candidate), each row tagged with its
/// `marks`, ids prefixed by `prefix` (unique per page).
pub(crate) fn lanes_table(
    l: &Lanes,
    paths: (&str, &str),
    marks: &BTreeMap<RowKey, Vec<String>>,
    prefix: &str,
) -> Markup {
    html! {
        p class="muted" {
            @if l.aligned { "Rows follow the turn alignment." } @else { "The alignment was over its work budget; rows pair turns by index." }
            " Runs of more than " (veer_contract::lanes::COLLAPSE_AFTER) " unchanged turns are collapsed. "
            (l.detailed) " row(s) have a drill-down"
            @if l.undetailed > 0 { "; " (l.undetailed) " more changed row(s) are listed without one" } "."
            @if l.not_drawn > 0 { " Past " (veer_contract::lanes::DRAWN_ROWS) " rows, " (l.not_drawn) " alignment step(s) are summarised instead of drawn (the rows the report names are always drawn); --format json has every number." }
        }
        table class="lanes turns" {
            thead { tr { th { "baseline: " (paths.0) } th { "" } th { "candidate: " (paths.1) } } }
            tbody {
                @for row in &l.rows {
                    @match row {
                        LaneRow::Collapsed { baseline_from, candidate_from, count } => {
                            tr class="collapsed" { td colspan="3" { (count) " unchanged turns (baseline #" (baseline_from) "–#" (baseline_from + count - 1) ", candidate #" (candidate_from) "–#" (candidate_from + count - 1) ")" } }
                        }
                        LaneRow::NotDrawn { baseline_from, candidate_from, steps } => {
                            tr class="collapsed not-drawn" { td colspan="3" { (steps) " more alignment step(s) not drawn"
                                @if let Some(b) = baseline_from { " (from baseline #" (b) } @else { " (" }
                                @if let Some(c) = candidate_from { @if baseline_from.is_some() { ", " } "candidate #" (c) } ")" } }
                        }
                        LaneRow::Step { status, cost, above_noise, baseline, candidate, detail } => {
                            @let key = RowKey::of(row);
                            @let tags: Vec<&String> = key.and_then(|k| marks.get(&k)).into_iter().flatten().collect();
                            tr id=[candidate.as_ref().map(|c| format!("{prefix}c{}", c.turn))] class={ "st-" (status.label()) @if !tags.is_empty() { " mark" } } {
                                (cell(baseline.as_ref(), 'b', prefix))
                                td class="status" {
                                    (status.label())
                                    @if *cost > 0.0 { br; span class="muted" { "cost " (format!("{cost:.2}")) @if !above_noise { " (noise)" } } }
                                    @for t in &tags { br; span class={ "tag" @if t.starts_with("first") { " first" } @else if t.starts_with("regression") { " reg" } } { (t) } }
                                }
                                (cell(candidate.as_ref(), 'c', prefix))
                            }
                            @if let Some(d) = detail { tr class="detail" { td colspan="3" { (drill(d)) } } }
                        }
                    }
                }
            }
        }
    }
}

fn side(title: &str, s: Option<&TurnSide>) -> Markup {
    html! {
        div {
            h3 { (title) }
            @match s {
                None => p class="muted" { "no turn on this side" },
                Some(s) => {
                    @if let Some(q) = &s.request { div class="muted" { "request" } pre { (q) } }
                    div class="muted" { "response · stop " (if s.stop_reason.is_empty() { "—" } else { &s.stop_reason }) }
                    pre { (s.text) }
                    @for t in &s.tool_calls { div class="tools" { "tool " code { (t.name) } } pre { (t.input) } }
                }
            }
        }
    }
}

fn drill(d: &TurnDetail) -> Markup {
    html! {
        details {
            summary { "Drill-down: request, responses, tool calls and word diff" }
            div class="side" { (side("baseline", d.baseline.as_ref())) (side("candidate", d.candidate.as_ref())) }
            h3 { "Word diff (baseline → candidate)" }
            pre class="word-diff" {
                @for w in &d.words {
                    @match w.change {
                        WordChange::Same => (w.text),
                        WordChange::Removed => del { (w.text) },
                        WordChange::Added => ins { (w.text) },
                    }
                }
            }
        }
    }
}
