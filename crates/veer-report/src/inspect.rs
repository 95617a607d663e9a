//! `veer inspect`'s terminal printers: one row per turn of one trace ([`terminal`]), or one
//! row per sample-epoch of an Inspect AI log ([`log_terminal`]). The document types are the
//! contract's (`veer_contract::inspect`).

use crate::style::Style;
use crate::text::{num, preview};
use comfy_table::Cell;
use veer_base::format::Format;
use veer_contract::inspect::{InspectDocument, InspectReport, InspectTool, LogReport};

/// Renders the report as a terminal table.
pub fn terminal(r: &InspectReport, style: Style) -> String {
    let mut out = String::new();
    out.push_str(&style.heading(&format!(
        "{}{}  ({}, {} records, {} turns, {} session{})",
        r.source,
        match (&r.format, &r.run_label) {
            (Format::Traxr, Some(l)) => format!(" [{l}]"),
            _ => String::new(),
        },
        r.format.name(),
        r.record_count,
        r.turns.len(),
        r.session_count,
        if r.session_count == 1 { "" } else { "s" }
    )));
    out.push('\n');
    if !r.trace_id.is_empty() {
        out.push_str(&style.dim(&format!("trace id {}", r.trace_id)));
        out.push('\n');
    }
    if r.turns.is_empty() {
        out.push_str("no turns (the trace has no chat_response records)\n");
        enforcement(&mut out, &r.enforcement, style);
        return out;
    }
    let mut table = crate::text::table(vec![
        "session",
        "turn",
        "model",
        "tools",
        "tok in",
        "tok out",
        "latency ms",
        "stop",
        "text",
    ]);
    for t in &r.turns {
        let tools = tools_cell(&t.tools);
        table.add_row(vec![
            Cell::new(t.session),
            Cell::new(t.turn),
            Cell::new(t.model.as_deref().unwrap_or("-")),
            Cell::new(if tools.is_empty() { "-".into() } else { tools }),
            Cell::new(num(t.input_tokens)),
            Cell::new(num(t.output_tokens)),
            Cell::new(num(t.latency_ms)),
            Cell::new(t.stop_reason.as_deref().unwrap_or("-")),
            Cell::new(preview(&t.text, 48)),
        ]);
    }
    out.push_str(&crate::text::render_table(&mut table));
    out.push('\n');
    enforcement(&mut out, &r.enforcement, style);
    out
}

/// The live-policy section: one line per decision, blocked ones marked.
fn enforcement(out: &mut String, decisions: &[veer_contract::policy::LiveDecision], style: Style) {
    if decisions.is_empty() {
        return;
    }
    let blocked = decisions.iter().filter(|d| d.blocked).count();
    out.push_str(&style.heading(&format!(
        "live policy: {} decision(s), {blocked} call(s) blocked",
        decisions.len()
    )));
    out.push('\n');
    for d in decisions {
        let line = format!("  {}", veer_contract::policy::decision_line(d));
        out.push_str(&match d.blocked {
            true => style.bad(&line),
            false => line,
        });
        out.push('\n');
    }
}

/// Characters of a turn's tools cell past which its calls are counted rather than listed: the
/// table pads every row to the widest, so an unbounded cell (one response with 200,000 calls)
/// would make the output grow as turns × calls, and the table's layout superlinearly.
pub(crate) const TOOLS_CELL_CHARS: usize = 1000;

/// `name(key,key) name(…) …` of a turn's calls, cut at `TOOLS_CELL_CHARS` characters with
/// `… (+K more calls)` (K counts the call that was cut); the whole list when it fits.
fn tools_cell(tools: &[InspectTool]) -> String {
    let mut out = String::new();
    let mut room = TOOLS_CELL_CHARS;
    let mut push = |out: &mut String, s: &str| -> bool {
        for ch in s.chars() {
            if room == 0 {
                return false;
            }
            out.push(ch);
            room -= 1;
        }
        true
    };
    for (k, c) in tools.iter().enumerate() {
        let fits = (k == 0 || push(&mut out, " "))
            && push(&mut out, &c.name)
            && push(&mut out, "(")
            && c.arg_keys
                .iter()
                .enumerate()
                .all(|(i, key)| (i == 0 || push(&mut out, ",")) && push(&mut out, key))
            && push(&mut out, ")");
        if !fits {
            let more = tools.len() - k;
            out.push_str(&format!(
                "… (+{more} more call{})",
                if more == 1 { "" } else { "s" }
            ));
            break;
        }
    }
    out
}

