//! Trials statistics throughput: one case of 10 vs 10 trials (behaviour permutation test,
//! exact and Monte Carlo), and a suite of 1,000 cases × 10 trials a side (every case's
//! behaviour test, Fisher per case and BH over cases, the suite-scope permutation test of one
//! axis, the exact stratified test, the population estimate). Synthetic data from a fixed
//! seed. Run: `cargo bench -p veer-trials --bench trials`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use veer_base::rng::{derive_seed, TrialRng};
use veer_trials::*;

const K: usize = 10;
const CASES: usize = 1_000;

/// A case's pooled distance table: trials as points in the plane, the candidate shifted.
fn case_distances(rng: &mut TrialRng, shift: f64) -> PairwiseDistances {
    let pts: Vec<(f64, f64)> = (0..2 * K)
        .map(|i| {
            let s = if i >= K { shift } else { 0.0 };
            (rng.normal() + s, rng.normal())
        })
        .collect();
    PairwiseDistances::from_fn(2 * K, |i, j| {
        ((pts[i].0 - pts[j].0).powi(2) + (pts[i].1 - pts[j].1).powi(2)).sqrt()
    })
    .unwrap()
}

fn bench_case(c: &mut Criterion) {
    let mut rng = TrialRng::new(1);
    let d = case_distances(&mut rng, 0.5);
    let mut group = c.benchmark_group("case_10_vs_10");
    group.bench_function("behaviour_monte_carlo_9999", |b| {
        b.iter(|| behaviour_test(black_box(&d), K, K, &PermutationOptions::default()).unwrap())
    });
    let changed = case_distances(&mut rng, 3.0);
    group.bench_function("behaviour_monte_carlo_9999_changed", |b| {
        b.iter(|| {
            behaviour_test(black_box(&changed), K, K, &PermutationOptions::default()).unwrap()
        })
    });
    let exact = PermutationOptions {
        exact_limit: 200_000,
        ..PermutationOptions::default()
    };
    group.sample_size(10);
    group.bench_function("behaviour_exact_184756", |b| {
        b.iter(|| behaviour_test(black_box(&d), K, K, &exact).unwrap())
    });
    group.finish();
}

fn bench_suite(c: &mut Criterion) {
    let mut rng = TrialRng::new(2);
    // A tenth of the cases changed.
    let tables: Vec<PairwiseDistances> = (0..CASES)
        .map(|i| case_distances(&mut rng, if i % 10 == 0 { 2.0 } else { 0.0 }))
        .collect();
    let values: Vec<(Vec<f64>, Vec<f64>)> = (0..CASES)
        .map(|_| {
            let mu = 400.0 * (0.5 * rng.normal()).exp();
            (
                (0..K).map(|_| mu * (0.3 * rng.normal()).exp()).collect(),
                (0..K).map(|_| mu * (0.3 * rng.normal()).exp()).collect(),
            )
        })
        .collect();
    let rates: Vec<(Count, Count)> = (0..CASES)
        .map(|_| {
            let p = 0.3 * rng.unit();
            let mut draw = || (0..K).filter(|_| rng.unit() < p).count() as u32;
            (Count::new(draw(), K as u32), Count::new(draw(), K as u32))
        })
        .collect();
    let mut group = c.benchmark_group("suite_1000_cases_10_vs_10");
    group.sample_size(10);
    group.bench_function("behaviour_every_case", |b| {
        b.iter(|| {
            tables
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    let o = PermutationOptions {
                        seed: derive_seed(7, &i.to_string()),
                        ..PermutationOptions::default()
                    };
                    behaviour_test(d, K, K, &o).unwrap().p_value
                })
                .sum::<f64>()
        })
    });
    group.bench_function("fisher_every_case_and_bh", |b| {
        b.iter(|| {
            let tests: Vec<FisherTest> = rates
                .iter()
                .map(|(x, y)| fisher_exact(*x, *y).unwrap())
                .collect();
            let p: Vec<f64> = tests.iter().map(|t| t.p_higher).collect();
            let min_p: Vec<f64> = tests
                .iter()
                .map(|t| t.min_attainable_p_higher_given_total)
                .collect();
            benjamini_hochberg_testable(&p, &min_p, 0.05).unwrap()
        })
    });
    let samples: Vec<CaseSample<'_>> = values
        .iter()
        .map(|(b, c)| CaseSample {
            baseline: b,
            candidate: c,
        })
        .collect();
    let suite_options = PermutationOptions {
        draws: DEFAULT_SUITE_DRAWS,
        ..PermutationOptions::default()
    };
    group.bench_function("suite_permutation_one_axis", |b| {
        b.iter(|| suite_permutation_test(black_box(&samples), &suite_options).unwrap())
    });
    group.bench_function("stratified_exact_one_rule", |b| {
        b.iter(|| stratified_exact_test(black_box(&rates)).unwrap())
    });
    group.bench_function("population_and_variance_one_axis", |b| {
        b.iter(|| {
            let d = case_differences(&samples).unwrap();
            let p = population_estimate(&d, 0.95, &suite_options).unwrap();
            let v = variance_components(&samples).unwrap();
            (p, v)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_case, bench_suite);
criterion_main!(benches);
