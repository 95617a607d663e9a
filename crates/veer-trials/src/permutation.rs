//! Behaviour per case: the spread among each side's own trials (D_BB, D_CC), across sides
//! (D_BC), the excess divergence E = D_BC − (D_BB + D_CC)/2 (the energy-distance statistic of
//! Székely & Rizzo with within-side means over distinct pairs), and its permutation p-value
//! over the relabellings of the pooled trials: exact enumeration up to
//! [`PermutationOptions::exact_limit`] relabellings, seeded Monte Carlo `(b+1)/(B+1)` beyond.

use serde::{Deserialize, Serialize};
use veer_contract::trials::stats::PermutationMethod;

use crate::error::{TrialsError, MAX_POOLED_TRIALS_FOR_DISTANCES};
use crate::special::{choose_u64, ln_choose};
use veer_base::rng::TrialRng;

/// Relabellings enumerated exactly (C(k_B+k_C, k_B) up to this; 9 vs 9 is 48,620, so 10 vs 10
/// and above use Monte Carlo).
pub(crate) const DEFAULT_EXACT_LIMIT: u64 = 10_000;
/// Monte Carlo relabellings per test (B); p = (b+1)/(B+1) is at least 1/10,000.
pub(crate) const DEFAULT_DRAWS: u32 = 9_999;
/// Sequential stopping (Besag & Clifford 1991): a Monte Carlo test stops as soon as this many
/// relabellings at least as extreme as the observed one have been drawn, with p = h/L after L
/// draws. Only tests whose p is small (< h/B ≈ 0.01 at the defaults) run all B draws, so a
/// suite of unchanged cases costs a fraction of B draws per case; the p-value stays valid.
pub const SEQUENTIAL_STOP: u64 = 100;
/// Pair sums a single Monte Carlo test may evaluate; past it B shrinks (to no fewer than 99)
/// so the work stays bounded at very large trial counts.
pub(crate) const MONTE_CARLO_WORK_LIMIT: u64 = 20_000_000;

/// How permutation p-values are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermutationOptions {
    /// Enumerate exactly when the number of relabellings is at most this.
    pub exact_limit: u64,
    /// Monte Carlo relabellings (B) past the exact limit.
    pub draws: u32,
    /// The generator's seed (use [`veer_base::rng::derive_seed`] with the case key for per-case seeds).
    pub seed: u64,
}

impl Default for PermutationOptions {
    fn default() -> Self {
        PermutationOptions {
            exact_limit: DEFAULT_EXACT_LIMIT,
            draws: DEFAULT_DRAWS,
            seed: 0,
        }
    }
}

/// A symmetric table of distances between the pooled trials of one case, baseline first
/// (indices `0..k_B`) then candidate (`k_B..k_B+k_C`), stored as the condensed upper triangle
/// (pairs (0,1), (0,2), …, (0,n−1), (1,2), …, as SciPy's `pdist`).
#[derive(Debug, Clone, PartialEq)]
pub struct PairwiseDistances {
    n: usize,
    values: Vec<f64>,
}

/// The position of pair (i, j), i ≠ j, in a condensed table over `n` items.
pub(crate) fn condensed_index(i: usize, j: usize, n: usize) -> usize {
    let (i, j) = if i < j { (i, j) } else { (j, i) };
    i * n - i * (i + 1) / 2 + (j - i - 1)
}

impl PairwiseDistances {
    /// Wraps a condensed table over `n` trials. Refuses a wrong length, more than
    /// `MAX_POOLED_TRIALS_FOR_DISTANCES` trials, NaN or infinite distances (they carry no
    /// order, so no p-value could be honest) and negative ones.
    pub fn from_condensed(n: usize, values: Vec<f64>) -> Result<PairwiseDistances, TrialsError> {
        if n > MAX_POOLED_TRIALS_FOR_DISTANCES {
            return Err(TrialsError::TooManyTrials {
                trials: n,
                limit: MAX_POOLED_TRIALS_FOR_DISTANCES,
            });
        }
        let expected = n * n.saturating_sub(1) / 2;
        if values.len() != expected {
            return Err(TrialsError::WrongPairCount {
                expected,
                found: values.len(),
            });
        }
        for (index, &v) in values.iter().enumerate() {
            if !v.is_finite() {
                return Err(TrialsError::NotFinite {
                    what: "distance".to_string(),
                    index,
                });
            }
            if v < 0.0 {
                return Err(TrialsError::NegativeDistance { index });
            }
        }
        Ok(PairwiseDistances { n, values })
    }

