//! Properties of the behaviour distance on random signatures: range, identity, symmetry and
//! the triangle inequality (it is a metric), and PAM's result independent of the thread count.

use super::pam::pam;
use super::{distance, distance_matrix, intern};
use proptest::prelude::*;
use veer_contract::mine::{BehaviourSignature, CallShape};

fn signature() -> impl Strategy<Value = BehaviourSignature> {
    let call = (0u8..4, 0u8..3).prop_map(|(t, s)| CallShape {
        tool: format!("t{t}"),
        shape: format!("k{s}:string"),
    });
    (
        prop::collection::vec(call, 0..8),
        prop::collection::btree_set(
            prop::sample::select(vec!["end_turn", "max_tokens", "tool_use"]),
            0..3,
        ),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(calls, stops, error, violation)| BehaviourSignature {
            calls,
            stop_reasons: stops.into_iter().map(str::to_string).collect(),
            error,
            violation,
        })
}

proptest! {
    #[test]
    fn distance_is_a_metric_in_the_unit_range(a in signature(), b in signature(), c in signature()) {
        let i = intern(&[a.clone(), b.clone(), c.clone()]);
        let (ab, ba) = (distance(&i[0], &i[1]), distance(&i[1], &i[0]));
        let (bc, ac) = (distance(&i[1], &i[2]), distance(&i[0], &i[2]));
        prop_assert!((0.0..=1.0).contains(&ab));
        prop_assert_eq!(ab, ba);
        prop_assert_eq!(distance(&i[0], &i[0]), 0.0);
        prop_assert_eq!(ab == 0.0, a == b);
        prop_assert!(ac <= ab + bc + 1e-12, "{} > {} + {}", ac, ab, bc);
    }

    #[test]
    fn pam_is_the_same_on_one_thread_and_four(sigs in prop::collection::vec(signature(), 3..30), k in 2usize..5) {
        let mut sigs = sigs;
        sigs.sort();
        sigs.dedup();
        let w: Vec<f64> = (0..sigs.len()).map(|i| 1.0 + (i % 3) as f64).collect();
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().map(|p| {
                p.install(|| {
                    let m = distance_matrix(&sigs).ok()?;
                    Some(pam(&m, &w, k))
                })
            }).ok().flatten()
        };
        prop_assert_eq!(run(1), run(4));
    }
}
