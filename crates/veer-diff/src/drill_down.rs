//! Per-pair drill-down (spec `diff.md` §10): eight per-axis values for every pair, a
//! normalised regression score, the dominant axis, and the top pairs by score.

use crate::axes::TurnPair;
use crate::levenshtein::{bounded_normalized_levenshtein, EXACT_CELLS};
use crate::pairing::Pair;
use crate::pricing::Pricing;
use crate::turn::DiffTurn;
use veer_contract::axis::Axis;
use veer_contract::recommend::{PairAxisScore, PairDrilldown};
use veer_trace::features::shingles;

/// Number of pairs kept in the drill-down.
pub(crate) const DRILL_DOWN_K: usize = 5;

fn clamp_norm(v: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.abs().min(4.0)
    }
}

/// Drill-down's refusal rule (differs from the safety axis).
fn refusal(t: &DiffTurn) -> bool {
    const PATTERNS: [&str; 6] = [
        "i can't help",
        "i cannot help",
        "i'm unable",
        "i am unable",
        "i won't",
        "i will not",
    ];
    let stop = t.features.stop_reason;
    if stop == "content_filter" || stop == "refusal" {
        return true;
    }
    let lower = t.text_nl().to_lowercase();
    PATTERNS.iter().any(|p| lower.contains(p))
}

/// Whether the text (fence-stripped) parses as JSON; empty → false.
fn parses_as_json(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty() {
        return false;
    }
    let t = match t.strip_prefix("```json").or_else(|| t.strip_prefix("```")) {
        Some(rest) => {
            let mut r = rest.trim();
            while let Some(x) = r.strip_suffix("```") {
                r = x;
            }
            r.trim()
        }
        None => t,
    };
    crate::axes::conformance::parses(t)
}

fn bool_value(b: bool) -> f64 {
    f64::from(u8::from(b))
}

fn score(axis: Axis, b: f64, c: f64, norm: f64) -> PairAxisScore {
    PairAxisScore {
        axis,
        baseline_value: b,
        candidate_value: c,
        delta: c - b,
        normalized_delta: clamp_norm(norm),
    }
}

/// The drill-down entry of one pair.
pub(crate) fn pair_drilldown(
    pair_index: usize,
    pair: Pair,
    (b, c): TurnPair<'_>,
    pricing: &Pricing,
) -> PairDrilldown {
    // Shingles of the "\n"-joined texts are needed for this pair only; computed here and
    // dropped, rather than kept for every turn.
    let sim = crate::align::cost::jaccard(&shingles(b.text_nl()), &shingles(c.text_nl()));
    // Exact within the budget, the anchored upper bound past it (as the trajectory axis).
    let div =
        bounded_normalized_levenshtein(&b.shape_sequence(), &c.shape_sequence(), EXACT_CELLS).value;
    let (rb, rc) = (bool_value(refusal(b)), bool_value(refusal(c)));
    let (vb, vc) = (
        b.features.output_tokens.unwrap_or(0.0),
        c.features.output_tokens.unwrap_or(0.0),
    );
    let (lb, lc) = (
        b.features.latency_ms.unwrap_or(0.0),
        c.features.latency_ms.unwrap_or(0.0),
    );
    let (cb, cc) = (
        pricing.cost_of(&b.cost()).unwrap_or(0.0),
        pricing.cost_of(&c.cost()).unwrap_or(0.0),
    );
    let (tb, tc) = (
        b.features.thinking_tokens.unwrap_or(0.0),
        c.features.thinking_tokens.unwrap_or(0.0),
    );
    let (jb, jc) = (
        bool_value(parses_as_json(b.text_nl())),
        bool_value(parses_as_json(c.text_nl())),
    );
    let axis_scores = vec![
        score(Axis::Semantic, 1.0, sim, (1.0 - sim) / 0.5),
        score(Axis::Trajectory, 0.0, div, div / 0.5),
        score(Axis::Safety, rb, rc, (rc - rb).abs()),
        score(Axis::Verbosity, vb, vc, (vc - vb).abs() / 100.0),
        score(Axis::Latency, lb, lc, (lc - lb).abs() / 1000.0),
        score(Axis::Cost, cb, cc, (cc - cb).abs() / 0.01),
        score(Axis::Reasoning, tb, tc, (tc - tb).abs() / 100.0),
        score(Axis::Conformance, jb, jc, (jc - jb).abs()),
    ];
    let mut regression_score = 0.0;
    let mut dominant_axis = Axis::Conformance;
    let mut best = f64::NEG_INFINITY;
    for s in &axis_scores {
        regression_score += s.normalized_delta;
        if s.normalized_delta >= best {
            best = s.normalized_delta;
            dominant_axis = s.axis;
        }
    }
    PairDrilldown {
        pair_index,
        baseline_turn: pair.baseline_turn,
        candidate_turn: pair.candidate_turn,
        axis_scores,
        regression_score,
        dominant_axis,
    }
}

/// Drill-down of every pair, sorted by score (descending) then pair index, top `k` kept.
pub fn drill_down(
    pairs: &[Pair],
    turns: &[TurnPair<'_>],
    pricing: &Pricing,
    k: usize,
) -> Vec<PairDrilldown> {
    let mut all: Vec<PairDrilldown> = pairs
        .iter()
        .zip(turns.iter())
        .enumerate()
        .map(|(i, (&p, &t))| pair_drilldown(i, p, t, pricing))
        .collect();
    all.sort_by(|x, y| {
        y.regression_score
            .partial_cmp(&x.regression_score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(x.pair_index.cmp(&y.pair_index))
    });
    all.truncate(k);
    all
}
