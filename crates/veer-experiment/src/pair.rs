//! Pair-level results (traxr's `PairResult`, spec `experiment.md` §7, §9, §10, §11.2): the
//! divergence metrics plus answers, task success, recovery, token overhead, manifestation and
//! the noise-floor flag.

use crate::answers::{check_answer_match, normalize_answer};
use crate::divergence::{DivergenceAnalysis, PreparedTrace};
use crate::manifestation::{classify, PairMetrics};
use crate::noise_floor::within_noise_floor;
use veer_contract::experiment::PairResult;

/// What a pair is measured with besides the two traces.
#[derive(Debug, Clone, Default)]
pub(crate) struct PairInputs<'a> {
    /// The baseline run's raw answer.
    pub baseline_answer: Option<&'a str>,
    /// The perturbed run's raw answer.
    pub perturbed_answer: Option<&'a str>,
    /// The expected answer, when the experiment has one.
    pub expected_answer: Option<&'a str>,
    /// The noise floor, when measured.
    pub noise_floor: Option<f64>,
    /// The token overhead (computed by the caller from the runs' usage, or stored).
    pub token_overhead: Option<f64>,
}

/// Fills the measured fields of `result` from a divergence analysis (§7, §9, §10).
pub fn measure(
    result: &mut PairResult,
    divergence: &DivergenceAnalysis,
    perturbed: &PreparedTrace<'_>,
    inputs: &PairInputs<'_>,
) {
    let d_norm = divergence.d_norm();
    let cf = divergence.control_flow;
    let answer_changed = !check_answer_match(inputs.baseline_answer, inputs.perturbed_answer);
    let perturbed_null = normalize_answer(inputs.perturbed_answer).is_empty();
    let both_ok = result.status_baseline == "ok" && result.status_perturbed == "ok";
    let diverged = d_norm != 0.0 || cf.total_changes > 0;
    let manifestation = classify(&PairMetrics {
        answer_changed,
        perturbed_answer_is_null: perturbed_null,
        early_termination: cf.early_termination,
        extended_execution: cf.extended_execution,
        reroutes: cf.reroutes,
        total_changes: cf.total_changes,
        edit_distance_normalized: Some(d_norm),
    });
    result.d_norm = Some(d_norm);
    result.t_star = divergence.first.map(|f| f.step);
    result.t_star_norm = divergence.first.map(|f| f.normalized_position);
    result.divergence_type = divergence.first.map(|f| f.divergence_type.to_string());
    result.t_star_event_type = divergence.first.and_then(|f| {
        perturbed
            .events
            .iter()
            .find(|e| e.step == f.step)
            .map(|e| e.event_type().to_string())
    });
    result.control_flow_changes = Some(cf);
    result.task_success = match inputs.expected_answer {
        Some(expected) if result.status_perturbed == "ok" => {
            Some(check_answer_match(Some(expected), inputs.perturbed_answer))
        }
        _ => None,
    };
    result.answer_changed = Some(answer_changed);
    result.recovery = (both_ok && (diverged || answer_changed)).then_some(!answer_changed);
    result.token_overhead = inputs.token_overhead;
    result.manifestation = Some(manifestation);
    result.manifestation_group = Some(manifestation.group());
    result.within_noise_floor = within_noise_floor(inputs.noise_floor, Some(d_norm));
    result.warnings.extend(divergence.warnings.iter().cloned());
}
