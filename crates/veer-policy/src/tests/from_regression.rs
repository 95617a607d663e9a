//! Rules written from a regression: the changes a support agent makes when a prompt or model
//! changes (a renamed argument, a changed amount, a skipped lookup, a new tool), one case and
//! several; every kept rule loads, fires on the changed run and on no baseline run.

use super::{meta, policy, resp_payload, run, trace};
use crate::from_regression::{rules_from_regression, CaseRuns, RecordedRun};
use proptest::prelude::*;
use serde_json::{json, Value};
use veer_contract::policy::RuleKind;
use veer_contract::suggestion::SuggestedRule;
use veer_trace::Trace;

/// A run: the user's message, then one response per call (and a final text).
fn agent(user: &str, calls: &[(&str, Value)], answer: &str) -> Trace {
    let mut records = vec![meta()];
    let mut messages = vec![
        json!({"role": "system", "content": "You are a support agent."}),
        json!({"role": "user", "content": user}),
    ];
    for (i, (name, args)) in calls.iter().enumerate() {
        records.push((
            "chat_request",
            json!({"model": "m", "messages": messages.clone(), "params": {}}),
        ));
        records.push(resp_payload(json!({
            "model": "m",
            "content": [{"type": "tool_use", "id": format!("c{i}"), "name": name, "input": args}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1}
        })));
        messages.push(json!({"role": "assistant", "content": format!("called {name}")}));
        messages.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("c{i}"), "content": "ok"}]}));
    }
    records.push((
        "chat_request",
        json!({"model": "m", "messages": messages, "params": {}}),
    ));
    records.push(resp_payload(json!({
        "model": "m",
        "content": [{"type": "text", "text": answer}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1}
    })));
    trace(&records)
}

fn refund(order: &str, key: &str, amount: f64, trial: usize) -> Vec<(&'static str, Value)> {
    vec![
        ("lookup_order", json!({ key: order })),
        (
            "issue_refund",
            json!({ key: order, "amount": amount, "request_id": format!("r-{trial}") }),
        ),
    ]
}

fn answer(amount: f64) -> String {
    format!("Done: I refunded ${amount:.2} to your card.")
}

const NAMES: [&str; 6] = ["b0", "b1", "b2", "c0", "c1", "c2"];

fn one_case<'a>(base: &'a [Trace], cand: &'a [Trace]) -> Vec<CaseRuns<'a>> {
    vec![CaseRuns {
        case: "refund-a7".into(),
        baseline: base
            .iter()
            .zip(NAMES)
            .map(|(t, name)| RecordedRun { name, trace: t })
            .collect(),
        candidate: cand
            .iter()
            .zip(&NAMES[3..])
            .map(|(t, &name)| RecordedRun { name, trace: t })
            .collect(),
    }]
}

fn baseline() -> Vec<Trace> {
    (0..3)
        .map(|k| {
            agent(
                "Refund order A7",
                &refund("A7", "order_id", 42.0, k),
                &answer(42.0),
            )
        })
        .collect()
}

fn kept(rules: &[SuggestedRule]) -> Vec<&SuggestedRule> {
    rules.iter().filter(|r| r.kept).collect()
}

fn kept_kind(rules: &[SuggestedRule], kind: RuleKind) -> &SuggestedRule {
    match rules.iter().find(|r| r.kept && r.kind == kind) {
        Some(r) => r,
        None => panic!("no kept {kind:?} rule in {rules:#?}"),
    }
}

