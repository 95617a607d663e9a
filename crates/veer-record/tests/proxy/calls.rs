//! Plain, streamed, tool and parallel-tool calls on the three endpoints: the agent gets the
//! upstream's bytes unchanged and the record holds the reassembled call.

use crate::rig::{eventually, rig, Options};
use serde_json::{json, Value};
use veer_trace::canonical::content_id;

const CHAT: &str = "/openai/v1/chat/completions";
const RESPONSES: &str = "/openai/v1/responses";
const MESSAGES: &str = "/anthropic/v1/messages";

fn body(path: &str, model: &str, stream: bool, say: &str) -> Value {
    let user = format!("please say: {say}");
    match path {
        RESPONSES => json!({"model": model, "input": user, "stream": stream}),
        MESSAGES => json!({"model": model, "max_tokens": 64, "stream": stream,
                           "messages": [{"role": "user", "content": user}]}),
        _ => json!({"model": model, "stream": stream, "temperature": 0.5,
                    "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": user}]}),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_and_streamed_calls_pass_unchanged_and_record_the_same_response() {
    let r = rig(Options::default()).await;
    for path in [CHAT, RESPONSES, MESSAGES] {
        for stream in [false, true] {
            let b = body(path, "m-plain", stream, "the refund is approved");
            let (status, got) = r.call(path, &b).await;
            let (_, want) = r.direct(path, &b).await;
            assert_eq!(status, 200, "{path}");
            assert_eq!(got, want, "{path} stream={stream}: bytes unchanged");
        }
    }
    eventually("six calls", || r.kinds().len() == 13).await;
    let recs = r.records();
    assert_eq!(recs[0]["kind"], "metadata");
    assert_eq!(recs[0]["parent"], Value::Null);
    for (i, rec) in recs.iter().enumerate() {
        assert_eq!(rec["id"], json!(content_id(&rec["payload"])), "line {i}");
        if i > 0 {
            assert_eq!(rec["parent"], recs[i - 1]["id"], "line {i}: chained");
        }
    }
    let responses: Vec<&Value> = recs
        .iter()
        .filter(|r| r["kind"] == "chat_response")
        .collect();
    assert_eq!(responses.len(), 6);
    for resp in &responses {
        let p = &resp["payload"];
        assert_eq!(
            p["content"],
            json!([{"type": "text", "text": "the refund is approved"}])
        );
        assert_eq!(p["stop_reason"], "end_turn");
        assert_eq!(p["usage"]["input_tokens"], 12);
        assert_eq!(p["usage"]["output_tokens"], 7);
        assert!(p["latency_ms"].is_u64());
    }
    // Streamed and whole answers record the same response, endpoint by endpoint.
    for pair in responses.chunks(2) {
        let strip = |v: &Value| {
            let mut v = v["payload"].clone();
            v.as_object_mut().unwrap().remove("latency_ms");
            v
        };
        assert_eq!(strip(pair[0]), strip(pair[1]));
    }
    let req = &recs[1]["payload"];
    assert_eq!(req["model"], "m-plain");
    assert_eq!(req["params"], json!({"temperature": 0.5}));
    assert_eq!(
        req["messages"][0],
        json!({"role": "system", "content": "be brief"})
    );
    // The file loads in veer's reader.
    let t = veer_trace::load_trace(&r.out, &veer_trace::ReadOptions::default()).unwrap();
    assert_eq!(t.count(&veer_trace::Kind::ChatResponse), 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_are_forwarded_but_never_written() {
    let r = rig(Options::default()).await;
    r.call(CHAT, &body(CHAT, "m-plain", false, "x")).await;
    r.call(MESSAGES, &body(MESSAGES, "m-plain", true, "x"))
        .await;
    eventually("two calls", || r.kinds().len() == 5).await;
    let seen = r.up.seen.headers.lock().unwrap().clone();
    let auth = |h: &Vec<(String, String)>, k: &str| h.iter().any(|(n, _)| n == k);
    assert!(seen
        .iter()
        .all(|h| auth(h, "authorization") && auth(h, "x-api-key")));
    let text = r.text();
    for secret in [
        "SECRETKEY",
        "org-secret",
        "Bearer",
        "authorization",
        "x-api-key",
    ] {
        assert!(!text.contains(secret), "{secret} written to the record");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_calls_parallel_calls_and_their_results() {
    let r = rig(Options::default()).await;
    for (path, stream) in [
        (CHAT, false),
        (CHAT, true),
        (MESSAGES, false),
        (MESSAGES, true),
        (RESPONSES, true),
    ] {
        let (status, _) = r.call(path, &body(path, "m-parallel", stream, "x")).await;
        assert_eq!(status, 200);
    }
    eventually("five calls", || r.kinds().len() == 11).await;
    let recs = r.records();
    for resp in recs.iter().filter(|r| r["kind"] == "chat_response") {
        let p = &resp["payload"];
        assert_eq!(p["stop_reason"], "tool_use");
        let uses: Vec<&Value> = p["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .collect();
        assert_eq!(uses.len(), 2, "{p}");
        assert_eq!(uses[0]["name"], "lookup_order");
        assert_eq!(uses[0]["input"], json!({"order_id": "42"}));
        assert_eq!(uses[1]["input"], json!({"order_id": "42", "amount": 9.5}));
    }
    let last_response = recs
        .iter()
        .rev()
        .find(|r| r["kind"] == "chat_response")
        .unwrap()["id"]
        .clone();
    // The agent sends the results back: they become tool_result records before the request.
    let follow = json!({"model": "m-plain", "messages": [
        {"role": "user", "content": "refund 42"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": "{\"order_id\":\"42\"}"}},
            {"id": "call_2", "type": "function", "function": {"name": "refund_order", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"total\":9.5}"},
        {"role": "tool", "tool_call_id": "call_2", "content": "refunded"}]});
    r.call(CHAT, &follow).await;
    // Sent again (the agent resends its history): not recorded twice.
    r.call(CHAT, &follow).await;
    let recs = r.records();
    let results: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "tool_result").collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["payload"]["tool_call_id"], "call_1");
    assert_eq!(results[0]["payload"]["output"], "{\"total\":9.5}");
    assert_eq!(
        results[0]["parent"], last_response,
        "parent: the response that asked"
    );
    assert_eq!(results[1]["payload"]["output"], "refunded");
    let t = veer_trace::load_trace(&r.out, &veer_trace::ReadOptions::default()).unwrap();
    let turns = t.turns_with(&t.tool_calls());
    assert_eq!(turns.len(), 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redact_writes_no_secret_and_ids_of_what_was_written_while_the_agent_gets_the_real_answer()
{
    let key = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
    let r = rig(Options {
        redact: true,
        ..Options::default()
    })
    .await;
    for path in [CHAT, RESPONSES, MESSAGES] {
        for stream in [false, true] {
            let b = body(
                path,
                "m-redact",
                stream,
                &format!("mail dana@example.com, key {key}"),
            );
            let (status, got) = r.call(path, &b).await;
            let (_, want) = r.direct(path, &b).await;
            assert_eq!(status, 200, "{path}");
            assert_eq!(
                got, want,
                "{path} stream={stream}: the agent gets the real bytes"
            );
            assert!(String::from_utf8_lossy(&got).contains(key));
        }
    }
    eventually("six calls", || r.kinds().len() == 13).await;
    let text = r.text();
    assert!(
        !text.contains(key) && !text.contains("dana@example.com"),
        "{text}"
    );
    assert_eq!(
        text.matches("[REDACTED:openai_api_key]").count(),
        12,
        "{text}"
    );
    let recs = r.records();
    for (i, rec) in recs.iter().enumerate() {
        assert_eq!(rec["id"], json!(content_id(&rec["payload"])), "line {i}");
        if i > 0 {
            assert_eq!(rec["parent"], recs[i - 1]["id"], "line {i}: chained");
        }
    }
}
