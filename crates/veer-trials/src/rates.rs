//! Rates per case and per suite: Fisher's exact test for x_B of k_B against x_C of k_C, the
//! smallest p a case can reach at its trial counts (so a case that cannot reach the level is
//! called `inconclusive`, not `unchanged`), and the exact stratified test over cases (the
//! exact Cochran–Mantel–Haenszel test: the convolution of the per-case hypergeometric
//! distributions), which at one trial a side is McNemar's exact test.
//!
//! "Successes" are whatever the caller counts: violations of a rule, passes of an outcome.
//! "Higher" always means the candidate's share is higher than the baseline's.

use serde::{Deserialize, Serialize};

use crate::error::{check_trials, TrialsError};
use crate::special::{ln_choose, normal_cdf};

/// The relative tolerance for "as or less probable than the observed table" in two-sided
/// tests (the one R and SciPy use), so tables of equal probability computed in a different
/// order are counted together.
const TWO_SIDED_RELATIVE_TOLERANCE: f64 = 1e-7;

/// Above this many multiply-adds the stratified test uses the normal approximation of its
/// statistic instead of the exact convolution (documented in docs/internals/trials-method.md).
pub(crate) const STRATIFIED_EXACT_WORK_LIMIT: u64 = 200_000_000;

/// x successes out of k trials on one side of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    /// Successes (violations, passes…), ≤ `trials`.
    pub successes: u32,
    /// Trials, ≥ 1 and ≤ `crate::MAX_TRIALS_PER_SIDE`.
    pub trials: u32,
}

impl Count {
    /// `successes` of `trials`.
    pub fn new(successes: u32, trials: u32) -> Count {
        Count { successes, trials }
    }

    /// The share of successes, in [0, 1] (0 when there are no trials).
    pub fn share(&self) -> f64 {
        if self.trials == 0 {
            0.0
        } else {
            f64::from(self.successes) / f64::from(self.trials)
        }
    }

    fn check(&self, side: &str) -> Result<(), TrialsError> {
        check_trials(side, self.trials as usize)?;
        if self.successes > self.trials {
            return Err(TrialsError::CountExceedsTrials {
                successes: self.successes,
                trials: self.trials,
            });
        }
        Ok(())
    }
}

/// Fisher's exact test of one case's 2×2 table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FisherTest {
    /// Candidate share − baseline share, in [−1, 1].
    pub effect: f64,
    /// One-sided p for "the candidate's share is higher", in [0, 1].
    pub p_higher: f64,
    /// One-sided p for "the candidate's share is lower", in [0, 1].
    pub p_lower: f64,
    /// Two-sided p (tables no more probable than the observed one), in [0, 1].
    pub p_two_sided: f64,
    /// The smallest one-sided p any table with these trial counts can give: 1/C(k_B+k_C, k_B),
    /// in (0, 1] (0 only by underflow past ~10^308 relabellings).
    pub min_attainable_p: f64,
    /// The smallest "higher" p reachable given the observed total of successes (Tarone's
    /// conditional bound, used to decide whether the case counts in Benjamini–Hochberg), in [0, 1].
    pub min_attainable_p_higher_given_total: f64,
    /// The same for "lower", in [0, 1].
    pub min_attainable_p_lower_given_total: f64,
}

/// The hypergeometric distribution of the candidate's successes given the table's margins:
/// `lo` is the smallest possible count and `pmf[i]` the probability of `lo + i`.
#[derive(Debug, Clone)]
pub(crate) struct Hypergeometric {
    pub lo: u32,
    pub pmf: Vec<f64>,
}