    /// Builds the table by calling `distance(i, j)` once per pair i < j.
    pub fn from_fn(
        n: usize,
        mut distance: impl FnMut(usize, usize) -> f64,
    ) -> Result<PairwiseDistances, TrialsError> {
        if n > MAX_POOLED_TRIALS_FOR_DISTANCES {
            return Err(TrialsError::TooManyTrials {
                trials: n,
                limit: MAX_POOLED_TRIALS_FOR_DISTANCES,
            });
        }
        let mut values = Vec::with_capacity(n * n.saturating_sub(1) / 2);
        for i in 0..n {
            for j in i + 1..n {
                values.push(distance(i, j));
            }
        }
        PairwiseDistances::from_condensed(n, values)
    }

    /// The number of trials.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when there are no trials.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The distance between trials `i` and `j` (0 when i = j).
    pub fn get(&self, i: usize, j: usize) -> f64 {
        if i == j {
            0.0
        } else {
            self.values[condensed_index(i, j, self.n)]
        }
    }
}

/// Which sides' within-side spread could be estimated (a side needs two trials).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WithinSpread {
    /// Both sides have ≥ 2 trials: E = D_BC − (D_BB + D_CC)/2.
    Both,
    /// Only the baseline: E = D_BC − D_BB.
    BaselineOnly,
    /// Only the candidate: E = D_BC − D_CC.
    CandidateOnly,
    /// One trial a side: no noise estimate, E = D_BC and the test cannot reject (p = 1).
    Neither,
}

/// The behaviour test of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BehaviourTest {
    /// k_B.
    pub baseline_trials: u32,
    /// k_C.
    pub candidate_trials: u32,
    /// Mean distance among the baseline's trials (None at k_B = 1), ≥ 0.
    pub d_bb: Option<f64>,
    /// Mean distance among the candidate's trials (None at k_C = 1), ≥ 0.
    pub d_cc: Option<f64>,
    /// Mean distance across sides, ≥ 0.
    pub d_bc: f64,
    /// The excess divergence (see [`WithinSpread`] for its form at k = 1); ~0 when nothing
    /// changed, positive when the sides differ more than each side varies.
    pub excess: f64,
    /// Which within-side spreads exist.
    pub within_spread: WithinSpread,
    /// The share of relabellings with an excess at least the observed one, in (0, 1].
    pub p_value: f64,
    /// The smallest p this test can reach at these trial counts (exact: 1/C(N, k_B), 2/C(N, k)
    /// when k_B = k_C = k because swapping the labels keeps E; Monte Carlo: at least
    /// 1/(B+1)), in (0, 1].
    pub min_attainable_p: f64,
    /// Exact or Monte Carlo.
    pub method: PermutationMethod,
}

/// Up to this many pooled trials the table is expanded to a full square matrix (at most 2 MB)
/// so a relabelling reads its pairs without index arithmetic.
const FULL_MATRIX_MAX_TRIALS: usize = 512;

/// The table's total, its row sums, and (for small tables) the full square matrix.
struct Sums {
    n: usize,
    total: f64,
    row: Vec<f64>,
    full: Option<Vec<f64>>,
}

impl Sums {
    fn new(d: &PairwiseDistances) -> Sums {
        let n = d.n;
        let mut row = vec![0.0; n];
        let mut total = 0.0;
        let mut full = (n <= FULL_MATRIX_MAX_TRIALS).then(|| vec![0.0; n * n]);
        for i in 0..n {
            for j in i + 1..n {
                let v = d.get(i, j);
                row[i] += v;
                row[j] += v;
                total += v;
                if let Some(m) = full.as_mut() {
                    m[i * n + j] = v;
                    m[j * n + i] = v;
                }
            }
        }
        Sums {
            n,
            total,
            row,
            full,
        }
    }
}

