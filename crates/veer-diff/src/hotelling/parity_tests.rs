//! Parity with Shadow 3.2.5 (`shadow.statistical.fingerprint` + `hotelling_t2`) on the
//! conformance pairs and on generated pairs of 8–1,000 responses: the expected values were
//! written by `tests/fixtures/fingerprint/generate.py` running the reference itself.

use super::{hotelling_t2, Method, PValue, DEFAULT_ALPHA};
use crate::fingerprint::{trace_matrix, FingerprintScales, DIMENSIONS};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn expected() -> Value {
    let text =
        std::fs::read_to_string(root().join("tests/fixtures/fingerprint/expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The rows of every trace under `path` (a file, or a directory read in name order).
fn rows(path: &str) -> Vec<Vec<f64>> {
    let path = root().join(path);
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v
    } else {
        vec![path]
    };
    files
        .iter()
        .flat_map(|f| {
            let t = veer_trace::load_trace(f, &veer_trace::ReadOptions::default()).unwrap();
            trace_matrix(&t, &FingerprintScales::default())
        })
        .map(|r| r.to_vec())
        .collect()
}

fn close(got: f64, want: f64, rel: f64, what: &str) {
    assert!(
        (got - want).abs() <= rel * want.abs().max(1e-300) || got == want,
        "{what}: veer {got:e}, reference {want:e}"
    );
}

#[test]
fn dimension_names_match_the_reference() {
    let e = expected();
    let names: Vec<&str> = e["dimensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(names, DIMENSIONS);
}

#[test]
fn fingerprints_and_tests_match_the_reference() {
    let e = expected();
    let cases = e["cases"].as_array().unwrap();
    assert!(cases.len() >= 18);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let x1 = rows(case["baseline"].as_str().unwrap());
        let x2 = rows(case["candidate"].as_str().unwrap());
        assert_eq!(x1.len() as u64, case["n1"].as_u64().unwrap(), "{name}: n1");
        assert_eq!(x2.len() as u64, case["n2"].as_u64().unwrap(), "{name}: n2");
        for (key, rows) in [("baseline_rows", &x1), ("candidate_rows", &x2)] {
            if let Some(want) = case[key].as_array() {
                for (i, (r, w)) in rows.iter().zip(want).enumerate() {
                    for (j, (g, w)) in r.iter().zip(w.as_array().unwrap()).enumerate() {
                        close(
                            *g,
                            w.as_f64().unwrap(),
                            1e-12,
                            &format!("{name}: {key}[{i}].{}", DIMENSIONS[j]),
                        );
                    }
                }
            }
        }
        let h = &case["hotelling"];
        if h.is_null() {
            assert!(
                hotelling_t2(&x1, &x2, DEFAULT_ALPHA, PValue::F).is_err(),
                "{name}"
            );
            continue;
        }
        let f = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, PValue::F).unwrap();
        close(
            f.t2,
            h["t2"].as_f64().unwrap(),
            1e-9,
            &format!("{name}: t2"),
        );
        close(
            f.shrinkage,
            h["shrinkage"].as_f64().unwrap(),
            1e-9,
            &format!("{name}: shrinkage"),
        );
        assert_eq!(f.df2 as u64, h["df2"].as_u64().unwrap(), "{name}: df2");
        match h["f_stat"].as_f64() {
            Some(want) => close(f.f_stat.unwrap(), want, 1e-9, &format!("{name}: f_stat")),
            None => assert!(f.f_stat.is_none(), "{name}: f_stat"),
        }
        close(
            f.p_value,
            h["p_value_f"].as_f64().unwrap(),
            1e-6,
            &format!("{name}: F p-value"),
        );
        match h["power"].as_f64() {
            Some(want) => assert!(
                (f.power.unwrap() - want).abs() <= 1e-6,
                "{name}: power {:?} vs {want}",
                f.power
            ),
            None => assert!(f.power.is_none(), "{name}: power"),
        }
        assert_eq!(
            f.decision.label(),
            h["decision_f"].as_str().unwrap(),
            "{name}: decision"
        );
        for (j, dim) in DIMENSIONS.iter().enumerate() {
            close(
                f.baseline_mean[j],
                case["baseline_mean"][j].as_f64().unwrap(),
                1e-9,
                &format!("{name}: baseline mean {dim}"),
            );
            close(
                f.candidate_mean[j],
                case["candidate_mean"][j].as_f64().unwrap(),
                1e-9,
                &format!("{name}: candidate mean {dim}"),
            );
        }
        let sum: f64 = f.contributions.iter().sum();
        close(
            sum.max(0.0),
            f.t2,
            1e-12,
            &format!("{name}: contributions sum to T²"),
        );

        let auto = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, PValue::ExactWhenSmall).unwrap();
        match h["exact"].as_object() {
            Some(exact) => {
                assert_eq!(auto.method, Method::ExactPermutation, "{name}");
                close(
                    auto.p_value,
                    exact["p_value"].as_f64().unwrap(),
                    1e-6,
                    &format!("{name}: exact p-value"),
                );
                assert_eq!(
                    auto.decision.label(),
                    exact["decision"].as_str().unwrap(),
                    "{name}: exact decision"
                );
            }
            None => {
                assert_eq!(auto.method, Method::FDistribution, "{name}");
                assert_eq!(auto.p_value, f.p_value, "{name}");
            }
        }
    }
}

/// The reference example: 60% of a 200-turn candidate's answers gain "Unable to complete … error 42
/// … 3 items failed", tokens and latency unchanged. The joint test rejects, and the moving
/// dimension it names first is the error-token flag.
#[test]
fn the_issue_example_rejects_and_names_the_error_flag() {
    let dir = "tests/fixtures/fingerprint/pairs/issue-example-200";
    let x1 = rows(&format!("{dir}/baseline.agentlog.gz"));
    let x2 = rows(&format!("{dir}/candidate.agentlog.gz"));
    let r = hotelling_t2(&x1, &x2, DEFAULT_ALPHA, PValue::ExactWhenSmall).unwrap();
    assert_eq!(r.decision.label(), "reject");
    assert!(r.p_value < 1e-30, "{}", r.p_value);
    let top = (0..DIMENSIONS.len())
        .max_by(|&a, &b| r.contributions[a].total_cmp(&r.contributions[b]))
        .unwrap();
    assert_eq!(DIMENSIONS[top], "error_token_flag");
}