/// Every kept rule in one policy file: it loads, fires on every changed run it names and on
/// no baseline run.
fn check_file(rules: &[SuggestedRule], base: &[Trace], cand: &[Trace]) {
    let mut text = String::from("apiVersion: shadow.dev/v1alpha1\nrules:\n");
    for r in kept(rules) {
        for line in r.yaml.lines() {
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
    }
    let p = policy(&text);
    assert_eq!(p.rules.len(), kept(rules).len());
    for t in base {
        assert!(run(&p, t).is_empty(), "fires on a baseline run:\n{text}");
    }
    assert!(cand.iter().any(|t| !run(&p, t).is_empty()), "{text}");
}

#[test]
fn a_renamed_argument_gives_a_trajectory_with_the_stable_arguments() {
    let base = baseline();
    let cand: Vec<Trace> = (0..3)
        .map(|k| {
            agent(
                "Refund order A7",
                &refund("A7", "orderId", 42.0, k),
                &answer(42.0),
            )
        })
        .collect();
    let rules = rules_from_regression(&one_case(&base, &cand));
    let t = kept_kind(&rules, RuleKind::TrajectoryMatch);
    assert!(t.yaml.contains("mode: strict"), "{}", t.yaml);
    assert!(
        t.yaml
            .contains("{tool: lookup_order, args: {order_id: A7}}"),
        "{}",
        t.yaml
    );
    assert!(t.yaml.contains("ignore: [request_id]"), "{}", t.yaml);
    assert_eq!(t.fires_on, ["c0", "c1", "c2"]);
    let detail = t.first_violation.as_deref().unwrap_or_default();
    assert!(
        detail.contains("order_id") || detail.contains("orderId"),
        "{detail}"
    );
    assert!(t.fires_on_baseline.is_empty());
    check_file(&rules, &base, &cand);
}

#[test]
fn a_changed_amount_is_pinned_and_said() {
    let base = baseline();
    let cand: Vec<Trace> = (0..3)
        .map(|k| {
            agent(
                "Refund order A7",
                &refund("A7", "order_id", 84.0, k),
                &answer(84.0),
            )
        })
        .collect();
    let rules = rules_from_regression(&one_case(&base, &cand));
    let t = kept_kind(&rules, RuleKind::TrajectoryMatch);
    assert!(
        t.first_violation
            .as_deref()
            .unwrap_or_default()
            .contains("amount"),
        "{t:?}"
    );
    let f = kept_kind(&rules, RuleKind::ForbiddenText);
    assert!(f.yaml.contains("84.00"), "{}", f.yaml);
    check_file(&rules, &base, &cand);
}

#[test]
fn a_skipped_lookup_gives_an_order_rule() {
    let base = baseline();
    let cand: Vec<Trace> = (0..2)
        .map(|k| {
            let calls = refund("A7", "order_id", 42.0, k);
            agent("Refund order A7", &calls[1..], &answer(42.0))
        })
        .collect();
    let rules = rules_from_regression(&one_case(&base, &cand));
    let o = kept_kind(&rules, RuleKind::MustCallBefore);
    assert_eq!(o.id, "lookup-order-before-issue-refund");
    assert!(o.rationale.contains("2 changed run(s)"), "{}", o.rationale);
    kept_kind(&rules, RuleKind::TrajectoryMatch);
    // Nothing new is said or called.
    assert!(!rules.iter().any(|r| r.kind == RuleKind::NoCall));
    check_file(&rules, &base, &cand);
}

#[test]
fn a_new_tool_gives_no_call() {
    let base = baseline();
    let mut calls = refund("A7", "order_id", 42.0, 0);
    calls.push(("delete_account", json!({"user": "u1"})));
    let cand = vec![agent("Refund order A7", &calls, &answer(42.0))];
    let rules = rules_from_regression(&one_case(&base, &cand));
    let n = kept_kind(&rules, RuleKind::NoCall);
    assert_eq!(n.id, "no-delete-account");
    assert_eq!(n.fires_on, ["c0"]);
    check_file(&rules, &base, &cand);
}

#[test]
fn an_unchanged_candidate_keeps_nothing() {
    let base = baseline();
    let cand = baseline();
    let rules = rules_from_regression(&one_case(&base, &cand));
    assert!(kept(&rules).is_empty(), "{rules:#?}");
}

#[test]
fn two_cases_get_a_trajectory_each_that_the_other_case_never_trips() {
    let a_base = baseline();
    let b_base: Vec<Trace> = (0..3)
        .map(|k| {
            agent(
                "Where is order B9?",
                &[(
                    "lookup_order",
                    json!({"order_id": "B9", "request_id": format!("q{k}")}),
                )],
                "It ships today.",
            )
        })
        .collect();
    let a_cand: Vec<Trace> = (0..3)
        .map(|k| {
            agent(
                "Refund order A7",
                &refund("A7", "orderId", 42.0, k),
                &answer(42.0),
            )
        })
        .collect();
    let run_of = |ts: &'static [&'static str], v: &'static [Trace]| -> Vec<RecordedRun<'static>> {
        v.iter()
            .zip(ts)
            .map(|(t, &name)| RecordedRun { name, trace: t })
            .collect()
    };
    let a_base: &'static [Trace] = Box::leak(a_base.into_boxed_slice());
    let b_base: &'static [Trace] = Box::leak(b_base.into_boxed_slice());
    let a_cand: &'static [Trace] = Box::leak(a_cand.into_boxed_slice());
    let cases = vec![
        CaseRuns {
            case: "refund-a7".into(),
            baseline: run_of(&["a/b0", "a/b1", "a/b2"], a_base),
            candidate: run_of(&["a/c0", "a/c1", "a/c2"], a_cand),
        },
        CaseRuns {
            case: "where-b9".into(),
            baseline: run_of(&["b/b0", "b/b1", "b/b2"], b_base),
            candidate: Vec::new(),
        },
    ];
    let rules = rules_from_regression(&cases);
    let t = kept_kind(&rules, RuleKind::TrajectoryMatch);
    assert_eq!(t.id, "refund-a7-trajectory");
    assert!(t.yaml.contains("request.messages.1.content"), "{}", t.yaml);
    assert!(t.yaml.contains("Refund order A7"), "{}", t.yaml);
    let all_base: Vec<Trace> = a_base.iter().chain(b_base).cloned().collect();
    check_file(&rules, &all_base, a_cand);
}

