//! Pair-level results (traxr's `PairResult`, spec `experiment.md` §7, §9, §10, §11.2): the
//! divergence metrics plus answers, task success, recovery, token overhead, manifestation and
//! the noise-floor flag.

use crate::answers::{check_answer_match, normalize_answer};
use crate::control_flow::ControlFlowChanges;
use crate::divergence::{Divergence, PreparedTrace};
use crate::manifestation::{classify, Manifestation, ManifestationGroup, PairMetrics};
use crate::noise_floor::within_noise_floor;
use serde::{Deserialize, Serialize};

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
    /// veer's noise-aware label ([`crate::noise`]): the effect lies within the clean runs'
    /// spread; null when unknown. Not part of traxr's pair layout (the JSON report carries it
    /// in its own `noise` block).
    #[serde(skip)]
    pub within_noise: Option<bool>,
    /// The event alignment of the pair (the HTML report draws it), when the experiment asked
    /// for it; not part of the JSON.
    #[serde(skip)]
    pub alignment: Option<Vec<crate::pair_report::AlignedPairDetail>>,
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

/// What a pair is measured with besides the two traces.
#[derive(Debug, Clone, Default)]
pub struct PairInputs<'a> {
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
    divergence: &Divergence,
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
