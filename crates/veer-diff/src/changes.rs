//! Which way each axis gets worse, and where its change lies: a median over turns can hide a
//! change in one turn of three, and a delta alone does not say whether the candidate got
//! better or worse. This module gives every axis a documented worse direction
//! ([`Axis::worse_when`]), the direction of a row's change ([`Direction`]), and the per-pair
//! evidence behind a row: how many pairs moved beyond the axis's noise floor and the largest
//! single-pair change with its turns (docs/diff.md "Direction" and "Changed pairs").

use veer_contract::axis::Axis;
use veer_contract::axis::AxisStat;
use veer_contract::axis::{Direction, LargestChange, Position};

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
pub fn headline(
    first: Option<&veer_contract::divergence::Divergence>,
    rows: &[AxisStat],
) -> String {
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
    use veer_base::Level;

    #[test]
    fn directions() {
        assert_eq!(
            Direction::of(Axis::Latency, -300.0, Level::Severe),
            Direction::Improvement
        );
        assert_eq!(
            Direction::of(Axis::Latency, 300.0, Level::Severe),
            Direction::Regression
        );
        assert_eq!(
            Direction::of(Axis::Conformance, -1.0, Level::Severe),
            Direction::Regression
        );
        assert_eq!(
            Direction::of(Axis::Semantic, -0.5, Level::None),
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
