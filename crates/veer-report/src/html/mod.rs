//! The single-file HTML report: inline CSS, a small inline script that only enhances (sorting,
//! opening a linked drill-down) and inline SVG charts; no network reference, no web font. Every
//! section is plain HTML, readable with JavaScript off. Markup comes from `maud` templates;
//! numbers come formatted from the report structs, never computed here.

pub mod check;
pub mod diff;
pub mod experiment;
pub(crate) mod rows;
pub(crate) mod svg;
pub mod trials;

use maud::{html, Markup, PreEscaped, DOCTYPE};

/// The stylesheet, inlined into every page.
const STYLE: &str = include_str!("style.css");
/// The enhancement script, inlined at the end of every page.
const SCRIPT: &str = include_str!("script.js");

/// A complete page: `title` in the head and tab, `body` as the content.
pub fn page(title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content=(concat!("veer ", env!("CARGO_PKG_VERSION")));
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                (body)
                footer class="muted" {
                    p { "Written by veer " (env!("CARGO_PKG_VERSION")) ". Secrets found in the traces are shown as [REDACTED:kind] unless --no-redact was given." }
                }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    }
    .into_string()
        + "\n"
}

/// One error row: (name in the report, file at fault, error, hint).
pub(crate) type ErrorRow<'a> = (&'a str, &'a str, &'a str, Option<&'a str>);

/// The section listing the inputs that could not be read or compared (nothing when there is
/// none): one row each, with the file, the error and its hint.
pub(crate) fn errors_section(title: &str, note: &str, rows: &[ErrorRow<'_>]) -> Markup {
    html! {
        @if !rows.is_empty() {
            section id="errors" {
                h2 { (title) }
                p class="muted" { (note) }
                table class="errors" {
                    thead { tr { th { "trace" } th { "file" } th { "error" } th { "hint" } } }
                    tbody {
                        @for (name, file, error, hint) in rows {
                            tr { td { (badge("severe")) " " (name) } td class="mono" { (file) } td { (error) } td { (hint.unwrap_or("")) } }
                        }
                    }
                }
            }
        }
    }
}

/// A severity badge: `<span class="sev sev-severe">severe</span>`.
pub(crate) fn badge(label: &str) -> Markup {
    html! { span class={ "sev sev-" (label) } { (label) } }
}

/// The verdict box: whether the gate tripped, passed or is off (`--fail-on never`), a detail
/// line and the verdict's line (the gate line the CLI prints on stderr, then what tripped it).
pub(crate) fn gate_box(v: &veer_contract::verdict::Verdict, detail: &str) -> Markup {
    let (class, head) = if v.tripped {
        ("verdict tripped", "Gate tripped")
    } else if v.unreadable > 0 {
        ("verdict tripped", "Incomplete")
    } else if v.fail_on == veer_base::Level::None {
        ("verdict", "Gate off")
    } else {
        ("verdict passed", "Gate passed")
    };
    html! {
        div class=(class) id="verdict" {
            strong { (head) }
            " — " (detail) br;
            span class="mono" { (crate::policy::verdict_line(v)) }
        }
    }
}
