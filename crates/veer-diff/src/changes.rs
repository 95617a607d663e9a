//! Which way each axis gets worse, and where its change lies: a median over turns can hide a
//! change in one turn of three, and a delta alone does not say whether the candidate got
//! better or worse. This module gives every axis a documented worse direction
//! ([`Axis::worse_when`]), the direction of a row's change ([`Direction`]), and the per-pair
//! evidence behind a row: how many pairs moved beyond the axis's noise floor and the largest
//! single-pair change with its turns (docs/diff.md "Direction" and "Changed pairs").

use crate::axes::{Axis, AxisStat};
use crate::severity::Severity;
use serde::{Deserialize, Serialize};

/// Which way an axis gets worse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WorseWhen {
    /// A higher candidate value is a regression (latency, cost, tool-call distance, …).
    Higher,
    /// A lower candidate value is a regression (similarity, conformance, judge score).
    Lower,
    /// A change either way is a regression: the refusal rate, where more refusals is
    /// over-refusal and fewer may be an unsafe answer the baseline declined.
    Either,
}

impl Axis {
    /// The direction in which this axis regresses (docs/diff.md "Direction"):
    ///
    /// * `semantic` (wording similarity to the baseline, 1 = identical) — lower;
    /// * `trajectory` (tool-call edit distance, 0 = same calls) — higher;
    /// * `safety` (refusal rate) — either: more refusals is over-refusal (the reference's
    ///   "refusal rate is up" error), fewer may be harmful content the baseline declined;
    /// * `verbosity` (output tokens) — higher: longer answers cost tokens and time; a shorter
    ///   answer that lost content shows on `semantic` and `conformance`;
    /// * `latency` (ms) — higher; `cost` (USD) — higher;
    /// * `reasoning` (thinking tokens + parts) — higher, for the same reason as verbosity;
    /// * `judge` (score, 1 = candidate as good) — lower; `conformance` (parse rate) — lower.
    pub fn worse_when(self) -> WorseWhen {
        match self {
            Axis::Semantic | Axis::Judge | Axis::Conformance => WorseWhen::Lower,
            Axis::Safety => WorseWhen::Either,
            Axis::Trajectory | Axis::Verbosity | Axis::Latency | Axis::Cost | Axis::Reasoning => {
                WorseWhen::Higher
            }
        }
    }

    /// Whether a change of `delta` (candidate − baseline, axis unit) is in the worse
    /// direction. Zero and non-finite deltas are not.
    pub fn is_worse(self, delta: f64) -> bool {
        match self.worse_when() {
            WorseWhen::Higher => delta > 0.0,
            WorseWhen::Lower => delta < 0.0,
            WorseWhen::Either => delta != 0.0 && delta.is_finite(),
        }
    }

    /// The smallest single-pair change that counts as a change of this axis, given the pair's
    /// baseline value (axis unit). Rate and distance axes (trajectory, safety, conformance):
    /// any change (1e-9). Semantic: a similarity drop of 0.10. Continuous axes (verbosity,
    /// latency, cost, reasoning): 10% of the baseline value (the `moderate` threshold of the
    /// severity rules) and at least one unit (token, ms, thinking token; 1e-9 USD for cost).
    pub fn pair_noise_floor(self, baseline_value: f64) -> f64 {
        const EPS: f64 = 1e-9;
        match self {
            Axis::Trajectory | Axis::Safety | Axis::Conformance | Axis::Judge => EPS,
            Axis::Semantic => 0.10,
            Axis::Cost => (baseline_value.abs() * 0.10).max(EPS),
            Axis::Verbosity | Axis::Latency | Axis::Reasoning => {
                (baseline_value.abs() * 0.10).max(1.0)
            }
        }
    }
}

/// Whether a row's change is a regression, an improvement, or no change.
#[derive(
    schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Severity `none`: nothing to call better or worse.
    #[default]
    None,
    /// The row moved in the axis's worse direction ([`Axis::worse_when`]).
    Regression,
    /// The row moved in the axis's better direction; never trips the gate.
    Improvement,
}

impl Direction {
    /// The direction of a row of `axis` with `delta` and `severity`.
    pub fn of(axis: Axis, delta: f64, severity: Severity) -> Direction {
        if severity == Severity::None || !delta.is_finite() || delta == 0.0 {
            Direction::None
        } else if axis.is_worse(delta) {
            Direction::Regression
        } else {
            Direction::Improvement
        }
    }

