//! k-medoids on a distance matrix: PAM's BUILD and SWAP (Kaufman & Rousseeuw 1990, "Finding
//! Groups in Data", ch. 2), with the SWAP step computed as FastPAM1 does (Schubert & Rousseeuw
//! 2019, "Faster k-Medoids Clustering: Improving the PAM, CLARA, and CLARANS Algorithms",
//! SISAP): for each non-medoid candidate, the change of total deviation for swapping it with
//! every medoid at once, from each point's nearest and second-nearest medoid — O(n²) per
//! iteration instead of O(k·n²), the same swaps as PAM. Each point carries a weight (how many
//! traces share its signature), so the total deviation counts traces, not signatures.
//!
//! Deterministic: ties go to the lowest index (the signatures' order), candidates are scored in
//! parallel but each score is computed alone and the best is picked in index order, so the
//! result is the same whatever the thread count.

use super::Matrix;
use rayon::prelude::*;

/// The most SWAP iterations (each applies the best improving swap); PAM converges in far fewer.
pub const MAX_SWAPS: usize = 1_000;

/// A k-medoids clustering.
#[derive(Debug, Clone, PartialEq)]
pub struct Clustering {
    /// The medoids' point indices, ascending.
    pub medoids: Vec<usize>,
    /// Per point, the index into `medoids` of its nearest medoid (ties: the lower medoid).
    pub assignment: Vec<usize>,
    /// Weighted sum of each point's distance to its medoid (≥ 0).
    pub total_deviation: f64,
}

/// Nearest and second-nearest medoid slot of each point, and their distances.
struct Nearest {
    near: Vec<usize>,
    d_near: Vec<f64>,
    d_second: Vec<f64>,
}

fn nearest(d: &Matrix, medoids: &[usize]) -> Nearest {
    let n = d.len();
    let mut near = vec![0; n];
    let mut d_near = vec![f64::INFINITY; n];
    let mut d_second = vec![f64::INFINITY; n];
    for o in 0..n {
        for (slot, &m) in medoids.iter().enumerate() {
            let v = d.get(o, m);
            if v < d_near[o] {
                d_second[o] = d_near[o];
                d_near[o] = v;
                near[o] = slot;
            } else if v < d_second[o] {
                d_second[o] = v;
            }
        }
    }
    Nearest {
        near,
        d_near,
        d_second,
    }
}

/// BUILD: the point with the least weighted distance to all, then repeatedly the point that
/// lowers the total deviation most.
fn build(d: &Matrix, w: &[f64], k: usize) -> Vec<usize> {
    let n = d.len();
    let mut medoids = Vec::with_capacity(k);
    let first = (0..n)
        .into_par_iter()
        .map(|i| d.row(i).iter().zip(w).map(|(x, wj)| x * wj).sum::<f64>())
        .collect::<Vec<f64>>();
    let Some(start) = argmin(&first) else {
        return medoids;
    };
    medoids.push(start);
    let mut d_near: Vec<f64> = d.row(start).to_vec();
    while medoids.len() < k {
        let gains: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|c| {
                if medoids.contains(&c) {
                    return f64::NEG_INFINITY;
                }
                d.row(c)
                    .iter()
                    .zip(&d_near)
                    .zip(w)
                    .map(|((dc, dn), wj)| wj * (dn - dc).max(0.0))
                    .sum()
            })
            .collect();
        let Some(best) = argmax(&gains) else { break };
        medoids.push(best);
        for (dn, dc) in d_near.iter_mut().zip(d.row(best)) {
            *dn = dn.min(*dc);
        }
    }
    medoids
}

/// Index of the smallest value (first on ties); `None` when empty.
fn argmin(v: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, x) in v.iter().enumerate() {
        if best.is_none_or(|b| *x < v[b]) {
            best = Some(i);
        }
    }
    best
}

/// Index of the largest value (first on ties); `None` when empty.
fn argmax(v: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, x) in v.iter().enumerate() {
        if best.is_none_or(|b| *x > v[b]) {
            best = Some(i);
        }
    }
    best
}

