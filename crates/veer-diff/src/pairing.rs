//! Which baseline response is compared with which candidate response (spec `diff.md` §8):
//! by index within each recorded session, along the alignment's `Match` steps, or — the
//! default — by index where the alignment pairs every turn one-to-one in order and along the
//! alignment otherwise, so a dropped or added turn does not shift every later pair.

use crate::align::Step;
use serde::{Deserialize, Serialize};

/// Whether the alignment pairs every turn one-to-one in order (only `Match(i, i)` steps).
pub(crate) fn one_to_one(steps: &[Step]) -> bool {
    steps
        .iter()
        .all(|s| matches!(*s, Step::Match(i, j) if i == j))
}

/// The turns the alignment leaves unpaired that `has_calls` says carry tool calls, in path
/// order: dropped baseline turns (candidate side null) and inserted candidate turns
/// (baseline side null).
pub(crate) fn unpaired_with_calls(
    steps: &[Step],
    baseline_has_calls: impl Fn(usize) -> bool,
    candidate_has_calls: impl Fn(usize) -> bool,
) -> Vec<veer_contract::axis::Position> {
    use veer_contract::axis::Position;
    steps
        .iter()
        .filter_map(|s| match *s {
            Step::Delete(i) if baseline_has_calls(i) => Some(Position {
                baseline_turn: Some(i),
                candidate_turn: None,
            }),
            Step::Insert(j) if candidate_has_calls(j) => Some(Position {
                baseline_turn: None,
                candidate_turn: Some(j),
            }),
            _ => None,
        })
        .collect()
}

/// One compared pair of responses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Pair {
    /// Baseline turn index (0-based, among the baseline's responses).
    pub baseline_turn: usize,
    /// Candidate turn index (0-based, among the candidate's responses).
    pub candidate_turn: usize,
}

/// Index pairing within recorded sessions. `*_sessions` give the session of every response and
/// `*_count` the number of sessions of each trace. Returns the pairs (ordered by session, then
/// position) and warnings about responses or sessions left unpaired.
pub(crate) fn index_pairs(
    baseline_sessions: &[usize],
    baseline_count: usize,
    candidate_sessions: &[usize],
    candidate_count: usize,
) -> (Vec<Pair>, Vec<String>) {
    let group = |sessions: &[usize], count: usize| -> Vec<Vec<usize>> {
        let mut g = vec![Vec::new(); count.max(sessions.iter().map(|s| s + 1).max().unwrap_or(0))];
        for (turn, &s) in sessions.iter().enumerate() {
            g[s].push(turn);
        }
        g
    };
    let gb = group(baseline_sessions, baseline_count);
    let gc = group(candidate_sessions, candidate_count);
    let mut pairs = Vec::new();
    let mut warnings = Vec::new();
    if gb.len() != gc.len() {
        warnings.push(format!(
            "baseline has {} recorded session(s) and candidate {}; sessions present on one side only are not compared",
            gb.len(),
            gc.len()
        ));
    }
    for (k, (tb, tc)) in gb.iter().zip(gc.iter()).enumerate() {
        for (&b, &c) in tb.iter().zip(tc.iter()) {
            pairs.push(Pair {
                baseline_turn: b,
                candidate_turn: c,
            });
        }
        if tb.len() != tc.len() {
            let (side, extra) = if tb.len() > tc.len() {
                ("baseline", tb.len() - tc.len())
            } else {
                ("candidate", tc.len() - tb.len())
            };
            warnings.push(format!(
                "session {k}: {side} has {extra} more response(s); the surplus is not paired (use --pair-by alignment to pair by content)"
            ));
        }
    }
    (pairs, warnings)
}

/// Pairs along the alignment: one per `Match` step, in path order.
pub(crate) fn alignment_pairs(steps: &[Step]) -> Vec<Pair> {
    steps
        .iter()
        .filter_map(|s| match *s {
            Step::Match(i, j) => Some(Pair {
                baseline_turn: i,
                candidate_turn: j,
            }),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_within_sessions() {
        // Baseline: session 0 has turns 0,1; session 1 has turn 2.
        // Candidate: session 0 has turn 0; session 1 has turns 1,2.
        let (p, w) = index_pairs(&[0, 0, 1], 2, &[0, 1, 1], 2);
        assert_eq!(
            p,
            vec![
                Pair {
                    baseline_turn: 0,
                    candidate_turn: 0
                },
                Pair {
                    baseline_turn: 2,
                    candidate_turn: 1
                },
            ]
        );
        assert_eq!(w.len(), 2);
        let (p, w) = index_pairs(&[0, 0], 1, &[0, 0, 0], 1);
        assert_eq!(p.len(), 2);
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn auto_and_unpaired_turns() {
        use veer_contract::axis::Position;
        assert!(one_to_one(&[Step::Match(0, 0), Step::Match(1, 1)]));
        assert!(!one_to_one(&[Step::Delete(0), Step::Match(1, 0)]));
        let steps = [
            Step::Delete(0),
            Step::Match(1, 0),
            Step::Insert(1),
            Step::Insert(2),
        ];
        // Baseline turn 0 and candidate turn 2 have calls; candidate turn 1 has none.
        let u = unpaired_with_calls(&steps, |i| i == 0, |j| j == 2);
        assert_eq!(
            u,
            vec![
                Position {
                    baseline_turn: Some(0),
                    candidate_turn: None
                },
                Position {
                    baseline_turn: None,
                    candidate_turn: Some(2)
                },
            ]
        );
    }
}
