//! What the recording proxy costs an agent, against the scripted upstream on loopback:
//! added latency per non-streamed call (p50/p99), non-streamed calls per second, memory with
//! 500 concurrent streams, and the delay added to a stream's first byte (p50/p99).
//!
//! `cargo bench -p veer-record --bench proxy` (a plain harness: it prints the figures that
//! docs/performance.md records). The proxy runs on its own 2-worker runtime, as `veer record`
//! does on a 2-core machine; the client and the scripted upstream share another.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/scripted.rs"]
mod scripted;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::sync::Arc;
use std::time::{Duration, Instant};
use veer_record::proxy::Shared;
use veer_record::{Journal, ProxySettings, Server};

type Http = Client<HttpConnector, Full<Bytes>>;

fn quick() -> bool {
    std::env::args().any(|a| a == "--test") || std::env::var_os("VEER_BENCH_QUICK").is_some()
}

fn body(model: &str, stream: bool) -> Bytes {
    Bytes::from(
        serde_json::json!({"model": model, "stream": stream, "temperature": 0.2,
            "messages": [{"role": "system", "content": "You are a support agent."},
                         {"role": "user", "content": "say: Your refund of $9.50 for order 42 is on its way."}]})
        .to_string(),
    )
}

async fn call(client: &Http, url: &str, b: Bytes) -> Duration {
    let t = Instant::now();
    let req = Request::post(url)
        .header("content-type", "application/json")
        .body(Full::new(b))
        .unwrap();
    let resp = client.request(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    resp.into_body().collect().await.unwrap();
    t.elapsed()
}

/// Time to the first body byte of a streamed answer.
async fn first_byte(client: &Http, url: &str, b: Bytes) -> Duration {
    let t = Instant::now();
    let req = Request::post(url)
        .header("content-type", "application/json")
        .body(Full::new(b))
        .unwrap();
    let resp = client.request(req).await.unwrap();
    let mut body = resp.into_body();
    loop {
        let f = body.frame().await.unwrap().unwrap();
        if f.data_ref().is_some_and(|d| !d.is_empty()) {
            break;
        }
    }
    let took = t.elapsed();
    while body.frame().await.is_some() {}
    took
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort_unstable();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1000.0
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() {
    let proxy_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let up = rt.block_on(scripted::start());
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join("bench.agentlog")).unwrap();
    let shared = Arc::new(Shared {
        settings: ProxySettings {
            openai_upstream: up.openai(),
            anthropic_upstream: up.anthropic(),
            ..ProxySettings::default()
        },
        client: veer_record::upstream::client(false).unwrap(),
        journal: Arc::new(Journal::new(Box::new(file), None)),
        notify: Arc::new(|_: &str| {}),
        replay: None,
    });
    let server = proxy_rt
        .block_on(Server::start(0, shared, Duration::from_secs(5)))
        .unwrap();
    let direct = format!("http://{}/v1/chat/completions", up.addr);
    let proxied = format!("http://{}/openai/v1/chat/completions", server.addr);
    let n = if quick() { 50 } else { 3000 };
    let client: Http = Client::builder(TokioExecutor::new()).build_http();

    rt.block_on(async {
        // Warm-up: connections and caches.
        for _ in 0..50.min(n) {
            call(&client, &direct, body("m-plain", false)).await;
            call(&client, &proxied, body("m-plain", false)).await;
        }
        // 1. Added latency, calls interleaved so drift hits both alike.
        let (mut d, mut p) = (Vec::new(), Vec::new());
        for _ in 0..n {
            d.push(call(&client, &direct, body("m-plain", false)).await);
            p.push(call(&client, &proxied, body("m-plain", false)).await);
        }
        let (d50, d99, p50, p99) = (pct(&mut d, 0.5), pct(&mut d, 0.99), pct(&mut p, 0.5), pct(&mut p, 0.99));
        println!("latency, {n} sequential non-streamed calls: direct p50 {d50:.3} ms p99 {d99:.3} ms; through the proxy p50 {p50:.3} ms p99 {p99:.3} ms; added p50 {:.3} ms p99 {:.3} ms", p50 - d50, p99 - d99);

        // 2. Throughput: 64 concurrent clients for a fixed time.
        let secs = if quick() { 0.5 } else { 5.0 };
        let until = Instant::now() + Duration::from_secs_f64(secs);
        let mut tasks = Vec::new();
        for _ in 0..64 {
            let (client, url) = (client.clone(), proxied.clone());
            tasks.push(tokio::spawn(async move {
                let mut k = 0u64;
                while Instant::now() < until {
                    call(&client, &url, body("m-plain", false)).await;
                    k += 1;
                }
                k
            }));
        }
        let mut total = 0;
        for t in tasks {
            total += t.await.unwrap();
        }
        println!("throughput, 64 concurrent clients for {secs} s: {:.0} non-streamed calls/s through the proxy (client, upstream and proxy on the same 2 cores)", total as f64 / secs);

        // 3. 500 concurrent streams (each ~1.2 s: 24 chunks 50 ms apart).
        let streams = if quick() { 20 } else { 500 };
        let before = rss_kib();
        let peak = Arc::new(std::sync::atomic::AtomicU64::new(before));
        let watcher = {
            let peak = peak.clone();
            tokio::spawn(async move {
                loop {
                    peak.fetch_max(rss_kib(), std::sync::atomic::Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
        };
        let t = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..streams {
            let (client, url) = (client.clone(), proxied.clone());
            tasks.push(tokio::spawn(async move {
                call(&client, &url, body("m-gap50", true)).await
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        watcher.abort();
        let peak = peak.load(std::sync::atomic::Ordering::Relaxed);
        println!("{streams} concurrent streams: all done in {:.2} s; process RSS {} KiB before, peak {} KiB (+{} KiB for proxy, client and upstream together, {:.1} KiB per stream)",
            t.elapsed().as_secs_f64(), before, peak, peak - before, (peak - before) as f64 / streams as f64);

        // 4. First-byte delay of a stream whose chunks are 20 ms apart.
        let m = if quick() { 20 } else { 300 };
        let (mut d, mut p) = (Vec::new(), Vec::new());
        for _ in 0..m {
            d.push(first_byte(&client, &direct, body("m-gap20", true)).await);
            p.push(first_byte(&client, &proxied, body("m-gap20", true)).await);
        }
        let (d50, d99, p50, p99) = (pct(&mut d, 0.5), pct(&mut d, 0.99), pct(&mut p, 0.5), pct(&mut p, 0.99));
        println!("first byte of a stream, {m} calls: direct p50 {d50:.3} ms p99 {d99:.3} ms; through the proxy p50 {p50:.3} ms p99 {p99:.3} ms; added p50 {:.3} ms p99 {:.3} ms", p50 - d50, p99 - d99);
    });
    proxy_rt.block_on(server.stop());
}
