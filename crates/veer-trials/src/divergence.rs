//! Where runs diverge: from the first-divergence turn of every pair of pooled trials, the
//! modal turn among cross-side pairs and how many cross and within pairs diverge there
//! ("turn 2: 9/9 cross, 0/6 within"). A change that moves behaviour shows up as one turn where
//! cross pairs diverge and within pairs do not.

use std::collections::BTreeMap;
use veer_contract::trials::stats::ModalDivergence;

use crate::error::TrialsError;

/// The modal first divergence from a condensed table of first-divergence turns over the pooled
/// trials (`k_b` baseline first, then `k_c` candidate; pair order as in
/// [`crate::PairwiseDistances`]; None = the two trials never diverge).
pub fn first_divergence(
    turns: &[Option<u32>],
    k_b: usize,
    k_c: usize,
) -> Result<ModalDivergence, TrialsError> {
    let n = k_b + k_c;
    if n > crate::MAX_POOLED_TRIALS_FOR_DISTANCES {
        return Err(TrialsError::TooManyTrials {
            trials: n,
            limit: crate::MAX_POOLED_TRIALS_FOR_DISTANCES,
        });
    }
    let expected = n * n.saturating_sub(1) / 2;
    if turns.len() != expected {
        return Err(TrialsError::WrongPairCount {
            expected,
            found: turns.len(),
        });
    }
    let mut cross: BTreeMap<u32, u32> = BTreeMap::new();
    let mut within: BTreeMap<u32, u32> = BTreeMap::new();
    let (mut cross_identical, mut within_identical) = (0u32, 0u32);
    let mut index = 0;
    for i in 0..n {
        for j in i + 1..n {
            let is_cross = (i < k_b) != (j < k_b);
            match (turns[index], is_cross) {
                (Some(t), true) => *cross.entry(t).or_default() += 1,
                (Some(t), false) => *within.entry(t).or_default() += 1,
                (None, true) => cross_identical += 1,
                (None, false) => within_identical += 1,
            }
            index += 1;
        }
    }
    // BTreeMap iterates turns in order, so `>` keeps the earliest turn on a tie.
    let mut best: Option<(u32, u32)> = None;
    for (&t, &c) in &cross {
        if best.is_none_or(|(_, bc)| c > bc) {
            best = Some((t, c));
        }
    }
    let cross_pairs = (k_b * k_c) as u32;
    let within_pairs = (expected - k_b * k_c) as u32;
    Ok(match best {
        Some((turn, count)) => ModalDivergence {
            turn: Some(turn),
            cross_at_turn: count,
            cross_pairs,
            within_at_turn: within.get(&turn).copied().unwrap_or(0),
            within_pairs,
            cross_identical,
            within_identical,
        },
        None => ModalDivergence {
            turn: None,
            cross_at_turn: 0,
            cross_pairs,
            within_at_turn: 0,
            within_pairs,
            cross_identical,
            within_identical,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nine_of_nine_cross_none_within() {
        // 3 vs 3: within pairs identical, cross pairs diverge at turn 2.
        let n = 6;
        let mut turns = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                turns.push(if (i < 3) != (j < 3) { Some(2) } else { None });
            }
        }
        let f = first_divergence(&turns, 3, 3).unwrap();
        assert_eq!(f.to_string(), "turn 2: 9/9 cross, 0/6 within");
        assert_eq!(f.within_identical, 6);
    }

    #[test]
    fn ties_take_the_earliest_turn() {
        // 1 vs 2: pairs (0,1) cross, (0,2) cross, (1,2) within.
        let f = first_divergence(&[Some(5), Some(3), Some(3)], 1, 2).unwrap();
        assert_eq!(f.turn, Some(3));
        assert_eq!((f.cross_at_turn, f.within_at_turn), (1, 1));
        assert!(first_divergence(&[None], 1, 2).is_err());
        let f = first_divergence(&[None], 1, 1).unwrap();
        assert_eq!(f.turn, None);
    }
}
