//! Redaction cost on what reports carry: the strings of a real trace (mostly clean), one long
//! clean prose text, and text dense with secrets. Every report string passes through
//! `Detector::spans`, so its cost on clean text is what matters most.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use veer_secrets::Detector;

fn trace_strings() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/shadow/demo/baseline.agentlog"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        collect(&v, &mut out);
    }
    out
}

fn collect(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
        serde_json::Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push(k.clone());
            collect(x, out)
        }),
        _ => {}
    }
}

fn bench(c: &mut Criterion) {
    let d = Detector::builtin();
    let strings = trace_strings();
    let bytes: usize = strings.iter().map(String::len).sum();
    let prose =
        "The refund for order 1182 was issued on 2026-04-22 after the agent looked the order up \
                 and confirmed the thirty-day window; latency 812 ms, 1,204 tokens. "
            .repeat(8_000);
    let unicode =
        "Die Rückerstattung für Bestellung 1182 → ausgestellt am 2026-04-22, nachdem der Agent \
                   die Bestellung geprüft hatte; Latenz 812 ms, 1.204 Tokens. "
            .repeat(8_000);
    let dense = "key sk-proj-abcdefghijklmnopqrstuvwxyz012345 mail dana@example.com \
                 Authorization: Bearer ya29.a0AfH6SMBx3kq9Zr7T card 4111 1111 1111 1111 "
        .repeat(2_000);
    let mut g = c.benchmark_group("redact");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("trace strings", |b| {
        b.iter(|| {
            strings
                .iter()
                .map(|s| d.redact(black_box(s)).len())
                .sum::<usize>()
        })
    });
    g.throughput(Throughput::Bytes(prose.len() as u64));
    g.bench_function("clean prose", |b| {
        b.iter(|| d.redact(black_box(&prose)).len())
    });
    g.throughput(Throughput::Bytes(unicode.len() as u64));
    g.bench_function("non-ASCII prose", |b| {
        b.iter(|| d.redact(black_box(&unicode)).len())
    });
    g.throughput(Throughput::Bytes(dense.len() as u64));
    g.bench_function("dense secrets", |b| {
        b.iter(|| d.redact(black_box(&dense)).len())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
