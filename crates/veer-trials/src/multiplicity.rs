//! Multiplicity: Holm's step-down adjustment across axes and rules (Holm 1979), and
//! Benjamini–Hochberg across cases (Benjamini & Hochberg 1995) over the cases that can reach
//! significance at all, found by Tarone's rule as in Gilbert (2005). Adjusted p-values are in
//! [0, 1], never below the raw p, and keep the raw order.

use crate::error::{check_open_unit, check_p_values, TrialsError};

/// Indices sorted by p ascending (ties by index, so the result does not depend on sort
/// stability).
fn order(p: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    idx
}

/// Holm-adjusted p-values: with p sorted ascending, p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j)).
/// Each in [0, 1] and ≥ its raw p; refuses p-values outside [0, 1] or NaN.
pub fn holm(p: &[f64]) -> Result<Vec<f64>, TrialsError> {
    check_p_values(p)?;
    let m = p.len();
    let mut out = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order(p).iter().enumerate() {
        let v = ((m - rank) as f64 * p[i]).min(1.0);
        running = running.max(v);
        out[i] = running;
    }
    Ok(out)
}

/// Benjamini–Hochberg adjusted p-values: with p sorted ascending,
/// p̃_(i) = min_{j ≥ i} min(1, m·p_(j)/j). Each in [0, 1] and ≥ its raw p.
pub fn benjamini_hochberg(p: &[f64]) -> Result<Vec<f64>, TrialsError> {
    check_p_values(p)?;
    let m = p.len();
    let idx = order(p);
    let mut out = vec![0.0; m];
    let mut running: f64 = 1.0;
    for rank in (0..m).rev() {
        let i = idx[rank];
        let v = (m as f64 * p[i] / (rank + 1) as f64).min(1.0);
        running = running.min(v);
        out[i] = running;
    }
    Ok(out)
}

/// Tarone's testable set at level `alpha`: with m(K) = #{i : min_p_i < α/K}, the smallest K ≥ 1
/// with m(K) ≤ K; test i is testable when min_p_i < α/K. A test that cannot reach α/K even at
/// its most extreme outcome is left out (Gilbert 2005, step 1).
pub(crate) fn tarone_testable(min_p: &[f64], alpha: f64) -> Result<Vec<bool>, TrialsError> {
    check_open_unit("alpha", alpha)?;
    check_p_values(min_p)?;
    let m = min_p.len();
    let mut sorted: Vec<f64> = min_p.to_vec();
    sorted.sort_by(f64::total_cmp);
    let count_below = |threshold: f64| sorted.partition_point(|&v| v < threshold);
    let mut k_star = m.max(1);
    for k in 1..=m.max(1) {
        if count_below(alpha / k as f64) <= k {
            k_star = k;
            break;
        }
    }
    let threshold = alpha / k_star as f64;
    Ok(min_p.iter().map(|&v| v < threshold).collect())
}

/// Benjamini–Hochberg over the testable tests only (Gilbert 2005): the testable set by
/// `tarone_testable`, then BH with m = its size. Untestable tests get None: they neither
/// count in m nor can be declared significant.
pub fn benjamini_hochberg_testable(
    p: &[f64],
    min_p: &[f64],
    alpha: f64,
) -> Result<Vec<Option<f64>>, TrialsError> {
    if p.len() != min_p.len() {
        return Err(TrialsError::LengthMismatch {
            left: p.len(),
            right: min_p.len(),
        });
    }
    check_p_values(p)?;
    let testable = tarone_testable(min_p, alpha)?;
    let chosen: Vec<usize> = (0..p.len()).filter(|&i| testable[i]).collect();
    let sub: Vec<f64> = chosen.iter().map(|&i| p[i]).collect();
    let adjusted = benjamini_hochberg(&sub)?;
    let mut out = vec![None; p.len()];
    for (k, &i) in chosen.iter().enumerate() {
        out[i] = Some(adjusted[k]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_values() {
        let p = [0.01, 0.04, 0.03, 0.005];
        let h = holm(&p).unwrap();
        // sorted: .005·4=.02, .01·3=.03, .03·2=.06, .04·1=.04→.06
        let want = [0.03, 0.06, 0.06, 0.02];
        for (a, b) in h.iter().zip(want) {
            assert!((a - b).abs() < 1e-15);
        }
        let bh = benjamini_hochberg(&p).unwrap();
        // sorted: .005·4/1=.02, .01·4/2=.02, .03·4/3=.04, .04·4/4=.04
        let want = [0.02, 0.04, 0.04, 0.02];
        for (a, b) in bh.iter().zip(want) {
            assert!((a - b).abs() < 1e-15);
        }
        assert!(holm(&[f64::NAN]).is_err());
        assert!(holm(&[1.5]).is_err());
        assert!(holm(&[]).unwrap().is_empty());
    }

    #[test]
    fn untestable_cases_do_not_count() {
        // Two testable cases (min p 1/252) and three that cannot reach 0.05 (min p 0.05).
        let p = [0.004, 0.03, 0.05, 0.5, 1.0];
        let min_p = [1.0 / 252.0, 1.0 / 252.0, 0.05, 0.05, 0.1];
        let adj = benjamini_hochberg_testable(&p, &min_p, 0.05).unwrap();
        assert_eq!(adj[2], None);
        assert_eq!(adj[4], None);
        assert!((adj[0].unwrap() - 0.008).abs() < 1e-15);
        assert!((adj[1].unwrap() - 0.03).abs() < 1e-15);
    }
}
