//! The verdict's rules on hand-made signals.

use super::*;
use veer_contract::policy::Gate;

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

fn row(
    axis: veer_contract::axis::Axis,
    severity: Level,
    delta: f64,
    ci: [f64; 2],
) -> veer_contract::axis::AxisStat {
    let mut r = veer_contract::axis::AxisStat::empty(axis);
    r.severity = severity;
    r.delta = delta;
    r.ci95_low = ci[0];
    r.ci95_high = ci[1];
    r.n = 3;
    r.direction = veer_contract::axis::Direction::of(axis, delta, severity);
    r
}

#[test]
fn a_changed_call_in_one_turn_of_three_is_moderate_though_the_median_is_zero() {
    // The doubled refund: one of three turn pairs has other trajectory tokens; the median
    // distance is 0, so the row's severity is none and its numbers stay Shadow's.
    let mut r = row(
        veer_contract::axis::Axis::Trajectory,
        Level::None,
        0.0,
        [0.0, 1.0],
    );
    assert_eq!(axis_gate_level(&r), Level::None);
    r.changed_pairs = 1;
    assert_eq!(axis_gate_level(&r), Level::Moderate);
    let v = Verdict::decide(Level::Moderate, axis_signals_of(&[r.clone()]));
    assert!(v.tripped);
    assert_eq!(
        v.trips[0].reason,
        "tool-call trajectory changed: tool calls differ in 1 of 3 turn pair(s)"
    );
    assert!(!Verdict::decide(Level::Severe, axis_signals_of(&[r.clone()])).tripped);
    // A severe trajectory row stays severe.
    let mut severe = row(
        veer_contract::axis::Axis::Trajectory,
        Level::Severe,
        0.8,
        [0.5, 1.0],
    );
    severe.changed_pairs = 3;
    assert_eq!(axis_gate_level(&severe), Level::Severe);
}

#[test]
fn a_wording_change_whose_interval_touches_zero_is_never_severe() {
    let touching = row(
        veer_contract::axis::Axis::Semantic,
        Level::Severe,
        -0.6,
        [-1.0, 0.0],
    );
    assert_eq!(axis_gate_level(&touching), Level::Moderate);
    let clear = row(
        veer_contract::axis::Axis::Semantic,
        Level::Severe,
        -0.6,
        [-1.0, -0.2],
    );
    assert_eq!(axis_gate_level(&clear), Level::Severe);
    // Other axes keep their severity whatever their interval.
    let latency = row(
        veer_contract::axis::Axis::Latency,
        Level::Severe,
        900.0,
        [-10.0, 2000.0],
    );
    assert_eq!(axis_gate_level(&latency), Level::Severe);
    // An improvement never signals.
    let faster = row(
        veer_contract::axis::Axis::Latency,
        Level::Severe,
        -900.0,
        [-2000.0, -10.0],
    );
    assert_eq!(axis_gate_level(&faster), Level::None);
}

#[test]
fn wording_next_to_tool_calls_alone_is_at_most_minor() {
    let mut filler = row(
        veer_contract::axis::Axis::Semantic,
        Level::Severe,
        -0.9,
        [-1.0, -0.5],
    );
    filler.changed_pairs = 2;
    filler.filler_pairs = 2;
    assert_eq!(axis_gate_level(&filler), Level::Minor);
    // One changed pair that is not filler: the wording counts as before.
    filler.filler_pairs = 1;
    assert_eq!(axis_gate_level(&filler), Level::Severe);
}

/// The axis signals of a report with these rows.
fn axis_signals_of(rows: &[veer_contract::axis::AxisStat]) -> Vec<Trip> {
    let mut report = veer_diff::diff(
        &veer_trace::Trace::new("a", veer_base::format::Format::Agentlog),
        &veer_trace::Trace::new("b", veer_base::format::Format::Agentlog),
        "a",
        "b",
        &veer_diff::BehaviourOptions::default(),
    );
    report.axes = rows.to_vec();
    axis_signals(&report)
}

/// The fixture pair whose `search` tool lost `query` to `q` and `limit`'s integer type, diffed
/// with the tool-schema gate at `threshold` and the axis gate off.
fn schema_report(
    threshold: Option<veer_contract::tool_schema::SchemaClass>,
) -> veer_contract::diff::DiffReport {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/tool-schema"
    );
    let read = |side: &str| {
        veer_trace::load_trace(
            std::path::Path::new(&format!("{dir}/{side}.agentlog")),
            &veer_trace::ReadOptions::default(),
        )
        .unwrap()
    };
    let options = crate::DiffOptions {
        fail_on_schema: threshold,
        ..crate::DiffOptions::default()
    };
    let (report, verdict) = crate::diff::diff(
        &read("baseline"),
        &read("candidate"),
        ("b", "c"),
        &options,
        Level::None,
    );
    assert_eq!(report.gate, verdict.gate());
    report
}

#[test]
fn the_tool_schema_gate_trips_on_its_own_threshold_whatever_fail_on_is() {
    use veer_contract::tool_schema::SchemaClass;
    let off = schema_report(None);
    assert!(off.tool_schema.is_some());
    let v = pair_verdict(&off, Level::None);
    assert!(!v.tripped && v.exit_code() == 0);

    let on = schema_report(Some(SchemaClass::Breaking));
    let v = pair_verdict(&on, Level::None);
    assert!(v.tripped, "{v:?}");
    assert_eq!(v.exit_code(), 1);
    assert_eq!(v.trips.len(), 1);
    assert_eq!(v.trips[0].label(), "tool schema (breaking)");
    assert!(v.gate().tripped);
    assert!(on.gate.tripped);

    // A directory folds it per pair; a quarantined pair keeps it out of the gate.
    let mut fold = DirectoryVerdict::new(Level::None);
    fold.pair("shop.agentlog", &on);
    let v = fold.finish(None, &[]);
    assert!(v.tripped);
    assert_eq!(v.trips[0].trace.as_deref(), Some("shop.agentlog"));
    let mut fold = DirectoryVerdict::new(Level::None)
        .with_quarantine(["shop.agentlog".to_string()].into_iter().collect());
    fold.pair("shop.agentlog", &on);
    let v = fold.finish(None, &[]);
    assert!(!v.tripped, "{v:?}");
    assert_eq!(v.quarantined.len(), 1);
}
