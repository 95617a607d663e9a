//! What `veer replay` adds to a model call: a recorded response served through the replaying
//! proxy (matched against the recording, rebuilt in the endpoint's shape, recorded again)
//! against the same call answered by a direct local server (the scripted upstream), p50/p99
//! over sequential non-streamed Chat Completions calls, then a criterion measurement of one
//! served call.
//!
//! `cargo bench -p veer-record --bench replay` (docs/performance.md records the figures).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/support/scripted.rs"]
mod scripted;

use bytes::Bytes;
use criterion::Criterion;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::sync::Arc;
use std::time::{Duration, Instant};
use veer_record::proxy::Shared;
use veer_record::replay::script::RecordedCalls;
use veer_record::replay::{OnDivergence, ReplayOptions, Replayer};
use veer_record::{Journal, ProxySettings, Server};

type Http = Client<HttpConnector, Full<Bytes>>;

fn quick() -> bool {
    std::env::args().any(|a| a == "--test") || std::env::var_os("VEER_BENCH_QUICK").is_some()
}

fn body() -> Bytes {
    Bytes::from(
        serde_json::json!({"model": "m-plain", "temperature": 0.2,
            "messages": [{"role": "system", "content": "You are a support agent."},
                         {"role": "user", "content": "say: Your refund of $9.50 for order 42 is on its way."}]})
        .to_string(),
    )
}

async fn call(client: &Http, url: &str) -> Duration {
    let t = Instant::now();
    let req = Request::post(url)
        .header("content-type", "application/json")
        .body(Full::new(body()))
        .unwrap();
    let resp = client.request(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    resp.into_body().collect().await.unwrap();
    t.elapsed()
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort_unstable();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1000.0
}

fn shared(
    settings: ProxySettings,
    out: &std::path::Path,
    replay: Option<Arc<Replayer>>,
) -> Arc<Shared> {
    let file = std::fs::File::create(out).unwrap();
    Arc::new(Shared {
        settings,
        client: veer_record::upstream::client(false).unwrap(),
        journal: Arc::new(Journal::new(Box::new(file), None)),
        notify: Arc::new(|_: &str| {}),
        replay,
    })
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
    let n = if quick() { 50 } else { 3000 };
    let warm = 50.min(n);
    let client: Http = Client::builder(TokioExecutor::new()).build_http();
    let settings = ProxySettings {
        openai_upstream: up.openai(),
        anthropic_upstream: up.anthropic(),
        ..ProxySettings::default()
    };

    // The recording: as many calls as the replay will make (criterion's too).
    let recording = dir.path().join("recorded.agentlog");
    let recorder = proxy_rt
        .block_on(Server::start(
            0,
            shared(settings.clone(), &recording, None),
            Duration::from_secs(5),
        ))
        .unwrap();
    let recorded_url = format!("http://{}/openai/v1/chat/completions", recorder.addr);
    // Criterion's calls (1 s warm-up, 2 s measured) each consume a recorded call too.
    let extra = if quick() { 0 } else { 40_000 };
    rt.block_on(async {
        for _ in 0..(warm + n + extra) {
            call(&client, &recorded_url).await;
        }
    });
    proxy_rt.block_on(recorder.stop());

    let trace = veer_trace::load_trace(&recording, &veer_trace::ReadOptions::default()).unwrap();
    let replayer = Arc::new(Replayer::new(
        RecordedCalls::from_trace(&trace),
        ReplayOptions {
            on_divergence: OnDivergence::Fail,
            branch_at: None,
            live: false,
        },
    ));
    let replay = proxy_rt
        .block_on(Server::start(
            0,
            shared(
                settings,
                &dir.path().join("replayed.agentlog"),
                Some(replayer.clone()),
            ),
            Duration::from_secs(5),
        ))
        .unwrap();
    let direct = format!("http://{}/v1/chat/completions", up.addr);
    let replayed = format!("http://{}/openai/v1/chat/completions", replay.addr);
    rt.block_on(async {
        for _ in 0..warm {
            call(&client, &direct).await;
            call(&client, &replayed).await;
        }
        let (mut d, mut p) = (Vec::new(), Vec::new());
        for _ in 0..n {
            d.push(call(&client, &direct).await);
            p.push(call(&client, &replayed).await);
        }
        let (d50, d99, p50, p99) = (pct(&mut d, 0.5), pct(&mut d, 0.99), pct(&mut p, 0.5), pct(&mut p, 0.99));
        println!("replay, {n} sequential non-streamed calls: direct local server p50 {d50:.3} ms p99 {d99:.3} ms; served from the recording through the proxy p50 {p50:.3} ms p99 {p99:.3} ms; added p50 {:.3} ms p99 {:.3} ms", p50 - d50, p99 - d99);
    });
    if !quick() {
        let mut c = Criterion::default()
            .configure_from_args()
            .sample_size(20)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(2));
        c.bench_function("replay_served_call", |b| {
            b.iter(|| rt.block_on(call(&client, &replayed)));
        });
        c.final_summary();
    }
    let progress = replayer.progress();
    assert!(progress.divergence.is_none(), "{progress:?}");
    proxy_rt.block_on(replay.stop());
}
