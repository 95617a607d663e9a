//! The Markdown rendering of a diff, written to be posted as a pull-request comment.

use super::fingerprint;
use super::format::{
    axis_meaning, badge, change, flags, interval, pair_changes, percent, structural, value,
};
use super::meaning::what_this_means;
use super::quarantine;
use super::stream::DirectoryPrinter;
use super::SHOWN_DIVERGENCES;
use veer_base::Level;
use veer_contract::diff::DiffReport;
use veer_contract::diff::DirectoryPair;
use veer_contract::diff::DirectorySummary;
use veer_contract::fingerprint::FingerprintBlock;
use veer_contract::recommend::RecSeverity;
use veer_contract::verdict::Verdict;

/// The headline's verdict paragraph: whether the gate failed, passed or is off, and what
/// tripped it (naming the traces in directory mode).
pub(crate) fn verdict_paragraph(v: &Verdict) -> String {
    let threshold = v.fail_on.threshold_name();
    let head = if v.tripped {
        format!("**Gate: \u{274c} failed** (`--fail-on {threshold}`)")
    } else if v.unreadable > 0 {
        format!("**Gate: \u{274c} incomplete** (`--fail-on {threshold}`)")
    } else if v.fail_on == veer_base::Level::None {
        "**Gate: off** (`--fail-on never`)".to_string()
    } else {
        format!("**Gate: \u{2705} passed** (`--fail-on {threshold}`)")
    };
    let mut out = format!("{head}; worst signal {}.", v.worst.name());
    if v.tripped {
        out.push_str(" Tripped by:\n\n");
        for t in v.trips.iter().take(MAX_TABLE_ROWS) {
            out.push_str(&format!("- {}: {}\n", cell(&t.label()), cell(&t.reason)));
        }
        if v.trips.len() > MAX_TABLE_ROWS {
            out.push_str(&format!(
                "- _{} more in `--format json`_\n",
                v.trips.len() - MAX_TABLE_ROWS
            ));
        }
    } else {
        out.push('\n');
    }
    if !v.quarantined.is_empty() {
        out.push_str("\nQuarantined (measured, not gating):\n\n");
        for t in v.quarantined.iter().take(MAX_TABLE_ROWS) {
            out.push_str(&format!("- {}: {}\n", cell(&t.label()), cell(&t.reason)));
        }
        if v.quarantined.len() > MAX_TABLE_ROWS {
            out.push_str(&format!(
                "- _{} more_\n",
                v.quarantined.len() - MAX_TABLE_ROWS
            ));
        }
    }
    out.push('\n');
    out
}

/// Escapes characters that would break a table cell or inline formatting.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn body(r: &DiffReport, level: &str, out: &mut String) {
    out.push_str(&format!("**{}**\n\n", cell(&r.headline)));
    out.push_str(&format!(
        "**Baseline** `{}` · **Candidate** `{}` · {} response pair(s) · pairing by {}{} · seed {}\n\n",
        r.baseline.path,
        r.candidate.path,
        r.pair_count,
        r.pairing.label(),
        if r.pairing_requested == veer_contract::divergence::PairBy::Auto {
            " (auto)"
        } else {
            ""
        },
        r.seed
    ));
    out.push_str(&format!("{level} What this means\n\n"));
    for s in what_this_means(r) {
        out.push_str(&format!("> {s}\n"));
    }
    out.push('\n');
    for w in &r.warnings {
        out.push_str(&format!("> ⚠️ {}\n", cell(w)));
    }
    if !r.warnings.is_empty() {
        out.push('\n');
    }
    out.push_str(
        "| axis | measures | baseline | candidate | change | 95% CI | severity | n | changed pairs |\n",
    );
    out.push_str("|---|---|---:|---:|---:|---|---|---:|---|\n");
    for a in &r.axes {
        let notes = flags(a);
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {}{}{} | {} | {} |\n",
            a.axis.wire(),
            axis_meaning(a.axis),
            value(a.axis, a.baseline_median),
            value(a.axis, a.candidate_median),
            change(a.axis, a.delta),
            interval(a),
            badge(a.severity),
            if a.direction == veer_contract::axis::Direction::Improvement {
                " improvement"
            } else {
                ""
            },
            if notes.is_empty() {
                String::new()
            } else {
                format!(" _({notes})_")
            },
            a.n,
            cell(&pair_changes(a))
        ));
    }
    out.push('\n');

    out.push_str(&format!("{level} Where it diverges\n\n"));
    match &r.first_divergence {
        None => out.push_str("No divergence above the noise floor.\n\n"),
        Some(d) => out.push_str(&format!(
            "**First divergence:** baseline turn `#{}` ↔ candidate turn `#{}` — **{}** on `{}` ({} confidence)\n\n> {}\n\n",
            d.baseline_turn,
            d.candidate_turn,
            d.kind.label(),
            d.primary_axis.wire(),
            percent(d.confidence),
            d.explanation
        )),
    }
    if !r.divergences.is_empty() {
        let shown = r.divergences.len().min(SHOWN_DIVERGENCES);
        out.push_str(&format!(
            "Top {shown} of {} ranked divergences:\n\n",
            r.divergences.len()
        ));
        for (i, d) in r.divergences.iter().take(SHOWN_DIVERGENCES).enumerate() {
            out.push_str(&format!(
                "{}. baseline `#{}` ↔ candidate `#{}` · **{}** · `{}` · {} — {}\n",
                i + 1,
                d.baseline_turn,
                d.candidate_turn,
                d.kind.label(),
                d.primary_axis.wire(),
                percent(d.confidence),
                d.explanation
            ));
        }
        out.push('\n');
    }

    if let Some(s) = &r.structural {
        out.push_str(&format!(
            "**Event-level structure:** {}\n\n",
            cell(&structural(s))
        ));
    }
    out.push_str(&fingerprint_line(
        r.fingerprint.as_ref(),
        "Behaviour fingerprint",
    ));
    if let Some(p) = &r.policy {
        out.push_str(&crate::policy::markdown::diff_section(p, level));
    }
    if let Some(e) = &r.enforcement {
        out.push_str(&crate::policy::markdown::live_section(e, level));
    }
    if let Some(t) = &r.tool_schema {
        out.push_str(&super::tool_schema::markdown_section(t, level));
    }

    if !r.recommendations.is_empty() {
        out.push_str(&format!("{level} Recommendations\n\n"));
        for rec in &r.recommendations {
            let icon = match rec.severity {
                RecSeverity::Error => "🔴 **error**",
                RecSeverity::Warning => "🟡 **warning**",
                RecSeverity::Info => "🔵 **info**",
            };
            out.push_str(&format!(
                "- {icon} — {}\n  <sub>{}{}</sub>\n",
                rec.message,
                rec.rationale,
                super::format::evidence(rec)
            ));
        }
        out.push('\n');
    }

    if !r.drill_down.is_empty() {
        out.push_str("<details><summary>Most changed pairs</summary>\n\n");
        out.push_str("| pair | baseline turn | candidate turn | score | biggest mover |\n");
        out.push_str("|---:|---:|---:|---:|---|\n");
        for p in &r.drill_down {
            out.push_str(&format!(
                "| {} | {} | {} | {:.2} | {} |\n",
                p.pair_index,
                p.baseline_turn,
                p.candidate_turn,
                p.regression_score,
                p.dominant_axis.wire()
            ));
        }
        out.push_str("\n</details>\n");
    }
}

