//! The diff report: plain serde data, field order fixed by spec `cli.md` / `diff.md` §12.
//! Printers in `veer-report` render it; nothing here computes.
//!
//! After `drill_down` come the `structural` block (experiment metrics; null when over the
//! alignment budget), the `fingerprint` block (the joint Hotelling T² test), with `--policy`
//! the `policy` comparison, and the `gate` verdict.

use crate::axis::{Axis, AxisStat};
use crate::divergence::{AlignmentKind, Divergence, PairBy};
use crate::fingerprint::FingerprintBlock;
use crate::lanes::Lanes;
use crate::policy::{Enforcement, Gate, PolicyDiff};
use crate::recommend::{PairDrilldown, Recommendation};
use crate::structural::StructuralBlock;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use veer_base::Level;

/// Version of the diff report JSON schema (`veer schema diff`, `docs/json-schema/diff.schema.json`).
pub const DIFF_SCHEMA_VERSION: &str = "2";

/// One compared trace: where it came from and its trace id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TraceRef {
    /// Path as the user gave it (directory mode: the file inside the directory).
    pub path: String,
    /// `meta.trace_id`, else the first record's id, else `""`.
    pub trace_id: String,
}

/// How much the pair count supports the severities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StatisticalPower {
    /// Fewer than 5 pairs.
    Low,
    /// 5–29 pairs.
    Moderate,
    /// 30–99 pairs.
    Adequate,
    /// 100 pairs or more.
    Robust,
}

impl StatisticalPower {
    /// The power class of `pair_count` pairs.
    pub fn of(pair_count: usize) -> StatisticalPower {
        match pair_count {
            0..=4 => StatisticalPower::Low,
            5..=29 => StatisticalPower::Moderate,
            30..=99 => StatisticalPower::Adequate,
            _ => StatisticalPower::Robust,
        }
    }

    /// Pairs to record for the next class up (`None` when already robust).
    pub fn recommended_sample_size(self) -> Option<usize> {
        match self {
            StatisticalPower::Low => Some(30),
            StatisticalPower::Moderate | StatisticalPower::Adequate => Some(100),
            StatisticalPower::Robust => None,
        }
    }

    /// The wire label.
    pub fn label(self) -> &'static str {
        match self {
            StatisticalPower::Low => "low",
            StatisticalPower::Moderate => "moderate",
            StatisticalPower::Adequate => "adequate",
            StatisticalPower::Robust => "robust",
        }
    }
}

