//! The behaviour-fingerprint test at scale: 100,000 responses a side built in memory
//! (answers of one to four sentences with numbers, a third of them with one to three tool
//! calls; the candidate appends an error sentence to every fifth answer). Three measurements:
//! the fingerprints of both sides, the Hotelling test on ready fingerprints, and the two
//! together (what `veer diff` adds to a report). The target: under 0.5 s for the whole.
//!
//! A second group times the block at 10 responses a side: an ordinary pair (the
//! synthetic answers above) and a near-singular one (ten identical answers a side whose
//! latency alone moves, 800 → 1,600 ms with a millisecond of jitter: λ ≈ 10¹³, the pair whose
//! post-hoc power used to run for minutes). Target: under a millisecond each.
//!
//! cargo bench -p veer-diff --bench fingerprint
//! cargo bench -p veer-diff --bench fingerprint -- fingerprint_10_a_side

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::Duration;
use veer_base::format::Format;
use veer_diff::fingerprint::{trace_matrix, FingerprintScales};
use veer_diff::{fingerprint_block, fingerprint_of_traces, FingerprintOptions};
use veer_trace::{Kind, Record, Trace};

const RESPONSES: u64 = 100_000;

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

/// `n` responses; `shifted` appends an error sentence to every fifth answer.
fn synthetic(n: u64, shifted: bool) -> Trace {
    let mut t = Trace::new("synthetic", Format::Agentlog);
    t.records.push(record(Kind::Metadata, json!({})));
    for i in 0..n {
        // A cheap deterministic mix of the index.
        let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        let mut text = String::new();
        for s in 0..=(h % 4) {
            text.push_str(&format!(
                "Order #{} was refunded ${}.{:02} on day {} and the customer was told. ",
                h % 9000 + s,
                h % 500,
                h % 100,
                s + 1
            ));
        }
        if shifted && i % 5 == 0 {
            text.push_str("Unable to complete the last step: error 42, 3 items failed.");
        }
        let mut content = vec![json!({"type": "text", "text": text})];
        let tools = if h % 3 == 0 { 1 + h % 3 } else { 0 };
        for k in 0..tools {
            let name = ["lookup_order", "issue_refund", "send_email"][(k % 3) as usize];
            content.push(json!({
                "type": "tool_use",
                "id": format!("t{i}-{k}"),
                "name": name,
                "input": {"order_id": h % 9000, "amount": h % 500},
            }));
        }
        t.records.push(record(
            Kind::ChatResponse,
            json!({
                "model": "m",
                "content": content,
                "stop_reason": if tools > 0 { "tool_use" } else { "end_turn" },
                "latency_ms": 400 + h % 3000,
                "usage": {"input_tokens": 300, "output_tokens": 40 + h % 400},
            }),
        ));
    }
    t
}

/// `n` identical answers whose latency is `latency_ms + i` for response `i`.
fn constant_but_latency(n: u64, latency_ms: u64) -> Trace {
    let mut t = Trace::new("near-singular", Format::Agentlog);
    t.records.push(record(Kind::Metadata, json!({})));
    for i in 0..n {
        t.records.push(record(
            Kind::ChatResponse,
            json!({
                "model": "m",
                "content": [{"type": "text", "text": "Your refund was issued."}],
                "stop_reason": "end_turn",
                "latency_ms": latency_ms + i,
                "usage": {"input_tokens": 100, "output_tokens": 40},
            }),
        ));
    }
    t
}

fn small(c: &mut Criterion) {
    let options = FingerprintOptions::default();
    let scales = FingerprintScales::default();
    let mut g = c.benchmark_group("fingerprint_10_a_side");
    g.sample_size(50).measurement_time(Duration::from_secs(5));
    let pairs = [
        ("ordinary", synthetic(10, false), synthetic(10, true)),
        (
            "near_singular",
            constant_but_latency(10, 800),
            constant_but_latency(10, 1600),
        ),
    ];
    for (name, b, cand) in &pairs {
        let (mb, mc) = (trace_matrix(b, &scales), trace_matrix(cand, &scales));
        g.bench_function(*name, |bench| {
            bench.iter(|| black_box(fingerprint_block(black_box(&mb), black_box(&mc), &options)))
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let (b, cand) = (synthetic(RESPONSES, false), synthetic(RESPONSES, true));
    let options = FingerprintOptions::default();
    let scales = FingerprintScales::default();
    let (mb, mc) = (trace_matrix(&b, &scales), trace_matrix(&cand, &scales));
    let mut g = c.benchmark_group("fingerprint_100k_a_side");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("fingerprints", |bench| {
        bench.iter(|| {
            black_box((
                trace_matrix(black_box(&b), &scales),
                trace_matrix(black_box(&cand), &scales),
            ))
        })
    });
    g.bench_function("hotelling", |bench| {
        bench.iter(|| black_box(fingerprint_block(black_box(&mb), black_box(&mc), &options)))
    });
    g.bench_function("fingerprints_and_hotelling", |bench| {
        bench.iter(|| {
            black_box(fingerprint_of_traces(
                black_box(&b),
                black_box(&cand),
                &options,
            ))
        })
    });
    g.finish();
}

criterion_group!(benches, small, bench);
criterion_main!(benches);
