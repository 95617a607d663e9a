//! The result types the report embeds serialize to JSON and read back unchanged.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde::{de::DeserializeOwned, Serialize};
use std::fmt::Debug;
use veer_trials::*;

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: &T) -> String {
    let json = serde_json::to_string(value).unwrap();
    let back: T = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, value, "{json}");
    json
}

#[test]
fn results_round_trip() {
    let pts: [f64; 6] = [0.0, 0.2, 0.1, 1.0, 1.3, 1.1];
    let d = PairwiseDistances::from_fn(6, |i, j| (pts[i] - pts[j]).abs()).unwrap();
    let b = behaviour_test(&d, 3, 3, &PermutationOptions::default()).unwrap();
    let json = round_trip(&b);
    assert!(json.contains("\"method\":\"exact\""), "{json}");
    round_trip(&fisher_exact(Count::new(0, 3), Count::new(3, 3)).unwrap());
    round_trip(&stratified_exact_test(&[(Count::new(0, 3), Count::new(3, 3))]).unwrap());
    let turns = vec![None; 15];
    round_trip(&first_divergence(&turns, 3, 3).unwrap());
    let b1 = [1.0, 2.0, 3.0];
    let c1 = [2.0, 3.0, 5.0];
    let cases = [CaseSample {
        baseline: &b1,
        candidate: &c1,
    }];
    round_trip(&suite_permutation_test(&cases, &PermutationOptions::default()).unwrap());
    round_trip(&axis_case_test(&b1, &c1, &PermutationOptions::default()).unwrap());
    round_trip(
        &population_estimate(&[1.0, 2.0, -0.5], 0.95, &PermutationOptions::default()).unwrap(),
    );
    round_trip(&variance_components(&cases).unwrap());
    let inputs = PowerInputs {
        omega_squared: 1.0,
        sigma_squared_baseline: 2.0,
        sigma_squared_candidate: 2.0,
    };
    round_trip(&plan(&inputs, 0.5, 5.0, 5.0, 30, 0.05, 0.8).unwrap());
    round_trip(&pass_hat_k(&[Count::new(2, 3)]).unwrap());
    let v = CaseDecision::Inconclusive {
        trials_needed: Some(4),
        measures: vec!["violations:no-secrets".to_string()],
    };
    let json = round_trip(&v);
    assert!(json.contains("\"verdict\":\"inconclusive\""), "{json}");
    round_trip(&CaseDecision::Unchanged);
    round_trip(
        &suite_decision(
            &[SuiteTest {
                measure: "latency".to_string(),
                worse_when: TrialWorseWhen::Higher,
                effect: 1.0,
                margin: 0.5,
                p_worse: 0.01,
                p_better: 0.99,
            }],
            0.05,
        )
        .unwrap(),
    );
    round_trip(&TrialsError::NoTrials {
        side: "baseline".to_string(),
    });
}
