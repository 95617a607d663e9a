//! The experiment reports (spec `experiment.md`): traxr's `to_dict()` layout of an experiment's
//! results — per-pair metrics, manifestation classes, aggregates, the noise labels — and the
//! single-pair report of `veer experiment pair`.

use crate::structural::ControlFlowChanges;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// A fine manifestation category. Declaration order is traxr's `FINE_CATEGORIES`.
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
pub enum Manifestation {
    /// Null answer alongside an early stop or large trace divergence.
    CatastrophicFailure,
    /// The perturbed run finished before the baseline did.
    EarlyTermination,
    /// The perturbed run ran longer, with extra control-flow changes.
    LoopOrExtendedExecution,
    /// The answer changed while the trace looked unchanged.
    SilentSemanticCorruption,
    /// The agent routed to a different agent at some aligned step.
    StrategyReroute,
    /// The trace diverged and the answer changed.
    StructuralDivergenceWithOutcomeChange,
    /// The trace diverged but the answer was unchanged.
    StructuralDivergenceRecovered,
    /// No change in either the trace or the answer.
    NoObservableEffect,
    /// The answer changed with no structural signal to explain it.
    OutcomeChangeUncategorized,
}

/// A manifestation group. Declaration order is traxr's `MANIFESTATION_GROUPS`.
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
pub enum ManifestationGroup {
    /// Silent semantic corruption and unexplained outcome changes.
    SilentCorruption,
    /// Loops, reroutes and structural divergence.
    BehavioralDetours,
    /// Catastrophic failure and early termination.
    CombinedDisruption,
    /// Nothing observable.
    NoObservableEffect,
}

impl Manifestation {
    /// Every category, in `FINE_CATEGORIES` order.
    pub const ALL: [Manifestation; 9] = [
        Manifestation::CatastrophicFailure,
        Manifestation::EarlyTermination,
        Manifestation::LoopOrExtendedExecution,
        Manifestation::SilentSemanticCorruption,
        Manifestation::StrategyReroute,
        Manifestation::StructuralDivergenceWithOutcomeChange,
        Manifestation::StructuralDivergenceRecovered,
        Manifestation::NoObservableEffect,
        Manifestation::OutcomeChangeUncategorized,
    ];

    /// The snake_case name traxr uses.
    pub fn name(self) -> &'static str {
        match self {
            Manifestation::CatastrophicFailure => "catastrophic_failure",
            Manifestation::EarlyTermination => "early_termination",
            Manifestation::LoopOrExtendedExecution => "loop_or_extended_execution",
            Manifestation::SilentSemanticCorruption => "silent_semantic_corruption",
            Manifestation::StrategyReroute => "strategy_reroute",
            Manifestation::StructuralDivergenceWithOutcomeChange => {
                "structural_divergence_with_outcome_change"
            }
            Manifestation::StructuralDivergenceRecovered => "structural_divergence_recovered",
            Manifestation::NoObservableEffect => "no_observable_effect",
            Manifestation::OutcomeChangeUncategorized => "outcome_change_uncategorized",
        }
    }

    /// The category named `name`; `None` for an unknown name (traxr raises `ValueError`).
    pub fn from_name(name: &str) -> Option<Manifestation> {
        Manifestation::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The legend line used in reports (`MANIFESTATION_DESCRIPTIONS`).
    pub fn description(self) -> &'static str {
        match self {
            Manifestation::CatastrophicFailure => {
                "Null answer alongside an early stop or large trace divergence."
            }
            Manifestation::EarlyTermination => {
                "The perturbed run finished before the baseline did."
            }
            Manifestation::LoopOrExtendedExecution => {
                "The perturbed run ran longer, with extra control-flow changes."
            }
            Manifestation::SilentSemanticCorruption => {
                "The answer changed while the trace looked unchanged."
            }
            Manifestation::StrategyReroute => {
                "The agent routed to a different agent at some aligned step."
            }
            Manifestation::StructuralDivergenceWithOutcomeChange => {
                "The trace diverged and the answer changed."
            }
            Manifestation::StructuralDivergenceRecovered => {
                "The trace diverged but the answer was unchanged."
            }
            Manifestation::NoObservableEffect => "No change in either the trace or the answer.",
            Manifestation::OutcomeChangeUncategorized => {
                "The answer changed with no structural signal to explain it."
            }
        }
    }

    /// The group this category belongs to.
    pub fn group(self) -> ManifestationGroup {
        match self {
            Manifestation::CatastrophicFailure | Manifestation::EarlyTermination => {
                ManifestationGroup::CombinedDisruption
            }
            Manifestation::LoopOrExtendedExecution
            | Manifestation::StrategyReroute
            | Manifestation::StructuralDivergenceWithOutcomeChange
            | Manifestation::StructuralDivergenceRecovered => ManifestationGroup::BehavioralDetours,
            Manifestation::SilentSemanticCorruption | Manifestation::OutcomeChangeUncategorized => {
                ManifestationGroup::SilentCorruption
            }
            Manifestation::NoObservableEffect => ManifestationGroup::NoObservableEffect,
        }
    }
}