/// P(X_C = x) for x over its support, when `total` successes fall among `k_b + k_c` trials.
/// Built by the ratio recurrence from the mode outward (no factorials, no overflow), then
/// normalized; probabilities below ~1e-308 underflow to 0.
pub(crate) fn hypergeometric(k_b: u32, k_c: u32, total: u32) -> Hypergeometric {
    let lo = total.saturating_sub(k_b);
    let hi = total.min(k_c);
    let len = (hi - lo) as usize + 1;
    let (kb, kc, m) = (f64::from(k_b), f64::from(k_c), f64::from(total));
    // Mode of the hypergeometric: floor((m+1)(k_c+1)/(N+2)), clamped to the support.
    let mode_f = ((m + 1.0) * (kc + 1.0) / (kb + kc + 2.0)).floor();
    let mode = (mode_f as u32).clamp(lo, hi);
    let mut w = vec![0.0f64; len];
    let mi = (mode - lo) as usize;
    w[mi] = 1.0;
    // Upward: P(x+1)/P(x) = (k_c − x)(m − x) / ((x+1)(k_b − m + x + 1)).
    for i in mi..len - 1 {
        let x = f64::from(lo) + i as f64;
        let ratio = (kc - x) * (m - x) / ((x + 1.0) * (kb - m + x + 1.0));
        w[i + 1] = w[i] * ratio;
    }
    // Downward: P(x−1)/P(x) = x(k_b − m + x) / ((k_c − x + 1)(m − x + 1)).
    for i in (1..=mi).rev() {
        let x = f64::from(lo) + i as f64;
        let ratio = x * (kb - m + x) / ((kc - x + 1.0) * (m - x + 1.0));
        w[i - 1] = w[i] * ratio;
    }
    let sum: f64 = w.iter().sum();
    for v in &mut w {
        *v /= sum;
    }
    Hypergeometric { lo, pmf: w }
}

/// Upper tail, lower tail and two-sided p of a discrete distribution at index `obs`.
fn tails(pmf: &[f64], obs: usize) -> (f64, f64, f64) {
    // Sum from the extremes inward so small tails keep their accuracy.
    let upper: f64 = pmf[obs..].iter().rev().sum();
    let lower: f64 = pmf[..=obs].iter().sum();
    let threshold = pmf[obs] * (1.0 + TWO_SIDED_RELATIVE_TOLERANCE);
    let mut small: Vec<f64> = pmf.iter().copied().filter(|&p| p <= threshold).collect();
    small.sort_by(f64::total_cmp);
    let two: f64 = small.iter().sum();
    (upper.min(1.0), lower.min(1.0), two.min(1.0))
}

/// The smallest one-sided p a 2×2 table with these trial counts can reach:
/// 1/C(k_B+k_C, k_B), in [0, 1] (0.05 at 3 vs 3, 1/70 at 4 vs 4, 1/252 at 5 vs 5).
pub fn min_attainable_p(k_b: u32, k_c: u32) -> f64 {
    (-ln_choose(u64::from(k_b) + u64::from(k_c), u64::from(k_b))).exp()
}

/// The smallest balanced trial count k (per side) whose smallest attainable one-sided p is
/// strictly below `level`: 3 for 0.1, 4 for 0.05, 6 for 0.005. `None` when `level` is not in
/// (0, 1] or needs more than `crate::MAX_TRIALS_PER_SIDE` trials.
pub fn balanced_trials_for_level(level: f64) -> Option<u32> {
    if !(level > 0.0 && level <= 1.0) {
        return None;
    }
    (1..=crate::MAX_TRIALS_PER_SIDE as u32).find(|&k| min_attainable_p(k, k) < level)
}

/// Fisher's exact test for one case: baseline `b` against candidate `c`.
pub fn fisher_exact(b: Count, c: Count) -> Result<FisherTest, TrialsError> {
    b.check("baseline")?;
    c.check("candidate")?;
    let total = b.successes + c.successes;
    let dist = hypergeometric(b.trials, c.trials, total);
    let obs = (c.successes - dist.lo) as usize;
    let (p_higher, p_lower, p_two_sided) = tails(&dist.pmf, obs);
    let last = dist.pmf.len() - 1;
    Ok(FisherTest {
        effect: c.share() - b.share(),
        p_higher,
        p_lower,
        p_two_sided,
        min_attainable_p: min_attainable_p(b.trials, c.trials),
        min_attainable_p_higher_given_total: dist.pmf[last],
        min_attainable_p_lower_given_total: dist.pmf[0],
    })
}

/// How a stratified p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StratifiedMethod {
    /// The exact convolution of the per-case hypergeometric distributions.
    Exact,
    /// The normal approximation with continuity correction (the work limit was exceeded).
    NormalApproximation,
}

