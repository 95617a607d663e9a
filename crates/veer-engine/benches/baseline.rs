//! Baseline speed (the bound: a baseline of 10,000 small traces created and verified
//! in < 10 s on 2 cores): `create` of 10,000 `.agentlog` files of about 1.5 KB (100 cases ×
//! 100 trials; each read, checked, gzip-compressed, hashed and written), then `verify` (every
//! file re-hashed and decompressed). Run: `cargo bench -p veer-engine --bench baseline`.

#![allow(clippy::expect_used)] // a benchmark stops at the first failure

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;
use veer_contract::baseline::BaselineSource as Source;
use veer_engine::baseline::{create, verify, CreateOptions};

fn trace(i: usize) -> String {
    let id = |k: usize| format!("sha256:{:064x}", i * 16 + k);
    format!(
        "{{\"version\":\"0.1\",\"id\":\"{}\",\"kind\":\"metadata\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"parent\":null,\"payload\":{{\"sdk\":{{\"name\":\"bench\",\"version\":\"1\"}}}}}}\n\
         {{\"version\":\"0.1\",\"id\":\"{}\",\"kind\":\"chat_request\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"parent\":\"{}\",\"payload\":{{\"model\":\"m\",\"messages\":[{{\"role\":\"user\",\"content\":\"ticket {i}: what does the customer want?\"}}],\"params\":{{}}}}}}\n\
         {{\"version\":\"0.1\",\"id\":\"{}\",\"kind\":\"chat_response\",\"ts\":\"2026-01-01T00:00:01.000Z\",\"parent\":\"{}\",\"payload\":{{\"model\":\"m\",\"content\":[{{\"type\":\"text\",\"text\":\"The customer wants a refund for order {i}.\"}}],\"stop_reason\":\"end_turn\",\"latency_ms\":800,\"usage\":{{\"input_tokens\":40,\"output_tokens\":12,\"thinking_tokens\":0}}}}}}\n",
        id(0), id(1), id(0), id(2), id(1)
    )
}

fn runs(dir: &Path, n: usize) {
    for i in 0..n {
        let case = dir.join(format!("case-{:03}", i / 100));
        std::fs::create_dir_all(&case).expect("mkdir");
        std::fs::write(
            case.join(format!("trial-{:03}.agentlog", i % 100)),
            trace(i),
        )
        .expect("write");
    }
}

fn options(name: &str) -> CreateOptions {
    CreateOptions {
        name: name.into(),
        veer_version: "0.1.0".into(),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        source: Source::default(),
        policy: None,
        read: veer_trace::ReadOptions::default(),
        update: false,
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("runs");
    runs(&src, 10_000);
    let mut g = c.benchmark_group("baseline");
    g.sample_size(10);
    let mut k = 0;
    g.bench_function("create_and_verify_10000_traces", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                k += 1;
                let at = dir.path().join(format!("b{k}"));
                let made = create(&at, &src, &options("main")).expect("create");
                black_box(verify(&at, None).expect("verify"));
                black_box(made);
            }
            let took = start.elapsed();
            for j in 0..iters {
                let _ = std::fs::remove_dir_all(dir.path().join(format!("b{}", k - j as usize)));
            }
            took
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
