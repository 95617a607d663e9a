//! Reading throughput: `.agentlog` bytes → model, and per-turn features.
//!
//! The input is a synthetic but realistic trace (requests with growing message histories,
//! responses with text and tool calls, tool results) built in memory, so the bench measures
//! parsing, not the disk. Run: `cargo bench -p veer-trace --bench read`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use veer_trace::agentlog::reader::read_agentlog_bytes;
use veer_trace::ReadOptions;

// The same allocator as the `veer` binary: reading is allocation-bound.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A trace of `turns` request/response pairs, each response calling a tool.
pub fn synthetic_agentlog(turns: usize) -> Vec<u8> {
    let mut out = String::new();
    let id = |i: usize| format!("sha256:{i:064x}");
    out.push_str(&format!(
        "{{\"version\":\"0.1\",\"id\":\"{}\",\"kind\":\"metadata\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"parent\":null,\"payload\":{{\"sdk\":{{\"name\":\"bench\",\"version\":\"1\"}}}}}}\n",
        id(0)
    ));
    let mut n = 1;
    for t in 0..turns {
        let user = format!("Please look at ticket {t} and tell me what the customer wants; include the order status and any refund that applies.");
        out.push_str(&format!(
            "{{\"version\":\"0.1\",\"id\":\"{}\",\"kind\":\"chat_request\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"parent\":\"{}\",\"payload\":{{\"model\":\"claude-sonnet-4-5\",\"messages\":[{{\"role\":\"system\",\"content\":\"You are a careful support agent.\"}},{{\"role\":\"user\",\"content\":\"{user}\"}}],\"params\":{{\"temperature\":0.2,\"max_tokens\":1024}}}}}}\n",
            id(n), id(n - 1)
        ));
        n += 1;
        out.push_str(&format!(
            "{{\"version\":\"0.1\",\"id\":\"{}\",\"kind\":\"chat_response\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"parent\":\"{}\",\"payload\":{{\"model\":\"claude-sonnet-4-5\",\"content\":[{{\"type\":\"text\",\"text\":\"Looking up ticket {t}. The customer reports a damaged item and asks for a replacement or a refund; I will check the order first.\"}},{{\"type\":\"tool_use\",\"id\":\"toolu_{t}\",\"name\":\"lookup_order\",\"input\":{{\"order_id\":\"A{t}\",\"include\":[\"items\",\"payments\"]}}}}],\"stop_reason\":\"tool_use\",\"usage\":{{\"input_tokens\":{},\"output_tokens\":57,\"thinking_tokens\":0}},\"latency_ms\":{}}}}}\n",
            id(n), id(n - 1), 800 + t % 97, 900 + t % 311
        ));
        n += 1;
        out.push_str(&format!(
            "{{\"version\":\"0.1\",\"id\":\"{}\",\"kind\":\"tool_result\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"parent\":\"{}\",\"payload\":{{\"tool_call_id\":\"toolu_{t}\",\"output\":{{\"order_id\":\"A{t}\",\"status\":\"delivered\",\"total\":42.5,\"items\":[{{\"sku\":\"MUG-1\",\"qty\":1}}]}},\"is_error\":false,\"latency_ms\":41}}}}\n",
            id(n), id(n - 1)
        ));
        n += 1;
    }
    out.into_bytes()
}

fn bench_read(c: &mut Criterion) {
    let mut group = c.benchmark_group("read_agentlog");
    for turns in [1_000usize, 10_000] {
        let bytes = synthetic_agentlog(turns);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        // Reading only: the trace is dropped outside the timing (`veer` never frees its
        // traces; the process exit does).
        group.bench_with_input(BenchmarkId::from_parameter(turns), &bytes, |b, bytes| {
            b.iter_with_large_drop(|| {
                read_agentlog_bytes("bench.agentlog", black_box(bytes), &ReadOptions::default())
            })
        });
    }
    // Reference point: parsing each line into a serde_json::Value and nothing else.
    let bytes = synthetic_agentlog(10_000);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("serde_json_value_only/10000", |b| {
        b.iter_with_large_drop(|| {
            let values: Vec<serde_json::Value> = black_box(&bytes)
                .split(|&c| c == b'\n')
                .filter_map(|line| serde_json::from_slice(line).ok())
                .collect();
            values
        })
    });
    group.finish();
}

fn bench_features(c: &mut Criterion) {
    let bytes = synthetic_agentlog(10_000);
    let trace = match read_agentlog_bytes("bench.agentlog", &bytes, &ReadOptions::default()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    let mut group = c.benchmark_group("features");
    group.throughput(Throughput::Elements(10_000));
    group.bench_function("10000_turns", |b| b.iter(|| black_box(&trace).features()));
    group.finish();
}

criterion_group!(benches, bench_read, bench_features);
criterion_main!(benches);
