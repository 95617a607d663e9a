//! Property tests (spec `experiment.md` §14.3 "Properties"): random traces of ≤ 12 events from
//! the built-in, external or mixed vocabulary, steps i+1.

use crate::divergence::analyze_traces;
use crate::spec_cases::trace;
use proptest::prelude::*;
use serde_json::{json, Value};
use veer_base::edit_script::edit_script;

/// An independent, textbook Wagner–Fischer (full table, no backtrack).
fn simple_distance(a: &[u8], b: &[u8]) -> usize {
    let mut dp = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in dp.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in dp[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            dp[i][j] = (dp[i - 1][j] + 1)
                .min(dp[i][j - 1] + 1)
                .min(dp[i - 1][j - 1] + cost);
        }
    }
    dp[a.len()][b.len()]
}

fn event(kind: u8, v: u8) -> (&'static str, Value) {
    let name = ["a", "b"][usize::from(v % 2)];
    match kind % 10 {
        0 => ("routing_decision", json!({"chosen_agent": name})),
        1 => (
            "tool_invocation",
            json!({"tool_name": "t", "operation": name, "success": !v.is_multiple_of(3)}),
        ),
        2 => ("memory_write", json!({"entry_type": name})),
        3 => (
            "agent_output",
            json!({"action": name, "is_final_answer": v.is_multiple_of(2)}),
        ),
        4 => ("final_answer", json!({"answer": name, "answer_hash": name})),
        5 => (
            "llm_call",
            json!({"model": name, "finish_reason": "stop", "tool_call_names": [name]}),
        ),
        6 => ("tool_request", json!({"tool_name": name})),
        7 => ("tool_result", json!({"tool_name": name})),
        8 => ("agent_error", json!({"exc_type": name})),
        _ => ("memory_read", json!({})),
    }
}

fn events_strategy() -> impl Strategy<Value = Vec<(u8, u8)>> {
    prop::collection::vec((0u8..10, 0u8..4), 0..=12)
}

fn build(spec: &[(u8, u8)], label: &str) -> veer_trace::Trace {
    let evs: Vec<(&str, i64, Value)> = spec
        .iter()
        .enumerate()
        .map(|(i, &(k, v))| {
            let (t, p) = event(k, v);
            (t, i as i64 + 1, p)
        })
        .collect();
    trace(label, &evs)
}

proptest! {
    #[test]
    fn distance_properties(a in prop::collection::vec(0u8..4, 0..=16), b in prop::collection::vec(0u8..4, 0..=16)) {
        let e = edit_script(&a, &b);
        prop_assert_eq!(e.distance, simple_distance(&a, &b));
        prop_assert_eq!(e.substitutions + e.insertions + e.deletions, e.distance);
        let n = e.normalized();
        prop_assert!((0.0..=1.0).contains(&n));
        prop_assert_eq!(n == 0.0, a == b);
        let r = edit_script(&b, &a);
        prop_assert_eq!(r.distance, e.distance);
        prop_assert_eq!(r.normalized(), n);
        prop_assert!(e.ops.len() >= a.len().max(b.len()) && e.ops.len() <= a.len() + b.len());
    }

    #[test]
    fn trace_properties(a in events_strategy(), b in events_strategy()) {
        let (ta, tb) = (build(&a, "clean"), build(&b, "perturbed"));
        let d = analyze_traces(&ta, &tb);
        let dn = d.d_norm();
        prop_assert!((0.0..=1.0).contains(&dn));
        prop_assert_eq!(d.script.substitutions + d.script.insertions + d.script.deletions, d.script.distance);
        let back = analyze_traces(&tb, &ta);
        prop_assert_eq!(back.script.distance, d.script.distance);
        prop_assert_eq!(back.d_norm(), dn);
        match d.first {
            Some(f) => {
                prop_assert!((0.0..1.0).contains(&f.normalized_position));
                prop_assert!(f.step >= 1 && (f.step as usize) <= a.len().max(b.len()));
            }
            None => prop_assert!(d.aligned.iter().all(|p| p.divergence_type.is_none_or(|t| !crate::classify::is_structural(t)))),
        }
        let same = analyze_traces(&ta, &build(&a, "again"));
        prop_assert_eq!(same.script.distance, 0);
        prop_assert!(same.first.is_none());
        prop_assert!(!same.answer_changed);
    }

    /// The `structural` block's one pass over the alignment gives the block of the full
    /// analysis (which holds the aligned pairs), at any diagonal budget.
    #[test]
    fn structural_block_is_the_full_analysis(
        a in events_strategy(),
        b in events_strategy(),
        budget in prop_oneof![Just(0u64), Just(64), Just(1 << 26)],
    ) {
        let (ta, tb) = (build(&a, "clean"), build(&b, "perturbed"));
        let full = crate::structural::block_of_divergence(&analyze_traces(&ta, &tb));
        prop_assert_eq!(crate::structural::structural_within(&ta, &tb, budget), full.clone());
        prop_assert_eq!(crate::structural::structural(&ta, &tb), full);
    }
}
