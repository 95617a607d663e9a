//! The non-central F CDF as the Poisson mixture
//! `P(F' ≤ f) = Σ_j w_j I_u(d1/2 + j, d2/2)`, `w_j = e^{−h} h^j / j!`, `h = λ/2`,
//! `u = d1 f / (d2 + d1 f)` (Johnson, Kotz & Balakrishnan, *Continuous Univariate
//! Distributions* vol. 2, §30.7), with a work bound that does not depend on `λ`.
//!
//! # The window and its tail bound
//!
//! Every beta term lies in [0, 1], so the terms outside a window `J ∉ (h − t, h + t)` add at
//! most the Poisson tail mass `P(|J − h| ≥ t)`. For `J ~ Poisson(h)` the Chernoff bounds give
//! `P(J ≥ h + t) ≤ exp(−t² / (2(h + t/3)))` and `P(J ≤ h − t) ≤ exp(−t² / (2h))`
//! (Bernstein's inequality for the Poisson; e.g. Boucheron, Lugosi & Massart, *Concentration
//! Inequalities*, §2.7). With `t = 10√h + 32`,
//! `t² = 100h + 640√h + 1024 ≥ 94(h + t/3) = 94h + 313.3√h + 1002.7`, so both tails are below
//! `e^{−47} < 4·10⁻²¹`; dropping them changes the CDF by less than `8·10⁻²¹`. Each single
//! weight at the window's edge is below its tail's mass, so the summation's own stopping rules
//! (weight below `10⁻²⁰`, beta term below `10⁻¹⁷`) stop it at or before the edge on ordinary
//! inputs: the window only ever cuts sums that would otherwise run for `~h` steps.
//!
//! # Two regimes
//!
//! * `h ≤ 10⁴` (`λ ≤ 2·10⁴`): the exact sum outward from the mode `⌊h⌋`, at most
//!   `t ≤ 1,032` terms each way: upward each beta term by its continued fraction, downward by
//!   the stable recurrence `I_u(a − 1, b) = I_u(a, b) + u^(a−1) v^b / ((a − 1) B(a − 1, b))`.
//!   That is 1 + 1,032 incomplete betas and 2,064 terms at most.
//! * `h > 10⁴`: the weights and the beta terms both vary on the scale `√h ≥ 100` in `j`
//!   (the Poisson's standard deviation; the beta term's transition width in `a` is
//!   `√(a(a + b)/b) ≥ √a`), so the sum is the integral of a smooth function and the trapezoid
//!   rule with step `s = √h/8` over the same window is exact to far below rounding (Poisson
//!   summation: the error is of order `exp(−2π²(√h/s)²) = exp(−128π²)`). The window
//!   `±(10√h + 32)` then holds `2⌈(10√h + 32)/s⌉ + 1 ≤ 2·83 + 1 = 167` samples; each weight
//!   is `exp(−h·g(δ/h) − ½ ln j − c(j))` with `g(x) = (1 + x) ln(1 + x) − x` by its series
//!   (`|δ/h| ≤ 0.11`, 24 terms) and `c` the Stirling correction, normalized to sum 1 — no
//!   `j ln h − ln j!` cancellation at any `h` up to `10³⁰⁸`.
//!
//! Every incomplete beta is itself bounded by `CF_CAP` iterations, so one call does at most
//! [`NCF_BETA_CALLS`] `× CF_CAP + NCF_TERMS` iterations ([`NCF_WORK_BOUND`]).

use super::{
    beta_inc_ln, beta_logs, beta_logs_from_ratio, ln_front, ln_gamma, stirling_correction,
    valid_dof, CF_CAP,
};

/// Largest Poisson mean `h = λ/2` summed term by term.
const H_EXACT: f64 = 1e4;
/// Half-width of the window at `H_EXACT`: `⌈10√10⁴ + 32⌉`.
const T_EXACT: u64 = 1_032;
/// Samples of the trapezoid rule per Poisson standard deviation.
const PER_SD: f64 = 8.0;
/// Largest number of trapezoid samples: `2⌈(10√h + 32)·8/√h⌉ + 1` at `√h = 100`.
const SAMPLES: u64 = 167;
/// Largest number of incomplete betas of one [`ncf_cdf`]: the mode and the upward terms of
/// the exact regime (the trapezoid regime needs at most 167).
pub const NCF_BETA_CALLS: u64 = 1 + T_EXACT;
/// Largest number of Poisson terms (or trapezoid samples) of one [`ncf_cdf`].
pub const NCF_TERMS: u64 = 2 * T_EXACT + 2;
/// Largest number of iterations of one [`ncf_cdf`]: continued-fraction iterations of its
/// incomplete betas plus its terms.
pub const NCF_WORK_BOUND: u64 = NCF_BETA_CALLS * CF_CAP + NCF_TERMS;

/// `P(F' ≤ f)` for a non-central `F(d1, d2, nc)` (`d1, d2 > 0` finite, `nc ≥ 0` the
/// non-centrality λ, `f` the point). 0 for `f ≤ 0` or `nc = +∞`, 1 for `f = +∞`, the central
/// CDF for `nc = 0`; NaN for NaN arguments, `nc < 0` or invalid degrees of freedom. Absolute
/// error below 10⁻¹⁰ against SciPy and mpmath over the fixture's range; at most
/// [`NCF_WORK_BOUND`] iterations whatever the arguments.
pub fn ncf_cdf(f: f64, d1: f64, d2: f64, nc: f64) -> f64 {
    ncf_cdf_work(f, d1, d2, nc).0
}

