//! A scripted upstream for tests and benchmarks: a loopback HTTP server that answers the
//! OpenAI Chat Completions, OpenAI Responses and Anthropic Messages endpoints like the real
//! providers do (bodies and event streams in their documented shapes). What it answers is
//! chosen by the request's `model`, a `-`-separated list of words:
//!
//! * `tools` / `parallel` — one / two tool calls (`lookup_order`, `refund_order`);
//! * `delayN` — wait N ms before answering; `gapN` — N ms between stream chunks;
//! * `status500` / `status429` — that status with the provider's error body;
//! * `malformed` — a stream with a chunk that is not JSON; `cut` — a stream that stops early;
//! * `endless` — a stream that never ends (a chunk every 20 ms);
//! * `hang` — never answers.
//!
//! The answer text is the last user message after `say:` when there is one, else
//! `Hello from the scripted upstream.` Counters record what the server saw.

#![allow(dead_code)]

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Frame;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// What the scripted upstream saw.
#[derive(Default)]
pub struct Seen {
    /// Requests served.
    pub requests: AtomicUsize,
    /// Streams whose reader went away before the end.
    pub cancelled: AtomicUsize,
    /// The headers of every request, as (name, value) pairs.
    pub headers: Mutex<Vec<Vec<(String, String)>>>,
}

/// A running scripted upstream.
pub struct Scripted {
    /// Its address.
    pub addr: SocketAddr,
    /// What it saw.
    pub seen: Arc<Seen>,
}

