//! `veer policy suggest --from`'s printers: the policy file itself (YAML, each kept rule under
//! comments saying why it was written and where it fires; the rules that were not kept listed
//! as comments at the end), the JSON document (`veer schema policy-suggest`), and a terminal
//! summary. The rules and whether each is kept come from `veer-policy`; printers only format.

use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use crate::text::preview;
use comfy_table::Cell;
use veer_contract::suggestion::{SuggestReport, SuggestedRule};

/// Formats `veer policy suggest` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum SuggestFormat {
    /// The policy file: kept rules with comments (YAML, loads with `veer policy validate`).
    Yaml,
    /// JSON: every proposed rule and what checking it found.
    Json,
    /// A summary table for a terminal.
    Terminal,
}

impl OutputFormat<SuggestReport> for SuggestFormat {
    fn printer(self, style: Style) -> Box<dyn Printer<SuggestReport>> {
        match self {
            SuggestFormat::Yaml => Box::new(policy_file),
            SuggestFormat::Json => Box::new(|r: &SuggestReport| crate::json::to_json(r)),
            SuggestFormat::Terminal => Box::new(move |r: &SuggestReport| terminal(r, style)),
        }
    }
}

/// The longest violation detail quoted in a comment or a cell, in characters.
const DETAIL_CHARS: usize = 100;

fn comment_lines(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        out.push_str(indent);
        out.push_str("# ");
        out.push_str(line);
        out.push('\n');
    }
}

fn where_it_fires(r: &SuggestedRule) -> String {
    let mut s = format!(
        "fires on {} changed run(s): {}",
        r.fires_on.len(),
        preview(&r.fires_on.join(", "), DETAIL_CHARS)
    );
    if let Some(v) = &r.first_violation {
        s.push_str(&format!("\n  {}", preview(v, DETAIL_CHARS)));
    }
    s
}

fn why_dropped(r: &SuggestedRule) -> String {
    if !r.fires_on_baseline.is_empty() {
        format!(
            "fires on {} baseline run(s): {}",
            r.fires_on_baseline.len(),
            preview(&r.fires_on_baseline.join(", "), DETAIL_CHARS)
        )
    } else {
        "fires on no changed run".to_string()
    }
}

/// The policy file.
pub fn policy_file(r: &SuggestReport) -> String {
    let mut out = String::new();
    let kept: Vec<&SuggestedRule> = r.kept().collect();
    comment_lines(
        &mut out,
        "",
        &format!(
            "Rules written by `veer policy suggest` from {} (a {} report).\nEach fires on a changed run and on none of the {} baseline run(s) it was checked against.\nRead them before you commit them: they say what the baseline did, not what it must do.",
            r.from, r.report_kind, r.baseline_runs
        ),
    );
    for w in &r.warnings {
        comment_lines(&mut out, "", &format!("warning: {w}"));
    }
    out.push_str("apiVersion: shadow.dev/v1alpha1\n");
    if kept.is_empty() {
        out.push_str("rules: []\n");
    } else {
        out.push_str("rules:\n");
    }
    for (i, rule) in kept.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        comment_lines(&mut out, "  ", &rule.rationale);
        comment_lines(&mut out, "  ", &where_it_fires(rule));
        for line in rule.yaml.lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    let dropped: Vec<&SuggestedRule> = r.rules.iter().filter(|x| !x.kept).collect();
    if !dropped.is_empty() {
        out.push('\n');
        comment_lines(&mut out, "", "Proposed but not kept:");
        for d in dropped {
            comment_lines(
                &mut out,
                "",
                &format!("  {} ({}): {}", d.id, d.kind.name(), why_dropped(d)),
            );
        }
    }
    out
}

/// The summary for a terminal.
pub fn terminal(r: &SuggestReport, style: Style) -> String {
    let mut out = String::new();
    let kept = r.kept().count();
    out.push_str(&style.heading(&format!(
        "veer policy suggest from {}: {kept} rule(s) kept of {} proposed",
        r.from,
        r.rules.len()
    )));
    out.push('\n');
    out.push_str(&format!(
        "{} changed case(s), {} changed run(s), checked against {} baseline run(s)\n",
        r.regressed_cases.len(),
        r.candidate_runs,
        r.baseline_runs
    ));
    for w in &r.warnings {
        out.push_str(&style.warn(&format!("warning: {w}")));
        out.push('\n');
    }
    if r.rules.is_empty() {
        return out;
    }
    let mut table = crate::text::table(vec!["rule", "kind", "kept", "why", "evidence"]);
    for x in &r.rules {
        let evidence = if x.kept {
            x.first_violation
                .as_deref()
                .map(|v| preview(v, DETAIL_CHARS))
                .unwrap_or_default()
        } else {
            why_dropped(x)
        };
        table.add_row(vec![
            Cell::new(&x.id),
            Cell::new(x.kind.name()),
            Cell::new(if x.kept { "yes" } else { "no" }),
            Cell::new(preview(&x.rationale, DETAIL_CHARS)),
            Cell::new(evidence),
        ]);
    }
    out.push_str(&table.to_string());
    out.push('\n');
    out
}
