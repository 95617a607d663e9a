//! Parity with Shadow 3.2.5 on the conformance fixtures (spec `diff.md` §13): axis rows,
//! first divergence, top-k, recommendations and drill-down, unpriced and priced. Where veer
//! departs deliberately (§9.5 gap calibration: devops-agent, er-triage, refund-agent-audit)
//! the expected values are veer's from §13.2–§13.3 and each test states the reason.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use veer_contract::diff::DiffReport;
use veer_contract::divergence::PairBy;
use veer_diff::pricing::{ModelPrice, Pricing};
use veer_diff::{diff, BehaviourOptions};

fn shadow(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/shadow")
        .join(dir)
}

/// The two entries of Shadow's pricing.json used by the priced goldens (§5.6).
fn golden_pricing() -> Pricing {
    let mut p = Pricing::none();
    p.insert(
        "claude-opus-4-7",
        ModelPrice {
            input: 0.000015,
            output: 0.000075,
            cached_input: 0.0000015,
            cached_write_5m: 0.00001875,
            cached_write_1h: 0.00003,
            reasoning: 0.000075,
            batch_discount: 0.5,
        },
    );
    p.insert(
        "claude-haiku-4-5",
        ModelPrice {
            input: 0.0000008,
            output: 0.000004,
            cached_input: 0.00000008,
            cached_write_5m: 0.000001,
            cached_write_1h: 0.0000016,
            reasoning: 0.000004,
            batch_discount: 0.5,
        },
    );
    p
}

fn run(b: &Path, c: &Path, priced: bool) -> DiffReport {
    let opts = veer_trace::ReadOptions::default();
    let tb = veer_trace::load_trace(b, &opts).unwrap();
    let tc = veer_trace::load_trace(c, &opts).unwrap();
    let options = BehaviourOptions {
        pricing: if priced {
            golden_pricing()
        } else {
            Pricing::none()
        },
        // The reference pairs by index; auto pairing is veer's default (docs/diff.md).
        pair_by: PairBy::Index,
        ..BehaviourOptions::default()
    };
    diff(&tb, &tc, "b", "c", &options)
}

fn example(name: &str, priced: bool) -> (DiffReport, Value) {
    let d = shadow(name);
    let report = run(
        &d.join("baseline.agentlog"),
        &d.join("candidate.agentlog"),
        priced,
    );
    let file = if priced {
        "expected-diff.priced.seed42.json"
    } else {
        "expected-diff.seed42.json"
    };
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join(file)).unwrap()).unwrap();
    (report, expected)
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() <= 1e-9, "{what}: veer {a} vs expected {b}");
}

fn kind_of(shadow_kind: &str) -> &str {
    shadow_kind.trim_end_matches("_drift")
}

