//! The terminal rendering of a diff: header, axis table, top divergences, recommendations,
//! most-changed pairs and the "what this means" paragraph. Colour only when `style.colour`.

use super::fingerprint;
use super::format::{
    change, flags, interval, pair_changes, percent, severity_label, structural, turns, value,
};
use super::meaning::what_this_means;
use super::quarantine;
use super::stream::DirectoryPrinter;
use super::SHOWN_DIVERGENCES;
use crate::style::Style;
use comfy_table::{Cell, CellAlignment};
use veer_base::Level;
use veer_contract::diff::DiffReport;
use veer_contract::diff::DirectoryPair;
use veer_contract::diff::DirectorySummary;
use veer_contract::diff::PairError;
use veer_contract::fingerprint::Decision;
use veer_contract::fingerprint::FingerprintBlock;
use veer_contract::recommend::RecSeverity;
use veer_contract::verdict::Verdict;

/// The line naming what tripped the gate (nothing when it did not trip).
pub(crate) fn tripped_line(v: &Verdict, style: Style) -> String {
    let mut out = match v.tripped_by_line(10) {
        Some(by) => format!("{}\n", style.bad(&format!("gate tripped by: {by}"))),
        None => String::new(),
    };
    if let Some(q) = v.quarantined_line(10) {
        out.push_str(&format!(
            "{}\n",
            style.warn(&format!("quarantined (measured, not gating): {q}"))
        ));
    }
    out
}

/// A row's severity with its direction, coloured by severity (an improvement is never red).
fn row_severity(style: Style, a: &veer_contract::axis::AxisStat) -> String {
    if a.direction == veer_contract::axis::Direction::Improvement {
        style.good(&severity_label(a))
    } else {
        severity(style, a.severity)
    }
}

fn severity(style: Style, s: Level) -> String {
    match s {
        Level::None => style.good(s.label()),
        Level::Minor => style.dim(s.label()),
        Level::Moderate => style.warn(s.label()),
        Level::Severe => style.bad(s.label()),
    }
}

fn right(s: String) -> Cell {
    Cell::new(s).set_alignment(CellAlignment::Right)
}

/// Renders one diff report for a terminal.
pub fn render(r: &DiffReport, verdict: &Verdict, style: Style) -> String {
    let mut out = render_report(r, style);
    out.push_str(&tripped_line(verdict, style));
    out
}

