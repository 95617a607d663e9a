//! The small dense linear algebra of the Hotelling test: solving `S z = v` for the pooled,
//! shrunk covariance `S` (D × D, D = 12).
//!
//! The reference inverts `S` with LAPACK (LU with partial pivoting) and falls back to the
//! Moore–Penrose pseudo-inverse only when a pivot is exactly zero; veer does the same: an LU
//! solve, and for an exactly singular `S` the pseudo-inverse from a Jacobi eigen-decomposition
//! (singular values below `1e-15 ×` the largest are dropped, NumPy's `pinv` cut-off).

// Matrix algorithms read as their textbook index form.
#![allow(clippy::needless_range_loop)]

/// A square matrix, row-major, `d × d`.
pub(crate) type Matrix = Vec<Vec<f64>>;

/// `z` with `S z = v` (`S` symmetric positive semi-definite, `d × d`).
pub(crate) fn solve(s: &Matrix, v: &[f64]) -> Vec<f64> {
    lu_solve(s, v).unwrap_or_else(|| pinv_apply(s, v))
}

/// LU with partial pivoting; None when a pivot is exactly zero.
fn lu_solve(s: &Matrix, v: &[f64]) -> Option<Vec<f64>> {
    let d = v.len();
    let mut a = s.clone();
    let mut b = v.to_vec();
    for k in 0..d {
        let mut p = k;
        for i in k + 1..d {
            if a[i][k].abs() > a[p][k].abs() {
                p = i;
            }
        }
        if a[p][k] == 0.0 {
            return None;
        }
        a.swap(k, p);
        b.swap(k, p);
        for i in k + 1..d {
            let factor = a[i][k] / a[k][k];
            if factor != 0.0 {
                for j in k..d {
                    a[i][j] -= factor * a[k][j];
                }
                b[i] -= factor * b[k];
            }
        }
    }
    let mut z = vec![0.0; d];
    for k in (0..d).rev() {
        let mut acc = b[k];
        for j in k + 1..d {
            acc -= a[k][j] * z[j];
        }
        z[k] = acc / a[k][k];
    }
    Some(z)
}

/// `S⁺ v` through the eigen-decomposition of the symmetric `S`.
fn pinv_apply(s: &Matrix, v: &[f64]) -> Vec<f64> {
    let d = v.len();
    let (values, vectors) = jacobi_eigen(s);
    let largest = values.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let cutoff = 1e-15 * largest;
    let mut z = vec![0.0; d];
    for (k, &lambda) in values.iter().enumerate() {
        if lambda.abs() <= cutoff || lambda == 0.0 {
            continue;
        }
        // Coefficient of v along eigenvector k, scaled by 1/λ.
        let coef: f64 = (0..d).map(|i| vectors[i][k] * v[i]).sum::<f64>() / lambda;
        for (i, zi) in z.iter_mut().enumerate() {
            *zi += coef * vectors[i][k];
        }
    }
    z
}

/// Cyclic Jacobi eigen-decomposition of a symmetric matrix: (eigenvalues, eigenvectors as
/// columns).
fn jacobi_eigen(s: &Matrix) -> (Vec<f64>, Matrix) {
    let d = s.len();
    let mut a = s.clone();
    let mut v: Matrix = (0..d)
        .map(|i| (0..d).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for _sweep in 0..100 {
        let off: f64 = (0..d)
            .flat_map(|i| (0..d).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        if off == 0.0 || !off.is_finite() {
            break;
        }
        for p in 0..d {
            for q in p + 1..d {
                if a[p][q] == 0.0 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let sn = t * c;
                for k in 0..d {
                    let (akp, akq) = (a[k][p], a[k][q]);
                    a[k][p] = c * akp - sn * akq;
                    a[k][q] = sn * akp + c * akq;
                }
                for k in 0..d {
                    let (apk, aqk) = (a[p][k], a[q][k]);
                    a[p][k] = c * apk - sn * aqk;
                    a[q][k] = sn * apk + c * aqk;
                }
                for row in v.iter_mut() {
                    let (vkp, vkq) = (row[p], row[q]);
                    row[p] = c * vkp - sn * vkq;
                    row[q] = sn * vkp + c * vkq;
                }
            }
        }
    }
    ((0..d).map(|i| a[i][i]).collect(), v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mul(s: &Matrix, z: &[f64]) -> Vec<f64> {
        s.iter()
            .map(|row| row.iter().zip(z).map(|(a, b)| a * b).sum())
            .collect()
    }

    #[test]
    fn lu_solves_a_regular_system() {
        let s = vec![
            vec![4.0, 1.0, 0.5],
            vec![1.0, 3.0, 0.25],
            vec![0.5, 0.25, 2.0],
        ];
        let v = [1.0, -2.0, 0.5];
        let z = solve(&s, &v);
        for (got, want) in mul(&s, &z).iter().zip(v) {
            assert!((got - want).abs() < 1e-14);
        }
    }

    /// A singular matrix: the pseudo-inverse gives the minimum-norm least-squares solution.
    /// S = diag(2, 0): S⁺ (1, 5) = (0.5, 0); the zero matrix maps everything to 0.
    #[test]
    fn singular_uses_the_pseudo_inverse() {
        let s = vec![vec![2.0, 0.0], vec![0.0, 0.0]];
        assert_eq!(solve(&s, &[1.0, 5.0]), vec![0.5, 0.0]);
        let zero = vec![vec![0.0; 3]; 3];
        assert_eq!(solve(&zero, &[1.0, 2.0, 3.0]), vec![0.0; 3]);
        // Rank one: S = u uᵀ with u = (1, 1); S⁺ = S / 4; S⁺ (1, 1) = (0.5, 0.5).
        let s = vec![vec![1.0, 1.0], vec![1.0, 1.0]];
        let z = solve(&s, &[1.0, 1.0]);
        assert!(
            (z[0] - 0.5).abs() < 1e-12 && (z[1] - 0.5).abs() < 1e-12,
            "{z:?}"
        );
    }
}
