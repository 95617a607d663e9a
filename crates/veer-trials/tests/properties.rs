//! Properties of veer-trials: invariance to the order of trials and cases, exact against Monte
//! Carlo agreement within Monte Carlo error, p-values in [0, 1] and (super-)uniform under the
//! null, Holm and BH monotone and never below the raw p.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use veer_base::rng::TrialRng;
use veer_contract::trials::stats::PermutationMethod;
use veer_trials::*;

fn line(points: &[f64]) -> PairwiseDistances {
    PairwiseDistances::from_fn(points.len(), |i, j| (points[i] - points[j]).abs()).unwrap()
}

fn counts() -> impl Strategy<Value = Count> {
    (1u32..40).prop_flat_map(|k| (0..=k).prop_map(move |x| Count::new(x, k)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn fisher_p_values_are_probabilities(b in counts(), c in counts()) {
        let t = fisher_exact(b, c).unwrap();
        for p in [t.p_higher, t.p_lower, t.p_two_sided, t.min_attainable_p] {
            prop_assert!((0.0..=1.0).contains(&p));
        }
        // The two one-sided tails overlap at the observed table: they sum to ≥ 1.
        prop_assert!(t.p_higher + t.p_lower >= 1.0 - 1e-12);
        prop_assert!(t.p_two_sided >= t.p_higher.min(t.p_lower) - 1e-12);
        prop_assert!(t.p_higher >= t.min_attainable_p - 1e-12 || t.p_higher >= t.min_attainable_p_higher_given_total - 1e-12);
        // Swapping the sides swaps the tails.
        let s = fisher_exact(c, b).unwrap();
        prop_assert!((s.p_higher - t.p_lower).abs() < 1e-9);
    }

    #[test]
    fn stratified_is_invariant_to_case_order(cases in prop::collection::vec((counts(), counts()), 1..12), rot in 0usize..12) {
        let a = stratified_exact_test(&cases).unwrap();
        let mut r = cases.clone();
        r.rotate_left(rot % cases.len());
        r.reverse();
        let b = stratified_exact_test(&r).unwrap();
        prop_assert!((a.p_higher - b.p_higher).abs() < 1e-9);
        prop_assert!((a.p_lower - b.p_lower).abs() < 1e-9);
        prop_assert!((a.p_two_sided - b.p_two_sided).abs() < 1e-9);
        for p in [a.p_higher, a.p_lower, a.p_two_sided] {
            prop_assert!((0.0..=1.0).contains(&p));
        }
    }

    #[test]
    fn behaviour_test_is_invariant_to_trial_order(
        b in prop::collection::vec(0.0f64..10.0, 1..6),
        c in prop::collection::vec(0.0f64..10.0, 1..6),
        seed in any::<u64>(),
    ) {
        let pts: Vec<f64> = b.iter().chain(&c).copied().collect();
        let o = PermutationOptions { seed, ..PermutationOptions::default() };
        let t = behaviour_test(&line(&pts), b.len(), c.len(), &o).unwrap();
        let mut b2 = b.clone();
        b2.reverse();
        let mut c2 = c.clone();
        c2.rotate_left(1);
        let pts2: Vec<f64> = b2.iter().chain(&c2).copied().collect();
        let t2 = behaviour_test(&line(&pts2), b.len(), c.len(), &o).unwrap();
        prop_assert!((t.p_value - t2.p_value).abs() < 1e-12);
        prop_assert!((t.excess - t2.excess).abs() < 1e-9);
        prop_assert!(t.p_value > 0.0 && t.p_value <= 1.0);
        prop_assert!(t.p_value >= t.min_attainable_p - 1e-12);
    }

    #[test]
    fn suite_tests_are_invariant_to_trial_and_case_order(
        data in prop::collection::vec((prop::collection::vec(-5.0f64..5.0, 1..5), prop::collection::vec(-5.0f64..5.0, 1..5)), 1..8),
        seed in any::<u64>(),
        exact in any::<bool>(),
    ) {
        let o = PermutationOptions { seed, exact_limit: if exact { 10_000 } else { 0 }, draws: 199 };
        let cases: Vec<CaseSample<'_>> = data.iter().map(|(b, c)| CaseSample { baseline: b, candidate: c }).collect();
        let a = suite_permutation_test(&cases, &o).unwrap();
        let shuffled: Vec<(Vec<f64>, Vec<f64>)> = data.iter().rev().map(|(b, c)| {
            let mut b = b.clone();
            b.reverse();
            let mut c = c.clone();
            c.rotate_left(1);
            (b, c)
        }).collect();
        let cases2: Vec<CaseSample<'_>> = shuffled.iter().map(|(b, c)| CaseSample { baseline: b, candidate: c }).collect();
        let b = suite_permutation_test(&cases2, &o).unwrap();
        prop_assert_eq!(&a, &b);
        for p in [a.p_higher, a.p_lower, a.p_two_sided] {
            prop_assert!(p > 0.0 && p <= 1.0);
        }
        let d = case_differences(&cases).unwrap();
        let mut d2 = d.clone();
        d2.reverse();
        let s1 = sign_flip_test(&d, &o).unwrap();
        let s2 = sign_flip_test(&d2, &o).unwrap();
        prop_assert_eq!(s1, s2);
    }

    #[test]
    fn holm_and_bh_are_monotone_and_above_raw(p in prop::collection::vec(0.0f64..=1.0, 0..40)) {
        for adj in [holm(&p).unwrap(), benjamini_hochberg(&p).unwrap()] {
            for i in 0..p.len() {
                prop_assert!(adj[i] >= p[i] - 1e-15 && adj[i] <= 1.0);
                for j in 0..p.len() {
                    if p[i] <= p[j] {
                        prop_assert!(adj[i] <= adj[j] + 1e-15);
                    }
                }
            }
        }
        // Holm is never less strict than BH.
        let h = holm(&p).unwrap();
        let b = benjamini_hochberg(&p).unwrap();
        for i in 0..p.len() {
            prop_assert!(h[i] >= b[i] - 1e-15);
        }
    }

    #[test]
    fn pass_hat_k_is_a_non_increasing_probability(cases in prop::collection::vec(counts(), 1..10)) {
        let r = pass_hat_k(&cases).unwrap();
        prop_assert_eq!(r.values.len() as u32, r.max_k);
        for w in r.values.windows(2) {
            prop_assert!(w[1] <= w[0] + 1e-15);
        }
        for v in &r.values {
            prop_assert!((0.0..=1.0).contains(v));
        }
    }
}

/// Exact and Monte Carlo p-values agree within Monte Carlo error: |p̂ − p| ≤ 4·σ + 1/B with
/// σ = √(p(1−p)/B) for a full run and p/√h once sequential stopping after h exceedances can
/// end it early.
#[test]
fn exact_and_monte_carlo_agree() {
    let mut rng = TrialRng::new(11);
    for round in 0..20 {
        let (kb, kc) = (3 + round % 4, 4 + round % 3);
        let shift = if round % 2 == 0 { 0.0 } else { 0.8 };
        let pts: Vec<f64> = (0..kb + kc)
            .map(|i| rng.normal() + if i >= kb { shift } else { 0.0 })
            .collect();
        let d = line(&pts);
        let exact = behaviour_test(&d, kb, kc, &PermutationOptions::default()).unwrap();
        assert!(matches!(exact.method, PermutationMethod::Exact { .. }));
        let draws = 4_999;
        let mc = behaviour_test(
            &d,
            kb,
            kc,
            &PermutationOptions {
                exact_limit: 0,
                draws,
                seed: round as u64,
            },
        )
        .unwrap();
        let p = exact.p_value;
        let sigma = |p: f64| {
            (p * (1.0 - p) / f64::from(draws))
                .sqrt()
                .max(p / (SEQUENTIAL_STOP as f64).sqrt())
        };
        let bound = 4.0 * sigma(p) + 1.0 / f64::from(draws);
        assert!(
            (mc.p_value - p).abs() <= bound,
            "round {round}: exact {p}, mc {}",
            mc.p_value
        );

        let b: Vec<f64> = (0..kb).map(|_| rng.normal()).collect();
        let c: Vec<f64> = (0..kc).map(|_| rng.normal() + shift).collect();
        let cases = [
            CaseSample {
                baseline: &b,
                candidate: &c,
            },
            CaseSample {
                baseline: &c,
                candidate: &b,
            },
        ];
        let ex = suite_permutation_test(&cases, &PermutationOptions::default()).unwrap();
        let mc = suite_permutation_test(
            &cases,
            &PermutationOptions {
                exact_limit: 0,
                draws,
                seed: 5,
            },
        )
        .unwrap();
        let p = ex.p_higher;
        let bound = 4.0 * sigma(p) + 2.0 / f64::from(draws);
        assert!(
            (mc.p_higher - p).abs() <= bound,
            "suite: exact {p}, mc {}",
            mc.p_higher
        );
    }
}

/// Under the null, P(p ≤ u) ≤ u (plus binomial error) for every u checked: a Kolmogorov–Smirnov
/// style bound on the one-sided excess of the empirical distribution of many seeded null
/// p-values over the uniform.
#[test]
fn p_values_are_super_uniform_under_the_null() {
    let reps = 800;
    let mut rng = TrialRng::new(2026);
    let mut behaviour = Vec::new();
    let mut fisher = Vec::new();
    let mut suite = Vec::new();
    let mut sign = Vec::new();
    let mut stratified = Vec::new();
    for r in 0..reps {
        let pts: Vec<f64> = (0..10).map(|_| rng.normal()).collect();
        let o = PermutationOptions {
            seed: r,
            draws: 199,
            ..PermutationOptions::default()
        };
        behaviour.push(behaviour_test(&line(&pts), 5, 5, &o).unwrap().p_value);
        let rate = rng.unit();
        let draw = |rng: &mut TrialRng, k: u32| (0..k).filter(|_| rng.unit() < rate).count() as u32;
        let (xb, xc) = (draw(&mut rng, 8), draw(&mut rng, 8));
        fisher.push(
            fisher_exact(Count::new(xb, 8), Count::new(xc, 8))
                .unwrap()
                .p_higher,
        );
        let data: Vec<(Vec<f64>, Vec<f64>)> = (0..6)
            .map(|_| {
                let mu = 3.0 * rng.normal();
                (
                    (0..3).map(|_| mu + rng.normal()).collect(),
                    (0..3).map(|_| mu + rng.normal()).collect(),
                )
            })
            .collect();
        let cases: Vec<CaseSample<'_>> = data
            .iter()
            .map(|(b, c)| CaseSample {
                baseline: b,
                candidate: c,
            })
            .collect();
        suite.push(suite_permutation_test(&cases, &o).unwrap().p_higher);
        let strata: Vec<(Count, Count)> = (0..5)
            .map(|_| {
                let rate = rng.unit();
                let b = (0..4).filter(|_| rng.unit() < rate).count() as u32;
                let c = (0..4).filter(|_| rng.unit() < rate).count() as u32;
                (Count::new(b, 4), Count::new(c, 4))
            })
            .collect();
        stratified.push(stratified_exact_test(&strata).unwrap().p_lower);
        let d = case_differences(&cases).unwrap();
        sign.push(sign_flip_test(&d, &o).unwrap().p_two_sided);
    }
    // One-sided DKW bound at 99.9%: √(ln(1/0.001)/(2n)).
    let bound = ((1.0f64 / 0.001).ln() / (2.0 * reps as f64)).sqrt();
    for (name, ps) in [
        ("behaviour", &behaviour),
        ("fisher", &fisher),
        ("suite", &suite),
        ("sign-flip", &sign),
        ("stratified", &stratified),
    ] {
        let mut worst: f64 = 0.0;
        for i in 1..=100 {
            let u = f64::from(i) / 100.0;
            let share = ps.iter().filter(|&&p| p <= u).count() as f64 / reps as f64;
            worst = worst.max(share - u);
        }
        assert!(
            worst <= bound,
            "{name}: excess over uniform {worst} > {bound}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// With one case the stratified test is Fisher's test.
    #[test]
    fn one_stratum_is_fisher(b in counts(), c in counts()) {
        let f = fisher_exact(b, c).unwrap();
        let s = stratified_exact_test(&[(b, c)]).unwrap();
        prop_assert!((f.p_higher - s.p_higher).abs() < 1e-12);
        prop_assert!((f.p_lower - s.p_lower).abs() < 1e-12);
        prop_assert!((f.p_two_sided - s.p_two_sided).abs() < 1e-12);
    }
}

/// Extreme sizes: k = 1 and k = 10,000 per side, all-equal distances, infinities refused.
#[test]
fn extreme_sizes() {
    let big = vec![1.0; 10_000];
    let cases = [CaseSample {
        baseline: &big,
        candidate: &big,
    }];
    let t = suite_permutation_test(&cases, &PermutationOptions::default()).unwrap();
    assert_eq!(t.p_two_sided, 1.0);
    let too_big = vec![1.0; 10_001];
    let cases = [CaseSample {
        baseline: &too_big,
        candidate: &big,
    }];
    assert!(suite_permutation_test(&cases, &PermutationOptions::default()).is_err());
    let s = stratified_exact_test(&[(Count::new(10, 10_000), Count::new(40, 10_000))]).unwrap();
    assert!(s.p_higher < 1e-4 && s.p_higher > 0.0);
    // Many cases: past the exact work limit the stratified test says it approximated.
    let many: Vec<(Count, Count)> = (0..100_000u32)
        .map(|i| (Count::new(i % 5, 10), Count::new((i + 1) % 5, 10)))
        .collect();
    let s = stratified_exact_test(&many).unwrap();
    assert_eq!(s.method, StratifiedMethod::NormalApproximation);
    assert!((0.0..=1.0).contains(&s.p_two_sided));
    let one = [1.0];
    let cases = [CaseSample {
        baseline: &one,
        candidate: &one,
    }];
    let v = variance_components(&cases).unwrap();
    assert_eq!(v.within_baseline, None);
    assert_eq!(v.omega_squared, None);
    let d = PairwiseDistances::from_fn(40, |_, _| 0.25).unwrap();
    let t = behaviour_test(&d, 20, 20, &PermutationOptions::default()).unwrap();
    assert_eq!(t.p_value, 1.0);
    assert!(PairwiseDistances::from_fn(3, |_, _| f64::INFINITY).is_err());
    assert!(PairwiseDistances::from_fn(4_001, |_, _| 0.0).is_err());
    // The largest pooled table the crate takes: Monte Carlo work stays bounded.
    let pts: Vec<f64> = (0..400).map(f64::from).collect();
    let t = behaviour_test(&line(&pts), 200, 200, &PermutationOptions::default()).unwrap();
    match t.method {
        PermutationMethod::MonteCarlo { draws, .. } => assert!(draws < 9_999),
        PermutationMethod::Exact { .. } => panic!("expected Monte Carlo"),
    }
}

/// Past 20 non-zero differences the sign-flip test draws; with integer differences the exact
/// p is a subset-sum count, and the Monte Carlo p agrees within its error.
#[test]
fn sign_flip_monte_carlo_agrees_with_subset_sums() {
    // d = 1..=24 with a few signs negative.
    let d: Vec<f64> = (1..=24)
        .map(|i| {
            if i % 5 == 0 {
                -f64::from(i)
            } else {
                f64::from(i)
            }
        })
        .collect();
    let observed: i64 = d.iter().map(|v| *v as i64).sum();
    let magnitudes: Vec<usize> = (1..=24).collect();
    let total: usize = magnitudes.iter().sum();
    // ways[s] = number of sign patterns whose positive part sums to s; T = 2s − total.
    let mut ways = vec![0f64; total + 1];
    ways[0] = 1.0;
    for &m in &magnitudes {
        for s in (m..=total).rev() {
            ways[s] += ways[s - m];
        }
    }
    let all: f64 = ways.iter().sum();
    let exact: f64 = ways
        .iter()
        .enumerate()
        .filter(|(s, _)| 2 * *s as i64 - total as i64 >= observed)
        .map(|(_, w)| w)
        .sum::<f64>()
        / all;
    let draws = 4_999;
    let t = sign_flip_test(
        &d,
        &PermutationOptions {
            draws,
            seed: 9,
            ..PermutationOptions::default()
        },
    )
    .unwrap();
    assert!(matches!(t.method, PermutationMethod::MonteCarlo { .. }));
    let sigma = (exact * (1.0 - exact) / f64::from(draws))
        .sqrt()
        .max(exact / (SEQUENTIAL_STOP as f64).sqrt());
    assert!(
        (t.p_higher - exact).abs() <= 4.0 * sigma + 1.0 / f64::from(draws),
        "exact {exact}, mc {}",
        t.p_higher
    );
}