/// k-medoids of the points of `d` with weights `w` (one per point, > 0): BUILD, then SWAP
/// until no swap lowers the total deviation. `k` is clamped to 1..=n; no points, no medoids.
pub fn pam(d: &Matrix, w: &[f64], k: usize) -> Clustering {
    let n = d.len();
    if n == 0 {
        return Clustering {
            medoids: Vec::new(),
            assignment: Vec::new(),
            total_deviation: 0.0,
        };
    }
    let k = k.clamp(1, n);
    let mut medoids = build(d, w, k);
    // With one medoid BUILD is optimal; with k = n every point is a medoid.
    if k > 1 && k < n {
        for _ in 0..MAX_SWAPS {
            let nn = nearest(d, &medoids);
            // Loss of removing each medoid with nothing added.
            let mut removal = vec![0.0; k];
            for o in 0..n {
                removal[nn.near[o]] += w[o] * (nn.d_second[o] - nn.d_near[o]);
            }
            let td: f64 = (0..n).map(|o| w[o] * nn.d_near[o]).sum();
            let scored: Vec<(f64, usize)> = (0..n)
                .into_par_iter()
                .map(|c| {
                    if medoids.contains(&c) {
                        return (f64::INFINITY, 0);
                    }
                    let mut delta = removal.clone();
                    let mut shared = 0.0;
                    let row = d.row(c);
                    for o in 0..n {
                        let doc = row[o];
                        let (slot, dn, ds) = (nn.near[o], nn.d_near[o], nn.d_second[o]);
                        if doc < dn {
                            shared += w[o] * (doc - dn);
                            delta[slot] += w[o] * (dn - ds);
                        } else if doc < ds {
                            delta[slot] += w[o] * (doc - ds);
                        }
                    }
                    let slot = argmin(&delta).unwrap_or(0);
                    (delta[slot] + shared, slot)
                })
                .collect();
            let mut best: Option<(f64, usize, usize)> = None;
            for (c, &(change, slot)) in scored.iter().enumerate() {
                if best.is_none_or(|b| change < b.0) {
                    best = Some((change, c, slot));
                }
            }
            match best {
                Some((change, c, slot)) if change < -1e-12 * (1.0 + td) => medoids[slot] = c,
                _ => break,
            }
        }
    }
    medoids.sort_unstable();
    let nn = nearest(d, &medoids);
    let total_deviation = (0..n).map(|o| w[o] * nn.d_near[o]).sum();
    Clustering {
        medoids,
        assignment: nn.near,
        total_deviation,
    }
}

/// Average silhouette (Rousseeuw 1987) over the traces: each point counts `w` times, and the
/// other copies of a point are members of its cluster at distance 0. A trace alone in its
/// cluster has silhouette 0. `None` with fewer than two clusters. In [-1, 1].
pub fn silhouette(d: &Matrix, w: &[f64], c: &Clustering) -> Option<f64> {
    let k = c.medoids.len();
    let n = d.len();
    if k < 2 || n == 0 {
        return None;
    }
    let mut weight = vec![0.0; k];
    for o in 0..n {
        weight[c.assignment[o]] += w[o];
    }
    let per_point: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|i| {
            let mut sums = vec![0.0; k];
            for (j, dij) in d.row(i).iter().enumerate() {
                sums[c.assignment[j]] += w[j] * dij;
            }
            let own = c.assignment[i];
            if weight[own] <= 1.0 {
                return 0.0;
            }
            let a = sums[own] / (weight[own] - 1.0);
            let b = (0..k)
                .filter(|&x| x != own && weight[x] > 0.0)
                .map(|x| sums[x] / weight[x])
                .fold(f64::INFINITY, f64::min);
            let m = a.max(b);
            if m > 0.0 && b.is_finite() {
                (b - a) / m
            } else {
                0.0
            }
        })
        .collect();
    let total: f64 = w.iter().sum();
    if total <= 0.0 {
        return None;
    }
    Some(per_point.iter().zip(w).map(|(s, wi)| s * wi).sum::<f64>() / total)
}

/// The largest K tried when K is chosen by silhouette.
pub const MAX_CHOSEN_K: usize = 20;

