//! The tool-schema block as text, for every diff printer: its heading line, one line per
//! change, and the directory summary's line (docs/tool-schema.md). Formatting only; the
//! classes and the gate come from the report.

use crate::style::Style;
use veer_contract::tool_schema::{SchemaChange, SchemaClass, ToolSchemaDiff, ToolSchemaSummary};

/// Most changes listed per pair by the terminal and Markdown printers (JSON has all).
pub(crate) const SHOWN_CHANGES: usize = 20;

/// `2 breaking, 1 compatible, 1 cosmetic` (classes with no change left out).
pub(crate) fn counts_line(c: &veer_contract::tool_schema::SchemaCounts) -> String {
    let parts: Vec<String> = [
        (c.breaking, SchemaClass::Breaking),
        (c.compatible, SchemaClass::Compatible),
        (c.cosmetic, SchemaClass::Cosmetic),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, class)| format!("{n} {}", class.label()))
    .collect();
    if parts.is_empty() {
        "no change".to_string()
    } else {
        parts.join(", ")
    }
}

/// The block's one-line summary: the change counts, the tools of each side and the gate.
pub(crate) fn summary(b: &ToolSchemaDiff) -> String {
    let mut s = format!(
        "{} change(s): {} (baseline offered {} tool(s), candidate {})",
        b.changes.len(),
        counts_line(&b.counts),
        b.baseline_tools,
        b.candidate_tools
    );
    if let Some(t) = b.fail_on {
        s.push_str(&format!(
            "; --fail-on-schema {}: {}",
            t.label(),
            if b.tripped { "tripped" } else { "ok" }
        ));
    }
    s
}

/// The directory summary's line: pairs with changes, counts and the gate.
pub(crate) fn directory_line(s: &ToolSchemaSummary) -> String {
    let mut out = format!(
        "offered tools changed in {} trace pair(s): {}",
        s.pairs_with_changes,
        counts_line(&s.counts)
    );
    if let Some(t) = s.fail_on {
        out.push_str(&format!(
            "; --fail-on-schema {}: {}",
            t.label(),
            if s.tripped_pairs.is_empty() {
                "ok".to_string()
            } else {
                format!("tripped by {}", s.tripped_pairs.join(", "))
            }
        ));
    }
    out
}

/// The stderr line of a tool-schema gate that tripped (None when it did not): the first
/// pair whose offered tools changed by at least `--fail-on-schema`, and how many more.
pub fn gate_line(v: &veer_contract::verdict::Verdict) -> Option<String> {
    let trips: Vec<&veer_contract::verdict::Trip> = v
        .trips
        .iter()
        .filter(|t| matches!(t.cause, veer_contract::verdict::Cause::ToolSchema { .. }))
        .collect();
    let first = trips.first()?;
    let place = first
        .trace
        .as_ref()
        .map_or(String::new(), |t| format!(" in {t}"));
    let more = match trips.len() {
        1 => String::new(),
        n => format!(" (and {} more trace pair(s))", n - 1),
    };
    Some(format!(
        "fail: {}{place}{more}; exiting 1 to gate the merge.",
        first.reason
    ))
}

/// The stderr lines of a gate (`g`, the report's gate block): the tool-schema line when that
/// gate tripped, then the `--fail-on` gate's own line over the axes, policy and errors (left
/// out when that gate is off and there is no error, so it does not say "disabled" beside a
/// tripped schema gate).
pub fn gate_lines(
    v: &veer_contract::verdict::Verdict,
    g: &veer_contract::policy::Gate,
) -> Vec<String> {
    let Some(schema) = gate_line(v) else {
        return vec![crate::policy::gate_line(g)];
    };
    if g.fail_on == veer_base::Level::None && g.errors == 0 {
        return vec![schema];
    }
    // The `--fail-on` gate alone: whether its own signals reach its threshold.
    let own = veer_contract::policy::Gate::decide_with_errors(g.fail_on, g.worst, g.errors);
    vec![schema, crate::policy::gate_line(&own)]
}

/// One change as `[breaking] search.q: parameter_renamed (query -> q)`.
pub(crate) fn change_line(c: &SchemaChange) -> String {
    format!("[{}] {}", c.class.label(), c.line())
}

