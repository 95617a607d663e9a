//! veer-trials against SciPy / statsmodels (and brute-force Python for the permutation tests):
//! the values in tests/fixtures/trials/scipy_reference.json, made by the script beside it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use veer_trials::special::{normal_cdf, normal_quantile, t_cdf, t_quantile};
use veer_trials::*;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/trials/scipy_reference.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn u(v: &Value) -> u32 {
    v.as_u64().unwrap() as u32
}

#[track_caller]
fn close(got: f64, want: f64, rel: f64, what: &str) {
    let ok = if want == 0.0 {
        got.abs() < 1e-15
    } else if want.is_infinite() {
        got == want
    } else {
        (got - want).abs() <= rel * want.abs() || (got - want).abs() < 1e-300
    };
    assert!(ok, "{what}: got {got:e}, want {want:e}");
}

#[test]
fn fisher_matches_scipy() {
    for c in reference()["fisher"].as_array().unwrap() {
        let b = Count::new(u(&c["baseline"][0]), u(&c["baseline"][1]));
        let k = Count::new(u(&c["candidate"][0]), u(&c["candidate"][1]));
        let t = fisher_exact(b, k).unwrap();
        let what = format!("{b:?} vs {k:?}");
        close(t.p_higher, f(&c["p_higher"]), 1e-9, &what);
        close(t.p_lower, f(&c["p_lower"]), 1e-9, &what);
        close(t.p_two_sided, f(&c["p_two_sided"]), 1e-9, &what);
    }
}

#[test]
fn stratified_matches_convolved_hypergeometrics() {
    for c in reference()["stratified"].as_array().unwrap() {
        let cases: Vec<(Count, Count)> = c["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    Count::new(u(&r[0]), u(&r[1])),
                    Count::new(u(&r[2]), u(&r[3])),
                )
            })
            .collect();
        let t = stratified_exact_test(&cases).unwrap();
        close(t.p_higher, f(&c["p_higher"]), 1e-9, "higher");
        close(t.p_lower, f(&c["p_lower"]), 1e-9, "lower");
        close(t.p_two_sided, f(&c["p_two_sided"]), 1e-9, "two-sided");
    }
}

#[test]
fn mcnemar_matches_scipy_binomtest() {
    for c in reference()["mcnemar"].as_array().unwrap() {
        let (h, l, two) = mcnemar_exact(u(&c["baseline_only"]), u(&c["candidate_only"]));
        close(h, f(&c["p_higher"]), 1e-9, "higher");
        close(l, f(&c["p_lower"]), 1e-9, "lower");
        close(two, f(&c["p_two_sided"]), 1e-9, "two-sided");
    }
}

#[test]
fn quantiles_match_scipy() {
    let r = reference();
    let q = &r["quantiles"];
    for row in q["norm_ppf"].as_array().unwrap() {
        close(normal_quantile(f(&row[0])), f(&row[1]), 1e-12, "norm.ppf");
    }
    for row in q["norm_cdf"].as_array().unwrap() {
        close(normal_cdf(f(&row[0])), f(&row[1]), 1e-12, "norm.cdf");
    }
    for row in q["t_ppf"].as_array().unwrap() {
        let what = format!("t.ppf({}, {})", row[0], row[1]);
        close(t_quantile(f(&row[0]), f(&row[1])), f(&row[2]), 1e-9, &what);
    }
    for row in q["t_cdf"].as_array().unwrap() {
        let what = format!("t.cdf({}, {})", row[0], row[1]);
        close(t_cdf(f(&row[0]), f(&row[1])), f(&row[2]), 1e-9, &what);
    }
}

#[test]
fn holm_and_bh_match_statsmodels() {
    for c in reference()["multiplicity"].as_array().unwrap() {
        let p: Vec<f64> = c["p"].as_array().unwrap().iter().map(f).collect();
        for (got, want) in holm(&p).unwrap().iter().zip(c["holm"].as_array().unwrap()) {
            close(*got, f(want), 1e-12, "holm");
        }
        let bh = benjamini_hochberg(&p).unwrap();
        for (got, want) in bh.iter().zip(c["bh"].as_array().unwrap()) {
            close(*got, f(want), 1e-12, "bh");
        }
    }
}

#[test]
fn energy_permutation_matches_brute_force() {
    for c in reference()["energy"].as_array().unwrap() {
        let b: Vec<f64> = c["baseline"].as_array().unwrap().iter().map(f).collect();
        let k: Vec<f64> = c["candidate"].as_array().unwrap().iter().map(f).collect();
        let pts: Vec<f64> = b.iter().chain(&k).copied().collect();
        let d = PairwiseDistances::from_fn(pts.len(), |i, j| (pts[i] - pts[j]).abs()).unwrap();
        let t = behaviour_test(&d, b.len(), k.len(), &PermutationOptions::default()).unwrap();
        close(t.excess, f(&c["excess"]), 1e-9, "excess");
        close(t.p_value, f(&c["p_value"]), 1e-12, "p");
    }
}

#[test]
fn sign_flip_matches_brute_force() {
    for c in reference()["sign_flip"].as_array().unwrap() {
        let d: Vec<f64> = c["d"].as_array().unwrap().iter().map(f).collect();
        let t = sign_flip_test(&d, &PermutationOptions::default()).unwrap();
        close(t.p_higher, f(&c["p_higher"]), 1e-12, "higher");
        close(t.p_lower, f(&c["p_lower"]), 1e-12, "lower");
        close(t.p_two_sided, f(&c["p_two_sided"]), 1e-12, "two-sided");
    }
}
