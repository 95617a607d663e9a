//! The central and non-central F distributions the Hotelling test needs, from veer's own
//! regularized incomplete beta: the F survival function (the p-value), its quantile (the
//! critical value of the power calculation) and the non-central F CDF (the power itself).
//!
//! The incomplete beta is evaluated by its continued fraction (modified Lentz), on whichever
//! side of the mean converges; `ln Γ` is the Lanczos approximation (g = 7, nine terms), and
//! `ln B(a, b)` with `max(a, b) > 10⁵` the difference of two Stirling series (no cancellation
//! of two huge `ln Γ`). Accuracy is checked against SciPy's values in
//! `tests/fixtures/fingerprint/distributions.json` and, for extreme parameters,
//! `tests/fixtures/fingerprint/distributions-extreme.json` (SciPy, and mpmath where SciPy's
//! own non-central F is unreliable).
//!
//! # Work bounds
//!
//! Every routine does at most a fixed number of loop iterations, whatever values it is given
//! (NaN and ±∞ included); `docs/limits.md` ("Numeric routines: work bounds") lists them.
//!
//! * [`beta_inc`]: at most [`CF_CAP`] = 100,000 continued-fraction iterations. The fraction
//!   converges in `O(√max(a, b))` iterations on the side it is evaluated (Numerical Recipes
//!   §6.4), so the cap is reached only with `max(a, b)` beyond ~10⁹ and `x` within a few
//!   standard deviations of the mean; the truncated fraction is then returned. Past
//!   `a + b = 10¹⁰`, where the fraction's variable near 1 has lost its last digits, the
//!   series in the small variable takes over while `(a + b) w ≤` `FAR_SIDE` = 2·10⁴: at most
//!   `2·FAR_SIDE + 60` terms, also capped at `CF_CAP`, and never both in one call.
//! * [`f_ppf`]: at most `PPF_STEPS` = 1,100 bisection steps on `u ∈ [0, 1]`, and as many on
//!   `v = 1 − u` when the quantile lies past `u = 1 − 2⁻¹⁰`. Each step halves the bracket and
//!   the loop stops when the midpoint is no longer strictly inside it; doubles in [0, 1] are at
//!   least 2⁻¹⁰⁷⁴ apart, so that happens after at most 1,076 steps.
//! * [`ncf_cdf`]: at most [`NCF_BETA_CALLS`] incomplete betas and [`NCF_TERMS`] Poisson terms
//!   (proof in `noncentral`'s module doc): a window of `±(10√h + 32)` terms around the mode of
//!   the Poisson(`h = λ/2`) weights for `h ≤ 10⁴`, and 167 evenly spaced samples of the same
//!   window (a trapezoid rule) beyond.
//!
//! The `*_work` functions return the number of iterations alongside the value, so property
//! tests sweep extreme parameters and assert the bound (`fdist::tests`), not a wall clock.

mod noncentral;

pub use noncentral::{ncf_cdf, ncf_cdf_work, NCF_BETA_CALLS, NCF_TERMS, NCF_WORK_BOUND};

/// Largest number of continued-fraction iterations of one incomplete beta.
pub const CF_CAP: u64 = 100_000;
/// Largest number of bisection steps of [`f_ppf`].
pub(crate) const PPF_STEPS: u64 = 1_100;
/// Largest number of iterations of one [`f_ppf`]: each step evaluates one incomplete beta.
pub const PPF_WORK_BOUND: u64 = 2 * PPF_STEPS * (CF_CAP + 1);

/// Lanczos coefficients for g = 7, n = 9.
const LANCZOS: [f64; 9] = [
    0.999_999_999_999_809_9,
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

/// `ln Γ(x)` for `x > 0` (+∞ for `x = +∞` and where `ln Γ` exceeds the doubles; NaN for NaN).
pub fn ln_gamma(x: f64) -> f64 {
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    if x > 0.0 && x < 1e-10 {
        // ln Γ(x) = −ln x − γx + O(x²): the reflection's π / sin(πx) overflows for subnormal x.
        return -x.ln() - 0.577_215_664_901_532_9 * x;
    }
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        let s = (std::f64::consts::PI * x).sin();
        return (std::f64::consts::PI / s).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = LANCZOS[0];
    let t = x + 7.5;
    for (i, c) in LANCZOS.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Largest `(a + b) w` for which the fraction is evaluated in the small variable `w` past its
/// mean (see [`beta_inc_ln`]).
const FAR_SIDE: f64 = 2e4;

/// Above this `max(a, b)`, `ln B(a, b)` is the Stirling-series difference.
const STIRLING_FROM: f64 = 1e5;

/// The Stirling correction `ln Γ(x) − ((x − ½) ln x − x + ½ ln 2π)` for `x ≥ 10⁴`
/// (three terms; the next is below `x⁻⁷ / 1680`).
pub(crate) fn stirling_correction(x: f64) -> f64 {
    let r = 1.0 / x;
    let r2 = r * r;
    r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 / 1260.0))
}