/// The report's own sections (everything but the verdict's line).
fn render_report(r: &DiffReport, style: Style) -> String {
    let mut out = String::new();
    out.push_str(&style.heading(&format!(
        "veer diff — {} response pair(s), pairing by {}{}, seed {}",
        r.pair_count,
        r.pairing.label(),
        if r.pairing_requested == veer_contract::divergence::PairBy::Auto {
            " (auto)"
        } else {
            ""
        },
        r.seed
    )));
    out.push('\n');
    out.push_str(&format!("{}\n", r.headline));
    for (label, t) in [("baseline ", &r.baseline), ("candidate", &r.candidate)] {
        out.push_str(&format!("{label}: {}", t.path));
        if !t.trace_id.is_empty() {
            out.push_str(&style.dim(&format!("  ({})", t.trace_id)));
        }
        out.push('\n');
    }
    for w in &r.warnings {
        out.push_str(&style.warn(&format!("warning: {w}")));
        out.push('\n');
    }
    out.push('\n');

    let mut table = crate::text::table(vec![
        "axis",
        "baseline",
        "candidate",
        "change",
        "95% CI",
        "severity",
        "n",
        "changed pairs",
        "notes",
    ]);
    for a in &r.axes {
        table.add_row(vec![
            Cell::new(a.axis.wire()),
            right(value(a.axis, a.baseline_median)),
            right(value(a.axis, a.candidate_median)),
            right(change(a.axis, a.delta)),
            right(interval(a)),
            Cell::new(row_severity(style, a)),
            right(a.n.to_string()),
            Cell::new(pair_changes(a)),
            Cell::new(flags(a)),
        ]);
    }
    out.push_str(&crate::text::render_table(&mut table));
    out.push('\n');
    out.push_str(&format!(
        "worst regression: {}\n\n",
        severity(style, r.worst_regression)
    ));

    match &r.first_divergence {
        None => {
            out.push_str("first divergence: none (the aligned turns agree above the noise floor)\n")
        }
        Some(d) => out.push_str(&format!(
            "{} {} — {} on {}, confidence {}\n  {}\n",
            style.heading("first divergence:"),
            turns(d),
            d.kind.label(),
            d.primary_axis.wire(),
            percent(d.confidence),
            d.explanation
        )),
    }
    if !r.divergences.is_empty() {
        let shown = r.divergences.len().min(SHOWN_DIVERGENCES);
        out.push_str(&format!(
            "\n{}\n",
            style.heading(&format!(
                "top divergences ({shown} of {} shown; all in --format json)",
                r.divergences.len()
            ))
        ));
        for (i, d) in r.divergences.iter().take(SHOWN_DIVERGENCES).enumerate() {
            out.push_str(&format!(
                "  #{} {} — {} on {}, confidence {}\n     {}\n",
                i + 1,
                turns(d),
                d.kind.label(),
                d.primary_axis.wire(),
                percent(d.confidence),
                d.explanation
            ));
        }
    }

    if !r.recommendations.is_empty() {
        out.push_str(&format!("\n{}\n", style.heading("recommendations")));
        for rec in &r.recommendations {
            let sev = match rec.severity {
                RecSeverity::Error => style.bad("error  "),
                RecSeverity::Warning => style.warn("warning"),
                RecSeverity::Info => style.dim("info   "),
            };
            out.push_str(&format!("  {sev} {}\n", rec.message));
            out.push_str(&style.dim(&format!(
                "          {}{}",
                rec.rationale,
                super::format::evidence(rec)
            )));
            out.push('\n');
        }
    }

    if !r.drill_down.is_empty() {
        out.push_str(&format!("\n{}\n", style.heading("most changed pairs")));
        for p in r.drill_down.iter().take(SHOWN_DIVERGENCES) {
            out.push_str(&format!(
                "  pair #{} (baseline turn #{}, candidate turn #{}): score {:.2}, biggest mover {}\n",
                p.pair_index,
                p.baseline_turn,
                p.candidate_turn,
                p.regression_score,
                p.dominant_axis.wire()
            ));
        }
    }

    if let Some(s) = &r.structural {
        out.push_str(&format!(
            "\n{}\n  {}\n",
            style.heading("event-level structure"),
            structural(s)
        ));
    }
    out.push_str(&fingerprint_section(r.fingerprint.as_ref(), style));
    if let Some(p) = &r.policy {
        out.push('\n');
        out.push_str(&crate::policy::terminal::diff_section(p, style));
    }
    if let Some(e) = &r.enforcement {
        out.push('\n');
        out.push_str(&live_section(e, style));
    }
    if let Some(t) = &r.tool_schema {
        out.push('\n');
        out.push_str(&super::tool_schema::terminal_section(t, style));
    }

    out.push_str(&format!("\n{}\n", style.heading("what this means")));
    out.push_str(&what_this_means(r).join(" "));
    out.push('\n');
    out
}

/// The live-policy decisions the recordings hold, side by side.
fn live_section(e: &veer_contract::policy::Enforcement, style: Style) -> String {
    use veer_contract::policy::{decision_line, Enforcement};
    let mut out = format!(
        "{}\n",
        style.heading("live policy (enforced while recording)")
    );
    for (side, ds) in [("baseline", &e.baseline), ("candidate", &e.candidate)] {
        out.push_str(&format!("  {side}: {}\n", Enforcement::count(ds)));
        for d in ds {
            let line = format!("    {}", decision_line(d));
            out.push_str(&match d.blocked {
                true => style.bad(&line),
                false => line,
            });
            out.push('\n');
        }
    }
    out
}