/// The terminal section: heading, summary, the changes coloured by class, notes.
pub(crate) fn terminal_section(b: &ToolSchemaDiff, style: Style) -> String {
    let mut out = format!("{}\n  {}\n", style.heading("tool schema"), summary(b));
    for c in b.changes.iter().take(SHOWN_CHANGES) {
        let line = format!("  {}", change_line(c));
        out.push_str(&match c.class {
            SchemaClass::Breaking => style.bad(&line),
            SchemaClass::Compatible => style.warn(&line),
            SchemaClass::Cosmetic => style.dim(&line),
        });
        out.push('\n');
    }
    if b.changes.len() > SHOWN_CHANGES {
        out.push_str(&format!(
            "  … {} more in --format json\n",
            b.changes.len() - SHOWN_CHANGES
        ));
    }
    for n in &b.notes {
        out.push_str(&format!("  note: {n}\n"));
    }
    out
}

/// The Markdown section at heading `level`: summary, a table of changes, notes.
pub(crate) fn markdown_section(b: &ToolSchemaDiff, level: &str) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut out = format!("{level} Tool schema\n\n{}.\n\n", cell(&summary(b)));
    out.push_str("| class | where | change | before | after |\n|---|---|---|---|---|\n");
    for c in b.changes.iter().take(SHOWN_CHANGES) {
        let icon = match c.class {
            SchemaClass::Breaking => "\u{274c} breaking",
            SchemaClass::Compatible => "\u{26a0}\u{fe0f} compatible",
            SchemaClass::Cosmetic => "cosmetic",
        };
        out.push_str(&format!(
            "| {icon} | `{}` | {} | {} | {} |\n",
            cell(&c.location()),
            c.kind.label(),
            cell(c.before.as_deref().unwrap_or("")),
            cell(c.after.as_deref().unwrap_or(""))
        ));
    }
    if b.changes.len() > SHOWN_CHANGES {
        out.push_str(&format!(
            "\n_{} more change(s) in `--format json`._\n",
            b.changes.len() - SHOWN_CHANGES
        ));
    }
    for n in &b.notes {
        out.push_str(&format!("\n_Note: {}._\n", cell(n)));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::tool_schema::{SchemaChangeKind, SchemaCounts};

    fn block() -> ToolSchemaDiff {
        let changes = vec![
            SchemaChange {
                tool: "search".into(),
                parameter: Some("q".into()),
                kind: SchemaChangeKind::ParameterRenamed,
                class: SchemaClass::Breaking,
                before: Some("query".into()),
                after: Some("q".into()),
            },
            SchemaChange {
                tool: "search".into(),
                parameter: None,
                kind: SchemaChangeKind::DescriptionChanged,
                class: SchemaClass::Cosmetic,
                before: Some("a|b".into()),
                after: Some("c".into()),
            },
        ];
        let mut b = ToolSchemaDiff {
            baseline_tools: 1,
            candidate_tools: 1,
            counts: SchemaCounts::of(&changes),
            worst: Some(SchemaClass::Breaking),
            changes,
            fail_on: None,
            tripped: false,
            notes: vec![],
        };
        b.set_gate(Some(SchemaClass::Breaking));
        b
    }

    #[test]
    fn the_terminal_section_lists_each_change_with_its_class_and_the_gate() {
        let s = terminal_section(&block(), Style { colour: false });
        assert!(s.contains("2 change(s): 1 breaking, 1 cosmetic (baseline offered 1 tool(s), candidate 1); --fail-on-schema breaking: tripped"), "{s}");
        assert!(
            s.contains("[breaking] search.q: parameter_renamed (query -> q)"),
            "{s}"
        );
        assert!(
            s.contains("[cosmetic] search: description_changed (a|b -> c)"),
            "{s}"
        );
    }

    #[test]
    fn the_markdown_section_is_a_table_with_escaped_cells() {
        let s = markdown_section(&block(), "###");
        assert!(s.starts_with("### Tool schema\n"), "{s}");
        assert!(
            s.contains("| \u{274c} breaking | `search.q` | parameter_renamed | query | q |"),
            "{s}"
        );
        assert!(s.contains("| a\\|b | c |"), "{s}");
    }
}