impl ManifestationGroup {
    /// Every group, in `MANIFESTATION_GROUPS` order.
    pub const ALL: [ManifestationGroup; 4] = [
        ManifestationGroup::SilentCorruption,
        ManifestationGroup::BehavioralDetours,
        ManifestationGroup::CombinedDisruption,
        ManifestationGroup::NoObservableEffect,
    ];

    /// The snake_case name traxr uses.
    pub fn name(self) -> &'static str {
        match self {
            ManifestationGroup::SilentCorruption => "silent_corruption",
            ManifestationGroup::BehavioralDetours => "behavioral_detours",
            ManifestationGroup::CombinedDisruption => "combined_disruption",
            ManifestationGroup::NoObservableEffect => "no_observable_effect",
        }
    }
}

/// Run status: `ok`, `crashed`, `empty`, `skipped` (and veer's `error` for a run that could
/// not be read).
pub type Status = String;

/// One perturbed run compared with the baseline. Field order is traxr's DataFrame order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairResult {
    /// Source file basename (traxr), or the experiment directory's name.
    pub item_id: Option<String>,
    /// Perturbation (operator) name.
    pub perturbation: Option<String>,
    /// `round_trip`, `pdf_inplace`, `injection`; null when unknown (trace-file inputs).
    pub delivery: Option<String>,
    /// Status of the baseline run.
    pub status_baseline: Status,
    /// Status of the perturbed run.
    pub status_perturbed: Status,
    /// Normalised edit distance, unrounded, in [0, 1]; 0 = identical signatures.
    pub d_norm: Option<f64>,
    /// Step of the first structural divergence.
    pub t_star: Option<i64>,
    /// Its aligned position / alignment length, in [0, 1).
    pub t_star_norm: Option<f64>,
    /// Its divergence type.
    pub divergence_type: Option<String>,
    /// Control-flow changes.
    pub control_flow_changes: Option<ControlFlowChanges>,
    /// The perturbed answer matches the expected one (null without an expected answer or
    /// when the perturbed run is not `ok`).
    pub task_success: Option<bool>,
    /// The scorer says the perturbed answer differs from the baseline's.
    pub answer_changed: Option<bool>,
    /// Diverged (or changed answer) yet kept the answer; null when nothing diverged or a run
    /// is not `ok`.
    pub recovery: Option<bool>,
    /// perturbed / baseline tokens (≥ 0; 1.0 = same); null when either side has no usage.
    pub token_overhead: Option<f64>,
    /// Manifestation category.
    pub manifestation: Option<Manifestation>,
    /// Its group.
    pub manifestation_group: Option<ManifestationGroup>,
    /// d_norm ≤ noise floor; null when either is unknown.
    pub within_noise_floor: Option<bool>,
    /// Either run made concurrent LLM calls (event order is scheduling-dependent).
    pub order_nondeterministic: bool,
    /// Warnings about this pair (scorer problems, unreadable runs, unusual values).
    pub warnings: Vec<String>,
    /// Event type of the first perturbed event at step t* (for the Markdown t* cell); not
    /// part of the JSON.
    #[serde(skip)]
    pub t_star_event_type: Option<String>,
    /// veer's noise-aware label (`veer_experiment::noise`): the effect lies within the clean runs'
    /// spread; null when unknown. Not part of traxr's pair layout (the JSON report carries it
    /// in its own `noise` block).
    #[serde(skip)]
    pub within_noise: Option<bool>,
    /// The event alignment of the pair (the HTML report draws it), when the experiment asked
    /// for it; not part of the JSON.
    #[serde(skip)]
    pub alignment: Option<Vec<AlignedPairDetail>>,
}