/// [`ncf_cdf`] and its iterations (≤ [`NCF_WORK_BOUND`]).
#[doc(hidden)]
pub fn ncf_cdf_work(f: f64, d1: f64, d2: f64, nc: f64) -> (f64, u64) {
    if f.is_nan() || nc.is_nan() || !valid_dof(d1, d2) || nc < 0.0 {
        return (f64::NAN, 0);
    }
    if f <= 0.0 {
        return (0.0, 0);
    }
    if f == f64::INFINITY {
        return (1.0, 0);
    }
    if nc == f64::INFINITY {
        return (0.0, 0);
    }
    if nc == 0.0 {
        return super::f_cdf_work(f, d1, d2);
    }
    let mut work = 0;
    let half = nc / 2.0;
    let v = if half <= H_EXACT {
        exact(f, d1, d2, half, &mut work)
    } else {
        trapezoid(f, d1, d2, half, &mut work)
    };
    (v, work)
}

/// Half-width `10√h + 32` of the summation window.
fn half_width(half: f64) -> f64 {
    10.0 * half.sqrt() + 32.0
}

/// The exact sum for `h ≤ 10⁴`, outward from the Poisson mode within `mode ± (10√h + 32)`.
pub(super) fn exact(f: f64, d1: f64, d2: f64, half: f64, work: &mut u64) -> f64 {
    let (u, v, ln_u, ln_v) = beta_logs(f, d1, d2);
    let (a0, b) = (d1 / 2.0, d2 / 2.0);
    let mode = half.floor();
    let reach = half_width(half).ceil();
    let w_mode = (mode * half.ln() - half - ln_gamma(mode + 1.0)).exp();
    let i_mode = beta_inc_ln(a0 + mode, b, u, v, ln_u, ln_v, work);
    *work += 1;
    let mut sum = w_mode * i_mode;
    // Upward from the mode.
    let (mut j, mut w) = (mode, w_mode);
    while j < mode + reach {
        *work += 1;
        j += 1.0;
        w *= half / j;
        let i = beta_inc_ln(a0 + j, b, u, v, ln_u, ln_v, work);
        sum += w * i;
        if i < 1e-17 || w < 1e-20 {
            break;
        }
    }
    // Downward from the mode.
    // `ln(u^a v^b / B(a, b))` by `ln_front`: with `b` past 10⁵ (huge denominator degrees of
    // freedom) `ln Γ(a) + ln Γ(b) − ln Γ(a + b)` would cancel to nothing.
    let (mut j, mut w, mut i) = (mode, w_mode, i_mode);
    while j >= 1.0 && j > mode - reach {
        *work += 1;
        let a = a0 + j - 1.0;
        i += ln_front(a, b, u, v, ln_u, ln_v).exp() / a;
        w *= j / half;
        j -= 1.0;
        sum += w * i.min(1.0);
        if w < 1e-20 && j < half {
            break;
        }
    }
    sum.clamp(0.0, 1.0)
}

/// `g(x) = (1 + x) ln(1 + x) − x` for `|x| ≤ 0.11`: `Σ_{k≥2} (−x)^k / (k(k − 1))`, 24 terms
/// (the first omitted is below `0.11²⁵ / 600 < 10⁻²⁶`).
fn g_small(x: f64) -> f64 {
    let mut power = x * x;
    let mut sum = 0.0;
    for k in 2..26u32 {
        let k = f64::from(k);
        sum += power / (k * (k - 1.0));
        power *= -x;
    }
    sum
}

/// The trapezoid rule over the window for `h > 10⁴`: samples `j = h + k·√h/8`,
/// `|k| ≤ ⌈(10√h + 32)·8/√h⌉ ≤ 83`, weights normalized to sum 1.
pub(super) fn trapezoid(f: f64, d1: f64, d2: f64, half: f64, work: &mut u64) -> f64 {
    // u and v with their logarithms from the ratio (ln u = −ln(1 + r) exactly where u rounds
    // to 1): the shape parameters `d1/2 + j` are past 10⁴ here and multiply their rounding.
    let (u, v, ln_u, ln_v) = beta_logs_from_ratio(f, d1, d2);
    let (a0, b) = (d1 / 2.0, d2 / 2.0);
    let sd = half.sqrt();
    let step = sd / PER_SD;
    let reach = (half_width(half) / step)
        .ceil()
        .min(((SAMPLES - 1) / 2) as f64) as i64;
    let (mut weights, mut sum) = (0.0, 0.0);
    for k in -reach..=reach {
        *work += 1;
        let delta = k as f64 * step;
        let j = half + delta;
        // ln w_j + ln √(2πh): Stirling for j!, relative to the mode's scale.
        let ln_w =
            -half * g_small(delta / half) - 0.5 * (delta / half).ln_1p() - stirling_correction(j);
        let w = ln_w.exp();
        let i = beta_inc_ln(a0 + j, b, u, v, ln_u, ln_v, work);
        weights += w;
        sum += w * i;
    }
    (sum / weights).clamp(0.0, 1.0)
}
