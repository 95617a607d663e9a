//! The Markdown report of an experiment: traxr's `to_report("md")` layout (spec
//! `experiment.md` §11.4) — fingerprint, summary in a code block, the Pairs table with traxr's
//! cell rules and the manifestation legend — followed by veer's breakdowns by perturbation
//! and by manifestation group, and the runs that could not be measured. For pull-request
//! comments and experiment notebooks.

use super::cells::{
    control_flow, fixed, floor_mark, percent, percent_opt, perturbation_row, t_star, tokens,
    tristate, PERTURBATION_COLUMNS, UNKNOWN,
};
use super::summary::summary_text;
use veer_base::pystr::py_str;
use veer_contract::experiment::ExperimentReport;
use veer_contract::experiment::Manifestation;

/// Escapes what would break a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn opt_cell(s: Option<&str>) -> String {
    s.map_or_else(|| UNKNOWN.to_string(), cell)
}

/// The Pairs table header (traxr's).
pub(crate) const PAIRS_HEADER: &str = "| item | perturbation | status | d_norm | <=floor | t* | \
     manifestation | answer_changed | recovery | control flow | tokens |";

/// One row of the Pairs table.
pub(crate) fn pair_row(p: &veer_contract::experiment::PairResult) -> String {
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        opt_cell(p.item_id.as_deref()),
        opt_cell(p.perturbation.as_deref()),
        cell(&p.status_perturbed),
        fixed(p.d_norm, 4),
        floor_mark(p.within_noise_floor),
        t_star(p),
        p.manifestation.map_or(UNKNOWN, |m| m.name()),
        tristate(p.answer_changed),
        tristate(p.recovery),
        control_flow(p.control_flow_changes.as_ref()),
        tokens(p.token_overhead),
    )
}

/// Renders the whole report; ends with one newline.
pub fn render(r: &ExperimentReport) -> String {
    let mut lines: Vec<String> = vec![
        "# veer experiment report".into(),
        String::new(),
        "## Fingerprint".into(),
        String::new(),
    ];
    let mut keys: Vec<&String> = r.fingerprint.keys().collect();
    keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    for key in keys {
        lines.push(format!("- **{key}**: {}", py_str(&r.fingerprint[key])));
    }
    lines.extend([
        String::new(),
        "## Summary".into(),
        String::new(),
        "```".into(),
        summary_text(r),
        "```".into(),
        String::new(),
    ]);
    let noise = super::summary::noise_text(r);
    if !noise.is_empty() {
        lines.extend(["```".into(), noise, "```".into(), String::new()]);
    }
    lines.extend([
        "## Pairs".into(),
        String::new(),
        PAIRS_HEADER.into(),
        "|---|---|---|---|---|---|---|---|---|---|---|".into(),
    ]);
    lines.extend(r.pairs.iter().map(pair_row));
    lines.push(String::new());

    let prevalence = &r.aggregates.manifestation_prevalence;
    if !prevalence.is_empty() {
        lines.extend(["## Manifestations".into(), String::new()]);
        for (category, fraction) in prevalence {
            let desc = Manifestation::from_name(category).map_or("", Manifestation::description);
            lines.push(format!(
                "- **{category}** ({}) — {desc}",
                percent(*fraction)
            ));
        }
        lines.push(String::new());
    }

    lines.extend([
        "## By perturbation".into(),
        String::new(),
        format!("| {} |", PERTURBATION_COLUMNS.join(" | ")),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|".into(),
    ]);
    for a in &r.aggregates.by_perturbation {
        let row: Vec<String> = perturbation_row(a).iter().map(|c| cell(c)).collect();
        lines.push(format!("| {} |", row.join(" | ")));
    }
    lines.push(String::new());

    lines.extend([
        "## By manifestation group".into(),
        String::new(),
        "| group | pairs | share |".into(),
        "|---|---:|---:|".into(),
    ]);
    for g in &r.aggregates.by_manifestation_group {
        lines.push(format!(
            "| {} | {} | {} |",
            g.group.name(),
            g.pairs,
            percent_opt(g.fraction)
        ));
    }
    lines.push(String::new());

    let warnings: Vec<String> = r
        .pairs
        .iter()
        .filter(|p| p.status_perturbed != "error")
        .flat_map(|p| {
            let who = format!(
                "{} / {}",
                p.item_id.as_deref().unwrap_or(UNKNOWN),
                p.perturbation.as_deref().unwrap_or(UNKNOWN)
            );
            p.warnings
                .iter()
                .map(move |w| format!("- {}: {}", cell(&who), cell(w)))
        })
        .collect();
    if !warnings.is_empty() {
        lines.extend(["## Warnings".into(), String::new()]);
        lines.extend(warnings);
        lines.push(String::new());
    }
    if !r.errors.is_empty() {
        lines.extend(["## Errors".into(), String::new()]);
        lines.extend(r.errors.iter().map(|e| format!("- {}", cell(e))));
        lines.push(String::new());
    }
    lines.join("\n")
}
