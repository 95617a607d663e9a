//! Aligned event pairs and the first structural divergence t*, with its position t*/T
//! (spec `experiment.md` §3, §4).
//!
//! t*/T is the aligned index of the first structural divergence divided by the alignment
//! length L, so it lies in [0, 1): 0.0 is the first aligned pair and 1.0 is never reached. The
//! alignment is the backtrack's (suffix-anchored), exactly as traxr defines it.

use crate::classify::{insertion_type, is_structural, substitution_type, DELETION_TYPE};
use crate::events::MetricEvent;
use veer_base::edit_script::{EditOp, EditScript};

/// One step of the alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlignedPair {
    /// Position in the alignment, 0..L−1.
    pub index: usize,
    /// Index of the clean event in its event list (`None` for an insertion).
    pub clean: Option<usize>,
    /// Index of the perturbed event in its event list (`None` for a deletion).
    pub perturbed: Option<usize>,
    /// True for matches and for substitutions whose classifier found nothing structural.
    pub is_match: bool,
    /// The divergence type, `None` for matches.
    pub divergence_type: Option<&'static str>,
}

/// The first structural divergence.
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq)]
pub struct FirstDivergence {
    /// t*: the clean event's `step_num`, else the perturbed event's.
    pub step: i64,
    /// Its divergence type.
    pub divergence_type: &'static str,
    /// Its aligned index.
    pub index: usize,
    /// t*/T = index / L, in [0, 1).
    pub normalized_position: f64,
}

/// The aligned pairs of an edit script over `clean` and `perturbed` events.
pub fn aligned_pairs(
    script: &EditScript,
    clean: &[MetricEvent<'_>],
    perturbed: &[MetricEvent<'_>],
) -> Vec<AlignedPair> {
    aligned_iter(script, clean, perturbed).collect()
}

/// [`aligned_pairs`] one at a time, in forward order (for results that need not hold them:
/// 64 bytes a pair).
pub(crate) fn aligned_iter<'a, 't: 'a>(
    script: &'a EditScript,
    clean: &'a [MetricEvent<'t>],
    perturbed: &'a [MetricEvent<'t>],
) -> impl Iterator<Item = AlignedPair> + 'a {
    script.ops.iter().enumerate().map(|(index, op)| match *op {
        EditOp::Match { i, j } => AlignedPair {
            index,
            clean: Some(i),
            perturbed: Some(j),
            is_match: true,
            divergence_type: None,
        },
        EditOp::Substitution { i, j } => {
            let t = substitution_type(&clean[i], &perturbed[j]);
            AlignedPair {
                index,
                clean: Some(i),
                perturbed: Some(j),
                is_match: t.is_none(),
                divergence_type: t,
            }
        }
        EditOp::Insertion { j } => AlignedPair {
            index,
            clean: None,
            perturbed: Some(j),
            is_match: false,
            divergence_type: Some(insertion_type(&perturbed[j])),
        },
        EditOp::Deletion { i } => AlignedPair {
            index,
            clean: Some(i),
            perturbed: None,
            is_match: false,
            divergence_type: Some(DELETION_TYPE),
        },
    })
}

/// The first aligned pair with a structural divergence type; `None` when nothing diverged
/// structurally (identical traces, or lexical differences only).
pub fn first_divergence(
    pairs: &[AlignedPair],
    clean: &[MetricEvent<'_>],
    perturbed: &[MetricEvent<'_>],
) -> Option<FirstDivergence> {
    pairs
        .iter()
        .find_map(|p| divergence_at(p, pairs.len(), clean, perturbed))
}

/// `p` as the first divergence of an alignment of `total` pairs, if its type is structural.
pub(crate) fn divergence_at(
    p: &AlignedPair,
    total: usize,
    clean: &[MetricEvent<'_>],
    perturbed: &[MetricEvent<'_>],
) -> Option<FirstDivergence> {
    let t = p.divergence_type.filter(|t| is_structural(t))?;
    let step = match (p.clean, p.perturbed) {
        (Some(i), _) => clean.get(i)?.step,
        (None, Some(j)) => perturbed.get(j)?.step,
        (None, None) => return None,
    };
    Some(FirstDivergence {
        step,
        divergence_type: t,
        index: p.index,
        normalized_position: p.index as f64 / total as f64,
    })
}
