//! Noise-aware labels (veer's addition to traxr's classes): traxr labels every pair by its
//! effect, even one the clean re-runs show on their own (two clean runs of a sampling agent
//! differ too). This module measures how far the clean runs spread among themselves and flags
//! the pairs whose effect lies within that spread, so the summary can separate effects beyond
//! noise. traxr's class, `within_noise_floor` and every exported pair field stay as they are.
//!
//! **The spread** (docs/experiment.md, "Noise-aware labels"): over the clean runs — the
//! baseline and its k ≥ 1 clean re-runs — `d_norm` is the maximum `d_norm` over every
//! unordered pair of clean runs (k(k+1)/2 pairs; with one re-run, the noise floor), and
//! `answer_changed` is true when any two clean runs' answers differ under the scorer
//! (`check_answer_match`). A measured pair is **within noise** when its `d_norm ≤
//! spread.d_norm` and its answer did not change, or changed while the clean runs' answers vary
//! too. Unknown (null) without re-runs or without a d_norm.

use crate::answers::check_answer_match;
use crate::divergence::{analyze, PreparedTrace};
use veer_contract::experiment::PairResult;
use veer_contract::experiment::{NoiseBlock, NoiseSpread, PairNoise};

/// The spread of `clean` runs (the baseline first, then the re-runs) with their scored
/// answers; `None` with fewer than two runs (no re-run: the spread is unmeasured).
pub fn spread(clean: &[(&PreparedTrace<'_>, Option<String>)]) -> Option<NoiseSpread> {
    if clean.len() < 2 {
        return None;
    }
    let mut d_norm: f64 = 0.0;
    let mut answer_changed = false;
    for (i, (a, aa)) in clean.iter().enumerate() {
        for (b, ba) in &clean[i + 1..] {
            let d = analyze(a, b).d_norm();
            if d > d_norm {
                d_norm = d;
            }
            answer_changed |= !check_answer_match(aa.as_deref(), ba.as_deref());
        }
    }
    Some(NoiseSpread {
        clean_runs: clean.len(),
        d_norm,
        answer_changed,
    })
}

/// Whether `pair`'s effect lies within `spread` (module docs); `None` when the spread or the
/// pair's d_norm is unknown.
pub fn within_noise(pair: &PairResult, spread: Option<&NoiseSpread>) -> Option<bool> {
    let (s, d) = (spread?, pair.d_norm?);
    let answer_ok = pair.answer_changed != Some(true) || s.answer_changed;
    Some(d <= s.d_norm && answer_ok)
}

/// Labels every pair of `pairs` (setting [`PairResult::within_noise`]) and builds the block;
/// `None` without a spread.
pub fn label(pairs: &mut [PairResult], spread: Option<NoiseSpread>) -> Option<NoiseBlock> {
    let spread = spread?;
    let mut block = NoiseBlock {
        spread,
        beyond_noise: 0,
        within_noise: 0,
        pairs: Vec::with_capacity(pairs.len()),
    };
    for p in pairs.iter_mut() {
        p.within_noise = within_noise(p, Some(&spread));
        match p.within_noise {
            Some(true) => block.within_noise += 1,
            Some(false) => block.beyond_noise += 1,
            None => {}
        }
        block.pairs.push(PairNoise {
            item_id: p.item_id.clone(),
            perturbation: p.perturbation.clone(),
            manifestation: p.manifestation,
            within_noise: p.within_noise,
        });
    }
    Some(block)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(d: Option<f64>, changed: Option<bool>) -> PairResult {
        let mut p = PairResult::unmeasured(None, None, None, "ok".into(), "ok".into());
        p.d_norm = d;
        p.answer_changed = changed;
        p
    }

    #[test]
    fn within_noise_needs_both_the_distance_and_the_answer_inside_the_spread() {
        let s = NoiseSpread {
            clean_runs: 3,
            d_norm: 0.2,
            answer_changed: false,
        };
        assert_eq!(
            within_noise(&pair(Some(0.2), Some(false)), Some(&s)),
            Some(true)
        );
        assert_eq!(
            within_noise(&pair(Some(0.21), Some(false)), Some(&s)),
            Some(false)
        );
        assert_eq!(
            within_noise(&pair(Some(0.1), Some(true)), Some(&s)),
            Some(false)
        );
        let varying = NoiseSpread {
            answer_changed: true,
            ..s
        };
        assert_eq!(
            within_noise(&pair(Some(0.1), Some(true)), Some(&varying)),
            Some(true)
        );
        assert_eq!(within_noise(&pair(None, Some(false)), Some(&s)), None);
        assert_eq!(within_noise(&pair(Some(0.0), None), None), None);
        let mut ps = vec![
            pair(Some(0.1), Some(false)),
            pair(Some(0.5), Some(false)),
            pair(None, None),
        ];
        let b = label(&mut ps, Some(s)).unwrap();
        assert_eq!((b.within_noise, b.beyond_noise, b.pairs.len()), (1, 1, 3));
        assert_eq!(ps[0].within_noise, Some(true));
    }
}