/// The behaviour diff of one baseline/candidate trace pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DiffReport {
    /// JSON schema version ([`DIFF_SCHEMA_VERSION`]).
    pub schema_version: Cow<'static, str>,
    /// The baseline trace.
    pub baseline: TraceRef,
    /// The candidate trace.
    pub candidate: TraceRef,
    /// Number of compared response pairs.
    pub pair_count: usize,
    /// Power class of `pair_count`.
    pub statistical_power: StatisticalPower,
    /// True for `low` and `moderate` power.
    pub low_statistical_power: bool,
    /// Pairs to record for more reliable intervals; absent when power is robust.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_sample_size: Option<usize>,
    /// Semantic-axis backend; always `lexical`.
    pub semantic_backend: Cow<'static, str>,
    /// How responses were paired: `index` or `alignment` (with `--pair-by auto`, the one
    /// auto chose).
    pub pairing: PairBy,
    /// The pairing asked for (`auto`, `index` or `alignment`).
    pub pairing_requested: PairBy,
    /// Bootstrap seed.
    pub seed: u64,
    /// Nine rows in axis order.
    pub axes: Vec<AxisStat>,
    /// Highest severity over all axes, improvements included.
    pub worst_severity: Level,
    /// Highest severity over axes whose change is a regression (worse direction); what the
    /// gate reads.
    pub worst_regression: Level,
    /// One line naming the first divergence (whenever there is one) and the regressed and
    /// improved axes; every format leads with it.
    pub headline: String,
    /// First above-noise alignment event in walk order, or null.
    pub first_divergence: Option<Divergence>,
    /// Top-k events by kind rank then confidence.
    pub divergences: Vec<Divergence>,
    /// `"anchored"` when the turns were too many and too different for the exact alignment
    /// within `--max-align-cells` (docs/diff.md); omitted when exact.
    #[serde(default, skip_serializing_if = "AlignmentKind::is_exact")]
    pub alignment: AlignmentKind,
    /// At most 8 recommendations, most urgent first.
    pub recommendations: Vec<Recommendation>,
    /// Up to 5 pairs with the highest regression score.
    pub drill_down: Vec<PairDrilldown>,
    /// Trace-level structural metrics (spec `experiment.md`): d_norm, t*, t*/T, edit
    /// distance, control flow; always exact (null only in reports of older veer versions).
    pub structural: Option<StructuralBlock>,
    /// The behaviour-fingerprint test (Hotelling T² over every response of each side); null
    /// when a side has fewer than two responses.
    pub fingerprint: Option<FingerprintBlock>,
    /// With a policy: violations of each side, regressions and fixes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyDiff>,
    /// The live-policy decisions recorded in either trace (`veer record --policy …
    /// --enforce`): blocked (replaced, raised) and warned calls with their rule ids and turns;
    /// omitted when neither trace holds any. Shown only; the gate does not count them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<Enforcement>,
    /// How the tools offered in the requests changed (docs/tool-schema.md); omitted when
    /// nothing changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_schema: Option<crate::tool_schema::ToolSchemaDiff>,
    /// The merge gate over the worst axis severity and the policy regressions.
    pub gate: Gate,
    /// Things the reader should know (unpaired responses or sessions, reader warnings).
    pub warnings: Vec<String>,
    /// 1-based source line of every candidate response record, by turn (locations of SARIF
    /// results and CI annotations). Not part of the JSON report.
    #[serde(skip)]
    pub candidate_lines: Vec<Option<u64>>,
    /// 1-based source line where each policy session of the candidate starts
    /// ([`veer_trace::Trace::policy_session_lines`]): the location of a session-level policy
    /// finding. Not part of the JSON report.
    #[serde(skip)]
    pub candidate_session_lines: Vec<Option<u64>>,
    /// The side-by-side view, when `DiffOptions::lanes` asked for it. Not part of the JSON
    /// report.
    #[serde(skip)]
    pub lanes: Option<Lanes>,
}

impl DiffReport {
    /// The row of `axis`.
    pub fn axis(&self, axis: Axis) -> Option<&AxisStat> {
        self.axes.iter().find(|r| r.axis == axis)
    }
}

/// One matched pair of files in directory mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DirectoryPair {
    /// Relative path in the baseline directory (`/`-separated).
    pub baseline: String,
    /// Relative path in the candidate directory.
    pub candidate: String,
    /// Their diff.
    pub report: DiffReport,
    /// Set when the pair's relative path is quarantined (`--quarantine`): the pair is measured
    /// and shown but does not trip the gate. Omitted otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quarantined: Option<crate::quarantine::QuarantineMark>,
}

/// A matched pair of a directory diff that could not be measured: a file that cannot be read
/// (malformed, over a limit, unreadable), a side without responses (an agent that crashed
/// before its first model call), or two formats that cannot be compared. It is an error row of
/// every format, counts as a failure of the gate, and is left out of the aggregate and the
/// pooled fingerprint test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairError {
    /// Relative path in the baseline directory (`/`-separated).
    pub baseline: String,
    /// Relative path in the candidate directory.
    pub candidate: String,
    /// The file at fault, as a path under the directory given (`null` when neither side alone
    /// is).
    pub file: Option<String>,
    /// 1-based line of the problem in `file`, when there is one.
    pub line: Option<u64>,
    /// What went wrong (names the file, and the line and field where there are some).
    pub error: String,
    /// What to do about it.
    pub hint: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Files present on one side only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct Unmatched {
    /// Relative paths found only under the baseline directory.
    pub baseline_only: Vec<String>,
    /// Relative paths found only under the candidate directory.
    pub candidate_only: Vec<String>,
}

/// Level counts of one axis across the trace pairs of a directory diff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AxisAggregate {
    /// The axis.
    pub axis: Axis,
    /// Trace pairs with severity none.
    pub none: usize,
    /// … minor.
    pub minor: usize,
    /// … moderate.
    pub moderate: usize,
    /// … severe.
    pub severe: usize,
    /// Highest severity over the trace pairs, improvements included.
    pub worst_severity: Level,
    /// Highest severity of a change in the axis's worse direction over the trace pairs (what
    /// the gate reads; none when every change was an improvement).
    pub worst_regression: Level,
    /// Median over the trace pairs of the axis delta (axis unit); 0 with no pair.
    pub median_delta: f64,
}

