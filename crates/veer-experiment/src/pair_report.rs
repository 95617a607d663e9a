//! The report of `veer experiment pair`: traxr's divergence report of one clean/perturbed pair
//! (spec `experiment.md` §6) plus the pair result (§7–§10), as one flat serde struct.

use crate::divergence::{analyze, DivergenceAnalysis, PreparedTrace};
use crate::export::event_object;
use crate::noise_floor::noise_floor;
use crate::pair::{measure, PairInputs};
use crate::status::{run_status, AgentKind};
use crate::token_overhead::{cost_from_events, token_overhead};
use veer_base::edit_script::round4;
use veer_contract::experiment::Manifestation;
use veer_contract::experiment::PairResult;
use veer_contract::experiment::{
    AlignedPairDetail, EditDistanceDict, PairReport, UNMEASURED_FLOOR_WARNING,
};
use veer_trace::Trace;

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
pub(crate) fn aligned_detail(
    d: &DivergenceAnalysis,
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
