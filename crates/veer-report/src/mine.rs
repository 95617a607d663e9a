//! `veer mine`'s printers: the summary of a mined suite — what the corpus held, the clusters
//! (size, medoid's tool sequence, stop reasons), each case and why it was chosen, the skipped
//! traces — as terminal text, JSON (the `suite.json` document), Markdown or one self-contained
//! HTML page (maud, as the other pages). The document type is the contract's
//! (`veer_contract::mine`).

use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use crate::text::preview;
use comfy_table::Cell;
use maud::{html, DOCTYPE};
use veer_contract::mine::{CaseKind, MineCluster, MineReport};

/// Formats `veer mine` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum MineFormat {
    /// A summary for a terminal.
    Terminal,
    /// JSON: the `suite.json` document (`veer schema mine`).
    Json,
    /// Markdown, for a pull request or a wiki.
    Markdown,
    /// One self-contained HTML page.
    Html,
}

impl OutputFormat<MineReport> for MineFormat {
    fn printer(self, style: Style) -> Box<dyn Printer<MineReport>> {
        match self {
            MineFormat::Terminal => Box::new(move |r: &MineReport| terminal(r, style)),
            MineFormat::Json => Box::new(|r: &MineReport| crate::json::to_json(r)),
            MineFormat::Markdown => Box::new(markdown),
            MineFormat::Html => Box::new(page),
        }
    }
}

/// The longest tool sequence shown in a table cell, in characters.
const SEQUENCE_CHARS: usize = 60;

fn sequence(tools: &[String]) -> String {
    if tools.is_empty() {
        return "(no tool calls)".into();
    }
    preview(&tools.join(" → "), SEQUENCE_CHARS)
}

fn stops(c: &MineCluster) -> String {
    if c.stop_reasons.is_empty() {
        return "-".into();
    }
    c.stop_reasons
        .iter()
        .map(|s| format!("{} ×{}", s.reason, s.traces))
        .collect::<Vec<_>>()
        .join(", ")
}

fn kind(k: CaseKind) -> &'static str {
    match k {
        CaseKind::Medoid => "medoid",
        CaseKind::Rare => "rare",
        CaseKind::Failing => "failing",
    }
}

/// The one-line reading of the clustering.
fn headline(r: &MineReport) -> String {
    let c = &r.clustering;
    let how = match c.k_chosen_by.as_str() {
        "--cases" => "as --cases asked".to_string(),
        "silhouette" => "chosen by the best average silhouette".to_string(),
        _ => "one per signature (too few to choose)".to_string(),
    };
    let quality = match c.silhouette {
        Some(s) => format!("silhouette {s:.2}: {} structure", c.structure),
        None => "no silhouette (one cluster)".to_string(),
    };
    format!(
        "{} cluster{} ({how}); {quality}",
        c.k,
        if c.k == 1 { "" } else { "s" }
    )
}

fn corpus_line(r: &MineReport) -> String {
    let s = &r.corpus_summary;
    let mut line = format!(
        "{}: {} trace{} read, {} skipped, {} behaviour signature{}",
        r.corpus,
        s.traces_read,
        if s.traces_read == 1 { "" } else { "s" },
        s.traces_skipped,
        s.unique_signatures,
        if s.unique_signatures == 1 { "" } else { "s" }
    );
    if s.traces_not_sampled > 0 {
        line.push_str(&format!(
            " (a seeded sample: the cap of {} distinct signatures was reached, {} traces left out)",
            s.signature_cap, s.traces_not_sampled
        ));
    }
    line
}

fn no_structure_note(r: &MineReport) -> Option<&'static str> {
    (r.clustering.structure == "none" && r.clustering.k > 1).then_some(
        "no substantial structure: the clusters are not well separated, so the cases are a spread sample of the corpus rather than distinct behaviours",
    )
}

/// The summary for a terminal.
pub fn terminal(r: &MineReport, style: Style) -> String {
    let mut out = String::new();
    out.push_str(&style.heading(&format!("veer mine {}", corpus_line(r))));
    out.push('\n');
    out.push_str(&headline(r));
    out.push('\n');
    if let Some(note) = no_structure_note(r) {
        out.push_str(&style.warn(note));
        out.push('\n');
    }
    let mut table = crate::text::table(vec![
        "cluster",
        "traces",
        "signatures",
        "failing",
        "medoid tool sequence",
        "stops",
    ]);
    for c in &r.clusters {
        table.add_row(vec![
            Cell::new(c.id),
            Cell::new(c.traces),
            Cell::new(c.signatures),
            Cell::new(c.failing_traces),
            Cell::new(sequence(&c.tool_sequence)),
            Cell::new(stops(c)),
        ]);
    }
    out.push_str(&crate::text::render_table(&mut table));
    out.push('\n');
    out.push_str(&style.heading(&format!("{} cases", r.cases.len())));
    out.push('\n');
    for c in &r.cases {
        out.push_str(&format!(
            "  {:<12} {:<8} {} [{} file{}]\n",
            c.name,
            kind(c.kind),
            c.why,
            c.files.len(),
            if c.files.len() == 1 { "" } else { "s" }
        ));
    }
    if !r.skipped.is_empty() {
        out.push_str(&style.warn(&format!(
            "{} trace file{} skipped:",
            r.corpus_summary.traces_skipped,
            if r.corpus_summary.traces_skipped == 1 {
                ""
            } else {
                "s"
            }
        )));
        out.push('\n');
        for s in &r.skipped {
            out.push_str(&format!("  {}: {}\n", s.path, s.error));
        }
    }
    out
}

/// Escapes the characters Markdown tables and inline text treat specially.
fn md(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('`', "\\`")
        .replace('\n', " ")
}