/// Summary of a directory diff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Aggregate {
    /// Number of matched trace pairs measured (the pairs of the report).
    pub trace_pairs: usize,
    /// Matched pairs that could not be read or compared (the report's `errors`): left out of
    /// every figure here and of the pooled fingerprint test. Omitted when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub error_pairs: usize,
    /// Number of files present on one side only.
    pub unmatched: usize,
    /// Response pairs compared over all trace pairs.
    pub pair_count: usize,
    /// Trace pairs whose first divergence is not null.
    pub traces_with_divergence: usize,
    /// Highest severity over every axis of every trace pair, improvements included.
    pub worst_severity: Level,
    /// Highest severity of a worse-direction change over every axis of every trace pair (what
    /// the gate reads).
    pub worst_regression: Level,
    /// One entry per axis, in axis order.
    pub axes: Vec<AxisAggregate>,
}

/// The diff of two directories of traces paired by relative path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DirectoryReport {
    /// JSON schema version ([`DIFF_SCHEMA_VERSION`]).
    pub schema_version: Cow<'static, str>,
    /// Matched pairs in relative-path byte order.
    pub pairs: Vec<DirectoryPair>,
    /// Matched pairs that could not be measured, in relative-path byte order; omitted when
    /// there is none, so reports without errors are unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<PairError>,
    /// Files present on one side only.
    pub unmatched: Unmatched,
    /// Summary over the pairs.
    pub aggregate: Aggregate,
    /// The fingerprint test pooling every response of every pair (baseline side against
    /// candidate side); null when a side has fewer than two responses in all.
    pub fingerprint: Option<FingerprintBlock>,
    /// The merge gate over every pair (worst axis severity and policy regressions).
    pub gate: Gate,
    /// The quarantine that applied (`--quarantine`): pairs it excused, entries that expired.
    /// Omitted when no quarantine file with entries applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quarantine: Option<crate::quarantine::QuarantineSummary>,
    /// The pairs whose offered tools changed (docs/tool-schema.md); omitted when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_schema: Option<crate::tool_schema::ToolSchemaSummary>,
}

/// Everything of a [`DirectoryReport`] but its pairs: what a streaming printer receives once
/// every pair has gone past (the pairs themselves arrive one by one, in path order). Serializes
/// to the fields that follow `pairs` in the directory JSON, in the same order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DirectorySummary {
    /// Matched pairs that could not be measured, in relative-path byte order; omitted when
    /// there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<PairError>,
    /// Files present on one side only.
    pub unmatched: Unmatched,
    /// Summary over the pairs.
    pub aggregate: Aggregate,
    /// The fingerprint test pooling every response of every pair; null when a side has fewer
    /// than two responses in all.
    pub fingerprint: Option<FingerprintBlock>,
    /// The merge gate over every pair.
    pub gate: Gate,
    /// The quarantine that applied: pairs it excused, entries that expired; omitted when no
    /// quarantine file with entries applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quarantine: Option<crate::quarantine::QuarantineSummary>,
    /// The pairs whose offered tools changed (docs/tool-schema.md); omitted when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_schema: Option<crate::tool_schema::ToolSchemaSummary>,
}

impl DirectoryReport {
    /// The report's summary (a copy of everything but the pairs).
    pub fn summary(&self) -> DirectorySummary {
        DirectorySummary {
            errors: self.errors.clone(),
            unmatched: self.unmatched.clone(),
            aggregate: self.aggregate.clone(),
            fingerprint: self.fingerprint.clone(),
            gate: self.gate,
            quarantine: self.quarantine.clone(),
            tool_schema: self.tool_schema.clone(),
        }
    }
}

/// What `veer diff DIR DIR` writes: the path-paired report, or — when a case has repeated
/// trials (docs/trials.md) — the report compared case by case. Writers write one of the two
/// directly; this is their common schema (`veer schema diff-directory`) and the type a reader
/// of either reads into.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum DirectoryDiffDocument {
    /// Traces paired by path.
    Paths(Box<DirectoryReport>),
    /// Cases with repeated trials.
    Trials(Box<crate::trials::TrialsReport>),
}
