//! The tool-schema block of a diff report: how the tools offered to the model changed between
//! the baseline's and the candidate's requests, each change classified `breaking`,
//! `compatible` or `cosmetic` (docs/tool-schema.md). Plain data; `veer-diff` fills it, the
//! engine sets its threshold and the verdict reads it.

use serde::{Deserialize, Serialize};

/// How much a tool-schema change can hurt an agent built against the baseline's tools.
/// Ordered: `cosmetic < compatible < breaking`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SchemaClass {
    /// Only words changed (descriptions, titles): calls stay valid.
    Cosmetic,
    /// Calls that were valid stay valid (a new tool, a new optional parameter, a widened enum,
    /// a required parameter becoming optional).
    Compatible,
    /// A call that was valid may now fail or mean something else (a removed or renamed tool or
    /// parameter, a changed type, a new required parameter, a narrowed enum).
    Breaking,
}

impl SchemaClass {
    /// The wire label (`breaking`, `compatible`, `cosmetic`).
    pub fn label(self) -> &'static str {
        match self {
            SchemaClass::Cosmetic => "cosmetic",
            SchemaClass::Compatible => "compatible",
            SchemaClass::Breaking => "breaking",
        }
    }
}

/// What kind of change one entry is.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SchemaChangeKind {
    /// A tool offered by the baseline only (breaking).
    ToolRemoved,
    /// A tool whose parameters are the same under a new name (breaking).
    ToolRenamed,
    /// A tool offered by the candidate only (compatible).
    ToolAdded,
    /// A parameter of the baseline only (breaking).
    ParameterRemoved,
    /// A removed and an added parameter of the same type and a similar name or description
    /// (breaking).
    ParameterRenamed,
    /// A parameter of the candidate only: breaking when required, compatible when optional.
    ParameterAdded,
    /// A parameter's JSON-schema `type` changed (breaking; widening to a list of types that
    /// holds the old one is compatible).
    TypeChanged,
    /// An optional parameter became required (breaking).
    BecameRequired,
    /// A required parameter became optional (compatible).
    BecameOptional,
    /// An `enum` lost values (breaking).
    EnumNarrowed,
    /// An `enum` gained values only, or was dropped (compatible).
    EnumWidened,
    /// A tool's or parameter's `description` or `title` changed (cosmetic).
    DescriptionChanged,
}

impl SchemaChangeKind {
    /// The wire label (e.g. `parameter_renamed`).
    pub fn label(self) -> &'static str {
        match self {
            SchemaChangeKind::ToolRemoved => "tool_removed",
            SchemaChangeKind::ToolRenamed => "tool_renamed",
            SchemaChangeKind::ToolAdded => "tool_added",
            SchemaChangeKind::ParameterRemoved => "parameter_removed",
            SchemaChangeKind::ParameterRenamed => "parameter_renamed",
            SchemaChangeKind::ParameterAdded => "parameter_added",
            SchemaChangeKind::TypeChanged => "type_changed",
            SchemaChangeKind::BecameRequired => "became_required",
            SchemaChangeKind::BecameOptional => "became_optional",
            SchemaChangeKind::EnumNarrowed => "enum_narrowed",
            SchemaChangeKind::EnumWidened => "enum_widened",
            SchemaChangeKind::DescriptionChanged => "description_changed",
        }
    }
}

/// One classified change of the offered tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SchemaChange {
    /// The tool (its candidate name; the baseline name for a removed tool).
    pub tool: String,
    /// The parameter as a dotted path (`address.city`, `items[]` for array items); absent for
    /// a change of the tool itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
    /// What changed.
    pub kind: SchemaChangeKind,
    /// Its class.
    pub class: SchemaClass,
    /// The baseline's value (old name, old type, old description, old enum); absent when not
    /// applicable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The candidate's value; absent when not applicable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

impl SchemaChange {
    /// Where the change is: `tool` or `tool.parameter`.
    pub fn location(&self) -> String {
        match &self.parameter {
            Some(p) => format!("{}.{p}", self.tool),
            None => self.tool.clone(),
        }
    }

    /// One line describing the change, e.g. `search.q: parameter_renamed (query -> q)`.
    pub fn line(&self) -> String {
        let mut s = format!("{}: {}", self.location(), self.kind.label());
        match (&self.before, &self.after) {
            (Some(b), Some(a)) => s.push_str(&format!(" ({b} -> {a})")),
            (Some(b), None) => s.push_str(&format!(" (was {b})")),
            (None, Some(a)) => s.push_str(&format!(" ({a})")),
            (None, None) => {}
        }
        s
    }
}

/// Changes counted by class.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct SchemaCounts {
    /// Breaking changes.
    pub breaking: usize,
    /// Compatible changes.
    pub compatible: usize,
    /// Cosmetic changes.
    pub cosmetic: usize,
}

impl SchemaCounts {
    /// The counts of `changes`.
    pub fn of(changes: &[SchemaChange]) -> SchemaCounts {
        let mut c = SchemaCounts::default();
        for ch in changes {
            c.add(ch.class, 1);
        }
        c
    }

    /// Adds `n` changes of `class`.
    pub fn add(&mut self, class: SchemaClass, n: usize) {
        match class {
            SchemaClass::Breaking => self.breaking += n,
            SchemaClass::Compatible => self.compatible += n,
            SchemaClass::Cosmetic => self.cosmetic += n,
        }
    }

    /// The highest class counted, None when nothing is.
    pub fn worst(&self) -> Option<SchemaClass> {
        if self.breaking > 0 {
            Some(SchemaClass::Breaking)
        } else if self.compatible > 0 {
            Some(SchemaClass::Compatible)
        } else if self.cosmetic > 0 {
            Some(SchemaClass::Cosmetic)
        } else {
            None
        }
    }
}

/// The tool-schema block of one trace pair: the tools each side offered (the union over its
/// requests) and the classified changes from baseline to candidate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolSchemaDiff {
    /// Distinct tools the baseline's requests offered.
    pub baseline_tools: usize,
    /// Distinct tools the candidate's requests offered.
    pub candidate_tools: usize,
    /// Changes by class.
    pub counts: SchemaCounts,
    /// The highest class of any change; absent when nothing changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst: Option<SchemaClass>,
    /// The changes, tool by tool (candidate order), tool-level first.
    pub changes: Vec<SchemaChange>,
    /// The gate's threshold (`--fail-on-schema`); absent when the schema does not gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<SchemaClass>,
    /// Whether a change at or above `fail_on` trips the gate.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tripped: bool,
    /// Things to know (e.g. a tool defined differently by two requests of one side: the last
    /// definition was compared).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl ToolSchemaDiff {
    /// Sets the gate's threshold and whether it trips (`worst >= fail_on`).
    pub fn set_gate(&mut self, fail_on: Option<SchemaClass>) {
        self.fail_on = fail_on;
        self.tripped = matches!((fail_on, self.worst), (Some(t), Some(w)) if w >= t);
    }
}

/// The tool-schema summary of a directory diff: the pairs whose offered tools changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolSchemaSummary {
    /// Trace pairs with at least one change.
    pub pairs_with_changes: usize,
    /// Changes by class over every pair.
    pub counts: SchemaCounts,
    /// The highest class over every pair; absent when nothing changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst: Option<SchemaClass>,
    /// The gate's threshold; absent when the schema does not gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<SchemaClass>,
    /// Pairs (relative paths) whose changes trip the gate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tripped_pairs: Vec<String>,
}