/// The behaviour-fingerprint paragraph: verdict and the dimensions that moved most.
fn fingerprint_line(block: Option<&FingerprintBlock>, title: &str) -> String {
    let Some(b) = block else {
        return format!(
            "**{title} (Hotelling T²):** not tested (needs at least 2 responses a side)\n\n"
        );
    };
    let mut out = format!(
        "**{title} (Hotelling T²):** {}\n",
        cell(&fingerprint::summary(b))
    );
    let movers = fingerprint::movers(b);
    if !movers.is_empty() {
        let named: Vec<String> = movers.iter().map(|m| format!("`{m}`")).collect();
        out.push_str(&format!(
            "— {}: {}\n",
            fingerprint::movers_label(b),
            named.join(", ")
        ));
    }
    out.push('\n');
    out
}

/// Renders one diff as a Markdown comment, headed by its verdict.
pub fn render(r: &DiffReport, verdict: &Verdict) -> String {
    let mut out = format!("## veer diff: {} regression\n\n", badge(r.worst_regression));
    out.push_str(&verdict_paragraph(verdict));
    body(r, "###", &mut out);
    out
}

/// The Markdown printer of a streamed directory diff. A comment is capped
/// (`MAX_TABLE_ROWS`, `MAX_DETAILED_PAIRS`), so it holds at most that many rendered rows
/// and sections whatever the number of pairs; everything is written at the end, after the
/// heading that needs the summary.
#[derive(Debug, Default)]
pub struct DirectoryComment {
    /// Pairs seen.
    pairs: usize,
    /// The first [`MAX_TABLE_ROWS`] table rows (without their policy cell and line end).
    rows: Vec<String>,
    /// Each row's policy cell: the pair's policy regressions, None without a policy.
    policy: Vec<Option<String>>,
    /// Pairs that changed (moderate or worse, or a first divergence).
    changed: usize,
    /// The sections of the first [`MAX_DETAILED_PAIRS`] changed pairs.
    details: String,
}

