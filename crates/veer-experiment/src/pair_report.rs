//! The report of `veer experiment pair`: traxr's divergence report of one clean/perturbed pair
//! (spec `experiment.md` §6) plus the pair result (§7–§10), as one flat serde struct.

use crate::control_flow::ControlFlowChanges;
use crate::divergence::{analyze, Divergence, PreparedTrace};
use crate::export::event_object;
use crate::levenshtein::round4;
use crate::manifestation::{Manifestation, ManifestationGroup};
use crate::noise_floor::noise_floor;
use crate::pair::{measure, PairInputs, PairResult};
use crate::status::{run_status, AgentKind};
use crate::token_overhead::{cost_from_events, token_overhead};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use veer_trace::Trace;

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

/// Options of one pair measurement.
#[derive(Debug, Clone, Default)]
pub struct PairOptions {
    /// Task id shown in the report.
    pub task_id: Option<String>,
    /// Expected answer, for `task_success`.
    pub expected_answer: Option<String>,
    /// Include the full alignment.
    pub detail: bool,
}

/// The aligned event pairs of a divergence, each event as traxr's exported event object.
pub fn aligned_detail(
    d: &Divergence,
    clean: &PreparedTrace<'_>,
    perturbed: &PreparedTrace<'_>,
) -> Vec<AlignedPairDetail> {
    d.aligned
        .iter()
        .map(|p| AlignedPairDetail {
            index: p.index,
            clean_event: p
                .clean
                .map(|i| event_object(clean.trace, &clean.events[i], i, true)),
            perturbed_event: p
                .perturbed
                .map(|j| event_object(perturbed.trace, &perturbed.events[j], j, true)),
            is_match: p.is_match,
            divergence_type: p.divergence_type.map(str::to_string),
        })
        .collect()
}

/// Measures one pair; `reruns` are clean re-runs that set the noise floor.
pub fn pair_report(
    clean: &Trace,
    perturbed: &Trace,
    reruns: &[Trace],
    options: &PairOptions,
) -> PairReport {
    let c = PreparedTrace::new(clean);
    let p = PreparedTrace::new(perturbed);
    let d = analyze(&c, &p);
    let kind = AgentKind::of_baseline(&c.events);
    let floor = noise_floor(
        &reruns
            .iter()
            .map(|r| Some(analyze(&c, &PreparedTrace::new(r)).d_norm()))
            .collect::<Vec<_>>(),
    );
    let (ba, pa) = (d.clean_answer.scored(), d.perturbed_answer.scored());
    let mut pair = PairResult::unmeasured(
        None,
        perturbed.run_label.clone(),
        None,
        run_status(kind, &c.events).into(),
        run_status(kind, &p.events).into(),
    );
    let inputs = PairInputs {
        baseline_answer: ba.as_deref(),
        perturbed_answer: pa.as_deref(),
        expected_answer: options.expected_answer.as_deref(),
        noise_floor: floor,
        token_overhead: token_overhead(
            cost_from_events(&c.events).total_tokens,
            cost_from_events(&p.events).total_tokens,
        ),
    };
    measure(&mut pair, &d, &p, &inputs);
    if floor.is_none() && kind == AgentKind::External {
        pair.warnings.push(UNMEASURED_FLOOR_WARNING.into());
    }
    let s = &d.script;
    let manifestation = pair
        .manifestation
        .unwrap_or(Manifestation::OutcomeChangeUncategorized);
    PairReport {
        schema_version: "1".into(),
        task_id: options.task_id.clone(),
        perturbation_type: perturbed.run_label.clone(),
        edit_distance: EditDistanceDict {
            distance: s.distance,
            normalized: round4(s.normalized()),
            substitutions: s.substitutions,
            insertions: s.insertions,
            deletions: s.deletions,
            baseline_length: s.baseline_length,
            perturbed_length: s.perturbed_length,
        },
        control_flow_changes: d.control_flow,
        first_divergence_step: d.first.map(|f| f.step),
        first_divergence_type: d.first.map(|f| f.divergence_type.to_string()),
        divergence_normalized_position: d.first.map(|f| f.normalized_position),
        baseline_steps: d.clean_stats.steps,
        perturbed_steps: d.perturbed_stats.steps,
        baseline_events: d.clean_stats.events,
        perturbed_events: d.perturbed_stats.events,
        baseline_routing_turns: d.clean_stats.routing_turns,
        perturbed_routing_turns: d.perturbed_stats.routing_turns,
        baseline_tool_calls: d.clean_stats.tool_calls,
        perturbed_tool_calls: d.perturbed_stats.tool_calls,
        baseline_answer: d.clean_answer.shown().cloned(),
        perturbed_answer: d.perturbed_answer.shown().cloned(),
        answer_changed: d.answer_changed,
        d_norm: d.d_norm(),
        t_star: pair.t_star,
        t_star_norm: pair.t_star_norm,
        divergence_type: pair.divergence_type.clone(),
        status_baseline: pair.status_baseline.clone(),
        status_perturbed: pair.status_perturbed.clone(),
        pair_answer_changed: pair.answer_changed.unwrap_or(false),
        task_success: pair.task_success,
        recovery: pair.recovery,
        token_overhead: pair.token_overhead,
        manifestation,
        manifestation_group: manifestation.group(),
        noise_floor: floor,
        noise_floor_runs: reruns.len(),
        within_noise_floor: pair.within_noise_floor,
        warnings: pair.warnings,
        aligned_pairs: options.detail.then(|| aligned_detail(&d, &c, &p)),
        agent_kind: kind.name(),
    }
}
