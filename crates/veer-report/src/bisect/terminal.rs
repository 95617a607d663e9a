//! `veer bisect` on a terminal: the answer, the design, the change per measure, then each
//! factor's effects (implicated ones marked), the interactions and the run statuses.

use super::{answer, design_line, interval, is_plan, num};
use crate::style::Style;
use std::collections::BTreeMap;
use veer_contract::bisect::{BisectReport, Effect};

fn pad(s: &str, w: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(w.saturating_sub(n)))
}

fn effect_rows(out: &mut String, effects: &[Effect], style: Style) {
    let w = effects
        .iter()
        .map(|e| e.measure.chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    out.push_str(&style.dim(&format!(
        "  {}  {}  {}  {}\n",
        pad("measure", w),
        pad("effect [CI]", 26),
        pad("", 12),
        "share [CI]"
    )));
    for e in effects {
        let eff = format!("{} {}", num(e.estimate), interval(e.ci));
        let mark = if e.implicated {
            style.bad(&pad("implicated", 12))
        } else {
            pad("", 12)
        };
        let share = match e.share {
            Some(s) => format!("{} {}", num(s), interval(e.share_ci)),
            None => "—".into(),
        };
        out.push_str(&format!(
            "  {}  {}  {}  {}\n",
            pad(&e.measure, w),
            pad(&eff, 26),
            mark,
            share
        ));
    }
}

/// The report for a terminal (colour only when `style` says so).
pub fn render(report: &BisectReport, style: Style) -> String {
    let mut out = String::new();
    out.push_str(&style.heading("veer bisect"));
    out.push_str(": ");
    out.push_str(&answer(report));
    out.push_str("\n\n");
    out.push_str(&format!("design: {}\n", design_line(report)));
    out.push_str(&style.dim(&format!("aliasing: {}\n", report.design.aliasing)));
    out.push_str(&style.dim(
        "intervals (CI): bootstrap over trials, 95% family-wise per measure (Bonferroni over its terms)\n",
    ));
    if is_plan(report) {
        out.push_str("\npoints (A = baseline value, B = candidate value):\n");
        for p in &report.design.points {
            out.push_str(&format!(
                "  {}  {}  {}\n",
                p.id,
                p.levels.join(""),
                p.config
            ));
        }
        out.push_str("\nfactors:\n");
        for (i, f) in report.factors.iter().enumerate() {
            out.push_str(&format!(
                "  {:>2}. `{}`: {}\n",
                i + 1,
                f.name,
                f.paths.join(", ")
            ));
        }
        return out;
    }
    let mut statuses: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &report.runs {
        *statuses.entry(r.status.as_str()).or_default() += 1;
    }
    let counts: Vec<String> = statuses.iter().map(|(s, n)| format!("{s} {n}")).collect();
    out.push_str(&format!(
        "runs: {} ({})\n\n",
        report.runs.len(),
        counts.join(", ")
    ));
    let w = report
        .measures
        .iter()
        .map(|m| m.measure.chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    out.push_str(&style.dim(&format!(
        "{}  {}  {}\n",
        pad("measure", w),
        pad("A → B (means)", 24),
        "modelled change [CI]"
    )));
    for m in &report.measures {
        out.push_str(&format!(
            "{}  {}  {} {}\n",
            pad(&m.measure, w),
            pad(
                &format!("{} → {} {}", num(m.baseline), num(m.candidate), m.unit),
                24
            ),
            num(m.change),
            interval(m.change_ci)
        ));
    }
    for f in &report.factors {
        out.push_str(&format!(
            "\n{} ({})\n",
            style.heading(&format!("factor `{}`", f.name)),
            f.paths.join(", ")
        ));
        effect_rows(&mut out, &f.effects, style);
    }
    for i in &report.interactions {
        out.push_str(&format!(
            "\n{}\n",
            style.heading(&format!("interaction `{}`", i.factors.join("` × `")))
        ));
        effect_rows(&mut out, &i.effects, style);
    }
    for r in report.runs.iter().filter(|r| !r.warnings.is_empty()) {
        for w in &r.warnings {
            out.push_str(&style.warn(&format!("\nwarning: {} trial {}: {w}", r.point, r.trial)));
        }
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}