/// Rows: medians, deltas, CI bounds (1e-9), severities, n and flags.
fn check_rows(r: &DiffReport, e: &Value, name: &str) {
    let rows = e["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 9);
    let ours = serde_json::to_value(&r.axes).unwrap();
    for (o, x) in ours.as_array().unwrap().iter().zip(rows) {
        let axis = x["axis"].as_str().unwrap();
        assert_eq!(o["axis"], x["axis"], "{name}");
        for f in [
            "baseline_median",
            "candidate_median",
            "delta",
            "ci95_low",
            "ci95_high",
        ] {
            close(
                o[f].as_f64().unwrap(),
                x[f].as_f64().unwrap(),
                &format!("{name} {axis} {f}"),
            );
        }
        assert_eq!(o["severity"], x["severity"], "{name} {axis} severity");
        assert_eq!(o["n"], x["n"], "{name} {axis} n");
        assert_eq!(o["flags"], x["flags"], "{name} {axis} flags");
    }
    assert_eq!(r.pair_count as u64, e["pair_count"].as_u64().unwrap());
    assert_eq!(
        r.baseline.trace_id,
        e["baseline_trace_id"].as_str().unwrap()
    );
    assert_eq!(
        r.candidate.trace_id,
        e["candidate_trace_id"].as_str().unwrap()
    );
}

fn check_event(o: &Value, x: &Value, what: &str) {
    assert_eq!(o["baseline_turn"], x["baseline_turn"], "{what}");
    assert_eq!(o["candidate_turn"], x["candidate_turn"], "{what}");
    assert_eq!(
        o["kind"].as_str().unwrap(),
        kind_of(x["kind"].as_str().unwrap()),
        "{what}"
    );
    assert_eq!(o["primary_axis"], x["primary_axis"], "{what}");
    assert_eq!(o["explanation"], x["explanation"], "{what}");
    close(
        o["confidence"].as_f64().unwrap(),
        x["confidence"].as_f64().unwrap(),
        what,
    );
}

fn check_first(r: &DiffReport, e: &Value, name: &str) {
    let o = serde_json::to_value(&r.first_divergence).unwrap();
    check_event(
        &o,
        &e["first_divergence"],
        &format!("{name} first_divergence"),
    );
}

fn check_divergences(r: &DiffReport, e: &Value, name: &str) {
    let o = serde_json::to_value(&r.divergences).unwrap();
    let x = e["divergences"].as_array().unwrap();
    assert_eq!(o.as_array().unwrap().len(), x.len(), "{name} divergences");
    for (i, (a, b)) in o.as_array().unwrap().iter().zip(x).enumerate() {
        check_event(a, b, &format!("{name} divergence {i}"));
    }
}

fn check_recommendations(r: &DiffReport, e: &Value, name: &str) {
    let o = serde_json::to_value(&r.recommendations).unwrap();
    let x = e["recommendations"].as_array().unwrap();
    assert_eq!(
        o.as_array().unwrap().len(),
        x.len(),
        "{name} recommendations: {o:#}"
    );
    for (i, (a, b)) in o.as_array().unwrap().iter().zip(x).enumerate() {
        for f in [
            "severity",
            "action",
            "turn",
            "baseline_turn",
            "candidate_turn",
            "message",
            "rationale",
            "axis",
        ] {
            assert_eq!(a[f], b[f], "{name} recommendation {i} {f}");
        }
        close(
            a["confidence"].as_f64().unwrap(),
            b["confidence"].as_f64().unwrap(),
            &format!("{name} recommendation {i}"),
        );
    }
}

fn check_drill_down(r: &DiffReport, e: &Value, name: &str) {
    let o = serde_json::to_value(&r.drill_down).unwrap();
    let x = e["drill_down"].as_array().unwrap();
    assert_eq!(o.as_array().unwrap().len(), x.len(), "{name} drill_down");
    for (i, (a, b)) in o.as_array().unwrap().iter().zip(x).enumerate() {
        let what = format!("{name} drill_down {i}");
        for f in [
            "pair_index",
            "baseline_turn",
            "candidate_turn",
            "dominant_axis",
        ] {
            assert_eq!(a[f], b[f], "{what} {f}");
        }
        close(
            a["regression_score"].as_f64().unwrap(),
            b["regression_score"].as_f64().unwrap(),
            &what,
        );
        for (s, t) in a["axis_scores"]
            .as_array()
            .unwrap()
            .iter()
            .zip(b["axis_scores"].as_array().unwrap())
        {
            assert_eq!(s["axis"], t["axis"], "{what}");
            for f in [
                "baseline_value",
                "candidate_value",
                "delta",
                "normalized_delta",
            ] {
                close(
                    s[f].as_f64().unwrap(),
                    t[f].as_f64().unwrap(),
                    &format!("{what} {} {f}", s["axis"]),
                );
            }
        }
    }
}

/// Fixtures where veer equals Shadow on everything.
const IDENTICAL: [&str; 3] = ["demo", "customer-support", "harmful-content-judge"];
/// Fixtures where veer's gap calibration (§9.5) changes the top-k and recommendations.
const DEPARTING: [&str; 3] = ["devops-agent", "er-triage", "refund-agent-audit"];

#[test]
fn rows_first_divergence_and_drill_down_match_shadow_on_all_six() {
    for name in IDENTICAL.iter().chain(DEPARTING.iter()) {
        for priced in [false, true] {
            let (r, e) = example(name, priced);
            let tag = format!("{name}{}", if priced { " (priced)" } else { "" });
            check_rows(&r, &e, &tag);
            check_first(&r, &e, &tag);
            check_drill_down(&r, &e, &tag);
        }
    }
}

#[test]
fn top_k_and_recommendations_match_shadow_where_alignment_agrees() {
    for name in IDENTICAL {
        for priced in [false, true] {
            let (r, e) = example(name, priced);
            let tag = format!("{name}{}", if priced { " (priced)" } else { "" });
            check_divergences(&r, &e, &tag);
            check_recommendations(&r, &e, &tag);
        }
    }
}

#[test]
fn refund_causal_sessions_match_shadow() {
    let d = shadow("refund-causal-diagnosis");
    for s in ["s1", "s2", "s3"] {
        let r = run(
            &d.join(format!("baseline_traces/{s}.agentlog")),
            &d.join(format!("candidate_traces/{s}.agentlog")),
            false,
        );
        let e: Value = serde_json::from_str(
            &std::fs::read_to_string(d.join(format!("expected/diff_{s}.json"))).unwrap(),
        )
        .unwrap();
        check_rows(&r, &e, s);
        check_first(&r, &e, s);
        check_divergences(&r, &e, s);
        // Departure (docs/diff.md "Recommendations"): Shadow adds "Possible retry loop",
        // but the candidate makes fewer tool calls than the baseline (it dropped one), so
        // veer does not claim a retry; every other recommendation is Shadow's.
        let mut e = e;
        let recs = e["recommendations"].as_array_mut().unwrap();
        let before = recs.len();
        recs.retain(|x| {
            !x["message"]
                .as_str()
                .unwrap()
                .starts_with("Possible retry loop")
        });
        assert_eq!(recs.len(), before - 1, "{s}");
        let calls = |side: &str| {
            std::fs::read_to_string(d.join(format!("{side}_traces/{s}.agentlog")))
                .unwrap()
                .matches("\"tool_use\"")
                .count()
        };
        assert!(calls("baseline") > calls("candidate"), "{s}");
        check_recommendations(&r, &e, s);
        check_drill_down(&r, &e, s);
    }
}

/// (baseline_turn, candidate_turn, kind, confidence, explanation or "" to skip).
type Ev<'a> = (usize, usize, &'a str, f64, &'a str);

fn check_veer_events(r: &DiffReport, expected: &[Ev<'_>], name: &str) {
    assert_eq!(
        r.divergences.len(),
        expected.len(),
        "{name}: {:#?}",
        r.divergences
    );
    for (i, (d, &(b, c, kind, conf, expl))) in r.divergences.iter().zip(expected).enumerate() {
        assert_eq!((d.baseline_turn, d.candidate_turn), (b, c), "{name} #{i}");
        assert_eq!(d.kind.label(), kind, "{name} #{i}");
        close(d.confidence, conf, &format!("{name} #{i}"));
        if !expl.is_empty() {
            assert_eq!(d.explanation, expl, "{name} #{i}");
        }
    }
}

fn path_of(name: &str) -> (String, f64) {
    let d = shadow(name);
    let opts = veer_trace::ReadOptions::default();
    let tb = veer_trace::load_trace(&d.join("baseline.agentlog"), &opts).unwrap();
    let tc = veer_trace::load_trace(&d.join("candidate.agentlog"), &opts).unwrap();
    let (b, c) = veer_diff::turn::diff_turn_pair(&tb, &tc);
    let (_, _, a) = veer_diff::divergences(&b, &c, 5);
    let a = a.unwrap();
    let path = a
        .steps
        .iter()
        .map(|s| match s {
            veer_diff::align::Step::Match(i, j) => format!("M({i},{j})"),
            veer_diff::align::Step::Insert(j) => format!("I({j})"),
            veer_diff::align::Step::Delete(i) => format!("D({i})"),
        })
        .collect::<Vec<_>>()
        .join(" ");
    (path, a.cost)
}

/// Departure (§9.5): with GAP_EXTEND 0.50 pairing two turns always beats a delete plus an
/// insert, so veer pairs devops-agent's five turns where Shadow drops four and inserts four.
#[test]
fn devops_agent_pairs_every_turn_instead_of_gaps() {
    let (path, cost) = path_of("devops-agent");
    assert_eq!(path, "M(0,0) M(1,1) M(2,2) M(3,3) M(4,4)");
    close(cost, 3.202563257976272, "devops total cost");
    let (r, _) = example("devops-agent", false);
    check_veer_events(
        &r,
        &[
            (2, 2, "structural", 0.5968355806872553, "tool set changed: removed `backup_database(database,label)`, `execute_sql(database,query)`, `request_human_approval(action,estimated_impact)`, `send_notification(channel,message)`, added `execute_sql(db,query)`"),
            (4, 4, "structural", 0.5965527760829775, "tool set changed: removed `execute_sql(database,query)`, `request_human_approval(action,estimated_impact)`, added `execute_sql(db,query)`"),
            (1, 1, "structural", 0.5921266233766235, "tool set changed: removed `backup_database(database,label)`, `check_replication_lag(database)`, `pause_replication(database)`, `resume_replication(database)`, `rollback_migration(database,migration_id)`, `send_notification(channel,message)`, added `rollback_migration(db,migration_id)`"),
            (0, 0, "structural", 0.5892900782013686, ""),
            (3, 3, "structural", 0.5826531893520844, "tool set changed: removed `check_replication_lag(database)`, `pause_replication(database)`, `request_human_approval(action,estimated_impact)`, `restore_database(backup_id,database)`, `resume_replication(database)`, `send_notification(channel,message)`, added `pause_replication(db)`, `restore_database(backup_id,db)`, `resume_replication(db)`"),
        ],
        "devops-agent",
    );
    let msgs: Vec<(&str, f64)> = r
        .recommendations
        .iter()
        .map(|x| (x.message.as_str(), x.confidence))
        .collect();
    assert_eq!(msgs.len(), 6);
    for (i, (turn, conf)) in [
        (2, 0.5968355806872553),
        (4, 0.5965527760829775),
        (1, 0.5921266233766235),
        (0, 0.5892900782013686),
        (3, 0.5826531893520844),
    ]
    .iter()
    .enumerate()
    {
        assert_eq!(
            msgs[i].0,
            format!("Review tool-schema change at turn {turn}: call shape diverged.")
        );
        close(msgs[i].1, *conf, "devops rec");
    }
    assert!(msgs[5].0.starts_with("Looks like a system-prompt edit."));
    let (p, _) = example("devops-agent", true);
    assert!(p.recommendations[0]
        .message
        .starts_with("Looks like a model change."));
    assert_eq!(p.recommendations.len(), 6);
    assert!(p.recommendations[1..]
        .iter()
        .all(|x| x.message.starts_with("Review tool-schema change")));
}

/// Departure (§9.5): er-triage aligns `M M M M M` in veer (Shadow: four deletes, four inserts).
#[test]
fn er_triage_pairs_every_turn_instead_of_gaps() {
    let (path, cost) = path_of("er-triage");
    assert_eq!(path, "M(0,0) M(1,1) M(2,2) M(3,3) M(4,4)");
    close(cost, 2.8622710651178442, "er-triage total cost");
    let (r, _) = example("er-triage", false);
    let both = "tool set changed: removed `flag_for_physician(patient_id,reason)`, `lookup_patient_history(patient_id)`, added `lookup_patient_history(mrn)`";
    check_veer_events(
        &r,
        &[
            (4, 4, "structural", 0.5887445887445887, both),
            (2, 2, "structural", 0.5807351493272072, "tool set changed: removed `lookup_patient_history(patient_id)`, added `lookup_patient_history(mrn)`"),
            (0, 0, "structural", 0.47092986653235963, ""),
            (1, 1, "structural", 0.4698362299465241, both),
            (3, 3, "structural", 0.4605167394468705, "tool set changed: removed `check_drug_interactions(patient_id,substance)`, `lookup_patient_history(patient_id)`, added `lookup_patient_history(mrn)`"),
        ],
        "er-triage",
    );
    let m: Vec<&str> = r
        .recommendations
        .iter()
        .map(|x| x.message.as_str())
        .collect();
    // Departure (docs/diff.md "Recommendations"): no "Possible retry loop" — the candidate
    // makes fewer tool calls than the baseline, which contradicts a retry.
    assert!(m[0..5]
        .iter()
        .all(|x| x.starts_with("Review tool-schema change")));
    assert!(m[5].starts_with("Looks like a system-prompt edit."));
    assert_eq!(m.len(), 6);
    let (p, _) = example("er-triage", true);
    let m: Vec<&str> = p
        .recommendations
        .iter()
        .map(|x| x.message.as_str())
        .collect();
    assert!(m[0].starts_with("Looks like a model change."));
    assert!(m[1..6]
        .iter()
        .all(|x| x.starts_with("Review tool-schema change")));
}

/// Departure (§9.5): refund-agent-audit aligns `M M M I M D`; veer pairs baseline turn 3 with
/// candidate turn 4 where Shadow deletes two turns and inserts two.
#[test]
fn refund_agent_audit_keeps_matches_and_moves_gaps() {
    let (path, cost) = path_of("refund-agent-audit");
    assert_eq!(path, "M(0,0) M(1,1) M(2,2) I(3) M(3,4) D(4)");
    close(cost, 2.865666181582989, "refund-agent-audit total cost");
    for priced in [false, true] {
        let (r, _) = example("refund-agent-audit", priced);
        check_veer_events(
            &r,
            &[
                (3, 3, "structural", 1.0, "candidate inserted an extra response turn with no tool calls between baseline turns #2 and #3"),
                (4, 5, "structural", 1.0, "candidate dropped a response turn with no tool calls (baseline turn #4 has no counterpart)"),
                (2, 2, "structural", 0.7727272727272728, "candidate dropped tool call(s): `refund_order(amount,order_id)`"),
                (0, 0, "structural", 0.3264055023923445, "candidate added tool call(s): `refund_order(amount,order_id)`"),
                (3, 4, "decision", 0.12416212819438627, "response text diverged (text similarity 0.08); same tool sequence"),
            ],
            "refund-agent-audit",
        );
        let got: Vec<(String, f64)> = r
            .recommendations
            .iter()
            .map(|x| (x.message.clone(), x.confidence))
            .collect();
        let want = [
            ("Review unexpected addition at turn 3: extra element.", 1.0),
            ("Restore missing element at turn 4.", 1.0),
            ("Refusal rate is up severely. Check for stricter system instructions or tighter content policies.", 0.8),
            ("Restore refund_order(amount,order_id) at turn 2.", 0.7727272727272728),
            ("Review unexpected addition at turn 0: refund_order(amount,order_id).", 0.3264055023923445),
            ("Review response text at turn 3: semantic content shifted.", 0.12416212819438627),
        ];
        assert_eq!(got.len(), want.len(), "{got:#?}");
        for ((m, c), (wm, wc)) in got.iter().zip(want) {
            assert_eq!(m, wm);
            close(*c, wc, "refund-agent-audit rec");
        }
    }
}

/// The style test vector of §13.2: a one-character wording change is a style event.
#[test]
fn style_vector() {
    let line = |text: &str| {
        format!(
            "{{\"version\":\"0.1\",\"id\":\"sha256:{}\",\"kind\":\"metadata\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"parent\":null,\"payload\":{{}}}}\n{{\"version\":\"0.1\",\"id\":\"x\",\"kind\":\"chat_response\",\"ts\":\"2026-01-01T00:00:00.001Z\",\"parent\":\"p\",\"payload\":{{\"stop_reason\":\"end_turn\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}}}}\n",
            "0".repeat(64)
        )
    };
    let opts = veer_trace::ReadOptions::default();
    let read = |t: &str| {
        veer_trace::agentlog::reader::read_agentlog_bytes("t", line(t).as_bytes(), &opts).unwrap()
    };
    let b = read("The refund has been issued to your card today.");
    let c = read("The refund has been issued to your card today!");
    let r = diff(&b, &c, "b", "c", &BehaviourOptions::default());
    assert_eq!(r.divergences.len(), 1);
    let d = &r.divergences[0];
    assert_eq!(d.kind.label(), "style");
    assert_eq!(d.primary_axis, veer_contract::axis::Axis::Semantic);
    close(d.confidence, 0.046511627906976716, "style confidence");
    assert_eq!(
        r.recommendations[0].message,
        "Cosmetic wording change at turn 0 — verify intended."
    );
}
