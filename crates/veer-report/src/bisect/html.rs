//! `veer bisect --format html`: one self-contained page with the answer, the design and the
//! tables of the Markdown report.

use super::{answer, design_line, interval, is_plan, num};
use crate::html::page;
use maud::{html, Markup};
use veer_contract::bisect::{BisectReport, Effect};

fn effects_table(effects: &[Effect]) -> Markup {
    html! {
        table {
            thead { tr { th { "measure" } th { "effect" } th { "CI" } th { "share" } th { "share CI" } th { "implicated" } } }
            tbody {
                @for e in effects {
                    tr {
                        td class="mono" { (e.measure) }
                        td { (num(e.estimate)) }
                        td { (interval(e.ci)) }
                        td { (e.share.map_or("—".into(), num)) }
                        td { (interval(e.share_ci)) }
                        td { @if e.implicated { strong { "yes" } } @else { "no" } }
                    }
                }
            }
        }
    }
}

/// The report as an HTML page.
pub fn render(report: &BisectReport) -> String {
    let body = html! {
        h1 { "veer bisect" }
        p class="answer" { (answer(report)) }
        p { strong { "Design: " } (design_line(report)) ". Aliasing: " (report.design.aliasing) "." }
        @if is_plan(report) {
            table {
                thead { tr { th { "point" } th { "levels" } th { "configuration" } } }
                tbody { @for p in &report.design.points { tr { td { (p.id) } td class="mono" { (p.levels.join("")) } td class="mono" { (p.config) } } } }
            }
        } @else {
            h2 { "Change per measure" }
            table {
                thead { tr { th { "measure" } th { "A" } th { "B" } th { "modelled change" } th { "CI" } } }
                tbody {
                    @for m in &report.measures {
                        tr { td class="mono" { (m.measure) } td { (num(m.baseline)) } td { (num(m.candidate)) } td { (num(m.change)) } td { (interval(m.change_ci)) } }
                    }
                }
            }
            @for f in &report.factors {
                h2 { "Factor " code { (f.name) } }
                p class="muted" { "Paths: " (f.paths.join(", ")) }
                (effects_table(&f.effects))
            }
            @for i in &report.interactions {
                h2 { "Interaction " code { (i.factors.join(" × ")) } }
                (effects_table(&i.effects))
            }
        }
    };
    page("veer bisect", body)
}
