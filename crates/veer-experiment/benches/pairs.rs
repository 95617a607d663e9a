//! Experiment throughput: 1,000 perturbed runs of 200 events each against one baseline,
//! measured in parallel across pairs (rayon), plus a single pair for the per-pair cost.
//!
//! The traces are synthetic traxr external-agent runs (LLM calls, tool requests and results)
//! built in memory with a fixed seed, each perturbed run a few random edits away from the
//! baseline. Run: `cargo bench -p veer-experiment --bench pairs`.

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;
use veer_experiment::results::{from_traces, RunInput, TraceExperiment};
use veer_experiment::{analyze, PreparedTrace};
use veer_trace::traxr::trace_from_value;
use veer_trace::{ReadOptions, Trace};

const PAIRS: usize = 1_000;
const EVENTS: usize = 200;

/// A small deterministic generator (64-bit LCG), so every run benches the same traces.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }
}

const TOOLS: [&str; 6] = [
    "search",
    "lookup",
    "calc",
    "read_file",
    "write_file",
    "refund",
];

fn event(rng: &mut Lcg, step: usize) -> Value {
    let tool = TOOLS[rng.next(TOOLS.len())];
    match rng.next(3) {
        0 => json!({"event_type": "llm_call", "step_num": step, "payload": {
            "model": "m", "finish_reason": if rng.next(2) == 0 { "tool_calls" } else { "stop" },
            "tool_call_names": [tool], "usage": {"prompt_tokens": 100 + rng.next(50), "completion_tokens": 20}}}),
        1 => {
            json!({"event_type": "tool_request", "step_num": step, "payload": {"tool_name": tool}})
        }
        _ => json!({"event_type": "tool_result", "step_num": step, "payload": {"tool_name": tool}}),
    }
}

fn to_trace(label: &str, events: &[Value]) -> Trace {
    let events: Vec<Value> = events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut e = e.clone();
            if let Some(m) = e.as_object_mut() {
                m.insert("sequence_index".into(), json!(i));
                m.insert("agent_name".into(), json!("external"));
            }
            e
        })
        .collect();
    match trace_from_value(
        label,
        "",
        json!({"run_label": label, "events": events}),
        None,
        &ReadOptions::default(),
    ) {
        Ok(t) => t,
        Err(e) => unreachable!("synthetic trace is valid: {e}"),
    }
}

fn experiment() -> TraceExperiment {
    let mut rng = Lcg(42);
    let base: Vec<Value> = (0..EVENTS).map(|i| event(&mut rng, i / 3 + 1)).collect();
    let perturbed = (0..PAIRS)
        .map(|p| {
            let mut evs = base.clone();
            for _ in 0..1 + rng.next(8) {
                let at = rng.next(evs.len());
                match rng.next(3) {
                    0 => evs[at] = event(&mut rng, at / 3 + 1),
                    1 => evs.insert(at, event(&mut rng, at / 3 + 1)),
                    _ => {
                        evs.remove(at);
                    }
                }
            }
            let name = format!("op{p:04}");
            RunInput {
                file: format!("{name}.json"),
                trace: Ok(to_trace(&name, &evs)),
                name,
            }
        })
        .collect();
    TraceExperiment {
        source: "bench".into(),
        item_id: "bench".into(),
        baseline: ("baseline.json".into(), to_trace("baseline", &base)),
        reruns: Vec::new(),
        perturbed,
        expected_answer: None,
        include_traces: false,
        include_alignment: false,
    }
}

fn bench(c: &mut Criterion) {
    let exp = experiment();
    let mut group = c.benchmark_group("experiment");
    group.sample_size(10);
    group.bench_function("1000_pairs_x_200_events", |b| {
        b.iter(|| black_box(from_traces(black_box(&exp)).map(|r| r.pairs.len())))
    });
    let base = PreparedTrace::new(&exp.baseline.1);
    if let Some(Ok(first)) = exp.perturbed.first().map(|r| r.trace.as_ref()) {
        let p = PreparedTrace::new(first);
        group.bench_function("one_pair_200_events", |b| {
            b.iter(|| black_box(analyze(black_box(&base), black_box(&p)).d_norm()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