/// `ln B(a, b)`.
fn ln_beta(a: f64, b: f64) -> f64 {
    let (s, l) = if a < b { (a, b) } else { (b, a) };
    if l.is_nan() || l <= STIRLING_FROM {
        return ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b);
    }
    // ln Γ(l + s) − ln Γ(l) = (l − ½) ln(1 + s/l) + s ln(l + s) − s + c(l + s) − c(l).
    let rise = (l - 0.5) * (s / l).ln_1p() + s * (l + s).ln() - s + stirling_correction(l + s)
        - stirling_correction(l);
    ln_gamma(s) - rise
}

/// The regularized incomplete beta `I_x(a, b)` for `a, b > 0`, given both `x` and `y = 1 − x`
/// (so a caller that knows `1 − x` exactly loses nothing to cancellation). Result in [0, 1];
/// NaN when an argument is NaN or `a`, `b` are not positive and finite. At most [`CF_CAP`]
/// continued-fraction iterations.
pub fn beta_inc(a: f64, b: f64, x: f64, y: f64) -> f64 {
    beta_inc_work(a, b, x, y).0
}

/// [`beta_inc`] and the number of continued-fraction iterations it took (≤ [`CF_CAP`]).
#[doc(hidden)]
pub fn beta_inc_work(a: f64, b: f64, x: f64, y: f64) -> (f64, u64) {
    let mut work = 0;
    let v = beta_inc_ln(a, b, x, y, x.ln(), y.ln(), &mut work);
    (v, work)
}

/// [`beta_inc`] with `ln x` and `ln y` given (a caller with `x` within an ulp of 1 passes
/// `ln x = −ln(1 + r)` exactly); adds the iterations to `work`.
pub(crate) fn beta_inc_ln(
    a: f64,
    b: f64,
    x: f64,
    y: f64,
    ln_x: f64,
    ln_y: f64,
    work: &mut u64,
) -> f64 {
    if [a, b, x, y].iter().any(|v| v.is_nan()) || !(a > 0.0 && b > 0.0) || !a.is_finite() {
        return f64::NAN;
    }
    if !b.is_finite() {
        return f64::NAN;
    }
    // From the logarithms: an `x` that underflowed to 0 may still give `x^a` near 1 (tiny a).
    if x < 0.0 || ln_x == f64::NEG_INFINITY {
        return 0.0;
    }
    if y < 0.0 || ln_y == f64::NEG_INFINITY {
        return 1.0;
    }
    // x < (a + 1)/(a + b + 2), read on the smaller of x and y (where it is accurate). The
    // same test decides `I_y(b, a)` with the roles swapped, so `I_x(a, b)` and `I_y(b, a)` are
    // always taken from one fraction and sum to 1 (the F CDF and survival function agree).
    let lower = if x <= y {
        x < (a + 1.0) / (a + b + 2.0)
    } else {
        y >= (b + 1.0) / (a + b + 2.0)
    };
    let (p, q, z, w, ln_z, ln_w) = if lower {
        (a, b, x, y, ln_x, ln_y)
    } else {
        (b, a, y, x, ln_y, ln_x)
    };
    // The fraction's variable `z` near 1 with `p + q` large: its terms hold `(p + q) z`
    // against `p + 1`, so the rounding of `z` (an ulp of 1) is multiplied by `p + q` — past
    // 10¹⁰ that loses more than 10⁻⁶ of a tail (at 10¹⁶, everything). There the other
    // variable `w = 1 − z` is small and exact to its last bit: `I_z(p, q) = 1 − I_w(q, p)`
    // with `I_w(q, p)` from its series of positive terms while `(p + q) w ≤` [`FAR_SIDE`].
    // Below 10¹⁰ the fraction stays: a result near 1 from the series' logarithms (`(p + q) w`
    // of them cancelling) is less exact than the fraction's small tail.
    if z > 0.5 && p + q > 1e10 && (p + q) * w <= FAR_SIDE {
        let small = series(q, p, w, z, ln_w, ln_z, work);
        let v = if lower { 1.0 - small } else { small };
        return v.clamp(0.0, 1.0);
    }
    let ln_p = ln_front(p, q, z, w, ln_z, ln_w);
    // The fraction's side holds `I_z(p, q) = front/p · ₂F₁(p + q, 1; p + 1; z)`, and there the
    // series' term ratios `(p + q + n) z / (p + 1 + n)` stay below `(p + q)/(p + q + 2)`
    // (q ≥ 1) or below `z` with `1/(1 − z) < p + q + 2` (q < 1), so
    // `I_z(p, q) ≤ front · (p + q + 2)/p`. Below e⁻⁷⁵⁰ that is zero in doubles: no fraction
    // to evaluate (with `p` near 10³⁰⁰ and `z` within 10⁻¹⁶ of 1 it would not converge).
    let tail = if ln_p + ((p + q + 2.0) / p).ln() < -750.0 {
        0.0
    } else if ln_p < -700.0 {
        // x^a y^b / B would be subnormal (a few bits) before the division by a tiny p.
        (ln_p - p.ln()).exp() * continued_fraction(p, q, z, work)
    } else {
        ln_p.exp() * continued_fraction(p, q, z, work) / p
    };
    let v = if lower { tail } else { 1.0 - tail };
    v.clamp(0.0, 1.0)
}

