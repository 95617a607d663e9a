//! The refund-causal-diagnosis vectors: per scenario, the policy diff against Shadow's stored
//! `policy_diff` (with `session: null` and `tags: []` added, and `must_call_before` details in
//! veer's wording of the same positions) and the gate at every level.

use crate::compare::compare;
use crate::Policy;
use serde_json::Value;
use std::path::PathBuf;
use veer_base::Level;
use veer_contract::policy::gate;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/shadow/refund-causal-diagnosis")
}

fn load(side: &str, s: &str) -> veer_trace::Trace {
    veer_trace::load_trace(
        &dir().join(side).join(format!("{s}.agentlog")),
        &veer_trace::ReadOptions::default(),
    )
    .unwrap()
}

/// Shadow's `must_call_before` detail (`` `A` must be called before `B` (was: first_idx=F,
/// then_idx=T) ``, 0-based, −1 for none) in veer's words, which count calls from 1.
fn veer_detail(shadow: &str) -> String {
    let Some((head, was)) = shadow.split_once(" (was: first_idx=") else {
        return shadow.to_string();
    };
    let (first, then) = head
        .trim_start_matches('`')
        .split_once("` must be called before `")
        .unwrap();
    let then = then.trim_end_matches('`');
    let (fi, ti) = was.trim_end_matches(')').split_once(", then_idx=").unwrap();
    let ti: i64 = ti.parse().unwrap();
    match fi.parse::<i64>().unwrap() {
        -1 => format!(
            "`{then}` was called (call {}) with no `{first}` call before it",
            ti + 1
        ),
        fi => format!(
            "`{then}` was called (call {}) before `{first}` (call {})",
            ti + 1,
            fi + 1
        ),
    }
}

#[test]
fn shadow_details_read_in_veers_words() {
    assert_eq!(
        veer_detail("`a` must be called before `b` (was: first_idx=-1, then_idx=0)"),
        "`b` was called (call 1) with no `a` call before it"
    );
    assert_eq!(
        veer_detail("`a` must be called before `b` (was: first_idx=3, then_idx=1)"),
        "`b` was called (call 2) before `a` (call 4)"
    );
}

fn with_veer_fields(v: &Value) -> Value {
    let mut v = v.clone();
    for key in [
        "baseline_violations",
        "candidate_violations",
        "regressions",
        "fixes",
    ] {
        if let Some(list) = v.get_mut(key).and_then(Value::as_array_mut) {
            for item in list {
                let o = item.as_object().unwrap();
                let mut out = serde_json::Map::new();
                for f in ["rule_id", "kind", "severity"] {
                    out.insert(f.into(), o[f].clone());
                }
                out.insert("session".into(), Value::Null);
                out.insert("pair_index".into(), o["pair_index"].clone());
                let detail = o["detail"].as_str().map(veer_detail);
                out.insert(
                    "detail".into(),
                    detail.map_or_else(|| o["detail"].clone(), Value::from),
                );
                out.insert("tags".into(), Value::Array(Vec::new()));
                *item = Value::Object(out);
            }
        }
    }
    v
}

#[test]
fn refund_causal_diagnosis_matches_the_reference() {
    let policy = Policy::load(&dir().join("policy.yaml")).unwrap();
    for s in ["s1", "s2", "s3"] {
        let baseline = load("baseline_traces", s);
        let candidate = load("candidate_traces", s);
        let diff = compare(&policy, &baseline, &candidate);
        assert_eq!(diff.regressions.len(), 1, "{s}");
        assert_eq!(diff.regressions[0].rule_id, "confirm-before-refund");
        assert!(diff.fixes.is_empty());
        for level in ["never", "minor", "moderate", "severe"] {
            let expected: Value = serde_json::from_str(
                &std::fs::read_to_string(dir().join(format!("expected/policy_{s}_{level}.json")))
                    .unwrap(),
            )
            .unwrap();
            assert_eq!(
                serde_json::to_value(&diff).unwrap(),
                with_veer_fields(&expected["policy_diff"]),
                "{s} {level}"
            );
            let worst_axis = expected["rows"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|r| Level::parse(r["severity"].as_str()?))
                .max()
                .unwrap_or(Level::None);
            let g = gate(Level::parse_fail_on(level).unwrap(), worst_axis, &diff);
            assert_eq!(g.tripped, level != "never", "{s} {level}");
            // The regression alone (severity error) ranks severe.
            let g = gate(Level::parse_fail_on(level).unwrap(), Level::None, &diff);
            assert_eq!(g.worst, Level::Severe);
            assert_eq!(g.tripped, level != "never");
        }
        let swapped = compare(&policy, &candidate, &baseline);
        assert_eq!((swapped.regressions.len(), swapped.fixes.len()), (0, 1));
        let g = gate(Level::Severe, Level::Severe, &swapped);
        assert!(g.tripped, "the severe axes still trip the gate");
        let g = gate(Level::Severe, Level::None, &swapped);
        assert!(!g.tripped);
    }
}
