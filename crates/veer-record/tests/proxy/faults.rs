//! Faults: unreachable, timing out and failing upstreams, malformed and cut streams, an agent
//! that goes away mid-stream, and a request body over the limit.

use crate::rig::{eventually, rig, Options};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::time::Duration;

const CHAT: &str = "/openai/v1/chat/completions";
const MESSAGES: &str = "/anthropic/v1/messages";

fn chat(model: &str, stream: bool) -> Value {
    json!({"model": model, "stream": stream, "messages": [{"role": "user", "content": "hi"}]})
}
fn msg(model: &str, stream: bool) -> Value {
    json!({"model": model, "max_tokens": 5, "stream": stream, "messages": [{"role": "user", "content": "hi"}]})
}

fn last(r: &crate::rig::Rig) -> Value {
    r.records().last().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_upstream_is_a_502_in_each_providers_shape() {
    let r = rig(Options {
        unreachable: true,
        ..Options::default()
    })
    .await;
    let (status, body) = r.call(CHAT, &chat("m-plain", false)).await;
    assert_eq!(status, 502);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["error"]["code"], "upstream_unreachable");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("cannot reach"));
    let (status, body) = r.call(MESSAGES, &msg("m-plain", true)).await;
    assert_eq!(status, 502);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (v["type"].as_str(), v["error"]["type"].as_str()),
        (Some("error"), Some("upstream_unreachable"))
    );
    assert_eq!(
        r.kinds(),
        ["metadata", "chat_request", "error", "chat_request", "error"]
    );
    let e = last(&r);
    assert_eq!(e["payload"]["code"], "upstream_unreachable");
    assert_eq!(e["payload"]["retriable"], true);
    assert_eq!(e["parent"], r.records()[3]["id"]);
    assert_eq!(r.journal.summary().failed, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_upstream_is_a_504() {
    let mut o = Options::default();
    o.settings.timeout = Duration::from_millis(300);
    let r = rig(o).await;
    let (status, body) = r.call(CHAT, &chat("m-hang", false)).await;
    assert_eq!(status, 504);
    assert!(String::from_utf8_lossy(&body).contains("did not answer"));
    assert_eq!(last(&r)["payload"]["code"], "upstream_timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_errors_pass_unchanged_and_are_recorded() {
    let r = rig(Options::default()).await;
    for (path, b) in [
        (CHAT, chat("m-status500", false)),
        (MESSAGES, msg("m-status429", true)),
    ] {
        let (status, got) = r.call(path, &b).await;
        let (want_status, want) = r.direct(path, &b).await;
        assert_eq!((status, got), (want_status, want));
    }
    let recs = r.records();
    assert_eq!(recs[2]["payload"]["upstream_status"], 500);
    assert_eq!(recs[2]["payload"]["retriable"], true);
    assert!(recs[2]["payload"]["message"]
        .as_str()
        .unwrap()
        .contains("scripted failure"));
    assert_eq!(recs[4]["payload"]["upstream_status"], 429);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_cut_streams_pass_through_and_are_recorded_as_errors() {
    let r = rig(Options::default()).await;
    for (path, b) in [
        (CHAT, chat("m-malformed", true)),
        (MESSAGES, msg("m-malformed", true)),
        (CHAT, chat("m-cut", true)),
    ] {
        let (status, got) = r.call(path, &b).await;
        let (_, want) = r.direct(path, &b).await;
        assert_eq!(status, 200);
        assert_eq!(got, want, "passed through unchanged");
    }
    eventually("three records", || r.kinds().len() == 7).await;
    let errors: Vec<Value> = r
        .records()
        .into_iter()
        .filter(|x| x["kind"] == "error")
        .collect();
    assert_eq!(errors.len(), 3);
    for e in &errors {
        assert_eq!(e["payload"]["code"], "malformed_stream", "{e}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_leaving_mid_stream_cancels_the_upstream_request() {
    let r = rig(Options::default()).await;
    let resp = r.send(CHAT, &chat("m-endless", true), false).await;
    let mut body = resp.into_body();
    let first = body.frame().await.unwrap().unwrap();
    assert!(first.is_data());
    drop(body);
    eventually("the upstream to see the cancel", || {
        r.up.seen.cancelled.load(Ordering::SeqCst) == 1
    })
    .await;
    eventually("the record", || r.kinds().len() == 3).await;
    assert_eq!(last(&r)["payload"]["code"], "client_disconnected");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_refused_before_forwarding() {
    let mut o = Options::default();
    o.settings.max_request_bytes = 2048;
    let r = rig(o).await;
    let big =
        json!({"model": "m-plain", "messages": [{"role": "user", "content": "x".repeat(10_000)}]});
    let (status, body) = r.call(CHAT, &big).await;
    assert_eq!(status, 413);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("2048-byte limit"));
    assert_eq!(
        r.up.seen.requests.load(Ordering::SeqCst),
        0,
        "never forwarded"
    );
    assert_eq!(r.kinds(), ["metadata", "error"]);
    // A body under the limit still goes through.
    assert_eq!(r.call(CHAT, &chat("m-plain", false)).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_paths_are_forwarded_verbatim_and_not_recorded() {
    let r = rig(Options::default()).await;
    let req = hyper::Request::get(format!("{}/openai/v1/models", r.base()))
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .unwrap();
    let resp = r.client.request(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    let b = resp.into_body().collect().await.unwrap().to_bytes();
    assert!(String::from_utf8_lossy(&b).contains("\"object\":\"list\""));
    assert_eq!(r.kinds(), ["metadata"]);
}