/// The exact stratified (Cochran–Mantel–Haenszel) test over cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StratifiedTest {
    /// Cases given.
    pub cases: u32,
    /// Cases whose margins allow any variation (the others carry no information).
    pub informative_cases: u32,
    /// Σ_c x_{c,C}: the candidate's successes over all cases.
    pub observed: u64,
    /// E[Σ x_{c,C}] under the null, ≥ 0.
    pub expected: f64,
    /// Mean per-case difference of shares (candidate − baseline), in [−1, 1].
    pub effect: f64,
    /// One-sided p for "the candidate's rate is higher", in [0, 1].
    pub p_higher: f64,
    /// One-sided p for "lower", in [0, 1].
    pub p_lower: f64,
    /// Two-sided p, in [0, 1].
    pub p_two_sided: f64,
    /// The smallest "higher" p reachable given every case's margins, in [0, 1].
    pub min_attainable_p_higher: f64,
    /// The smallest "lower" p reachable given every case's margins, in [0, 1].
    pub min_attainable_p_lower: f64,
    /// Exact or normal approximation.
    pub method: StratifiedMethod,
}

/// The exact stratified test over cases `(baseline, candidate)`: the distribution of
/// Σ_c x_{c,C} given every case's margins is the convolution of the per-case hypergeometric
/// distributions. Work is bounded by `STRATIFIED_EXACT_WORK_LIMIT`; past it the statistic's
/// normal approximation (with continuity correction) is used and `method` says so.
pub fn stratified_exact_test(cases: &[(Count, Count)]) -> Result<StratifiedTest, TrialsError> {
    crate::error::check_cases(cases.len())?;
    let mut strata = Vec::new();
    let mut offset: u64 = 0;
    let mut observed: u64 = 0;
    let mut effect_sum = 0.0;
    let mut mean = 0.0;
    let mut variance = 0.0;
    let mut work: u64 = 0;
    let mut support: u64 = 1;
    for (b, c) in cases {
        b.check("baseline")?;
        c.check("candidate")?;
        effect_sum += c.share() - b.share();
        observed += u64::from(c.successes);
        let total = b.successes + c.successes;
        let (kb, kc, m) = (f64::from(b.trials), f64::from(c.trials), f64::from(total));
        let n = kb + kc;
        mean += m * kc / n;
        if n > 1.0 {
            variance += m * (kc / n) * (kb / n) * (n - m) / (n - 1.0);
        }
        let lo = total.saturating_sub(b.trials);
        let hi = total.min(c.trials);
        offset += u64::from(lo);
        if hi > lo {
            let len = u64::from(hi - lo) + 1;
            work = work.saturating_add(support.saturating_mul(len));
            support += len - 1;
            strata.push((b.trials, c.trials, total));
        }
    }
    let n_cases = cases.len() as u32;
    let effect = if cases.is_empty() {
        0.0
    } else {
        effect_sum / cases.len() as f64
    };
    let informative = strata.len() as u32;
    if work > STRATIFIED_EXACT_WORK_LIMIT {
        let sd = variance.sqrt();
        let x = observed as f64;
        let p_higher = if sd > 0.0 {
            1.0 - normal_cdf((x - 0.5 - mean) / sd)
        } else {
            1.0
        };
        let p_lower = if sd > 0.0 {
            normal_cdf((x + 0.5 - mean) / sd)
        } else {
            1.0
        };
        return Ok(StratifiedTest {
            cases: n_cases,
            informative_cases: informative,
            observed,
            expected: mean,
            effect,
            p_higher: p_higher.clamp(0.0, 1.0),
            p_lower: p_lower.clamp(0.0, 1.0),
            p_two_sided: (2.0 * p_higher.min(p_lower)).min(1.0),
            min_attainable_p_higher: 0.0,
            min_attainable_p_lower: 0.0,
            method: StratifiedMethod::NormalApproximation,
        });
    }
    let mut dist = vec![1.0f64];
    for &(kb, kc, total) in &strata {
        let h = hypergeometric(kb, kc, total);
        let mut next = vec![0.0f64; dist.len() + h.pmf.len() - 1];
        for (i, &a) in dist.iter().enumerate() {
            if a == 0.0 {
                continue;
            }
            for (j, &p) in h.pmf.iter().enumerate() {
                next[i + j] += a * p;
            }
        }
        dist = next;
    }
    let obs = (observed - offset) as usize;
    let (p_higher, p_lower, p_two_sided) = tails(&dist, obs);
    Ok(StratifiedTest {
        cases: n_cases,
        informative_cases: informative,
        observed,
        expected: mean,
        effect,
        p_higher,
        p_lower,
        p_two_sided,
        min_attainable_p_higher: dist[dist.len() - 1],
        min_attainable_p_lower: dist[0],
        method: StratifiedMethod::Exact,
    })
}

