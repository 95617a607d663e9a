//! Terminal output of `veer experiment`: for a whole experiment, the summary text of spec
//! `experiment.md` §11.5 unchanged, then tables of the pairs and of the aggregates by
//! perturbation and by manifestation group, then warnings and errors; for one pair, a short
//! readable account of the divergence report (§6) and the pair result (§7–§10). Colour only
//! when `style.colour`.

use super::cells::{
    control_flow, control_flow_fields, fixed, floor_mark, percent_opt, perturbation_row, t_star,
    tokens, tristate, PERTURBATION_COLUMNS, UNKNOWN,
};
use super::summary::summary_text;
use crate::style::Style;
use crate::text::preview;
use crate::text::table;
use comfy_table::{Cell, CellAlignment};
use serde_json::Value;
use veer_contract::experiment::ExperimentReport;
use veer_contract::experiment::PairReport;
use veer_contract::experiment::UNMEASURED_FLOOR_WARNING;

fn right(s: String) -> Cell {
    Cell::new(s).set_alignment(CellAlignment::Right)
}

/// Renders a whole experiment for a terminal.
pub fn render_experiment(r: &ExperimentReport, style: Style) -> String {
    let mut out = summary_text(r);
    out.push('\n');
    let noise = super::summary::noise_text(r);
    if !noise.is_empty() {
        out.push('\n');
        out.push_str(&noise);
        out.push('\n');
    }

    out.push('\n');
    out.push_str(&style.heading("pairs"));
    out.push('\n');
    let mut pairs = table(vec![
        "item",
        "perturbation",
        "status",
        "d_norm",
        "≤floor",
        "t*",
        "t*/T",
        "divergence",
        "manifestation",
        "answer changed",
        "recovery",
        "task success",
        "tokens",
        "control flow",
    ]);
    for p in &r.pairs {
        let status = if p.status_perturbed == "ok" {
            p.status_perturbed.clone()
        } else {
            style.warn(&p.status_perturbed)
        };
        pairs.add_row(vec![
            Cell::new(p.item_id.as_deref().unwrap_or(UNKNOWN)),
            Cell::new(p.perturbation.as_deref().unwrap_or(UNKNOWN)),
            Cell::new(status),
            right(fixed(p.d_norm, 4)),
            Cell::new(floor_mark(p.within_noise_floor)),
            Cell::new(t_star(p)),
            right(fixed(p.t_star_norm, 4)),
            Cell::new(p.divergence_type.as_deref().unwrap_or(UNKNOWN)),
            Cell::new(match (p.manifestation, p.within_noise) {
                (Some(m), Some(true))
                    if m != veer_contract::experiment::Manifestation::NoObservableEffect =>
                {
                    format!("{} (within noise)", m.name())
                }
                (m, _) => m.map_or(UNKNOWN, |m| m.name()).to_string(),
            }),
            Cell::new(tristate(p.answer_changed)),
            Cell::new(tristate(p.recovery)),
            Cell::new(tristate(p.task_success)),
            right(tokens(p.token_overhead)),
            Cell::new(control_flow(p.control_flow_changes.as_ref())),
        ]);
    }
    out.push_str(&crate::text::render_table(&mut pairs));
    out.push('\n');

    out.push('\n');
    out.push_str(&style.heading("by perturbation"));
    out.push('\n');
    let mut by = table(PERTURBATION_COLUMNS.to_vec());
    for a in &r.aggregates.by_perturbation {
        let last = PERTURBATION_COLUMNS.len() - 1;
        by.add_row(perturbation_row(a).into_iter().enumerate().map(|(i, c)| {
            if i == 0 || i == last {
                Cell::new(c)
            } else {
                right(c)
            }
        }));
    }
    out.push_str(&crate::text::render_table(&mut by));
    out.push('\n');

    out.push('\n');
    out.push_str(&style.heading("by manifestation group"));
    out.push('\n');
    let mut groups = table(vec!["group", "pairs", "share"]);
    for g in &r.aggregates.by_manifestation_group {
        groups.add_row(vec![
            Cell::new(g.group.name()),
            right(g.pairs.to_string()),
            right(percent_opt(g.fraction)),
        ]);
    }
    out.push_str(&crate::text::render_table(&mut groups));
    out.push('\n');

    let mut warned = false;
    for p in r.pairs.iter().filter(|p| p.status_perturbed != "error") {
        for w in &p.warnings {
            if !warned {
                out.push('\n');
                warned = true;
            }
            out.push_str(&style.warn(&format!(
                "warning: {} / {}: {w}",
                p.item_id.as_deref().unwrap_or(UNKNOWN),
                p.perturbation.as_deref().unwrap_or(UNKNOWN)
            )));
            out.push('\n');
        }
    }
    if !r.errors.is_empty() {
        out.push('\n');
        out.push_str(&style.bad(&format!(
            "errors ({}): these runs were not measured; the other pairs are complete",
            r.errors.len()
        )));
        out.push('\n');
        for e in &r.errors {
            out.push_str(&format!("  - {e}\n"));
        }
    }
    out.push_str(&style.dim("— = not available; per-pair details: --format json (or csv)"));
    out.push('\n');
    out
}

