//! The verdict's rules on hand-made signals.

use super::*;
use veer_policy::Gate;

fn axis(name: &str, level: Level) -> Trip {
    Trip {
        trace: None,
        level,
        cause: Cause::Axis {
            axis: name.to_string(),
        },
        reason: String::new(),
    }
}

#[test]
fn the_gate_off_never_trips_and_lists_nothing() {
    let v = Verdict::decide(Level::None, vec![axis("cost", Level::Severe)]);
    assert!(!v.tripped && v.trips.is_empty());
    assert_eq!((v.worst, v.exit_code()), (Level::Severe, 0));
}

#[test]
fn only_signals_at_or_above_the_threshold_trip() {
    let v = Verdict::decide(
        Level::Moderate,
        vec![axis("cost", Level::Minor), axis("latency", Level::Severe)],
    );
    assert!(v.tripped);
    assert_eq!(v.trips.len(), 1);
    assert!(v.tripped_by(
        None,
        &Cause::Axis {
            axis: "latency".into()
        }
    ));
    assert!(!v.tripped_by(
        None,
        &Cause::Axis {
            axis: "cost".into()
        }
    ));
    assert_eq!(v.exit_code(), 1);
    assert_eq!(v.gate(), Gate::decide(Level::Moderate, Level::Severe));
    let ok = Verdict::decide(Level::Severe, vec![axis("cost", Level::Moderate)]);
    assert!(!ok.tripped && ok.exit_code() == 0);
}

#[test]
fn unreadable_inputs_trip_a_set_gate_and_end_an_ungated_run_with_2() {
    let bad = || unreadable_signal(Some("a.agentlog"), Some("b/a.agentlog"), "bad\nmore");
    let v = Verdict::decide(Level::Severe, vec![bad()]);
    assert!(v.tripped && v.unreadable == 1 && v.worst == Level::None);
    assert_eq!(v.trips[0].reason, "bad");
    assert_eq!(
        v.gate(),
        Gate::decide_with_errors(Level::Severe, Level::None, 1)
    );
    let off = Verdict::decide(Level::None, vec![bad()]);
    assert!(!off.tripped && off.exit_code() == 2);
}

#[test]
fn json_names_the_kind_and_the_trace() {
    let mut t = axis("cost", Level::Severe);
    t.trace = Some("run1.agentlog".into());
    let v = Verdict::decide(Level::Minor, vec![t]);
    let j = serde_json::to_string(&v).unwrap();
    assert_eq!(
        j,
        r#"{"fail_on":"minor","worst":"severe","tripped":true,"unreadable":0,"trips":[{"trace":"run1.agentlog","level":"severe","kind":"axis","axis":"cost","reason":""}]}"#
    );
    assert_eq!(
        v.tripped_by_line(5).as_deref(),
        Some("axis cost (severe) in run1.agentlog")
    );
}