impl PairResult {
    /// A pair without measurements (skipped, or a run that could not be read).
    pub fn unmeasured(
        item_id: Option<String>,
        perturbation: Option<String>,
        delivery: Option<String>,
        status_baseline: Status,
        status_perturbed: Status,
    ) -> Self {
        PairResult {
            item_id,
            perturbation,
            delivery,
            status_baseline,
            status_perturbed,
            d_norm: None,
            t_star: None,
            t_star_norm: None,
            divergence_type: None,
            control_flow_changes: None,
            task_success: None,
            answer_changed: None,
            recovery: None,
            token_overhead: None,
            manifestation: None,
            manifestation_group: None,
            within_noise_floor: None,
            within_noise: None,
            order_nondeterministic: false,
            warnings: Vec::new(),
            t_star_event_type: None,
            alignment: None,
        }
    }

    /// traxr's `scored`: the perturbed run was not skipped.
    pub fn scored(&self) -> bool {
        self.status_perturbed != "skipped"
    }
}

/// `divergence_summary()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DivergenceSummary {
    /// Pairs with a d_norm.
    pub pairs_measured: usize,
    /// Mean d_norm over those pairs, in [0, 1].
    pub mean_d_norm: Option<f64>,
    /// Largest d_norm, in [0, 1].
    pub max_d_norm: Option<f64>,
    /// Mean t*/T over pairs with a t*, in [0, 1).
    pub mean_t_star_norm: Option<f64>,
}

/// `token_overhead_summary()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TokenOverheadSummary {
    /// Mean token overhead (ratio, 1.0 = same usage).
    pub mean: Option<f64>,
    /// Largest token overhead.
    pub max: Option<f64>,
}

/// Aggregates over the pairs of one perturbation (veer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PerturbationAggregate {
    /// Perturbation name.
    pub perturbation: String,
    /// Number of pairs.
    pub pairs: usize,
    /// d_norm summary over these pairs.
    pub divergence_summary: DivergenceSummary,
    /// Count per manifestation category, sorted by name.
    pub manifestations: BTreeMap<String, usize>,
    /// Mean recovery (true = 1) or null.
    pub recovery_rate: Option<f64>,
    /// Token overhead summary.
    pub token_overhead_summary: TokenOverheadSummary,
}

/// Share of one manifestation group (veer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GroupAggregate {
    /// Group name.
    pub group: ManifestationGroup,
    /// Scored pairs with a manifestation in this group.
    pub pairs: usize,
    /// pairs / scored pairs with a manifestation, in [0, 1]; null when there are none.
    pub fraction: Option<f64>,
}

/// All aggregates of an experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Aggregates {
    /// Fraction of scored, classified pairs per category, sorted by category name.
    pub manifestation_prevalence: BTreeMap<String, f64>,
    /// d_norm and t*/T summary.
    pub divergence_summary: DivergenceSummary,
    /// Mean of non-null `recovery` (true = 1), in [0, 1]; null when none.
    pub recovery_rate: Option<f64>,
    /// Token overhead summary.
    pub token_overhead_summary: TokenOverheadSummary,
    /// veer: the same per perturbation, in first-seen order.
    pub by_perturbation: Vec<PerturbationAggregate>,
    /// veer: the share of each manifestation group, in traxr's group order.
    pub by_manifestation_group: Vec<GroupAggregate>,
}