/// An answer for one line: a raw answer quoted and shortened, a hash as it is.
fn answer(v: Option<&Value>) -> String {
    match v {
        None => "none".into(),
        Some(Value::String(s)) => format!("\"{}\"", preview(s, 60)),
        Some(other) => other.to_string(),
    }
}

/// Renders one pair report for a terminal.
pub fn render_pair(r: &PairReport, style: Style) -> String {
    let mut out = String::new();
    out.push_str(&style.heading("veer experiment pair"));
    out.push('\n');
    if let Some(task) = &r.task_id {
        out.push_str(&format!("  task: {task}\n"));
    }
    if let Some(p) = r.perturbation_type.as_deref().filter(|p| !p.is_empty()) {
        out.push_str(&format!("  perturbation: {p}\n"));
    }
    out.push_str(&format!(
        "  status: baseline {}, perturbed {}\n",
        r.status_baseline, r.status_perturbed
    ));
    let e = &r.edit_distance;
    out.push_str(&format!(
        "  d_norm: {:.4} (edit distance {} over {} → {} events: {} substitution(s), {} insertion(s), {} deletion(s))\n",
        r.d_norm, e.distance, e.baseline_length, e.perturbed_length, e.substitutions, e.insertions, e.deletions
    ));
    match (r.t_star, &r.divergence_type) {
        (Some(step), Some(kind)) => out.push_str(&format!(
            "  first divergence (t*): step {step}, {kind}; t*/T {}\n",
            fixed(r.t_star_norm, 4)
        )),
        _ if r.d_norm > 0.0 => out.push_str(
            "  first divergence (t*): none (the signatures differ only lexically, e.g. a \
             model change)\n",
        ),
        _ => out.push_str("  first divergence (t*): none\n"),
    }
    let c = &r.control_flow_changes;
    let fields = control_flow_fields(c);
    if fields.is_empty() {
        out.push_str("  control flow: no changes\n");
    } else {
        out.push_str(&format!(
            "  control flow: {} change(s) — {}\n",
            c.total_changes,
            control_flow(Some(c))
        ));
        let width = fields.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        for (k, v) in &fields {
            out.push_str(&format!("    {k:<width$}  {v}\n"));
        }
    }
    out.push_str(&format!(
        "  answers: baseline {} → perturbed {}\n",
        answer(r.baseline_answer.as_ref()),
        answer(r.perturbed_answer.as_ref())
    ));
    out.push_str(&format!(
        "  answer changed: {} (scorer: {})\n",
        tristate(Some(r.answer_changed)),
        tristate(Some(r.pair_answer_changed))
    ));
    out.push_str(&format!(
        "  task success: {}\n",
        match r.task_success {
            None => "— (no expected answer, or the perturbed run is not ok)",
            Some(b) => tristate(Some(b)),
        }
    ));
    out.push_str(&format!(
        "  recovery: {}\n",
        match r.recovery {
            None => "— (nothing diverged, or a run is not ok)",
            Some(b) => tristate(Some(b)),
        }
    ));
    out.push_str(&format!(
        "  token overhead: {}\n",
        match r.token_overhead {
            Some(x) => format!("{x:.2}x"),
            None => "unavailable (a run has no token usage)".into(),
        }
    ));
    out.push_str(&format!(
        "  manifestation: {} ({})\n    {}\n",
        style.heading(r.manifestation.name()),
        r.manifestation_group.name(),
        r.manifestation.description()
    ));
    match r.noise_floor {
        Some(floor) => out.push_str(&format!(
            "  noise floor (d_norm): {floor:.4} over {} clean re-run(s); {}\n",
            r.noise_floor_runs,
            match r.within_noise_floor {
                Some(true) => "this pair is within the floor",
                Some(false) => "this pair is above the floor",
                None => "within floor unknown",
            }
        )),
        None if r.agent_kind == "external" => {
            out.push_str(&style.bad(
                "  noise floor (d_norm): UNMEASURED — divergence below the (unknown) \
                 sampling-noise floor may be reported as contamination; pass clean re-runs \
                 with --rerun",
            ));
            out.push('\n');
        }
        None => out.push_str("  noise floor (d_norm): unmeasured (deterministic built-in path)\n"),
    }
    for w in r
        .warnings
        .iter()
        .filter(|w| w.as_str() != UNMEASURED_FLOOR_WARNING)
    {
        out.push_str(&style.warn(&format!("warning: {w}")));
        out.push('\n');
    }
    out
}
