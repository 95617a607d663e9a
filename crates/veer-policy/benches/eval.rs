//! Policy evaluation cost: 50 rules (every kind, trace and session scope, with and without
//! `when:`) on a synthetic 100,000-turn trace built in memory. Evaluation is linear per rule.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;
use veer_base::format::Format;
use veer_policy::{evaluate, Policy};
use veer_trace::{Kind, Record, Trace};

fn record(kind: Kind, payload: Value) -> Record {
    Record {
        line: None,
        kind,
        version: "0.1".into(),
        id: "".into(),
        ts: "2026-01-01T00:00:00.000Z".into(),
        parent: None,
        meta: None,
        payload: payload.into(),
        extra_envelope: None,
        origin: None,
    }
}

fn synthetic(turns: usize) -> Trace {
    let mut t = Trace::new("synthetic", Format::Agentlog);
    t.records
        .push(record(Kind::Metadata, json!({"sdk": {"name": "bench"}})));
    for i in 0..turns {
        let role = if i % 5 == 0 { "user" } else { "tool" };
        t.records.push(record(
            Kind::ChatRequest,
            json!({"model": "m", "messages": [{"role": role, "content": "q"}],
                   "params": {"amount": i % 1000},
                   "metadata": {"retrieved_chunks": ["the refund window is thirty days"]}}),
        ));
        let tool = format!("tool_{}", i % 7);
        let stop = if i % 5 == 4 { "end_turn" } else { "tool_use" };
        t.records.push(record(
            Kind::ChatResponse,
            json!({"model": "m", "stop_reason": stop,
                   "content": [{"type": "text", "text": format!("{{\"n\": {i}, \"note\": \"refund window thirty days\"}}")},
                               {"type": "tool_use", "id": format!("c{i}"), "name": tool, "input": {"k": i}}],
                   "usage": {"input_tokens": 10, "output_tokens": 5}}),
        ));
    }
    t
}

fn policy() -> Policy {
    let kinds = [
        "{kind: must_call_before, params: {first: tool_1, then: tool_2}}",
        "{kind: must_call_once, params: {tool: tool_3}}",
        "{kind: no_call, params: {tool: tool_4}}",
        "{kind: max_turns, params: {limit: 10}}",
        "{kind: required_stop_reason, params: {allowed: [end_turn]}}",
        "{kind: max_total_tokens, params: {limit: 1000}}",
        "{kind: must_include_text, params: {text: refund}}",
        "{kind: must_include_text_each, params: {text: thirty, ignore_case: true}}",
        "{kind: forbidden_text, params: {text: secret}}",
        "{kind: must_match_json_schema, params: {schema: {type: object, required: [n]}}}",
        "{kind: must_remain_consistent, params: {path: request.model}}",
        "{kind: must_followup, params: {trigger: {path: stop_reason, op: '==', value: tool_use}, must: {kind: tool_call, tool_name: tool_0}}}",
        "{kind: must_be_grounded, params: {retrieval_path: request.metadata.retrieved_chunks}}",
        "{kind: ltl_formula, params: {formula: 'G (tool_call:tool_1 -> F tool_call:tool_2)'}}",
    ];
    let mut yaml = String::from("apiVersion: shadow.dev/v1alpha1\nrules:\n");
    for i in 0..50 {
        let base = kinds[i % kinds.len()];
        let mut rule = format!("{{id: r{i}, {}", &base[1..]);
        if i % 3 == 1 {
            rule = rule.replacen('{', "{scope: session, ", 1);
        }
        if i % 4 == 2 {
            rule = rule.replacen(
                '{',
                "{when: {path: request.params.amount, op: '>', value: 500}, ",
                1,
            );
        }
        yaml.push_str(&format!("  - {rule}\n"));
    }
    Policy::load_str(&yaml, "bench.yaml", false, std::path::Path::new(".")).expect("bench policy")
}

fn bench(c: &mut Criterion) {
    let policy = policy();
    let mut g = c.benchmark_group("policy");
    g.sample_size(10);
    // Two sizes a decade apart: linear evaluation takes ten times as long on the larger one.
    for (name, turns) in [
        ("50 rules x 10k turns", 10_000),
        ("50 rules x 100k turns", 100_000),
    ] {
        let trace = synthetic(turns);
        g.bench_function(name, |b| {
            b.iter(|| black_box(evaluate(&policy, black_box(&trace))).len())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