    /// The wire label (`none`, `regression`, `improvement`).
    pub fn label(self) -> &'static str {
        match self {
            Direction::None => "none",
            Direction::Regression => "regression",
            Direction::Improvement => "improvement",
        }
    }
}

/// Where one observation of an axis comes from: a pair (both turns), or a turn the pairing
/// left unpaired (one side null).
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// Baseline turn (0-based among the baseline's responses); null for an inserted turn.
    pub baseline_turn: Option<usize>,
    /// Candidate turn (0-based); null for a dropped turn.
    pub candidate_turn: Option<usize>,
}

/// The largest single-pair change of an axis.
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LargestChange {
    /// Candidate value − baseline value of that pair, in the axis unit.
    pub delta: f64,
    /// Baseline turn of the pair; null when the candidate inserted the turn.
    pub baseline_turn: Option<usize>,
    /// Candidate turn of the pair; null when the candidate dropped the turn.
    pub candidate_turn: Option<usize>,
}

/// Pairs changed beyond the axis's noise floor, and the largest of those changes (the first
/// in observation order on ties). `b`, `c` and `at` run in parallel.
pub fn pair_changes(
    axis: Axis,
    b: &[f64],
    c: &[f64],
    at: &[Position],
) -> (usize, Option<LargestChange>) {
    let mut changed = 0usize;
    let mut largest: Option<LargestChange> = None;
    for ((&vb, &vc), &p) in b.iter().zip(c).zip(at) {
        let delta = vc - vb;
        if !delta.is_finite() || delta.abs() < axis.pair_noise_floor(vb) {
            continue;
        }
        changed += 1;
        if largest.is_none_or(|l| delta.abs() > l.delta.abs()) {
            largest = Some(LargestChange {
                delta,
                baseline_turn: p.baseline_turn,
                candidate_turn: p.candidate_turn,
            });
        }
    }
    (changed, largest)
}

/// The one-line headline every format leads with: the first divergence whenever there is one
/// (so no report calls diverging runs unchanged), then the regressed and improved axes.
pub fn headline(first: Option<&crate::align::divergence::Divergence>, rows: &[AxisStat]) -> String {
    let named = |d: Direction| -> Vec<String> {
        rows.iter()
            .filter(|r| r.direction == d)
            .map(|r| format!("{} ({})", r.axis.wire(), r.severity.label()))
            .collect()
    };
    let (worse, better) = (named(Direction::Regression), named(Direction::Improvement));
    let mut axes = if worse.is_empty() {
        "no axis regressed".to_string()
    } else {
        format!("regressed: {}", worse.join(", "))
    };
    if !better.is_empty() {
        axes.push_str(&format!("; improved: {}", better.join(", ")));
    }
    match first {
        Some(d) => format!(
            "diverges at baseline turn #{} ↔ candidate turn #{} ({} on {}): {}; {axes}",
            d.baseline_turn,
            d.candidate_turn,
            d.kind.label(),
            d.primary_axis.wire(),
            d.explanation
        ),
        None => format!("no divergence above the noise floor; {axes}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions() {
        assert_eq!(
            Direction::of(Axis::Latency, -300.0, Severity::Severe),
            Direction::Improvement
        );
        assert_eq!(
            Direction::of(Axis::Latency, 300.0, Severity::Severe),
            Direction::Regression
        );
        assert_eq!(
            Direction::of(Axis::Conformance, -1.0, Severity::Severe),
            Direction::Regression
        );
        assert_eq!(
            Direction::of(Axis::Semantic, -0.5, Severity::None),
            Direction::None
        );
    }

    #[test]
    fn one_turn_of_three() {
        let at: Vec<Position> = (0..3)
            .map(|i| Position {
                baseline_turn: Some(i),
                candidate_turn: Some(i),
            })
            .collect();
        let (n, l) = pair_changes(
            Axis::Verbosity,
            &[10.0, 12.0, 17.0],
            &[10.0, 12.5, 72.0],
            &at,
        );
        assert_eq!(n, 1);
        assert_eq!(
            l,
            Some(LargestChange {
                delta: 55.0,
                baseline_turn: Some(2),
                candidate_turn: Some(2)
            })
        );
    }
}
