//! Properties of the Hotelling test against its definition: invariance to the order of each
//! sample, T² ≥ 0, identical samples give T² = 0 and never reject, the F transform and the
//! contributions agree with T², and Monte Carlo permutation p-values fall within binomial error
//! of the exact permutation p-value.

use super::moments::{RowSums, SampleMoments};
use super::{hotelling_t2, hotelling_t2_of_moments, Decision, Method, PValue, DEFAULT_ALPHA};
use proptest::prelude::*;

/// Fingerprint-like rows: a mix of 0/1 flags and values in [0, 1], width 12.
fn row() -> impl Strategy<Value = Vec<f64>> {
    proptest::collection::vec(
        prop_oneof![
            Just(0.0),
            Just(1.0),
            0.0f64..1.0,
            (0u32..8).prop_map(|k| f64::from(k) / 8.0)
        ],
        12,
    )
}

fn sample(min: usize, max: usize) -> impl Strategy<Value = Vec<Vec<f64>>> {
    proptest::collection::vec(row(), min..max)
}

/// The moments of `rows` accumulated a row at a time, as a sample passed over twice is.
fn passed_over(rows: &[Vec<f64>]) -> SampleMoments {
    let mut sums = RowSums::new(12);
    rows.iter().for_each(|r| sums.add(r));
    let mut cross = sums.second_pass();
    rows.iter().for_each(|r| cross.add(r));
    cross.finish()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The test on moments accumulated row by row is the F-distribution test on the rows held,
    /// to the last bit.
    #[test]
    fn moments_passed_over_give_the_held_rows_test(x1 in sample(0, 60), x2 in sample(0, 60)) {
        let held = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, PValue::F);
        let passed = hotelling_t2_of_moments(passed_over(&x1), passed_over(&x2), DEFAULT_ALPHA);
        prop_assert_eq!(passed, held);
    }

    #[test]
    fn order_invariant_and_non_negative(x1 in sample(2, 30), x2 in sample(2, 30), seed in any::<u64>()) {
        let r = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, PValue::F).unwrap();
        prop_assert!(r.t2 >= 0.0 && r.t2.is_finite());
        prop_assert!((0.0..=1.0).contains(&r.p_value));
        prop_assert!((0.0..=1.0).contains(&r.shrinkage));
        // Shuffle both samples (a deterministic rotation and reversal from the seed).
        let mut s1 = x1.clone();
        let mut s2 = x2.clone();
        let k = seed as usize % s1.len();
        s1.rotate_left(k);
        s2.reverse();
        let q = hotelling_t2(&s1, &s2, DEFAULT_ALPHA, PValue::F).unwrap();
        let tol = 1e-9 * r.t2.max(1.0);
        prop_assert!((q.t2 - r.t2).abs() <= tol, "{} vs {}", q.t2, r.t2);
        prop_assert!((q.p_value - r.p_value).abs() <= 1e-9);
        // Swapping the sides leaves T² unchanged.
        let w = hotelling_t2(&x2, &x1, DEFAULT_ALPHA, PValue::F).unwrap();
        prop_assert!((w.t2 - r.t2).abs() <= tol);
        if let Some(f) = r.f_stat {
            let (n, d) = ((x1.len() + x2.len()) as f64, 12.0);
            prop_assert!((f - (n - d - 1.0) / ((n - 2.0) * d) * r.t2).abs() <= 1e-12 * f.max(1.0));
        }
    }

    #[test]
    fn identical_samples_never_reject(x in sample(2, 40)) {
        for method in [PValue::F, PValue::ExactWhenSmall, PValue::MonteCarlo { count: 50, seed: 1 }] {
            let r = hotelling_t2(&x, &x, DEFAULT_ALPHA, method).unwrap();
            prop_assert_eq!(r.t2, 0.0);
            prop_assert!(r.decision != Decision::Reject);
            prop_assert!(r.p_value >= DEFAULT_ALPHA);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// 2,000 Monte Carlo relabellings estimate the exact permutation p-value within five
    /// binomial standard errors (plus the (b + 1) / (B + 1) correction).
    #[test]
    fn monte_carlo_within_binomial_error_of_exact(x1 in sample(4, 7), x2 in sample(4, 7), seed in any::<u64>()) {
        let exact = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, PValue::ExactWhenSmall).unwrap();
        prop_assert_eq!(exact.method, Method::ExactPermutation);
        let b = 2000u32;
        let mc = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, PValue::MonteCarlo { count: b, seed }).unwrap();
        prop_assert_eq!(mc.method, Method::MonteCarloPermutation);
        let p = exact.p_value;
        let se = (p * (1.0 - p) / f64::from(b)).sqrt();
        prop_assert!((mc.p_value - p).abs() <= 5.0 * se + 2.0 / f64::from(b), "mc {} exact {}", mc.p_value, p);
        // Same seed, same answer.
        let again = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, PValue::MonteCarlo { count: b, seed }).unwrap();
        prop_assert_eq!(again.p_value, mc.p_value);
    }
}