/// E for a labelling whose group of size `k_g` (the baseline when `group_is_baseline`) is
/// `group`, from its within sum and its row sum.
struct Statistic {
    k_b: f64,
    k_c: f64,
    spread: WithinSpread,
}

impl Statistic {
    fn excess(&self, w_b: f64, w_c: f64, cross: f64) -> (Option<f64>, Option<f64>, f64, f64) {
        let pairs = |k: f64| k * (k - 1.0) / 2.0;
        let d_bb = (self.k_b >= 2.0).then(|| w_b / pairs(self.k_b));
        let d_cc = (self.k_c >= 2.0).then(|| w_c / pairs(self.k_c));
        let d_bc = cross / (self.k_b * self.k_c);
        let e = match self.spread {
            WithinSpread::Both => d_bc - 0.5 * (d_bb.unwrap_or(0.0) + d_cc.unwrap_or(0.0)),
            WithinSpread::BaselineOnly => d_bc - d_bb.unwrap_or(0.0),
            WithinSpread::CandidateOnly => d_bc - d_cc.unwrap_or(0.0),
            WithinSpread::Neither => d_bc,
        };
        (d_bb, d_cc, d_bc, e)
    }
}

/// Within sum and row sum of a group of indices.
fn group_sums(d: &PairwiseDistances, sums: &Sums, group: &[usize]) -> (f64, f64) {
    let mut within = 0.0;
    let mut rows = 0.0;
    match &sums.full {
        Some(m) => {
            for (a, &i) in group.iter().enumerate() {
                rows += sums.row[i];
                let r = &m[i * sums.n..(i + 1) * sums.n];
                for &j in &group[a + 1..] {
                    within += r[j];
                }
            }
        }
        None => {
            for (a, &i) in group.iter().enumerate() {
                rows += sums.row[i];
                for &j in &group[a + 1..] {
                    within += d.get(i, j);
                }
            }
        }
    }
    (within, rows)
}