#[test]
fn ids_stay_unique_and_yaml_quotes_what_needs_it() {
    let base = baseline();
    let mut calls = refund("A7", "order_id", 42.0, 0);
    calls.push(("true", json!({"x": "a: b"})));
    let cand = vec![agent("Refund order A7", &calls, &answer(42.0))];
    let rules = rules_from_regression(&one_case(&base, &cand));
    let n = kept_kind(&rules, RuleKind::NoCall);
    assert!(n.yaml.contains("tool: \"true\""), "{}", n.yaml);
    let ids: std::collections::BTreeSet<&str> = rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), rules.len());
    check_file(&rules, &base, &cand);
}

fn arb_calls() -> impl Strategy<Value = Vec<(usize, u8)>> {
    prop::collection::vec((0usize..4, 0u8..3), 0..5)
}

fn run_from(calls: &[(usize, u8)], said: u8) -> Trace {
    const TOOLS: [&str; 4] = ["search", "lookup", "refund", "escalate"];
    let calls: Vec<(&str, Value)> = calls
        .iter()
        .map(|&(t, v)| (TOOLS[t], json!({ "v": v })))
        .collect();
    agent("help", &calls, &format!("answer {said}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A candidate that repeats one of the baseline runs can never be caught by a rule that is
    /// silent on every baseline run: nothing is kept. And whatever is kept loads as one file.
    #[test]
    fn a_repeated_baseline_run_keeps_nothing(
        runs in prop::collection::vec((arb_calls(), 0u8..3), 1..4),
        pick in 0usize..4,
        other in (arb_calls(), 0u8..3),
    ) {
        let base: Vec<Trace> = runs.iter().map(|(c, s)| run_from(c, *s)).collect();
        let same = vec![base[pick % base.len()].clone()];
        let rules = rules_from_regression(&one_case(&base, &same));
        prop_assert!(kept(&rules).is_empty(), "{:#?}", rules);

        let cand = vec![run_from(&other.0, other.1)];
        let rules = rules_from_regression(&one_case(&base, &cand));
        for r in &rules {
            prop_assert_eq!(r.kept, !r.fires_on.is_empty() && r.fires_on_baseline.is_empty());
        }
        if !kept(&rules).is_empty() {
            check_file(&rules, &base, &cand);
        }
    }
}
