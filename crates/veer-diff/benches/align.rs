//! Alignment and trajectory-axis benchmarks on synthetic traces built in memory: 1k and 10k
//! turns, candidate = baseline with periodic edits (so the first band suffices), plus a 1k
//! pair of unrelated traces (the band widens to the full matrix); and the whole report (axes with
//! bootstrap, alignment, drill-down, recommendations) on 1k turns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;
use veer_base::format::Format;
use veer_diff::align::cost::intern;
use veer_diff::align::gotoh::align;
use veer_diff::axes::{trajectory, TurnPair};
use veer_diff::turn::diff_turn_pair;
use veer_trace::{Kind, Record, Trace};

fn record(kind: Kind, payload: Value) -> Record {
    Record {
        line: None,
        kind,
        version: "0.1".into(),
        id: "x".into(),
        ts: "2026-01-01T00:00:00.000Z".into(),
        parent: None,
        meta: None,
        payload: payload.into(),
        extra_envelope: None,
        origin: None,
    }
}

/// `n` turns; `variant` changes every 7th turn's tool argument and text.
fn synthetic(n: usize, variant: u64) -> Trace {
    let mut t = Trace::new("synthetic", Format::Agentlog);
    t.records.push(record(Kind::Metadata, json!({})));
    for i in 0..n as u64 {
        let edited = variant > 0 && i % 7 == 0;
        let tool = ["search", "lookup_order", "refund_order"][(i % 3) as usize];
        let text = if edited {
            format!("Turn {i}: the candidate phrased this differently, variant {variant}.")
        } else {
            format!("Turn {i}: looked up the order and checked the refund policy.")
        };
        t.records.push(record(
            Kind::ChatResponse,
            json!({
                "model": "m",
                "stop_reason": "tool_use",
                "content": [
                    {"type": "text", "text": text},
                    {"type": "tool_use", "name": tool, "input": {"id": i + if edited { variant } else { 0 }}}
                ],
                "usage": {"input_tokens": 100, "output_tokens": 20 + i % 50},
                "latency_ms": 300 + i % 200
            }),
        ));
    }
    t
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("align");
    g.sample_size(10);
    for n in [1_000usize, 10_000] {
        let (tb, tc) = (synthetic(n, 0), synthetic(n, 3));
        let (b, cand) = diff_turn_pair(&tb, &tc);
        let (ab, ac) = intern(&b, &cand);
        g.bench_function(format!("gotoh_similar_{n}"), |bn| {
            bn.iter(|| black_box(align(&ab, &ac)))
        });
        let pairs: Vec<TurnPair<'_>> = b.iter().zip(cand.iter()).collect();
        g.bench_function(format!("trajectory_axis_{n}"), |bn| {
            bn.iter(|| black_box(trajectory::row(&pairs, 42)))
        });
    }
    let (tb, tc) = (synthetic(1_000, 0), synthetic(1_000, 5));
    let (b, other) = diff_turn_pair(&tb, &tc);
    let other: Vec<_> = other.into_iter().rev().collect();
    let (ab, ac) = intern(&b, &other);
    g.bench_function("gotoh_unrelated_1000", |bn| {
        bn.iter(|| black_box(align(&ab, &ac)))
    });
    g.finish();

    let mut g = c.benchmark_group("diff");
    g.sample_size(10);
    let (b, cand) = (synthetic(1_000, 0), synthetic(1_000, 3));
    g.bench_function("whole_report_1000", |bn| {
        bn.iter(|| {
            black_box(veer_diff::diff(
                &b,
                &cand,
                "b",
                "c",
                &veer_diff::BehaviourOptions::default(),
            ))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