impl Scripted {
    /// The OpenAI base URL (`…/v1`).
    pub fn openai(&self) -> String {
        format!("http://{}/v1", self.addr)
    }
    /// The Anthropic base URL.
    pub fn anthropic(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// Starts a scripted upstream on a free loopback port.
pub async fn start() -> Scripted {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Seen::default());
    let s2 = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let seen = s2.clone();
            tokio::spawn(async move {
                let svc = service_fn(move |req| {
                    let seen = seen.clone();
                    async move { Ok::<_, Infallible>(answer(seen, req).await) }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    Scripted { addr, seen }
}

fn full(status: u16, v: Value) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(v.to_string())).boxed());
    *r.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
    r.headers_mut()
        .insert("content-type", "application/json".parse().unwrap());
    r.headers_mut()
        .insert("x-request-id", "req_scripted".parse().unwrap());
    r
}

fn word_num(model: &str, prefix: &str) -> Option<u64> {
    model
        .split('-')
        .find_map(|w| w.strip_prefix(prefix).and_then(|n| n.parse().ok()))
}

fn has(model: &str, word: &str) -> bool {
    model.split('-').any(|w| w == word)
}

fn say(body: &Value) -> String {
    let msgs = body
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut text = String::new();
    for m in msgs.iter().rev() {
        if m.get("role").and_then(Value::as_str) == Some("user") {
            text = match m.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(""),
                _ => String::new(),
            };
            break;
        }
    }
    if text.is_empty() {
        if let Some(Value::String(s)) = body.get("input") {
            text = s.clone();
        }
    }
    match text.find("say:") {
        Some(i) => text[i + 4..].trim().to_string(),
        None => "Hello from the scripted upstream.".to_string(),
    }
}

fn calls(model: &str) -> Vec<(&'static str, &'static str, &'static str)> {
    if has(model, "parallel") {
        vec![
            ("call_1", "lookup_order", "{\"order_id\":\"42\"}"),
            (
                "call_2",
                "refund_order",
                "{\"order_id\":\"42\",\"amount\":9.5}",
            ),
        ]
    } else if has(model, "tools") {
        vec![("call_1", "lookup_order", "{\"order_id\":\"42\"}")]
    } else {
        Vec::new()
    }
}

async fn answer(seen: Arc<Seen>, req: Request<hyper::body::Incoming>) -> Response<Body> {
    seen.requests.fetch_add(1, Ordering::SeqCst);
    let headers = req
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    seen.headers.lock().unwrap().push(headers);
    let path = req.uri().path().to_string();
    let bytes = req.into_body().collect().await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if path == "/v1/models" {
        return full(
            200,
            json!({"object": "list", "data": [{"id": "m", "object": "model"}]}),
        );
    }
    if has(&model, "hang") {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    if let Some(ms) = word_num(&model, "delay") {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    let anthropic = path == "/v1/messages";
    for status in [500u16, 429, 400] {
        if has(&model, &format!("status{status}")) {
            let v = if anthropic {
                json!({"type": "error", "error": {"type": "api_error", "message": "scripted failure"}})
            } else {
                json!({"error": {"message": "scripted failure", "type": "server_error", "code": null}})
            };
            return full(status, v);
        }
    }
    let stream = body.get("stream").and_then(Value::as_bool) == Some(true);
    let text = say(&body);
    let calls = calls(&model);
    let events = match path.as_str() {
        "/v1/chat/completions" if !stream => return full(200, chat_body(&model, &text, &calls)),
        "/v1/chat/completions" => chat_events(&model, &text, &calls),
        "/v1/responses" if !stream => return full(200, responses_body(&model, &text, &calls)),
        "/v1/responses" => responses_events(&model, &text, &calls),
        "/v1/messages" if !stream => return full(200, messages_body(&model, &text, &calls)),
        "/v1/messages" => messages_events(&model, &text, &calls),
        _ => {
            return full(
                404,
                json!({"error": {"message": "no such path", "type": "invalid_request_error"}}),
            )
        }
    };
    stream_answer(seen, &model, events)
}

fn stream_answer(seen: Arc<Seen>, model: &str, mut events: Vec<String>) -> Response<Body> {
    if has(model, "malformed") {
        events.insert(1, "data: {this is not json\n\n".into());
    }
    if has(model, "cut") {
        events.truncate(2);
        events.push("data: {\"partial\":".into());
    }
    let endless = has(model, "endless");
    let gap = word_num(model, "gap").unwrap_or(0);
    let (tx, rx) = mpsc::channel::<Result<Frame<Bytes>, Infallible>>(4);
    tokio::spawn(async move {
        for e in events {
            if tx.send(Ok(Frame::data(Bytes::from(e)))).await.is_err() {
                seen.cancelled.fetch_add(1, Ordering::SeqCst);
                return;
            }
            if gap > 0 {
                tokio::time::sleep(Duration::from_millis(gap)).await;
            }
        }
        if !endless {
            return;
        }
        loop {
            tokio::time::sleep(Duration::from_millis(20)).await;
            if tx
                .send(Ok(Frame::data(Bytes::from_static(b": keep-alive\n\n"))))
                .await
                .is_err()
            {
                seen.cancelled.fetch_add(1, Ordering::SeqCst);
                return;
            }
        }
    });
    let stream = futures_stream(rx);
    let mut r = Response::new(stream.boxed());
    r.headers_mut()
        .insert("content-type", "text/event-stream".parse().unwrap());
    r
}

/// A receiver as a `Stream` without pulling in a stream crate.
fn futures_stream(
    mut rx: mpsc::Receiver<Result<Frame<Bytes>, Infallible>>,
) -> impl hyper::body::Body<Data = Bytes, Error = Infallible> {
    struct Rx(mpsc::Receiver<Result<Frame<Bytes>, Infallible>>);
    impl hyper::body::Body for Rx {
        type Data = Bytes;
        type Error = Infallible;
        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            self.0.poll_recv(cx)
        }
    }
    let _ = &mut rx;
    Rx(rx)
}

fn usage_chat() -> Value {
    json!({"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19})
}

fn chat_body(model: &str, text: &str, calls: &[(&str, &str, &str)]) -> Value {
    let mut message = json!({"role": "assistant", "content": text, "refusal": null});
    let mut finish = "stop";
    if !calls.is_empty() {
        message["content"] = Value::Null;
        message["tool_calls"] = calls
            .iter()
            .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
            .collect();
        finish = "tool_calls";
    }
    json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
           "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
           "usage": usage_chat()})
}

fn chat_events(model: &str, text: &str, calls: &[(&str, &str, &str)]) -> Vec<String> {
    let chunk = |delta: Value, finish: Value, usage: Value| {
        let choices = if usage.is_null() {
            json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}])
        } else {
            json!([])
        };
        format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                   "model": model, "choices": choices, "usage": usage})
        )
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
        Value::Null,
    )];
    if calls.is_empty() {
        let words: Vec<&str> = text.split_inclusive(' ').collect();
        for w in words {
            out.push(chunk(json!({"content": w}), Value::Null, Value::Null));
        }
    }
    for (i, (id, name, args)) in calls.iter().enumerate() {
        out.push(chunk(
            json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
            Value::Null,
        ));
        let (a, b) = args.split_at(args.len() / 2);
        for part in [a, b] {
            out.push(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": part}}]}),
                Value::Null,
                Value::Null,
            ));
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    out.push(chunk(json!({}), json!(finish), Value::Null));
    out.push(chunk(Value::Null, Value::Null, usage_chat()));
    out.push("data: [DONE]\n\n".into());
    out
}