/// The behaviour test of one case from the pooled distance table (`k_b` baseline trials first,
/// then `k_c` candidate trials). Work: at most `exact_limit` or B relabellings of O(k²) each.
pub fn behaviour_test(
    distances: &PairwiseDistances,
    k_b: usize,
    k_c: usize,
    options: &PermutationOptions,
) -> Result<BehaviourTest, TrialsError> {
    if k_b == 0 {
        return Err(TrialsError::NoTrials {
            side: "baseline".to_string(),
        });
    }
    if k_c == 0 {
        return Err(TrialsError::NoTrials {
            side: "candidate".to_string(),
        });
    }
    let n = k_b + k_c;
    if distances.len() != n {
        return Err(TrialsError::LengthMismatch {
            left: distances.len(),
            right: n,
        });
    }
    let spread = match (k_b >= 2, k_c >= 2) {
        (true, true) => WithinSpread::Both,
        (true, false) => WithinSpread::BaselineOnly,
        (false, true) => WithinSpread::CandidateOnly,
        (false, false) => WithinSpread::Neither,
    };
    let stat = Statistic {
        k_b: k_b as f64,
        k_c: k_c as f64,
        spread,
    };
    let sums = Sums::new(distances);
    // The enumerated group is the smaller side; it plays the baseline when k_b ≤ k_c.
    let group_is_baseline = k_b <= k_c;
    let k_g = k_b.min(k_c);
    let evaluate = |group: &[usize]| -> f64 {
        let (w_g, r_g) = group_sums(distances, &sums, group);
        let cross = r_g - 2.0 * w_g;
        let w_o = sums.total - w_g - cross;
        let (w_b, w_c) = if group_is_baseline {
            (w_g, w_o)
        } else {
            (w_o, w_g)
        };
        stat.excess(w_b, w_c, cross).3
    };
    let observed_group: Vec<usize> = if group_is_baseline {
        (0..k_b).collect()
    } else {
        (k_b..n).collect()
    };
    let (w_g, r_g) = group_sums(distances, &sums, &observed_group);
    let cross = r_g - 2.0 * w_g;
    let w_o = sums.total - w_g - cross;
    let (w_b, w_c) = if group_is_baseline {
        (w_g, w_o)
    } else {
        (w_o, w_g)
    };
    let (d_bb, d_cc, d_bc, excess) = stat.excess(w_b, w_c, cross);
    let pair_count = (n * (n - 1) / 2).max(1) as f64;
    let tolerance = 1e-9 * (sums.total / pair_count + excess.abs());
    let threshold = excess - tolerance;
    let relabellings = choose_u64(n as u64, k_g as u64);
    let symmetric = k_b == k_c;
    let (p_value, method, min_p) = match relabellings {
        Some(count) if count <= options.exact_limit => {
            let mut at_least = 0u64;
            let mut group: Vec<usize> = (0..k_g).collect();
            loop {
                if evaluate(&group) >= threshold {
                    at_least += 1;
                }
                if !next_combination(&mut group, n) {
                    break;
                }
            }
            let min_p = if symmetric && count > 1 { 2.0 } else { 1.0 } / count as f64;
            (
                at_least as f64 / count as f64,
                PermutationMethod::Exact {
                    relabellings: count,
                },
                min_p.min(1.0),
            )
        }
        _ => {
            let per_draw = (k_g * k_g / 2 + k_g).max(1) as u64;
            let budget = (MONTE_CARLO_WORK_LIMIT / per_draw).max(99);
            let draws = u64::from(options.draws.max(1)).min(budget) as u32;
            let mut rng = TrialRng::new(options.seed);
            let mut pool: Vec<usize> = (0..n).collect();
            let mut at_least = 0u64;
            let mut done = 0u32;
            let mut stopped = false;
            while done < draws {
                // Partial Fisher–Yates: the first k_g slots become a uniform k_g-subset
                // whatever the arrangement the pool starts from.
                for slot in 0..k_g {
                    let pick = slot + rng.below((n - slot) as u64) as usize;
                    pool.swap(slot, pick);
                }
                done += 1;
                if evaluate(&pool[..k_g]) >= threshold {
                    at_least += 1;
                    if at_least >= SEQUENTIAL_STOP {
                        stopped = true;
                        break;
                    }
                }
            }
            let exact_floor =
                (if symmetric { 2f64.ln() } else { 0.0 } - ln_choose(n as u64, k_g as u64)).exp();
            let p = if stopped {
                at_least as f64 / f64::from(done)
            } else {
                (at_least + 1) as f64 / (f64::from(done) + 1.0)
            };
            (
                p,
                PermutationMethod::MonteCarlo {
                    draws: done,
                    seed: options.seed,
                },
                (1.0 / (f64::from(draws) + 1.0)).max(exact_floor),
            )
        }
    };
    Ok(BehaviourTest {
        baseline_trials: k_b as u32,
        candidate_trials: k_c as u32,
        d_bb,
        d_cc,
        d_bc,
        excess,
        within_spread: spread,
        p_value: p_value.clamp(0.0, 1.0),
        min_attainable_p: min_p,
        method,
    })
}

/// One case's excess divergence under relabelling: the observed E, and E of any relabelling
/// (every one enumerated, or one drawn at random). Used by the suite's stratified test.
pub(crate) struct CaseNull<'a> {
    d: &'a PairwiseDistances,
    sums: Sums,
    stat: Statistic,
    k_g: usize,
    group_is_baseline: bool,
    /// The observed E.
    pub(crate) observed: f64,
    /// Relabellings C(k_B + k_C, min(k_B, k_C)), when it fits in u64.
    pub(crate) relabellings: Option<u64>,
    /// A tie tolerance for E (scaled to the table's distances).
    pub(crate) tolerance: f64,
}