/// `ln(x^a y^b / B(a, b))`. With `a` and `b` both past 10⁵ the two sides of
/// `a ln x + b ln y − ln B(a, b)` are near `10⁹` and their difference would lose ~10⁻⁷ of the
/// result; there Stirling's series gives it as `½ ln(ab / (2π(a + b))) − a ψ(ε/x₀) − b ψ(−ε/y₀)
/// + c(a + b) − c(a) − c(b)` about the mean `x₀ = a/(a + b)`, `y₀ = b/(a + b)`,
/// `ε = (x b − y a)/(a + b)`, `ψ(t) = t − ln(1 + t) ≥ 0` (DiDonato & Morris, ACM TOMS 708's
/// `brcomp`), which cancels nothing.
pub(crate) fn ln_front(a: f64, b: f64, x: f64, y: f64, ln_x: f64, ln_y: f64) -> f64 {
    if a.is_nan() || b.is_nan() || a.min(b) <= STIRLING_FROM {
        return a * ln_x + b * ln_y - ln_beta(a, b);
    }
    let s = a + b;
    let (x0, y0) = (a / s, b / s);
    let eps = (x * b - y * a) / s;
    0.5 * (x0 * b / (2.0 * std::f64::consts::PI)).ln() - a * psi(eps / x0) - b * psi(-eps / y0)
        + stirling_correction(s)
        - stirling_correction(a)
        - stirling_correction(b)
}

/// `I_x(a, b)` by its hypergeometric series `x^a y^b / (a B(a, b)) · Σ_n (a + b)_n / (a + 1)_n
/// x^n`, whose terms are positive (nothing cancels) and whose ratios `(a + b + n) x / (a + 1 +
/// n)` fall below ½ once `n ≥ 2(a + b) x`; the partial sum is rescaled by 10⁻²⁸⁰ whenever it
/// passes 10²⁸⁰ (it grows like `e^{(a + b) x}`). Used with `(a + b) x ≤` [`FAR_SIDE`], so it
/// stops within `2·FAR_SIDE + 60` terms; also capped at [`CF_CAP`], counted in `work`.
fn series(a: f64, b: f64, x: f64, y: f64, ln_x: f64, ln_y: f64, work: &mut u64) -> f64 {
    const SCALE: f64 = 1e-280;
    let (mut term, mut sum, mut ln_scale) = (1.0f64, 1.0f64, 0.0f64);
    for n in 0..CF_CAP {
        *work += 1;
        let n = n as f64;
        term *= (a + b + n) / (a + 1.0 + n) * x;
        sum += term;
        if sum > 1.0 / SCALE {
            sum *= SCALE;
            term *= SCALE;
            ln_scale -= SCALE.ln();
        }
        let falling = (a + b + n) * x < a + 1.0 + n;
        let settled = term <= sum * f64::EPSILON * 0.25;
        if (settled && falling) || !term.is_finite() || !sum.is_finite() {
            break;
        }
    }
    (ln_front(a, b, x, y, ln_x, ln_y) + sum.ln() + ln_scale - a.ln()).exp()
}

/// `ψ(t) = t − ln(1 + t)` for `t ≥ −1`: its series `Σ_{k≥2} (−t)^k / k` (sign `(−1)^k`) for
/// `|t| < 0.1` (30 terms, the first omitted below `10⁻³¹`), else directly.
fn psi(t: f64) -> f64 {
    if t.abs() >= 0.1 {
        return t - t.ln_1p();
    }
    let mut power = t * t;
    let mut sum = 0.0;
    for k in 2..32u32 {
        sum += power / f64::from(k);
        power *= -t;
    }
    sum
}