fn responses_body(model: &str, text: &str, calls: &[(&str, &str, &str)]) -> Value {
    let output: Vec<Value> = if calls.is_empty() {
        vec![
            json!({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}),
        ]
    } else {
        calls.iter().enumerate().map(|(i, (id, name, args))| json!({"type": "function_call",
            "id": format!("fc_{i}"), "call_id": id, "name": name, "arguments": args, "status": "completed"})).collect()
    };
    json!({"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
           "model": model, "output": output, "error": null, "incomplete_details": null,
           "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
           "usage": {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19,
                     "input_tokens_details": {"cached_tokens": 0},
                     "output_tokens_details": {"reasoning_tokens": 0}}})
}

fn responses_events(model: &str, text: &str, calls: &[(&str, &str, &str)]) -> Vec<String> {
    let done = responses_body(model, text, calls);
    let mut created = done.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    let mut events = vec![json!({"type": "response.created", "response": created})];
    for (i, item) in done["output"].as_array().unwrap().iter().enumerate() {
        let mut open = item.clone();
        open["status"] = json!("in_progress");
        if item["type"] == "message" {
            open["content"] = json!([]);
        } else {
            open["arguments"] = json!("");
        }
        events.push(json!({"type": "response.output_item.added", "output_index": i, "item": open}));
        if item["type"] == "message" {
            let at = |kind: &str| json!({"type": kind, "item_id": item["id"], "output_index": i, "content_index": 0});
            let mut added = at("response.content_part.added");
            added["part"] = json!({"type": "output_text", "text": "", "annotations": []});
            events.push(added);
            for w in text.split_inclusive(' ') {
                let mut d = at("response.output_text.delta");
                d["delta"] = json!(w);
                d["logprobs"] = json!([]);
                events.push(d);
            }
            let mut td = at("response.output_text.done");
            td["text"] = json!(text);
            td["logprobs"] = json!([]);
            events.push(td);
            let mut pd = at("response.content_part.done");
            pd["part"] = item["content"][0].clone();
            events.push(pd);
        } else {
            let args = item["arguments"].as_str().unwrap();
            let (a, b) = args.split_at(args.len() / 2);
            for part in [a, b] {
                events.push(json!({"type": "response.function_call_arguments.delta",
                    "item_id": item["id"], "output_index": i, "delta": part}));
            }
            events.push(json!({"type": "response.function_call_arguments.done",
                "item_id": item["id"], "output_index": i, "arguments": args}));
        }
        events.push(json!({"type": "response.output_item.done", "output_index": i, "item": item}));
    }
    events.push(json!({"type": "response.completed", "response": done}));
    events
        .into_iter()
        .enumerate()
        .map(|(n, mut v)| {
            v["sequence_number"] = json!(n);
            format!("event: {}\ndata: {v}\n\n", v["type"].as_str().unwrap())
        })
        .collect()
}

fn messages_body(model: &str, text: &str, calls: &[(&str, &str, &str)]) -> Value {
    let mut content = vec![json!({"type": "text", "text": text})];
    for (id, name, args) in calls {
        let input: Value = serde_json::from_str(args).unwrap();
        content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    json!({"id": "msg_1", "type": "message", "role": "assistant", "model": model,
           "content": content, "stop_reason": stop, "stop_sequence": null,
           "usage": {"input_tokens": 12, "output_tokens": 7}})
}

fn messages_events(model: &str, text: &str, calls: &[(&str, &str, &str)]) -> Vec<String> {
    let ev = |v: Value| format!("event: {}\ndata: {v}\n\n", v["type"].as_str().unwrap_or(""));
    let mut start = messages_body(model, text, calls);
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    start["usage"]["output_tokens"] = json!(1);
    let mut out = vec![ev(json!({"type": "message_start", "message": start}))];
    out.push(ev(
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ));
    for w in text.split_inclusive(' ') {
        out.push(ev(
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}),
        ));
    }
    out.push(ev(json!({"type": "content_block_stop", "index": 0})));
    for (i, (id, name, args)) in calls.iter().enumerate() {
        let idx = i + 1;
        out.push(ev(json!({"type": "content_block_start", "index": idx,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})));
        let (a, b) = args.split_at(args.len() / 2);
        for part in [a, b] {
            out.push(ev(json!({"type": "content_block_delta", "index": idx,
                "delta": {"type": "input_json_delta", "partial_json": part}})));
        }
        out.push(ev(json!({"type": "content_block_stop", "index": idx})));
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    out.push(ev(
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 7}}),
    ));
    out.push(ev(json!({"type": "message_stop"})));
    out
}
