//! The special functions the tests need: log-gamma and the regularized incomplete beta from
//! `veer-base` (shared with the fingerprint test's F distributions), and here the regularized
//! incomplete gamma (series and Lentz continued fraction), the normal and Student t
//! distribution functions and their quantiles (Halley/Newton refinement of a closed-form
//! start). Checked against SciPy in
//! `tests/scipy_reference.rs` (relative error ≤ 1e-9 over the tabulated points).

use std::f64::consts::PI;

/// ln Γ(x) for x > 0: veer-base's (Lanczos, g = 7).
pub(crate) use veer_base::fdist::ln_gamma;

/// ln C(n, k) for 0 ≤ k ≤ n (exact product below 60, log-gamma above).
pub(crate) fn ln_choose(n: u64, k: u64) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    let k = k.min(n - k);
    if n <= 60 {
        let mut c = 1.0f64;
        for i in 1..=k {
            c = c * (n - k + i) as f64 / i as f64;
        }
        return c.round().ln();
    }
    ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
}

/// C(n, k) as an integer when it fits in a `u64`, else `None`.
pub(crate) fn choose_u64(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 1..=k {
        c = c * u128::from(n - k + i) / u128::from(i);
        if c > u128::from(u64::MAX) {
            return None;
        }
    }
    u64::try_from(c).ok()
}

const EPS: f64 = 1e-16;
const TINY: f64 = 1e-300;
const MAX_ITER: usize = 10_000;

/// The regularized lower incomplete gamma P(a, x) and upper Q(a, x) = 1 − P, each computed
/// directly where it is small (so tails keep their relative accuracy).
fn gamma_pq(a: f64, x: f64) -> (f64, f64) {
    if x <= 0.0 {
        return (0.0, 1.0);
    }
    let ln_front = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        // Series: P = e^{−x} x^a / Γ(a+1) · Σ x^n / ((a+1)…(a+n)).
        let mut term = 1.0 / a;
        let mut sum = term;
        let mut ap = a;
        for _ in 0..MAX_ITER {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * EPS {
                break;
            }
        }
        let p = (ln_front.exp() * sum).min(1.0);
        (p, 1.0 - p)
    } else {
        // Continued fraction for Q (modified Lentz).
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..MAX_ITER {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < EPS {
                break;
            }
        }
        let q = (ln_front.exp() * h).min(1.0);
        (1.0 - q, q)
    }
}

/// The standard normal density φ(x).
pub(crate) fn normal_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * PI).sqrt()
}

/// The standard normal distribution function Φ(x), in [0, 1]; accurate in the lower tail.
pub fn normal_cdf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    // Φ(x) = ½·erfc(−x/√2) and erfc(z) = Q(½, z²) for z ≥ 0.
    let z = x / std::f64::consts::SQRT_2;
    let (p, q) = gamma_pq(0.5, z * z);
    if x < 0.0 {
        0.5 * q
    } else {
        0.5 + 0.5 * p
    }
}

/// The standard normal quantile Φ⁻¹(p) for p in (0, 1); ±∞ at 0 and 1, NaN outside.
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    if p > 0.5 {
        return -normal_quantile_lower(1.0 - p);
    }
    normal_quantile_lower(p)
}

/// Φ⁻¹(p) for p in (0, ½]: Abramowitz & Stegun 26.2.23 as the start, then Halley steps on Φ.
fn normal_quantile_lower(p: f64) -> f64 {
    let t = (-2.0 * p.ln()).sqrt();
    let mut x = -(t
        - (2.515_517 + 0.802_853 * t + 0.010_328 * t * t)
            / (1.0 + 1.432_788 * t + 0.189_269 * t * t + 0.001_308 * t * t * t));
    for _ in 0..8 {
        let density = normal_pdf(x);
        if density <= 0.0 {
            break;
        }
        let e = (normal_cdf(x) - p) / density;
        let step = e / (1.0 + 0.5 * x * e);
        x -= step;
        if step.abs() <= 1e-15 * x.abs().max(1.0) {
            break;
        }
    }
    x
}

/// The regularized incomplete beta I_x(a, b) with y = 1 − x passed separately: veer-base's,
/// whose work is bounded and which stays exact at huge shapes (docs/limits.md).
pub(crate) use veer_base::fdist::beta_inc;

/// Student's t distribution function with `df` > 0 degrees of freedom, in [0, 1].
pub fn t_cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    let t2 = t * t;
    let x = df / (df + t2);
    let y = t2 / (df + t2);
    let tail = 0.5 * beta_inc(0.5 * df, 0.5, x, y);
    if t > 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// Student's t density.
fn t_pdf(t: f64, df: f64) -> f64 {
    let ln = ln_gamma(0.5 * (df + 1.0))
        - ln_gamma(0.5 * df)
        - 0.5 * (df * PI).ln()
        - 0.5 * (df + 1.0) * (t * t / df).ln_1p();
    ln.exp()
}

/// Student's t quantile for p in (0, 1) and `df` > 0 (closed forms at 1 and 2 degrees of
/// freedom; otherwise a Cornish–Fisher start refined by safeguarded Newton steps).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if p.is_nan() || df.is_nan() || df <= 0.0 || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    if p > 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    if (df - 1.0).abs() < f64::EPSILON {
        return (PI * (p - 0.5)).tan();
    }
    if (df - 2.0).abs() < f64::EPSILON {
        return (2.0 * p - 1.0) / (2.0 * p * (1.0 - p)).sqrt();
    }
    let z = normal_quantile(p);
    if df > 1e7 {
        return z;
    }
    let z3 = z * z * z;
    let z5 = z3 * z * z;
    let mut x = z + (z3 + z) / (4.0 * df) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df);
    // Bracket [lo, hi] around the root (x ≤ 0 because p ≤ ½).
    let mut lo = f64::NEG_INFINITY;
    let mut hi: f64 = 0.0;
    for _ in 0..200 {
        let f = t_cdf(x, df) - p;
        if f > 0.0 {
            hi = hi.min(x);
        } else {
            lo = lo.max(x);
        }
        let density = t_pdf(x, df);
        let mut next = x - f / density;
        if !next.is_finite() || next <= lo || next >= hi {
            next = if lo.is_finite() {
                0.5 * (lo + hi)
            } else {
                2.0 * hi.min(x) - 1.0
            };
        }
        if (next - x).abs() <= 1e-14 * x.abs().max(1.0) {
            return next;
        }
        x = next;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert!((ln_gamma(0.5) - PI.sqrt().ln()).abs() < 1e-14);
        assert!((ln_gamma(10.0) - 362_880f64.ln()).abs() < 1e-12);
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-13);
        assert!((normal_quantile(0.8) - 0.841_621_233_572_914_3).abs() < 1e-13);
        assert!((normal_cdf(-1.959_963_984_540_054) - 0.025).abs() < 1e-15);
        assert!((t_quantile(0.975, 1.0) - 12.706_204_736_174_7).abs() < 1e-10);
        assert!((t_quantile(0.975, 9.0) - 2.262_157_162_798_205).abs() < 1e-11);
        assert_eq!(choose_u64(6, 3), Some(20));
        assert_eq!(choose_u64(10, 5), Some(252));
        assert!((ln_choose(8, 4) - 70f64.ln()).abs() < 1e-14);
    }
}