/// McNemar's exact test on discordant cases: `baseline_only` cases where only the baseline
/// succeeded, `candidate_only` where only the candidate did (the binomial(n, ½) test).
/// Returns (p_higher, p_lower, p_two_sided), each in [0, 1]; "higher" = the candidate succeeds
/// more often.
pub fn mcnemar_exact(baseline_only: u32, candidate_only: u32) -> (f64, f64, f64) {
    let n = baseline_only + candidate_only;
    let ln_half = -(n as f64) * std::f64::consts::LN_2;
    let pmf: Vec<f64> = (0..=n)
        .map(|i| (ln_choose(u64::from(n), u64::from(i)) + ln_half).exp())
        .collect();
    tails(&pmf, candidate_only as usize)
}

/// Whether a side can reach `alpha` at all: its smallest attainable p is strictly below it.
#[cfg(test)]
fn is_testable(k_b: u32, k_c: u32, alpha: f64) -> Result<bool, TrialsError> {
    crate::error::check_open_unit("alpha", alpha)?;
    Ok(min_attainable_p(k_b, k_c) < alpha)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300) || (a - b).abs() < 1e-15
    }

    #[test]
    fn zero_of_three_to_three_of_three_is_exactly_one_in_twenty() {
        let t = fisher_exact(Count::new(0, 3), Count::new(3, 3)).unwrap();
        assert!(close(t.p_higher, 0.05), "{}", t.p_higher);
        assert!(close(t.p_two_sided, 0.1));
        assert!(close(t.min_attainable_p, 0.05));
        // Not testable at 0.05: 0.05 is not below 0.05.
        assert!(!is_testable(3, 3, 0.05).unwrap());
        assert_eq!(balanced_trials_for_level(0.05), Some(4));
    }

    #[test]
    fn smallest_attainable_p_values() {
        assert!(close(min_attainable_p(4, 4), 1.0 / 70.0));
        assert!(close(min_attainable_p(5, 5), 1.0 / 252.0));
        let t = fisher_exact(Count::new(0, 4), Count::new(4, 4)).unwrap();
        assert!(close(t.p_higher, 1.0 / 70.0));
        let t = fisher_exact(Count::new(0, 5), Count::new(5, 5)).unwrap();
        assert!(close(t.p_higher, 1.0 / 252.0));
        assert!(close(t.p_lower, 1.0));
    }

    #[test]
    fn stratified_at_one_trial_is_mcnemar() {
        // 7 discordant "candidate only", 2 "baseline only", 5 concordant of each kind.
        let mut cases = Vec::new();
        for _ in 0..7 {
            cases.push((Count::new(0, 1), Count::new(1, 1)));
        }
        for _ in 0..2 {
            cases.push((Count::new(1, 1), Count::new(0, 1)));
        }
        for _ in 0..5 {
            cases.push((Count::new(1, 1), Count::new(1, 1)));
            cases.push((Count::new(0, 1), Count::new(0, 1)));
        }
        let s = stratified_exact_test(&cases).unwrap();
        let (h, l, two) = mcnemar_exact(2, 7);
        assert!(close(s.p_higher, h) && close(s.p_lower, l) && close(s.p_two_sided, two));
        assert_eq!(s.informative_cases, 9);
        // Binomial(9, ½): P(X ≥ 7) = (36 + 9 + 1)/512.
        assert!(close(h, 46.0 / 512.0));
    }

    #[test]
    fn refuses_bad_counts() {
        assert!(fisher_exact(Count::new(4, 3), Count::new(0, 3)).is_err());
        assert!(fisher_exact(Count::new(0, 0), Count::new(0, 3)).is_err());
        assert!(fisher_exact(Count::new(0, 10_001), Count::new(0, 3)).is_err());
    }

    #[test]
    fn extreme_trial_counts() {
        let t = fisher_exact(Count::new(0, 10_000), Count::new(10_000, 10_000)).unwrap();
        assert_eq!(t.p_higher, 0.0);
        assert!(close(t.p_lower, 1.0));
        let t = fisher_exact(Count::new(5_000, 10_000), Count::new(5_000, 10_000)).unwrap();
        assert!(t.p_higher > 0.5 && t.p_lower > 0.5 && close(t.p_two_sided, 1.0));
        let t = fisher_exact(Count::new(1, 1), Count::new(1, 1)).unwrap();
        assert!(close(t.p_two_sided, 1.0));
    }
}
