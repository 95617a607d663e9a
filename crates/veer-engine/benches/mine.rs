//! `veer mine` speed (the goal: 10,000 traces mined end to end in < 30 s on 2 cores): a corpus
//! of 10,000 `.agentlog` files — 20 behaviour families of 8 tool calls, each trace with up to
//! two random edits (a call dropped, repeated, replaced by another family's tool, or given an
//! extra argument key), so the distinct signatures reach the cap of 2,000 — read, reduced to
//! signatures, clustered with K chosen by silhouette over 2..=20, and its cases picked.
//! Run: `cargo bench -p veer-engine --bench mine`.

#![allow(clippy::expect_used)] // a benchmark stops at the first failure

use criterion::{criterion_group, criterion_main, Criterion};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};
use veer_engine::mine::{mine, Corpus, MineOptions, SIGNATURE_CAP};

struct Gen(u64);
impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

fn trace(calls: &[(String, Vec<&str>)]) -> String {
    let mut out = String::new();
    let mut n = 0usize;
    let mut line = |out: &mut String, kind: &str, payload: String| {
        let _ = writeln!(
            out,
            r#"{{"version":"0.1","id":"sha256:{n:064x}","kind":"{kind}","ts":"2026-01-01T00:00:00.000Z","parent":null,"payload":{payload}}}"#
        );
        n += 1;
    };
    line(
        &mut out,
        "metadata",
        r#"{"sdk":{"name":"bench","version":"1"}}"#.into(),
    );
    for (i, (tool, keys)) in calls.iter().enumerate() {
        let args: Vec<String> = keys.iter().map(|k| format!(r#""{k}":"v{i}""#)).collect();
        line(
            &mut out,
            "chat_response",
            format!(
                r#"{{"model":"m","content":[{{"type":"tool_use","id":"t{i}","name":"{tool}","input":{{{}}}}}],"stop_reason":"tool_use"}}"#,
                args.join(",")
            ),
        );
    }
    line(
        &mut out,
        "chat_response",
        r#"{"model":"m","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn"}"#
            .into(),
    );
    out
}

fn corpus(dir: &Path, n: usize) {
    let mut g = Gen(1);
    for i in 0..n {
        let f = g.below(20);
        let mut calls: Vec<(String, Vec<&str>)> = (0..8)
            .map(|t| (format!("f{f}_t{t}"), vec!["id", "q"]))
            .collect();
        for _ in 0..g.below(3) {
            let at = g.below(calls.len() as u64) as usize;
            match g.below(4) {
                0 if calls.len() > 1 => {
                    calls.remove(at);
                }
                1 => {
                    let c = calls[at].clone();
                    calls.insert(at, c);
                }
                2 => calls[at].0 = format!("f{}_t{}", g.below(20), g.below(8)),
                _ => calls[at].1.push("extra"),
            }
        }
        let d = dir.join(format!("day-{:02}", i / 500));
        std::fs::create_dir_all(&d).expect("mkdir");
        std::fs::write(d.join(format!("t{i:05}.agentlog")), trace(&calls)).expect("write");
    }
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    corpus(tmp.path(), 10_000);
    let options = MineOptions {
        cases: None,
        per_case: 1,
        seed: 42,
        policy: None,
        read: veer_trace::ReadOptions::default(),
        signature_cap: SIGNATURE_CAP,
    };
    let start = Instant::now();
    let corpus = Corpus::list(tmp.path()).expect("list");
    let report = mine(&corpus, &options, &|| {}).expect("mine");
    eprintln!(
        "mine: 10,000 traces, {} signatures, K = {}, once in {:.1} s",
        report.corpus_summary.unique_signatures,
        report.clustering.k,
        start.elapsed().as_secs_f64()
    );
    let mut group = c.benchmark_group("mine");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(60));
    group.bench_function("10k_traces_end_to_end", |b| {
        b.iter(|| {
            let corpus = Corpus::list(tmp.path()).expect("list");
            black_box(mine(&corpus, &options, &|| {}).expect("mine"))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