/// The clustering with the best average silhouette over K = 2..=min(20, n − 1) (ties: the
/// smaller K), and each K's silhouette. `None` for fewer than 3 points (nothing to choose).
pub fn choose_k(d: &Matrix, w: &[f64]) -> Option<(Clustering, Vec<(usize, f64)>)> {
    let n = d.len();
    if n < 3 {
        return None;
    }
    let mut scores = Vec::new();
    let mut best: Option<(f64, Clustering)> = None;
    for k in 2..=MAX_CHOSEN_K.min(n - 1) {
        let c = pam(d, w, k);
        let s = silhouette(d, w, &c).unwrap_or(0.0);
        scores.push((k, s));
        if best.as_ref().is_none_or(|(bs, _)| s > *bs + 1e-12) {
            best = Some((s, c));
        }
    }
    best.map(|(_, c)| (c, scores))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: &[&[f64]]) -> Matrix {
        let n = rows.len();
        Matrix::from_rows(n, rows.iter().flat_map(|r| r.iter().copied()).collect()).expect("square")
    }

    /// Points on a line at 0, 1, 2, 10, 11, 12 (distance |x − y|).
    fn line() -> Matrix {
        let x = [0.0, 1.0, 2.0, 10.0, 11.0, 12.0];
        let rows: Vec<Vec<f64>> = x
            .iter()
            .map(|a| x.iter().map(|b| f64::abs(a - b)).collect())
            .collect();
        let refs: Vec<&[f64]> = rows.iter().map(Vec::as_slice).collect();
        matrix(&refs)
    }

    #[test]
    fn two_groups_on_a_line_by_hand() {
        // The optimum medoids are 1 and 11 (the middles); TD = 1+1+1+1 = 4.
        let c = pam(&line(), &[1.0; 6], 2);
        assert_eq!(c.medoids, vec![1, 4]);
        assert_eq!(c.assignment, vec![0, 0, 0, 1, 1, 1]);
        assert!((c.total_deviation - 4.0).abs() < 1e-12);
    }

    #[test]
    fn build_then_swap_fixes_a_poor_start() {
        // BUILD picks the 1-medoid first: with weights pulling to the right group it picks a
        // point there, then SWAP must still end at the optimum.
        let w = [1.0, 1.0, 1.0, 5.0, 5.0, 5.0];
        let c = pam(&line(), &w, 2);
        assert_eq!(c.medoids, vec![1, 4]);
        // One medoid: the weighted 1-median is 11 (index 4).
        assert_eq!(pam(&line(), &w, 1).medoids, vec![4]);
    }

    #[test]
    fn swap_improves_on_build_by_hand() {
        // Four points: a, b near each other, c, d near each other, and a point e between.
        // d(a,b)=1, d(c,d)=1, e at 4 from a,b and 4 from c,d, groups 8 apart.
        let m = matrix(&[
            &[0.0, 1.0, 8.0, 8.0, 4.0],
            &[1.0, 0.0, 8.0, 8.0, 4.0],
            &[8.0, 8.0, 0.0, 1.0, 4.0],
            &[8.0, 8.0, 1.0, 0.0, 4.0],
            &[4.0, 4.0, 4.0, 4.0, 0.0],
        ]);
        let c = pam(&m, &[1.0; 5], 2);
        // BUILD starts at e (distance sum 16, the least), then adds a (gain 7): {a, e} has
        // TD = 1 + 4 + 4 = 9. SWAP replaces e by c: {a, c} has TD = 1 + 1 + 4 = 6, the optimum.
        assert!((c.total_deviation - 6.0).abs() < 1e-12, "{c:?}");
        assert_eq!(c.medoids, vec![0, 2]);
    }

    #[test]
    fn silhouette_by_hand() {
        // {0,1,2} and {10,11,12}: point 0 has a = (1+2)/2 = 1.5, b = (10+11+12)/3 = 11,
        // s = (11-1.5)/11.
        let m = line();
        let c = pam(&m, &[1.0; 6], 2);
        let s0 = (11.0 - 1.5) / 11.0;
        let s1 = (10.0 - 1.0) / 10.0;
        let s2 = (9.0 - 1.5) / 9.0;
        let expected = (2.0 * (s0 + s1 + s2)) / 6.0;
        let got = silhouette(&m, &[1.0; 6], &c).expect("two clusters");
        assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
        // Weights: copies sit at distance 0 inside their cluster.
        let w = [2.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let c = pam(&m, &w, 2);
        assert!(silhouette(&m, &w, &c).expect("two") > 0.8);
    }

    #[test]
    fn choose_k_finds_two_groups() {
        let (c, scores) = choose_k(&line(), &[1.0; 6]).expect("six points");
        assert_eq!(c.medoids.len(), 2);
        assert_eq!(scores.first().map(|s| s.0), Some(2));
        assert_eq!(scores.len(), 4);
        assert!(choose_k(&matrix(&[&[0.0, 1.0], &[1.0, 0.0]]), &[1.0, 1.0]).is_none());
    }

    #[test]
    fn k_is_clamped_and_empty_is_empty() {
        let c = pam(&line(), &[1.0; 6], 10);
        assert_eq!(c.medoids, (0..6).collect::<Vec<_>>());
        assert_eq!(c.total_deviation, 0.0);
        let e = pam(&matrix(&[]), &[], 3);
        assert!(e.medoids.is_empty());
    }
}
