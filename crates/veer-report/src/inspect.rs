//! `veer inspect`: one row per turn of one trace.

use crate::style::Style;
use crate::text::{num, preview};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, ContentArrangement, Table};
use serde::Serialize;

/// One tool call of a turn, as shown by `inspect`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InspectTool {
    /// Tool name.
    pub name: String,
    /// Argument keys, sorted by bytes.
    pub arg_keys: Vec<String>,
}

/// One turn (response) of the trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InspectTurn {
    /// Recorded session (split at metadata records), 0-based.
    pub session: usize,
    /// Turn index, 0-based.
    pub turn: usize,
    /// 1-based source line of the response (or event index + 1 for traxr).
    pub line: Option<u64>,
    /// Response model.
    pub model: Option<String>,
    /// Tool calls attached to the turn, in call order.
    pub tools: Vec<InspectTool>,
    /// `usage.input_tokens`.
    pub input_tokens: Option<f64>,
    /// `usage.output_tokens`.
    pub output_tokens: Option<f64>,
    /// `latency_ms`, in milliseconds.
    pub latency_ms: Option<f64>,
    /// `stop_reason` (`null` when missing).
    pub stop_reason: Option<String>,
    /// The response text (space-joined text parts).
    pub text: String,
}

/// The whole `inspect` report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InspectReport {
    /// JSON schema version.
    pub schema_version: &'static str,
    /// The trace path.
    pub source: String,
    /// traxr run label, or the `.agentlog` file stem.
    pub run_label: Option<String>,
    /// `agentlog` or `traxr`.
    pub format: veer_trace::Format,
    /// Trace id (meta.trace_id or the first record's id).
    pub trace_id: String,
    /// Number of records (events for traxr).
    pub record_count: usize,
    /// Number of recorded sessions.
    pub session_count: usize,
    /// One entry per turn.
    pub turns: Vec<InspectTurn>,
    /// Reader warnings.
    pub warnings: Vec<String>,
}

/// Renders the report as a terminal table.
pub fn terminal(r: &InspectReport, style: Style) -> String {
    let mut out = String::new();
    out.push_str(&style.heading(&format!(
        "{}{}  ({}, {} records, {} turns, {} session{})",
        r.source,
        match (&r.format, &r.run_label) {
            (veer_trace::Format::Traxr, Some(l)) => format!(" [{l}]"),
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
        return out;
    }
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(vec![
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
        let tools = t
            .tools
            .iter()
            .map(|c| format!("{}({})", c.name, c.arg_keys.join(",")))
            .collect::<Vec<_>>()
            .join(" ");
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
    out.push_str(&table.to_string());
    out.push('\n');
    out
}