impl<'a> CaseNull<'a> {
    /// The case of table `d` with `k_b` baseline trials first, then `k_c` candidate trials.
    pub(crate) fn new(
        d: &'a PairwiseDistances,
        k_b: usize,
        k_c: usize,
    ) -> Result<CaseNull<'a>, TrialsError> {
        if k_b == 0 || k_c == 0 {
            return Err(TrialsError::NoTrials {
                side: if k_b == 0 { "baseline" } else { "candidate" }.to_string(),
            });
        }
        let n = k_b + k_c;
        if d.len() != n {
            return Err(TrialsError::LengthMismatch {
                left: d.len(),
                right: n,
            });
        }
        let spread = match (k_b >= 2, k_c >= 2) {
            (true, true) => WithinSpread::Both,
            (true, false) => WithinSpread::BaselineOnly,
            (false, true) => WithinSpread::CandidateOnly,
            (false, false) => WithinSpread::Neither,
        };
        let sums = Sums::new(d);
        let group_is_baseline = k_b <= k_c;
        let k_g = k_b.min(k_c);
        let mut null = CaseNull {
            d,
            stat: Statistic {
                k_b: k_b as f64,
                k_c: k_c as f64,
                spread,
            },
            k_g,
            group_is_baseline,
            observed: 0.0,
            relabellings: choose_u64(n as u64, k_g as u64),
            tolerance: 0.0,
            sums,
        };
        let observed: Vec<usize> = if group_is_baseline {
            (0..k_b).collect()
        } else {
            (k_b..n).collect()
        };
        null.observed = null.excess(&observed);
        let pair_count = (n * (n - 1) / 2).max(1) as f64;
        null.tolerance = 1e-9 * (null.sums.total / pair_count + null.observed.abs());
        Ok(null)
    }

    /// The case's trials, k_B + k_C.
    pub(crate) fn len(&self) -> usize {
        self.sums.n
    }

    /// Whether every distance is 0 (E is 0 under every relabelling).
    pub(crate) fn degenerate(&self) -> bool {
        self.sums.total == 0.0
    }

    /// E when `group` (sorted, size min(k_B, k_C)) is the smaller side.
    fn excess(&self, group: &[usize]) -> f64 {
        let (w_g, r_g) = group_sums(self.d, &self.sums, group);
        let cross = r_g - 2.0 * w_g;
        let w_o = self.sums.total - w_g - cross;
        let (w_b, w_c) = if self.group_is_baseline {
            (w_g, w_o)
        } else {
            (w_o, w_g)
        };
        self.stat.excess(w_b, w_c, cross).3
    }

    /// E under every relabelling (each equally likely under H₀), when there are at most
    /// `limit`; None beyond.
    pub(crate) fn enumerate(&self, limit: u64) -> Option<Vec<f64>> {
        let count = self.relabellings.filter(|c| *c <= limit)?;
        let mut out = Vec::with_capacity(count as usize);
        let mut group: Vec<usize> = (0..self.k_g).collect();
        loop {
            out.push(self.excess(&group));
            if !next_combination(&mut group, self.sums.n) {
                break;
            }
        }
        Some(out)
    }

    /// E under one uniformly drawn relabelling; `pool` is scratch space of length k_B + k_C.
    pub(crate) fn draw(&self, rng: &mut TrialRng, pool: &mut [usize]) -> f64 {
        let n = self.sums.n;
        for slot in 0..self.k_g {
            let pick = slot + rng.below((n - slot) as u64) as usize;
            pool.swap(slot, pick);
        }
        let mut group = pool[..self.k_g].to_vec();
        group.sort_unstable();
        self.excess(&group)
    }
}

/// The smallest p the exact behaviour test can reach at k_B vs k_C trials: 1/C(N, k_B), or
/// 2/C(N, k) when k_B = k_C = k (swapping the labels keeps E), in (0, 1].
pub fn behaviour_min_attainable_p(k_b: u32, k_c: u32) -> f64 {
    let n = u64::from(k_b) + u64::from(k_c);
    let ways = ln_choose(n, u64::from(k_b.min(k_c)));
    let twice = if k_b == k_c { 2f64.ln() } else { 0.0 };
    (twice - ways).exp().min(1.0)
}

/// The smallest balanced k per side at which the behaviour test can reach a p strictly below
/// `level` (4 at 0.05: 2/70), or None when `level` is not in (0, 1] or no k up to the limit does.
pub fn behaviour_trials_for_level(level: f64) -> Option<u32> {
    if !(level > 0.0 && level <= 1.0) {
        return None;
    }
    (1..=crate::MAX_TRIALS_PER_SIDE as u32).find(|&k| behaviour_min_attainable_p(k, k) < level)
}

