//! The tool-schema comparison: which tools the baseline's and the candidate's requests offered
//! the model, and how they changed — tools and parameters added, removed or renamed, types,
//! `required` and `enum` changed, descriptions edited — each change classified `breaking`,
//! `compatible` or `cosmetic` by the rules of docs/tool-schema.md ([`classify`]). A pure
//! measure of the two traces; the engine composes it into the report and the gate.

mod classify;
mod normalise;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use normalise::Tool;
use serde_json::Value;
use veer_contract::tool_schema::{SchemaCounts, ToolSchemaDiff};
use veer_trace::{Kind, Trace};

/// The tools one side offered: the union over its requests, in first-seen order, each at its
/// last definition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Offered {
    tools: Vec<Tool>,
    /// Tools whose definition differs between two requests of this side.
    redefined: Vec<String>,
}

impl Offered {
    /// The tools of a trace: every `chat_request` record's `tools`.
    pub fn of_trace(trace: &Trace) -> Offered {
        let mut out = Offered::default();
        // Agents resend the same tools with every request: an identical list is read once.
        let mut last: Option<&veer_trace::Json> = None;
        for r in trace.records.iter().filter(|r| r.kind == Kind::ChatRequest) {
            if let Some(tools) = r.field("tools") {
                if last != Some(tools) {
                    out.add_request(&tools.to_value());
                    last = Some(tools);
                }
            }
        }
        out
    }

    /// The tools of several traces (one side's trials), in trace order.
    pub fn of_traces(traces: &[&Trace]) -> Offered {
        let mut out = Offered::default();
        for t in traces {
            let one = Offered::of_trace(t);
            for tool in one.tools {
                out.add_tool(tool);
            }
            for name in one.redefined {
                out.note_redefined(&name);
            }
        }
        out
    }

    /// Adds one request's `tools` array (OpenAI, Anthropic or MCP entries; others ignored).
    pub fn add_request(&mut self, tools: &Value) {
        for t in tools.as_array().into_iter().flatten() {
            if let Some(t) = normalise::tool(t) {
                self.add_tool(t);
            }
        }
    }

    /// Adds one tool: a new name is appended, a changed definition replaces the old one and
    /// is noted as redefined.
    fn add_tool(&mut self, t: Tool) {
        match self.tools.iter().position(|o| o.name == t.name) {
            Some(i) if self.tools[i] != t => {
                self.note_redefined(&t.name);
                self.tools[i] = t;
            }
            Some(_) => {}
            None => self.tools.push(t),
        }
    }

    fn note_redefined(&mut self, name: &str) {
        if !self.redefined.iter().any(|n| n == name) {
            self.redefined.push(name.to_string());
        }
    }

    /// Number of distinct tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool was offered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

/// The tool-schema block of a trace pair; None when neither side offered tools or nothing
/// changed. The gate threshold is left unset (the engine sets it).
pub fn compare(baseline: &Trace, candidate: &Trace) -> Option<ToolSchemaDiff> {
    compare_offered(&Offered::of_trace(baseline), &Offered::of_trace(candidate))
}

/// The tool-schema block of two offered tool sets; None when nothing changed.
pub fn compare_offered(baseline: &Offered, candidate: &Offered) -> Option<ToolSchemaDiff> {
    let changes = classify::changes(&baseline.tools, &candidate.tools);
    if changes.is_empty() {
        return None;
    }
    let counts = SchemaCounts::of(&changes);
    let mut notes = Vec::new();
    for (side, o) in [("baseline", baseline), ("candidate", candidate)] {
        for name in &o.redefined {
            notes.push(format!(
                "tool {name} is defined differently by two requests of the {side}; its last definition was compared"
            ));
        }
    }
    Some(ToolSchemaDiff {
        baseline_tools: baseline.len(),
        candidate_tools: candidate.len(),
        counts,
        worst: counts.worst(),
        changes,
        fail_on: None,
        tripped: false,
        notes,
    })
}
