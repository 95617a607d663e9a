//! `veer mine`'s document (`veer schema mine`, also written as `SUITE/suite.json`): a corpus of
//! production traces reduced to behaviour signatures, grouped into clusters, and the cases
//! picked from them for a regression suite, each with why it was picked. Filled by
//! `veer-engine`'s mine module from `veer-diff`'s clustering, rendered by `veer-report`.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Version of the `veer mine` JSON document.
pub const MINE_SCHEMA_VERSION: &str = "1";

/// What `veer mine` writes into `SUITE/suite.json` and prints with `--format json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MineReport {
    /// JSON schema version ([`MINE_SCHEMA_VERSION`]).
    pub schema_version: Cow<'static, str>,
    /// Always `"veer mine"`: marks a directory holding this file as a previous `veer mine`
    /// output (which a new run may replace).
    pub written_by: String,
    /// The corpus directory, as given.
    pub corpus: String,
    /// The seed of the signature sample and of the clustering's tie-free order.
    pub seed: u64,
    /// The policy file whose violations count as failures, when `--policy` was given.
    pub policy: Option<String>,
    /// What was read and kept.
    pub corpus_summary: CorpusSummary,
    /// The clustering: how many clusters, how K was chosen, how well they separate.
    pub clustering: ClusteringSummary,
    /// The clusters, largest first (ties: in signature order).
    pub clusters: Vec<MineCluster>,
    /// The cases written to the suite, in directory order.
    pub cases: Vec<MineCase>,
    /// Trace files that could not be read (at most [`MineReport::SKIPPED_LISTED`]; the count
    /// of all is in `corpus_summary.traces_skipped`).
    pub skipped: Vec<SkippedTrace>,
}

impl MineReport {
    /// The most unreadable traces listed by name in [`MineReport::skipped`].
    pub const SKIPPED_LISTED: usize = 100;
}

/// What the corpus held and what was kept of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CorpusSummary {
    /// Trace files found under the corpus directory.
    pub trace_files: u64,
    /// Traces read and reduced to a signature.
    pub traces_read: u64,
    /// Trace files that could not be read (listed in `skipped`, not fatal).
    pub traces_skipped: u64,
    /// Distinct signatures kept (at most `signature_cap`).
    pub unique_signatures: u64,
    /// The most distinct signatures kept; beyond it a seeded bottom-k sample of the distinct
    /// signatures is kept (see docs/mine.md).
    pub signature_cap: u64,
    /// Traces whose signature fell outside the sample (0 when the cap was not reached).
    pub traces_not_sampled: u64,
    /// Traces with more tool calls than a signature keeps (their later calls are ignored).
    pub traces_truncated: u64,
}

/// How the clusters were formed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClusteringSummary {
    /// `"k-medoids (PAM BUILD + SWAP, FastPAM1)"`.
    pub method: String,
    /// Number of clusters.
    pub k: usize,
    /// `"--cases"` when given, `"silhouette"` when chosen by the best average silhouette,
    /// `"all"` when there were too few signatures to choose (each its own cluster).
    pub k_chosen_by: String,
    /// Average silhouette over the traces (each signature weighted by its count), in [-1, 1];
    /// null for fewer than 2 clusters.
    pub silhouette: Option<f64>,
    /// Kaufman and Rousseeuw's reading of the silhouette: `strong` (> 0.70), `reasonable`
    /// (> 0.50), `weak` (> 0.25) or `none` (no substantial structure); `none` too without a
    /// silhouette.
    pub structure: String,
    /// The average silhouette of each K tried when K was chosen (empty otherwise).
    pub silhouette_by_k: Vec<KScore>,
    /// Total deviation: the count-weighted sum of each signature's distance to its medoid.
    pub total_deviation: f64,
}

/// One K tried and its average silhouette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KScore {
    /// Number of clusters.
    pub k: usize,
    /// Average silhouette, in [-1, 1].
    pub silhouette: f64,
}

/// A behaviour signature: what a trace did, without its values.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct BehaviourSignature {
    /// The tool calls in order (the first [`BehaviourSignature::MAX_CALLS`]; later calls are
    /// not part of the signature).
    pub calls: Vec<CallShape>,
    /// The distinct stop / finish reasons of the trace's responses, sorted (at most
    /// [`BehaviourSignature::MAX_STOPS`]).
    pub stop_reasons: Vec<String>,
    /// An `error` record or a tool result with `is_error: true` occurred.
    pub error: bool,
    /// The `--policy` found a violation (false without `--policy`).
    pub violation: bool,
}

impl BehaviourSignature {
    /// The most calls a signature keeps.
    pub const MAX_CALLS: usize = 128;
    /// The most distinct stop reasons a signature keeps.
    pub const MAX_STOPS: usize = 8;
}

/// One tool call's name and argument shape.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct CallShape {
    /// Tool name (at most 128 bytes).
    pub tool: String,
    /// The argument shape: `key:type` for each top-level key, sorted by key, comma-separated
    /// (`type` is null, bool, number, string, array or object); values are never kept.
    pub shape: String,
}

/// One cluster of signatures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MineCluster {
    /// 1-based cluster number (the order of `clusters`).
    pub id: usize,
    /// Traces in the cluster.
    pub traces: u64,
    /// Distinct signatures in the cluster.
    pub signatures: usize,
    /// The medoid: the signature with the least count-weighted distance to the others.
    pub medoid: BehaviourSignature,
    /// Traces with exactly the medoid's signature.
    pub medoid_traces: u64,
    /// The medoid's tool names in order: the cluster's common tool sequence.
    pub tool_sequence: Vec<String>,
    /// Traces of the cluster that have each stop reason, sorted by reason.
    pub stop_reasons: Vec<ReasonCount>,
    /// Traces of the cluster with a failure (error, policy violation or non-normal stop).
    pub failing_traces: u64,
    /// Count-weighted mean distance of the cluster's traces to the medoid, in [0, 1].
    pub mean_distance: f64,
    /// The trace files copied into the cluster's case (medoid first), relative to the corpus.
    pub members: Vec<String>,
}

/// A stop reason and how many traces have it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReasonCount {
    /// The stop / finish reason.
    pub reason: String,
    /// Traces with it.
    pub traces: u64,
}

/// Why a case is in the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaseKind {
    /// The medoid of a cluster: its typical behaviour.
    Medoid,
    /// A signature seen once and far from every medoid.
    Rare,
    /// A signature with an error, a policy violation or a non-normal stop.
    Failing,
}

/// One case of the suite: `SUITE/NAME/trial-N.EXT`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MineCase {
    /// The case directory's name (`cluster-01`, `rare-01`, `failing-01`).
    pub name: String,
    /// Why it was chosen.
    pub kind: CaseKind,
    /// The cluster (1-based `id`) its signature belongs to.
    pub cluster: usize,
    /// Why it was chosen, in words.
    pub why: String,
    /// Distance of its signature to its cluster's medoid, in [0, 1] (0 for a medoid).
    pub distance_to_medoid: f64,
    /// Traces with exactly its signature.
    pub signature_traces: u64,
    /// Its tool names in order.
    pub tool_sequence: Vec<String>,
    /// The files written: `trial-N.EXT` and the corpus file it is a copy of.
    pub files: Vec<CaseFile>,
}

/// One file of a case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaseFile {
    /// The file inside the case directory (`trial-1.agentlog`).
    pub trial: String,
    /// The corpus file copied, relative to the corpus.
    pub source: String,
}

/// A corpus file that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkippedTrace {
    /// The file, relative to the corpus.
    pub path: String,
    /// Why (the reader's error, with line and hint when it has them).
    pub error: String,
}
