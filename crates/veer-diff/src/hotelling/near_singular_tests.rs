//! Near-singular fingerprints: few responses, constant dimensions, zero
//! within-side variance, one dimension moving, identical sides, extreme values, 3–40 responses
//! a side. The post-hoc power's non-centrality `λ = T² n1 n2 / (n1 + n2)` is then
//! astronomically large, and the former non-central F sum ran ~λ/2 steps; the test must finish
//! within the work bound of its distributions with a power that is a probability — 1, not
//! NaN, where λ is huge.

use super::{hotelling_t2, Decision, HotellingResult, PValue, DEFAULT_ALPHA};
use proptest::prelude::*;
use veer_base::fdist::{self, NCF_WORK_BOUND, PPF_WORK_BOUND};

const D: usize = 12;

/// `n` copies of `base`, dimension `moving` set by `value(i)` for row `i`.
fn rows(n: usize, base: f64, moving: usize, value: impl Fn(usize) -> f64) -> Vec<Vec<f64>> {
    (0..n)
        .map(|i| {
            let mut r = vec![base; D];
            r[moving] = value(i);
            r
        })
        .collect()
}

/// The power's non-centrality and the iterations of its two distribution calls.
fn power_work(r: &HotellingResult) -> (f64, u64) {
    let (f1, f2) = (r.n1 as f64, r.n2 as f64);
    let nc = r.t2 * f1 * f2 / (f1 + f2);
    let (crit, w1) = fdist::f_ppf_work(1.0 - DEFAULT_ALPHA, D as f64, r.df2 as f64);
    let (_, w2) = fdist::ncf_cdf_work(crit, D as f64, r.df2 as f64, nc);
    (nc, w1 + w2)
}

/// Every method gives a sane, deterministic result within the work bounds.
fn sane(x1: &[Vec<f64>], x2: &[Vec<f64>]) -> HotellingResult {
    let mut first = None;
    for method in [
        PValue::F,
        PValue::ExactWhenSmall,
        PValue::MonteCarlo { count: 10, seed: 3 },
    ] {
        let r = hotelling_t2(x1, x2, DEFAULT_ALPHA, method).unwrap();
        // T² overflows to +∞ only with entries past 10¹⁵⁰ (fingerprint entries lie in [0, 1]).
        assert!(r.t2 >= 0.0, "t2 {}", r.t2);
        assert!((0.0..=1.0).contains(&r.p_value), "p {}", r.p_value);
        // NaN only when tr(S)² overflows (entries past 10¹⁵⁰; fingerprint entries lie in [0, 1]).
        assert!(r.shrinkage.is_nan() || (0.0..=1.0).contains(&r.shrinkage));
        assert!(
            r.power.is_none_or(|p| (0.0..=1.0).contains(&p)),
            "power {:?}",
            r.power
        );
        assert_eq!(r.power.is_none(), r.df2 == 0);
        // The same result again (compared as text: NaN equals NaN).
        let again = hotelling_t2(x1, x2, DEFAULT_ALPHA, method).unwrap();
        assert_eq!(format!("{again:?}"), format!("{r:?}"));
        if r.df2 > 0 {
            let (_, work) = power_work(&r);
            assert!(work <= NCF_WORK_BOUND + PPF_WORK_BOUND);
        }
        first.get_or_insert(r);
    }
    first.unwrap()
}

#[test]
fn one_dimension_moving_with_tiny_variance_has_power_one() {
    // Ten responses a side, every dimension constant but latency: 0.30 + a 10⁻⁹ jitter against
    // 0.60 — the regression at its smallest.
    let x1 = rows(10, 0.25, 6, |i| 0.30 + 1e-9 * i as f64);
    let x2 = rows(10, 0.25, 6, |i| 0.60 + 1e-9 * i as f64);
    let r = sane(&x1, &x2);
    let (nc, _) = power_work(&r);
    assert!(nc > 1e12, "λ = {nc:e}: the former sum ran ~λ/2 terms");
    assert_eq!(r.power, Some(1.0));
    assert_eq!(r.decision, Decision::Reject);
}