impl DirectoryPrinter for DirectoryComment {
    fn pair(&mut self, p: &DirectoryPair, _: &Verdict) -> String {
        let r = &p.report;
        self.pairs += 1;
        if self.pairs <= MAX_TABLE_ROWS {
            let moved: Vec<&str> = r
                .axes
                .iter()
                .filter(|a| a.severity >= Level::Moderate)
                .map(|a| a.axis.wire())
                .collect();
            self.policy.push(r.policy.as_ref().map(|d| {
                if d.regressions.is_empty() {
                    "-".to_string()
                } else {
                    let ids: Vec<String> = d
                        .regressions
                        .iter()
                        .map(|v| format!("{} ({})", v.rule_id, v.severity.name()))
                        .collect();
                    cell(&ids.join(", "))
                }
            }));
            self.rows.push(format!(
                "| `{}`{} | {} | {} | {} | {} |",
                p.baseline,
                p.quarantined.as_ref().map_or(String::new(), |m| format!(
                    " ({})",
                    cell(&quarantine::tag(m))
                )),
                r.pair_count,
                badge(r.worst_regression),
                if moved.is_empty() {
                    "-".to_string()
                } else {
                    moved.join(", ")
                },
                r.first_divergence
                    .as_ref()
                    .map_or("-".to_string(), |f| cell(&format!(
                        "#{}↔#{} {}: {}",
                        f.baseline_turn,
                        f.candidate_turn,
                        f.kind.label(),
                        f.explanation
                    )))
            ));
        }
        // Details for the pairs that changed, capped so the comment stays postable.
        if r.worst_severity >= Level::Moderate
            || r.first_divergence.is_some()
            || r.tool_schema.is_some()
        {
            self.changed += 1;
            if self.changed <= MAX_DETAILED_PAIRS {
                self.details.push_str(&format!(
                    "\n<details><summary><code>{}</code> — {}{}</summary>\n\n",
                    p.baseline,
                    badge(r.worst_regression),
                    if p.quarantined.is_some() {
                        " (quarantined)"
                    } else {
                        ""
                    }
                ));
                body(r, "####", &mut self.details);
                self.details.push_str("\n</details>\n");
            }
        }
        String::new()
    }

    fn finish(self: Box<Self>, d: &DirectorySummary, verdict: &Verdict) -> String {
        let mut out = format!(
            "## veer diff: {} trace pair(s), worst regression {}\n\n",
            d.aggregate.trace_pairs,
            badge(d.aggregate.worst_regression)
        );
        out.push_str(&verdict_paragraph(verdict));
        if let Some(q) = &d.quarantine {
            out.push_str(&format!("_{}._\n\n", cell(&quarantine::summary_line(q))));
        }
        let mut expired = quarantine::expired_warnings(d.quarantine.as_ref()).peekable();
        if expired.peek().is_some() {
            for w in expired {
                out.push_str(&format!("- ⚠️ {}\n", cell(w)));
            }
            out.push('\n');
        }
        // The policy column appears when a pair was checked against a policy.
        let with_policy = self.policy.iter().any(Option::is_some);
        if with_policy {
            out.push_str(
                "| trace | pairs | worst regression | moved axes | first divergence | policy regressions |\n|---|---:|---|---|---|---|\n",
            );
        } else {
            out.push_str(
                "| trace | pairs | worst regression | moved axes | first divergence |\n|---|---:|---|---|---|\n",
            );
        }
        for (row, policy) in self.rows.iter().zip(&self.policy) {
            out.push_str(row);
            if with_policy {
                out.push_str(&format!(" {} |", policy.as_deref().unwrap_or("-")));
            }
            out.push('\n');
        }
        if self.pairs > MAX_TABLE_ROWS {
            out.push_str(&format!(
                "\n_{} more trace pair(s) in `--format json`._\n",
                self.pairs - MAX_TABLE_ROWS
            ));
        }
        out.push('\n');
        if !d.errors.is_empty() {
            out.push_str(&format!(
                "### \u{274c} {}\n\nLeft out of the table above, the aggregate and the pooled fingerprint test; each counts as a failure of the gate.\n\n| trace | error | hint |\n|---|---|---|\n",
                crate::policy::unreadable(d.errors.len(), "trace pair")
            ));
            for e in d.errors.iter().take(MAX_TABLE_ROWS) {
                out.push_str(&format!(
                    "| `{}` | {} | {} |\n",
                    e.baseline,
                    cell(&e.error),
                    cell(e.hint.as_deref().unwrap_or(""))
                ));
            }
            if d.errors.len() > MAX_TABLE_ROWS {
                out.push_str(&format!(
                    "\n_{} more in `--format json`._\n",
                    d.errors.len() - MAX_TABLE_ROWS
                ));
            }
            out.push('\n');
        }
        out.push_str(&fingerprint_line(
            d.fingerprint.as_ref(),
            "Behaviour fingerprint, every response of every pair pooled",
        ));
        if let Some(t) = &d.tool_schema {
            out.push_str(&format!(
                "**Tool schema:** {} (details per pair below).\n\n",
                cell(&super::tool_schema::directory_line(t))
            ));
        }
        for (side, files) in [
            ("baseline", &d.unmatched.baseline_only),
            ("candidate", &d.unmatched.candidate_only),
        ] {
            for f in files {
                out.push_str(&format!("- ⚠️ `{f}` exists only in the {side} directory\n"));
            }
        }
        out.push_str(&self.details);
        if self.changed > MAX_DETAILED_PAIRS {
            out.push_str(&format!(
                "\n_{} more changed trace pair(s) have details in `--format json`._\n",
                self.changed - MAX_DETAILED_PAIRS
            ));
        }
        out
    }
}

/// Most trace pairs given a detailed section in a directory comment.
pub(crate) const MAX_DETAILED_PAIRS: usize = 10;

/// Most trace pairs listed in a directory comment's table.
pub(crate) const MAX_TABLE_ROWS: usize = 50;
