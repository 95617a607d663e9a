//! `veer replay`'s printers: the summary of each recording replayed — turns served from the
//! recording and turns sent live, and where the agent's requests first differed — for a
//! terminal, as JSON, as Markdown (a CI comment) or as one HTML page. Divergence values arrive
//! redacted in the report; printers only format them.

use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use veer_contract::replay::{ReplayReport, ReplayRun};

/// Formats `veer replay` offers for its summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ReplayFormat {
    /// A few lines per recording.
    Terminal,
    /// JSON: {schema_version, runs, diverged} (`veer schema replay`).
    Json,
    /// A Markdown table and the divergences.
    Markdown,
    /// One self-contained HTML page.
    Html,
}

impl OutputFormat<ReplayReport> for ReplayFormat {
    fn printer(self, style: Style) -> Box<dyn Printer<ReplayReport>> {
        match self {
            ReplayFormat::Terminal => Box::new(move |r: &ReplayReport| terminal(r, style)),
            ReplayFormat::Json => Box::new(|r: &ReplayReport| crate::json::to_json(r)),
            ReplayFormat::Markdown => Box::new(markdown),
            ReplayFormat::Html => Box::new(html),
        }
    }
}

fn turns(r: &ReplayRun) -> String {
    let mut s = format!(
        "{} of {} recorded turn(s) served",
        r.turns_served, r.turns_recorded
    );
    if r.turns_live > 0 {
        s.push_str(&format!(", {} live", r.turns_live));
    }
    if let Some(n) = r.branch_at {
        s.push_str(&format!(" (branch at {n})"));
    }
    s
}

fn divergence_line(r: &ReplayRun) -> Option<String> {
    let d = r.divergence.as_ref()?;
    Some(match d.reason.as_str() {
        "extra_call" => format!(
            "turn {}: the agent made a call the recording does not have ({})",
            d.turn, d.endpoint
        ),
        "provider" => format!(
            "turn {}: the recording is of another provider: recorded {}, the agent called {} ({})",
            d.turn,
            d.recorded.as_deref().unwrap_or("?"),
            d.endpoint,
            d.got.as_deref().unwrap_or("?")
        ),
        _ => format!(
            "turn {}: {} differs: recorded {}, got {}",
            d.turn,
            d.path,
            d.recorded.as_deref().unwrap_or("(nothing)"),
            d.got.as_deref().unwrap_or("(nothing)")
        ),
    })
}

fn name(r: &ReplayRun) -> String {
    match (&r.case, r.trial) {
        (Some(c), Some(t)) => format!("{c} trial {t}"),
        (Some(c), None) => c.clone(),
        _ => r.recording.clone(),
    }
}

/// Per recording: its name, the turns, the divergence; then a one-line verdict.
pub fn terminal(r: &ReplayReport, style: Style) -> String {
    let mut out = String::new();
    for run in &r.runs {
        out.push_str(&format!(
            "{} → {}: {}; agent exited {}\n",
            name(run),
            run.output,
            turns(run),
            run.agent_exit_code
        ));
        if let Some(d) = divergence_line(run) {
            out.push_str(&format!("  {}\n", style.bad(&format!("divergence: {d}"))));
        }
    }
    let summary = match r.diverged {
        0 => style.good(&format!(
            "replayed {} recording(s), no divergence",
            r.runs.len()
        )),
        n => style.bad(&format!(
            "replayed {} recording(s), {n} diverged",
            r.runs.len()
        )),
    };
    out.push_str(&summary);
    out.push('\n');
    out
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A table of the recordings and a list of the divergences.
pub fn markdown(r: &ReplayReport) -> String {
    let mut out = format!(
        "## veer replay\n\n{} recording(s) replayed, {} diverged.\n\n| recording | output | served | live | agent exit | divergence |\n|---|---|---:|---:|---:|---|\n",
        r.runs.len(),
        r.diverged
    );
    for run in &r.runs {
        out.push_str(&format!(
            "| {} | {} | {} / {} | {} | {} | {} |\n",
            md_cell(&name(run)),
            md_cell(&run.output),
            run.turns_served,
            run.turns_recorded,
            run.turns_live,
            run.agent_exit_code,
            run.divergence
                .as_ref()
                .map_or("none".to_string(), |d| format!(
                    "turn {} `{}`",
                    d.turn,
                    md_cell(&d.path)
                ))
        ));
    }
    let lines: Vec<String> = r
        .runs
        .iter()
        .filter_map(|run| {
            divergence_line(run).map(|d| format!("- **{}**: {}", md_cell(&name(run)), md_cell(&d)))
        })
        .collect();
    if !lines.is_empty() {
        out.push_str("\n### Divergences\n\n");
        out.push_str(&lines.join("\n"));
        out.push('\n');
    }
    out
}

/// One page: a table of the recordings, then each divergence.
pub fn html(r: &ReplayReport) -> String {
    use maud::html;
    crate::html::page(
        "veer replay",
        html! {
            h1 { "veer replay" }
            p { (r.runs.len()) " recording(s) replayed, " (r.diverged) " diverged." }
            table class="sortable" {
                thead { tr { th { "recording" } th { "output" } th class="num" { "served" } th class="num" { "recorded" } th class="num" { "live" } th class="num" { "agent exit" } th { "divergence" } } }
                tbody {
                    @for run in &r.runs {
                        tr {
                            td class="mono" { (name(run)) }
                            td class="mono" { (run.output) }
                            td class="num" { (run.turns_served) }
                            td class="num" { (run.turns_recorded) }
                            td class="num" { (run.turns_live) }
                            td class="num" { (run.agent_exit_code) }
                            td { (divergence_line(run).unwrap_or_else(|| "none".into())) }
                        }
                    }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::replay::ReplayDivergence;

    fn report(divergence: Option<ReplayDivergence>) -> ReplayReport {
        ReplayReport {
            schema_version: "1".into(),
            diverged: u64::from(divergence.is_some()),
            runs: vec![ReplayRun {
                recording: "run.agentlog".into(),
                recording_id: "sha256:x".into(),
                output: "new.agentlog".into(),
                case: None,
                trial: None,
                turns_recorded: 3,
                turns_served: 1,
                turns_live: 0,
                branch_at: None,
                on_divergence: "fail".into(),
                divergence,
                agent_exit_code: 1,
            }],
        }
    }

    #[test]
    fn every_format_names_the_divergence() {
        let d = ReplayDivergence {
            turn: 1,
            endpoint: "openai.chat_completions".into(),
            reason: "content".into(),
            path: "messages[3].content".into(),
            recorded: Some("\"3\"".into()),
            got: Some("\"4\"".into()),
        };
        let r = report(Some(d));
        let style = Style { colour: false };
        let t = ReplayFormat::Terminal.print(&r, style);
        assert!(
            t.contains("1 of 3 recorded turn(s) served")
                && t.contains("turn 1: messages[3].content differs: recorded \"3\", got \"4\""),
            "{t}"
        );
        assert!(t.ends_with("replayed 1 recording(s), 1 diverged\n"));
        assert!(ReplayFormat::Markdown
            .print(&r, style)
            .contains("turn 1 `messages[3].content`"));
        assert!(ReplayFormat::Html
            .print(&r, style)
            .contains("messages[3].content differs"));
        let j: serde_json::Value =
            serde_json::from_str(&ReplayFormat::Json.print(&r, style)).unwrap();
        assert_eq!(j["runs"][0]["divergence"]["path"], "messages[3].content");
        assert!(ReplayFormat::Terminal
            .print(&report(None), style)
            .contains("no divergence"));
    }
}