/// The continued fraction of `I_x(a, b)` (modified Lentz), converging for
/// `x < (a + 1) / (a + b + 2)`; at most [`CF_CAP`] iterations, counted in `work`.
fn continued_fraction(a: f64, b: f64, x: f64, work: &mut u64) -> f64 {
    const TINY: f64 = 1e-300;
    // One ulp either side of 1 (2⁻⁵³ below, 2⁻⁵² above): the smallest change a factor can
    // make. A tolerance below the ulp under 1 (the former 10⁻¹⁶) never stops a fraction whose
    // factors have settled one ulp under 1 — it ran to the cap, drifting an ulp each step.
    const EPS: f64 = f64::EPSILON;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    let step = |coef: f64, c: &mut f64, d: &mut f64| {
        *d = 1.0 + coef * *d;
        if d.abs() < TINY {
            *d = TINY;
        }
        *c = 1.0 + coef / *c;
        if c.abs() < TINY {
            *c = TINY;
        }
        *d = 1.0 / *d;
        *d * *c
    };
    for m in 1..=CF_CAP {
        *work += 1;
        let m = m as f64;
        let m2 = 2.0 * m;
        // Past 10¹⁵⁰ the products of two factors overflow: divide factor by factor instead
        // (the same values; the product form keeps ordinary results bit for bit).
        let (even, odd) = if qab < 1e150 {
            (
                m * (b - m) * x / ((qam + m2) * (a + m2)),
                -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
            )
        } else {
            (
                m * x / (qam + m2) * ((b - m) / (a + m2)),
                -((a + m) / (a + m2)) * ((qab + m) / (qap + m2)) * x,
            )
        };
        h *= step(even, &mut c, &mut d);
        let delta = step(odd, &mut c, &mut d);
        h *= delta;
        // A NaN delta (an overflowed coefficient) stops too: the result is then NaN.
        let gap = (delta - 1.0).abs();
        if gap.is_nan() || gap <= EPS {
            break;
        }
    }
    h
}

/// The beta variable of `F(d1, d2)` at `f` and its complement with their logarithms:
/// `(u, v) = (d1 f, d2) / (d2 + d1 f)`. Where `d1 f`, `d2 + d1 f`, `u` and `v` are normal
/// doubles, directly; otherwise from `ln r = ln d2 − ln d1 − ln f` (`r = d2 / (d1 f)`):
/// `ln u = −ln(1 + r)`, `ln v = ln r − ln(1 + r)`, so that neither underflows to a wrong limit.
pub(crate) fn beta_logs(f: f64, d1: f64, d2: f64) -> (f64, f64, f64, f64) {
    let denom = d2 + d1 * f;
    if denom.is_finite() && denom > 0.0 && (d1 * f).is_normal() && d1.max(d2) <= 1e6 {
        let (u, v) = (d1 * f / denom, d2 / denom);
        // Within 2⁻²⁰ of 1 the logarithm of the rounded value has lost 20 bits (at `u = 1`
        // exactly, all of them): there the ratio's logarithms below.
        let near_one = 1.0 - 1.0 / 1_048_576.0;
        if u.is_normal() && v.is_normal() && u.max(v) < near_one {
            return (u, v, u.ln(), v.ln());
        }
    }
    beta_logs_from_ratio(f, d1, d2)
}

/// [`beta_logs`] always from `ln r`: what a caller multiplying the logarithms by shape
/// parameters far above the degrees of freedom (the non-central sum's `d1/2 + j`) needs.
pub(crate) fn beta_logs_from_ratio(f: f64, d1: f64, d2: f64) -> (f64, f64, f64, f64) {
    // Past 10⁶ degrees of freedom `a ln u` multiplies the rounding of `u` near 1 by `a`: take
    // both logarithms from `r` instead (`ln v = −ln(1 + 1/r)`).
    let r = d2 / (d1 * f);
    if r.is_normal() {
        return (
            (1.0 + r).recip(),
            (1.0 + r.recip()).recip(),
            -r.ln_1p(),
            -r.recip().ln_1p(),
        );
    }
    let ln_r = d2.ln() - d1.ln() - f.ln();
    // ln(1 + r), also for r past the doubles.
    let ln_1pr = if ln_r > 40.0 {
        ln_r + (-ln_r).exp()
    } else {
        ln_r.exp().ln_1p()
    };
    let (ln_u, ln_v) = (-ln_1pr, ln_r - ln_1pr);
    (ln_u.exp(), ln_v.exp(), ln_u, ln_v)
}