/// The behaviour-fingerprint lines: heading, verdict, the dimensions that moved most.
fn fingerprint_section(block: Option<&FingerprintBlock>, style: Style) -> String {
    let mut out = format!(
        "\n{}\n",
        style.heading("behaviour fingerprint (Hotelling T² over 12 dimensions)")
    );
    let Some(b) = block else {
        out.push_str("  not tested: needs at least 2 responses a side\n");
        return out;
    };
    let line = fingerprint::summary(b);
    let line = match b.decision {
        Decision::Reject => style.warn(&line),
        Decision::FailToReject => style.good(&line),
        Decision::Underpowered => style.dim(&line),
    };
    out.push_str(&format!("  {line}\n"));
    let movers = fingerprint::movers(b);
    if !movers.is_empty() {
        out.push_str(&format!(
            "  {}: {}\n",
            fingerprint::movers_label(b),
            movers.join(", ")
        ));
    }
    out
}

/// The table row of a pair that could not be measured.
fn error_row(style: Style, e: &PairError) -> Vec<Cell> {
    vec![
        Cell::new(&e.baseline),
        right("-".to_string()),
        Cell::new(style.bad("error")),
        Cell::new("-"),
        Cell::new(crate::text::preview(&e.error, 60)),
    ]
}

/// The terminal printer of a streamed directory diff. The table's column widths depend on
/// every row, so it keeps each pair's five cells (and its warnings) until the end: about the
/// length of the row's text per pair.
#[derive(Debug)]
pub struct DirectoryTable {
    style: Style,
    /// Per pair: trace, response pairs, worst regression, moved axes, first divergence; and
    /// the pair's quarantine tag, when it is quarantined.
    rows: Vec<([String; 5], Option<String>)>,
    /// Styled warning lines, in pair order.
    warnings: Vec<String>,
    /// Styled policy-regression lines, in pair order.
    regressions: Vec<String>,
    /// Styled tool-schema change lines (breaking and compatible), in pair order.
    schema: Vec<String>,
}

impl DirectoryTable {
    /// A printer writing with `style`.
    pub fn new(style: Style) -> DirectoryTable {
        DirectoryTable {
            style,
            rows: Vec::new(),
            warnings: Vec::new(),
            regressions: Vec::new(),
            schema: Vec::new(),
        }
    }
}

impl DirectoryPrinter for DirectoryTable {
    fn pair(&mut self, p: &DirectoryPair, _: &Verdict) -> String {
        let (style, r) = (self.style, &p.report);
        for v in r.policy.iter().flat_map(|d| &d.regressions) {
            self.regressions.push(style.bad(&format!(
                "\u{2717} {}: {}",
                p.baseline,
                crate::policy::violation_line(v)
            )));
        }
        for c in r.tool_schema.iter().flat_map(|t| &t.changes) {
            let line = format!("{}: {}", p.baseline, super::tool_schema::change_line(c));
            match c.class {
                veer_contract::tool_schema::SchemaClass::Breaking => {
                    self.schema.push(style.bad(&line))
                }
                veer_contract::tool_schema::SchemaClass::Compatible => {
                    self.schema.push(style.warn(&line))
                }
                veer_contract::tool_schema::SchemaClass::Cosmetic => {}
            }
        }
        let moved: Vec<&str> = r
            .axes
            .iter()
            .filter(|a| a.severity >= Level::Moderate)
            .map(|a| a.axis.wire())
            .collect();
        let first = r.first_divergence.as_ref().map_or("-".to_string(), |f| {
            format!(
                "#{}↔#{} {}: {}",
                f.baseline_turn,
                f.candidate_turn,
                f.kind.label(),
                crate::text::preview(&f.explanation, 60)
            )
        });
        self.rows.push((
            [
                p.baseline.clone(),
                r.pair_count.to_string(),
                severity(style, r.worst_regression),
                if moved.is_empty() {
                    "-".to_string()
                } else {
                    moved.join(", ")
                },
                first,
            ],
            p.quarantined
                .as_ref()
                .map(|m| style.warn(&crate::text::preview(&quarantine::tag(m), 60))),
        ));
        for w in &r.warnings {
            self.warnings
                .push(style.warn(&format!("warning: {}: {w}", p.baseline)));
        }
        String::new()
    }