/// How far the clean runs differ among themselves.
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NoiseSpread {
    /// Clean runs compared (the baseline and its re-runs).
    pub clean_runs: usize,
    /// The largest d_norm between two clean runs.
    pub d_norm: f64,
    /// Whether two clean runs gave different answers.
    pub answer_changed: bool,
}

/// One pair's noise label, in pair order (veer's own key of the JSON report).
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairNoise {
    /// The pair's `item_id`.
    pub item_id: Option<String>,
    /// The pair's `perturbation`.
    pub perturbation: Option<String>,
    /// traxr's class, unchanged.
    pub manifestation: Option<Manifestation>,
    /// True when the effect lies within the clean runs' spread; null when unknown.
    pub within_noise: Option<bool>,
}

/// The noise block of an experiment report: the spread, the label of every pair, and the
/// counts the summary shows.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoiseBlock {
    /// The clean runs' spread.
    pub spread: NoiseSpread,
    /// Measured pairs whose effect lies beyond the spread.
    pub beyond_noise: usize,
    /// Measured pairs whose effect lies within it.
    pub within_noise: usize,
    /// Every pair's label, in pair order.
    pub pairs: Vec<PairNoise>,
}

/// traxr's `EditDistanceResult.to_dict()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EditDistanceDict {
    /// Levenshtein distance over signatures.
    pub distance: usize,
    /// d_norm rounded with Python `round(x, 4)` (only here).
    pub normalized: f64,
    /// Substitutions.
    pub substitutions: usize,
    /// Insertions (only in the perturbed trace).
    pub insertions: usize,
    /// Deletions (only in the clean trace).
    pub deletions: usize,
    /// Events in the clean trace.
    pub baseline_length: usize,
    /// Events in the perturbed trace.
    pub perturbed_length: usize,
}

/// One aligned pair with full event objects (`--detail`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AlignedPairDetail {
    /// Position in the alignment, 0..L−1.
    pub index: usize,
    /// The clean event (traxr event object, timestamp included) or null.
    pub clean_event: Option<Value>,
    /// The perturbed event or null.
    pub perturbed_event: Option<Value>,
    /// Match, or a substitution with no structural difference.
    pub is_match: bool,
    /// Divergence type, null for matches.
    pub divergence_type: Option<String>,
}

/// The whole `veer experiment pair` report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairReport {
    /// Schema version of veer's JSON.
    pub schema_version: Cow<'static, str>,
    /// `--task-id` (or the analyzer case's task id).
    pub task_id: Option<String>,
    /// The perturbed trace's run label.
    pub perturbation_type: Option<String>,
    /// Edit distance over signatures.
    pub edit_distance: EditDistanceDict,
    /// Control-flow changes.
    pub control_flow_changes: ControlFlowChanges,
    /// t*: step of the first structural divergence.
    pub first_divergence_step: Option<i64>,
    /// Type of the first structural divergence.
    pub first_divergence_type: Option<String>,
    /// t*/T, in [0, 1).
    pub divergence_normalized_position: Option<f64>,
    /// Distinct steps of the clean trace.
    pub baseline_steps: usize,
    /// Distinct steps of the perturbed trace.
    pub perturbed_steps: usize,
    /// Events of the clean trace.
    pub baseline_events: usize,
    /// Events of the perturbed trace.
    pub perturbed_events: usize,
    /// `routing_decision` events of the clean trace.
    pub baseline_routing_turns: usize,
    /// `routing_decision` events of the perturbed trace.
    pub perturbed_routing_turns: usize,
    /// `tool_invocation` events of the clean trace.
    pub baseline_tool_calls: usize,
    /// `tool_invocation` events of the perturbed trace.
    pub perturbed_tool_calls: usize,
    /// The clean run's answer (raw, else its hash).
    pub baseline_answer: Option<Value>,
    /// The perturbed run's answer (raw, else its hash).
    pub perturbed_answer: Option<Value>,
    /// Report-level answer change (§6): raws compared when both known, else hashes.
    pub answer_changed: bool,
    /// Unrounded d_norm, in [0, 1]; 0 = identical signatures.
    pub d_norm: f64,
    /// = first_divergence_step.
    pub t_star: Option<i64>,
    /// = divergence_normalized_position, in [0, 1).
    pub t_star_norm: Option<f64>,
    /// = first_divergence_type.
    pub divergence_type: Option<String>,
    /// Status of the clean run (`ok`, `empty`, `crashed`).
    pub status_baseline: String,
    /// Status of the perturbed run.
    pub status_perturbed: String,
    /// Pair-level answer change (§7, traxr's scorer).
    pub pair_answer_changed: bool,
    /// The perturbed answer matches `--expected`; null without it.
    pub task_success: Option<bool>,
    /// Diverged yet kept the answer; null when nothing diverged.
    pub recovery: Option<bool>,
    /// perturbed / baseline tokens; null when either side has no captured usage.
    pub token_overhead: Option<f64>,
    /// Manifestation category.
    pub manifestation: Manifestation,
    /// Its group.
    pub manifestation_group: ManifestationGroup,
    /// max d_norm of the `--rerun` traces against the clean one, in [0, 1]; null without.
    pub noise_floor: Option<f64>,
    /// Number of clean re-runs given.
    pub noise_floor_runs: usize,
    /// d_norm ≤ noise floor; null when unmeasured.
    pub within_noise_floor: Option<bool>,
    /// Warnings (unusual values, unmeasured noise floor).
    pub warnings: Vec<String>,
    /// The full alignment (`--detail` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aligned_pairs: Option<Vec<AlignedPairDetail>>,
    /// `builtin` or `external` (from the clean trace, spec §11.1 **veer:**), for the printers'
    /// noise-floor line; not part of the JSON.
    #[serde(skip)]
    pub agent_kind: &'static str,
}