/// The summary as Markdown.
pub fn markdown(r: &MineReport) -> String {
    let mut out = String::new();
    out.push_str("## veer mine\n\n");
    out.push_str(&format!(
        "{}\n\n{}\n\n",
        md(&corpus_line(r)),
        md(&headline(r))
    ));
    if let Some(note) = no_structure_note(r) {
        out.push_str(&format!("> {note}\n\n"));
    }
    out.push_str("| cluster | traces | signatures | failing | medoid tool sequence | stops |\n");
    out.push_str("|---:|---:|---:|---:|---|---|\n");
    for c in &r.clusters {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            c.id,
            c.traces,
            c.signatures,
            c.failing_traces,
            md(&sequence(&c.tool_sequence)),
            md(&stops(c))
        ));
    }
    out.push_str("\n### Cases\n\n| case | kind | why | files |\n|---|---|---|---:|\n");
    for c in &r.cases {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            md(&c.name),
            kind(c.kind),
            md(&c.why),
            c.files.len()
        ));
    }
    if !r.skipped.is_empty() {
        out.push_str(&format!(
            "\n### Skipped ({})\n\n",
            r.corpus_summary.traces_skipped
        ));
        for s in &r.skipped {
            out.push_str(&format!("- `{}`: {}\n", md(&s.path), md(&s.error)));
        }
    }
    out
}

/// The page's style sheet.
const CSS: &str =
    "body{font:14px system-ui,sans-serif;margin:2em;color:#111}table{border-collapse:collapse}\
td,th{padding:4px 10px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:top}\
.n{text-align:right}.note{color:#92400e}";

/// The summary as one self-contained HTML page.
pub fn page(r: &MineReport) -> String {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "veer mine" }
                style { (CSS) }
            }
            body {
                h1 { "veer mine" }
                p { (corpus_line(r)) }
                p { (headline(r)) }
                @if let Some(note) = no_structure_note(r) {
                    p class="note" { (note) }
                }
                h2 { "Clusters" }
                table {
                    tr { th { "cluster" } th { "traces" } th { "signatures" } th { "failing" } th { "medoid tool sequence" } th { "stops" } }
                    @for c in &r.clusters {
                        tr {
                            td class="n" { (c.id) }
                            td class="n" { (c.traces) }
                            td class="n" { (c.signatures) }
                            td class="n" { (c.failing_traces) }
                            td { (sequence(&c.tool_sequence)) }
                            td { (stops(c)) }
                        }
                    }
                }
                h2 { "Cases" }
                table {
                    tr { th { "case" } th { "kind" } th { "why" } th { "files" } }
                    @for c in &r.cases {
                        tr {
                            td { (c.name) }
                            td { (kind(c.kind)) }
                            td { (c.why) }
                            td {
                                @for f in &c.files {
                                    (f.trial) " ← " (f.source) br;
                                }
                            }
                        }
                    }
                }
                @if !r.skipped.is_empty() {
                    h2 { "Skipped (" (r.corpus_summary.traces_skipped) ")" }
                    ul {
                        @for s in &r.skipped {
                            li { code { (s.path) } ": " (s.error) }
                        }
                    }
                }
            }
        }
    };
    let mut out = markup.into_string();
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::mine::*;

    fn report() -> MineReport {
        MineReport {
            schema_version: MINE_SCHEMA_VERSION.into(),
            written_by: "veer mine".into(),
            corpus: "corpus".into(),
            seed: 1,
            policy: None,
            corpus_summary: CorpusSummary {
                trace_files: 3,
                traces_read: 2,
                traces_skipped: 1,
                unique_signatures: 1,
                signature_cap: 2000,
                traces_not_sampled: 0,
                traces_truncated: 0,
            },
            clustering: ClusteringSummary {
                method: "k-medoids".into(),
                k: 1,
                k_chosen_by: "--cases".into(),
                silhouette: None,
                structure: "none".into(),
                silhouette_by_k: vec![],
                total_deviation: 0.0,
            },
            clusters: vec![MineCluster {
                id: 1,
                traces: 2,
                signatures: 1,
                medoid: BehaviourSignature {
                    calls: vec![],
                    stop_reasons: vec!["end_turn".into()],
                    error: false,
                    violation: false,
                },
                medoid_traces: 2,
                tool_sequence: vec!["a|b".into()],
                stop_reasons: vec![ReasonCount {
                    reason: "end_turn".into(),
                    traces: 2,
                }],
                failing_traces: 0,
                mean_distance: 0.0,
                members: vec!["x.agentlog".into()],
            }],
            cases: vec![MineCase {
                name: "cluster-01".into(),
                kind: CaseKind::Medoid,
                cluster: 1,
                why: "medoid <b>".into(),
                distance_to_medoid: 0.0,
                signature_traces: 2,
                tool_sequence: vec![],
                files: vec![CaseFile {
                    trial: "trial-1.agentlog".into(),
                    source: "x.agentlog".into(),
                }],
            }],
            skipped: vec![SkippedTrace {
                path: "bad.agentlog".into(),
                error: "line 1: not JSON".into(),
            }],
        }
    }

    #[test]
    fn every_format_names_the_cases_and_the_skipped() {
        let r = report();
        for f in [
            MineFormat::Terminal,
            MineFormat::Json,
            MineFormat::Markdown,
            MineFormat::Html,
        ] {
            let text = f.print(&r, Style { colour: false });
            assert!(text.contains("cluster-01"), "{f:?}");
            assert!(text.contains("bad.agentlog"), "{f:?}");
        }
        assert!(markdown(&r).contains("a\\|b"));
        assert!(page(&r).contains("medoid &lt;b&gt;"));
    }
}