    fn finish(self: Box<Self>, d: &DirectorySummary, verdict: &Verdict) -> String {
        let style = self.style;
        let mut out = String::new();
        out.push_str(&style.heading(&format!(
            "veer diff — {} trace pair(s), {} response pair(s), worst regression {}",
            d.aggregate.trace_pairs,
            d.aggregate.pair_count,
            d.aggregate.worst_regression.label()
        )));
        if !d.errors.is_empty() {
            out.push_str(&style.bad(&format!(
                " ({}: left out of the aggregate and the pooled fingerprint test)",
                crate::policy::unreadable(d.errors.len(), "trace pair")
            )));
        }
        out.push_str("\n\n");
        let mut table = crate::text::table(vec![
            "trace",
            "pairs",
            "worst regression",
            "moved axes",
            "first divergence",
        ]);
        // Error rows take their place in path order among the measured pairs.
        let mut errors = d.errors.iter().peekable();
        for ([trace, pairs, worst, moved, first], tag) in self.rows {
            while let Some(e) = errors.next_if(|e| e.baseline.as_bytes() < trace.as_bytes()) {
                table.add_row(error_row(style, e));
            }
            let trace = match tag {
                Some(tag) => format!("{trace}\n{tag}"),
                None => trace,
            };
            table.add_row(vec![
                Cell::new(trace),
                right(pairs),
                Cell::new(worst),
                Cell::new(moved),
                Cell::new(first),
            ]);
        }
        for e in errors {
            table.add_row(error_row(style, e));
        }
        out.push_str(&crate::text::render_table(&mut table));
        out.push('\n');
        for e in &d.errors {
            out.push_str(&style.bad(&format!("error: {}", e.error)));
            out.push('\n');
            if let Some(h) = &e.hint {
                out.push_str(&format!("  hint: {h}\n"));
            }
        }
        if !self.regressions.is_empty() {
            out.push('\n');
            out.push_str(&style.heading(&format!(
                "policy regressions per trace pair ({})",
                self.regressions.len()
            )));
            out.push('\n');
            for line in &self.regressions {
                out.push_str(line);
                out.push('\n');
            }
        }
        if let Some(t) = &d.tool_schema {
            out.push('\n');
            out.push_str(&style.heading("tool schema"));
            out.push_str(&format!("\n  {}\n", super::tool_schema::directory_line(t)));
            let shown = super::tool_schema::SHOWN_CHANGES;
            for line in self.schema.iter().take(shown) {
                out.push_str(&format!("  {line}\n"));
            }
            if self.schema.len() > shown {
                out.push_str(&format!(
                    "  … {} more in --format json\n",
                    self.schema.len() - shown
                ));
            }
        }

        let mut agg = crate::text::table(vec![
            "axis",
            "none",
            "minor",
            "moderate",
            "severe",
            "median change",
        ]);
        for a in &d.aggregate.axes {
            agg.add_row(vec![
                Cell::new(a.axis.wire()),
                right(a.none.to_string()),
                right(a.minor.to_string()),
                right(a.moderate.to_string()),
                right(a.severe.to_string()),
                right(change(a.axis, a.median_delta)),
            ]);
        }
        out.push('\n');
        out.push_str(&style.heading("severity per axis across trace pairs"));
        out.push('\n');
        out.push_str(&crate::text::render_table(&mut agg));
        out.push('\n');
        out.push_str(
            &fingerprint_section(d.fingerprint.as_ref(), style).replacen(
                "(Hotelling T² over 12 dimensions)",
                "(Hotelling T² over 12 dimensions, every response of every pair pooled)",
                1,
            ),
        );
        for (side, files) in [
            ("baseline", &d.unmatched.baseline_only),
            ("candidate", &d.unmatched.candidate_only),
        ] {
            for f in files {
                out.push_str(&style.warn(&format!(
                    "unmatched: {f} exists only in the {side} directory"
                )));
                out.push('\n');
            }
        }
        for w in &self.warnings {
            out.push_str(w);
            out.push('\n');
        }
        if let Some(q) = &d.quarantine {
            out.push_str(&style.dim(&quarantine::summary_line(q)));
            out.push('\n');
        }
        for w in quarantine::expired_warnings(d.quarantine.as_ref()) {
            out.push_str(&style.warn(&format!("warning: {w}")));
            out.push('\n');
        }
        out.push_str(&tripped_line(verdict, style));
        out.push_str(&style.dim("per-pair details: --format json (or markdown)"));
        out.push('\n');
        out
    }
}