/// Renders an Inspect AI log's report as a terminal table: a heading naming the task, model,
/// status and counts, then one row per sample-epoch.
pub fn log_terminal(r: &LogReport, style: Style) -> String {
    let mut out = style.heading(&format!(
        "{}  (inspect-ai, task {}, model {}, {}, {} sample-epoch{}, {} epoch{})",
        r.source,
        r.task,
        r.model,
        r.status,
        r.samples.len(),
        if r.samples.len() == 1 { "" } else { "s" },
        r.epochs,
        if r.epochs == 1 { "" } else { "s" },
    ));
    out.push('\n');
    let mut table = crate::text::table(vec![
        "sample", "epoch", "outcome", "scores", "turns", "tools", "tok in", "tok out", "error",
    ]);
    for s in &r.samples {
        let scores = match &s.scores {
            serde_json::Value::Object(o) => o
                .iter()
                .map(|(k, v)| match v {
                    serde_json::Value::String(t) => format!("{k}={t}"),
                    other => format!("{k}={other}"),
                })
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        };
        let dash = |t: String| if t.is_empty() { "-".to_string() } else { t };
        table.add_row(vec![
            Cell::new(&s.case),
            Cell::new(s.trial),
            Cell::new(s.outcome.as_deref().unwrap_or("-")),
            Cell::new(dash(scores)),
            Cell::new(s.turns),
            Cell::new(dash(s.tools.join(" "))),
            Cell::new(s.input_tokens),
            Cell::new(s.output_tokens),
            Cell::new(dash(
                s.error
                    .as_deref()
                    .map(|e| preview(e, 40))
                    .unwrap_or_default(),
            )),
        ]);
    }
    out.push_str(&crate::text::render_table(&mut table));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, keys: &[&str]) -> InspectTool {
        InspectTool {
            name: name.to_string(),
            arg_keys: keys.iter().map(|k| k.to_string()).collect(),
        }
    }

    /// The plain definition: every call listed.
    fn plain(tools: &[InspectTool]) -> String {
        tools
            .iter()
            .map(|c| format!("{}({})", c.name, c.arg_keys.join(",")))
            .collect::<Vec<_>>()
            .join(" ")
    }

    proptest::proptest! {
        #[test]
        fn tools_cell_is_the_plain_list_when_it_fits_and_a_prefix_of_it_otherwise(
            calls in proptest::collection::vec(("[a-zé]{0,30}", proptest::collection::vec("[a-z]{1,8}", 0..6)), 0..80),
        ) {
            let tools: Vec<InspectTool> = calls
                .iter()
                .map(|(n, ks)| tool(n, &ks.iter().map(String::as_str).collect::<Vec<_>>()))
                .collect();
            let full = plain(&tools);
            let got = tools_cell(&tools);
            if full.chars().count() <= TOOLS_CELL_CHARS {
                proptest::prop_assert_eq!(got, full);
            } else {
                let (head, tail) = got.split_once("… (+").unwrap();
                proptest::prop_assert_eq!(head.chars().count(), TOOLS_CELL_CHARS);
                proptest::prop_assert!(full.starts_with(head));
                proptest::prop_assert!(tail.ends_with(" more call)") || tail.ends_with(" more calls)"));
            }
        }
    }

    #[test]
    fn a_response_with_many_calls_is_cut() {
        let tools: Vec<InspectTool> = (0..20_000).map(|_| tool("lookup_order", &["id"])).collect();
        let cell = tools_cell(&tools);
        // 58 calls of 17 characters ("lookup_order(id) ") fit whole in 1000, the 59th is cut.
        assert!(cell.ends_with("… (+19942 more calls)"), "{cell}");
        let wide = [tool("bulk", &vec!["k"; 5000])];
        assert!(tools_cell(&wide).ends_with("… (+1 more call)"));
    }
}

/// An inspect document in one line per trace: its path, turns, records and sessions; an
/// Inspect AI log in one line: its task, model and sample-epochs.
pub fn summary(d: &InspectDocument) -> String {
    let mut out = String::new();
    if let Some(log) = &d.log {
        out.push_str(&format!(
            "{}: Inspect AI log of task {}, model {}: {} sample-epoch{}\n",
            log.source,
            log.task,
            log.model,
            log.samples.len(),
            if log.samples.len() == 1 { "" } else { "s" },
        ));
        return out;
    }
    for t in &d.traces {
        out.push_str(&format!(
            "{}: {} turn{}, {} record{}, {} session{}\n",
            t.source,
            t.turns.len(),
            if t.turns.len() == 1 { "" } else { "s" },
            t.record_count,
            if t.record_count == 1 { "" } else { "s" },
            t.session_count,
            if t.session_count == 1 { "" } else { "s" },
        ));
    }
    if d.traces.is_empty() {
        out.push_str("no trace could be read\n");
    }
    out
}

/// Formats `veer inspect` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum InspectFormat {
    /// A table for a terminal.
    Terminal,
    /// JSON: {schema_version, traces: [...], log (an Inspect AI log)} (`veer schema inspect`).
    Json,
}

impl crate::printer::OutputFormat<InspectDocument> for InspectFormat {
    fn printer(self, style: Style) -> Box<dyn crate::printer::Printer<InspectDocument>> {
        match self {
            InspectFormat::Json => Box::new(|d: &InspectDocument| crate::json::to_json(d)),
            InspectFormat::Terminal => Box::new(move |d: &InspectDocument| document(d, style)),
        }
    }
}

/// The whole document for a terminal: an Inspect AI log's table, else each trace's table,
/// separated by a blank line.
pub fn document(d: &InspectDocument, style: Style) -> String {
    match &d.log {
        Some(log) => log_terminal(log, style),
        None => d
            .traces
            .iter()
            .map(|r| terminal(r, style))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}