#[test]
fn identical_sides_and_constant_dimensions() {
    for n in [3, 7, 20, 40] {
        let x = rows(n, 0.5, 0, |_| 0.5);
        let r = sane(&x, &x);
        assert_eq!(r.t2, 0.0);
        assert!(r.decision != Decision::Reject);
        // Zero within-side variance but a shift in every dimension.
        let y = rows(n, 0.75, 0, |_| 0.75);
        let r = sane(&x, &y);
        assert!(r.power.is_none_or(|p| (0.0..=1.0).contains(&p)));
    }
}

#[test]
fn three_to_forty_a_side_one_dimension_moving() {
    for (n1, n2) in [(3, 3), (3, 40), (7, 7), (10, 10), (13, 14), (40, 40)] {
        for jitter in [0.0, 1e-300, 1e-9, 0.01] {
            let x1 = rows(n1, 0.1, 3, |i| 0.2 + jitter * (i % 3) as f64);
            let x2 = rows(n2, 0.1, 3, |i| 0.9 - jitter * (i % 2) as f64);
            let r = sane(&x1, &x2);
            if r.df2 > 0 && jitter > 0.0 && jitter <= 1e-6 {
                assert_eq!(r.power, Some(1.0), "{n1}×{n2} jitter {jitter}: {r:?}");
            }
        }
    }
}

#[test]
fn extreme_values_finish() {
    // Latencies far outside the fingerprint's [0, 1] (a caller's own rows), one response
    // apart, and values at the edges of the doubles.
    for big in [1e6, 1e150, 1e300, f64::MAX / 4.0] {
        let x1 = rows(12, 0.0, 6, |i| if i == 0 { big } else { 1.0 });
        let x2 = rows(12, 0.0, 6, |i| if i == 0 { 1.0 } else { big });
        sane(&x1, &x2);
    }
    let tiny = rows(10, 5e-324, 2, |i| 5e-324 * i as f64);
    sane(&tiny, &rows(10, 0.0, 2, |_| 1.0));
}

#[test]
fn nan_and_infinite_entries_finish() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let x1 = rows(10, 0.5, 4, |i| if i == 3 { bad } else { 0.1 });
        let x2 = rows(10, 0.5, 4, |_| 0.2);
        for method in [PValue::F, PValue::ExactWhenSmall] {
            let r = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, method).unwrap();
            assert!(r.p_value.is_nan() || (0.0..=1.0).contains(&r.p_value));
            assert!(r.power.is_none_or(|p| (0.0..=1.0).contains(&p)));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any near-singular pair — constant rows but for one dimension with a jitter from 0 to
    /// 10⁻³ and a shift from 0 to 1 — gives a sane test within the work bounds.
    #[test]
    fn near_singular_pairs_are_sane(
        n1 in 3usize..41,
        n2 in 3usize..41,
        moving in 0usize..D,
        base in 0.0f64..1.0,
        shift in prop_oneof![Just(0.0), 0.0f64..1.0],
        jitter_exp in -300.0f64..-3.0,
    ) {
        let jitter = 10f64.powf(jitter_exp);
        let x1 = rows(n1, base, moving, |i| 0.3 + jitter * (i % 4) as f64);
        let x2 = rows(n2, base, moving, |i| 0.3 + shift + jitter * (i % 5) as f64);
        // MonteCarlo and the exact enumeration are covered above; the F path is the power's.
        let r = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, PValue::F).unwrap();
        prop_assert!((0.0..=1.0).contains(&r.p_value));
        prop_assert!(r.power.is_none_or(|p| (0.0..=1.0).contains(&p)));
        if r.df2 > 0 {
            let (_, work) = power_work(&r);
            prop_assert!(work <= NCF_WORK_BOUND + PPF_WORK_BOUND);
        }
    }
}