/// Whether `(d1, d2)` are degrees of freedom (positive and finite).
fn valid_dof(d1: f64, d2: f64) -> bool {
    d1 > 0.0 && d2 > 0.0 && d1.is_finite() && d2.is_finite()
}

/// `P(F > f)` for `F ~ F(d1, d2)` (`d1, d2 > 0` finite degrees of freedom); 1 for `f ≤ 0`,
/// 0 for `f = +∞`, NaN for NaN or invalid degrees of freedom. At most [`CF_CAP`] iterations.
pub fn f_sf(f: f64, d1: f64, d2: f64) -> f64 {
    f_sf_work(f, d1, d2).0
}

/// [`f_sf`] and its iterations.
#[doc(hidden)]
pub fn f_sf_work(f: f64, d1: f64, d2: f64) -> (f64, u64) {
    if f.is_nan() || !valid_dof(d1, d2) {
        return (f64::NAN, 0);
    }
    if f <= 0.0 {
        return (1.0, 0);
    }
    let (u, v, ln_u, ln_v) = beta_logs(f, d1, d2);
    let mut work = 0;
    let p = beta_inc_ln(d2 / 2.0, d1 / 2.0, v, u, ln_v, ln_u, &mut work);
    (p, work)
}

#[cfg(test)]
/// `P(F ≤ f)` for `F ~ F(d1, d2)`; 0 for `f ≤ 0`, NaN for NaN or invalid degrees of freedom.
/// At most [`CF_CAP`] iterations.
pub(crate) fn f_cdf(f: f64, d1: f64, d2: f64) -> f64 {
    f_cdf_work(f, d1, d2).0
}

/// `P(F ≤ f)` for `F ~ F(d1, d2)` (0 for `f ≤ 0`, NaN for NaN or invalid degrees of freedom)
/// and its iterations, at most [`CF_CAP`].
#[doc(hidden)]
pub fn f_cdf_work(f: f64, d1: f64, d2: f64) -> (f64, u64) {
    if f.is_nan() || !valid_dof(d1, d2) {
        return (f64::NAN, 0);
    }
    if f <= 0.0 {
        return (0.0, 0);
    }
    let (u, v, ln_u, ln_v) = beta_logs(f, d1, d2);
    let mut work = 0;
    let p = beta_inc_ln(d1 / 2.0, d2 / 2.0, u, v, ln_u, ln_v, &mut work);
    (p, work)
}

/// The `q`-quantile of `F(d1, d2)` (`0 < q < 1`), by bisection on the beta variable
/// `u = d1 f / (d1 f + d2)` until the bracket stops shrinking (at most `PPF_STEPS` steps).
/// NaN for `q` outside (0, 1), NaN arguments or invalid degrees of freedom; may be +∞ when
/// the quantile exceeds the doubles.
pub fn f_ppf(q: f64, d1: f64, d2: f64) -> f64 {
    f_ppf_work(q, d1, d2).0
}

/// [`f_ppf`] and its iterations (bisection steps plus their continued-fraction iterations).
#[doc(hidden)]
pub fn f_ppf_work(q: f64, d1: f64, d2: f64) -> (f64, u64) {
    if !(q > 0.0 && q < 1.0 && valid_dof(d1, d2)) {
        return (f64::NAN, 0);
    }
    let (a, b) = (d1 / 2.0, d2 / 2.0);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut work = 0;
    for _ in 0..PPF_STEPS {
        work += 1;
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let y = 1.0 - mid;
        if beta_inc_ln(a, b, mid, y, mid.ln(), y.ln(), &mut work) < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let u = 0.5 * (lo + hi);
    if u < 1.0 - 1.0 / 1024.0 {
        return (d2 * u / (d1 * (1.0 - u)), work);
    }
    // Near u = 1 an ulp of u is a large share of 1 − u: bisect the complement v = 1 − u on
    // [0, 1 − lo] instead (I_u(a, b) < q ⇔ I_v(b, a) > 1 − q), at most PPF_STEPS more steps.
    let (mut vlo, mut vhi) = (0.0f64, 1.0 - lo);
    for _ in 0..PPF_STEPS {
        work += 1;
        let mid = 0.5 * (vlo + vhi);
        if mid <= vlo || mid >= vhi {
            break;
        }
        let x = 1.0 - mid;
        if beta_inc_ln(b, a, mid, x, mid.ln(), (-mid).ln_1p(), &mut work) > 1.0 - q {
            vhi = mid;
        } else {
            vlo = mid;
        }
    }
    let v = 0.5 * (vlo + vhi);
    (d2 * (1.0 - v) / (d1 * v), work)
}

#[cfg(test)]
mod tests;
