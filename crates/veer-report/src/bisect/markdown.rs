//! `veer bisect --format markdown`: the answer, the design, then tables of the change per
//! measure and of each factor's effects (for a pull-request comment).

use super::{answer, design_line, interval, is_plan, num};
use veer_contract::bisect::{BisectReport, Effect};

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn effects_table(out: &mut String, effects: &[Effect]) {
    out.push_str("| measure | effect | CI | share | share CI | implicated |\n");
    out.push_str("|---|---:|---|---:|---|---|\n");
    for e in effects {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            cell(&e.measure),
            num(e.estimate),
            interval(e.ci),
            e.share.map_or("—".into(), num),
            interval(e.share_ci),
            if e.implicated { "**yes**" } else { "no" }
        ));
    }
}

/// The report in Markdown.
pub fn render(report: &BisectReport) -> String {
    let mut out = String::from("## veer bisect\n\n");
    out.push_str(&cell(&answer(report)));
    out.push_str("\n\n");
    out.push_str(&format!(
        "**Design**: {}. Aliasing: {}.\n\n",
        design_line(report),
        report.design.aliasing
    ));
    if is_plan(report) {
        out.push_str("| point | levels | configuration |\n|---|---|---|\n");
        for p in &report.design.points {
            out.push_str(&format!(
                "| {} | {} | `{}` |\n",
                p.id,
                p.levels.join(""),
                cell(&p.config)
            ));
        }
        out.push_str("\n| factor | paths |\n|---|---|\n");
        for f in &report.factors {
            out.push_str(&format!(
                "| `{}` | {} |\n",
                cell(&f.name),
                cell(&f.paths.join(", "))
            ));
        }
        return out;
    }
    out.push_str("| measure | A | B | modelled change | CI |\n|---|---:|---:|---:|---|\n");
    for m in &report.measures {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            cell(&m.measure),
            num(m.baseline),
            num(m.candidate),
            num(m.change),
            interval(m.change_ci)
        ));
    }
    for f in &report.factors {
        out.push_str(&format!(
            "\n### Factor `{}`\n\nPaths: {}\n\n",
            cell(&f.name),
            cell(&f.paths.join(", "))
        ));
        effects_table(&mut out, &f.effects);
    }
    for i in &report.interactions {
        out.push_str(&format!(
            "\n### Interaction `{}`\n\n",
            cell(&i.factors.join("` × `"))
        ));
        effects_table(&mut out, &i.effects);
    }
    out
}