/// Advances `group` (sorted indices in `0..n`) to the next combination in lexicographic order;
/// false after the last.
pub(crate) fn next_combination(group: &mut [usize], n: usize) -> bool {
    let k = group.len();
    if k == 0 {
        return false;
    }
    let mut i = k;
    while i > 0 {
        i -= 1;
        if group[i] < n - k + i {
            group[i] += 1;
            for j in i + 1..k {
                group[j] = group[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trials as points on a line; distance = |x_i − x_j|.
    fn line(points: &[f64]) -> PairwiseDistances {
        PairwiseDistances::from_fn(points.len(), |i, j| (points[i] - points[j]).abs()).unwrap()
    }

    #[test]
    fn separated_sides_reach_the_smallest_p() {
        let d = line(&[0.0, 0.1, 0.2, 0.3, 0.05, 5.0, 5.1, 5.2, 5.3, 5.05]);
        let t = behaviour_test(&d, 5, 5, &PermutationOptions::default()).unwrap();
        assert!(matches!(
            t.method,
            PermutationMethod::Exact { relabellings: 252 }
        ));
        assert!((t.p_value - 2.0 / 252.0).abs() < 1e-12, "{}", t.p_value);
        assert!((t.min_attainable_p - 2.0 / 252.0).abs() < 1e-12);
        assert!(t.excess > 4.0);
    }

    #[test]
    fn all_equal_distances_give_p_one() {
        let d = PairwiseDistances::from_fn(8, |_, _| 1.0).unwrap();
        let t = behaviour_test(&d, 4, 4, &PermutationOptions::default()).unwrap();
        assert_eq!(t.p_value, 1.0);
        assert!(t.excess.abs() < 1e-12);
    }

    #[test]
    fn one_trial_a_side() {
        let d = line(&[0.0, 3.0]);
        let t = behaviour_test(&d, 1, 1, &PermutationOptions::default()).unwrap();
        assert_eq!(t.within_spread, WithinSpread::Neither);
        assert_eq!(t.p_value, 1.0);
        assert_eq!(t.d_bb, None);
        let d = line(&[9.0, 0.0, 0.1, 0.2, 0.3]);
        let t = behaviour_test(&d, 1, 4, &PermutationOptions::default()).unwrap();
        assert_eq!(t.within_spread, WithinSpread::CandidateOnly);
        assert!((t.p_value - 0.2).abs() < 1e-12);
    }

    #[test]
    fn refuses_nan_and_infinite_distances() {
        assert!(PairwiseDistances::from_condensed(3, vec![1.0, f64::NAN, 1.0]).is_err());
        assert!(PairwiseDistances::from_condensed(3, vec![1.0, f64::INFINITY, 1.0]).is_err());
        assert!(PairwiseDistances::from_condensed(3, vec![1.0, -1.0, 1.0]).is_err());
        assert!(PairwiseDistances::from_condensed(3, vec![1.0, 1.0]).is_err());
    }

    #[test]
    fn monte_carlo_is_seeded() {
        let pts: Vec<f64> = (0..24)
            .map(|i| f64::from(i % 7) + f64::from(i / 12))
            .collect();
        let d = line(&pts);
        let o = PermutationOptions {
            seed: 3,
            ..PermutationOptions::default()
        };
        let a = behaviour_test(&d, 12, 12, &o).unwrap();
        let b = behaviour_test(&d, 12, 12, &o).unwrap();
        assert_eq!(a, b);
        assert!(matches!(a.method, PermutationMethod::MonteCarlo { .. }));
    }

    #[test]
    fn behaviour_testability() {
        assert!((behaviour_min_attainable_p(3, 3) - 0.1).abs() < 1e-12);
        assert!((behaviour_min_attainable_p(4, 4) - 2.0 / 70.0).abs() < 1e-12);
        assert!((behaviour_min_attainable_p(1, 4) - 0.2).abs() < 1e-12);
        assert_eq!(behaviour_trials_for_level(0.05), Some(4));
        assert_eq!(behaviour_trials_for_level(0.01), Some(5));
    }

    #[test]
    fn combinations_enumerate_all() {
        let mut g = vec![0, 1, 2];
        let mut count = 1;
        while next_combination(&mut g, 6) {
            count += 1;
        }
        assert_eq!(count, 20);
    }
}