/// The warning a pair report carries when the noise floor is unmeasured for an external agent
/// (printers show it as the noise-floor line).
pub const UNMEASURED_FLOOR_WARNING: &str =
    "noise floor UNMEASURED — divergence below the (unknown) sampling-noise floor may be \
     reported as contamination; pass clean re-runs with --rerun";

/// Facts the summary printers show that are not part of traxr's export.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SummaryFacts {
    /// `fingerprint.agent_kind`, when present.
    pub agent_kind: Option<String>,
    /// `fingerprint.capture_tier`, when present.
    pub capture_tier: Option<String>,
    /// Number of pairs.
    pub pairs: usize,
    /// Pairs whose perturbed run was not skipped.
    pub scored: usize,
    /// Pairs whose perturbed run was skipped (`pairs − scored`).
    pub skipped: usize,
    /// Pairs whose d_norm is known.
    pub measured: usize,
    /// Measured pairs within the noise floor.
    pub within_floor: usize,
    /// Some pair had concurrent LLM calls.
    pub order_nondeterministic: bool,
}

/// An experiment's results: traxr's `to_dict()` layout plus veer's `errors`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExperimentReport {
    /// Schema version of veer's JSON.
    pub schema_version: Cow<'static, str>,
    /// traxr's fingerprint (stored, or built from the inputs).
    pub fingerprint: Map<String, Value>,
    /// max d_norm of the clean re-runs against the baseline, in [0, 1]; null when unmeasured.
    pub noise_floor: Option<f64>,
    /// Number of clean re-runs.
    pub noise_floor_runs: u64,
    /// One result per perturbed run, in input order.
    pub pairs: Vec<PairResult>,
    /// Raw answers by run label.
    pub answers: BTreeMap<String, Option<String>>,
    /// Aggregates.
    pub aggregates: Aggregates,
    /// Every run's trace as traxr events, by run label (timestamps removed).
    pub traces: BTreeMap<String, Value>,
    /// Runs that could not be read or measured (one line each); the other pairs are complete.
    pub errors: Vec<String>,
    /// veer's noise-aware labels (`veer_experiment::noise`): the clean runs' spread, each pair's
    /// `within_noise` (in pair order) and the counts within and beyond it. Absent without clean
    /// re-runs. A key of veer's own, beside traxr's layout, whose `pairs` stay as traxr writes
    /// them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<NoiseBlock>,
    /// What the summary printers need beyond the export.
    #[serde(skip)]
    pub summary: SummaryFacts,
}
