//! A scripted OpenAI upstream on 127.0.0.1 for the tests that run an agent through veer's
//! recording proxy (`experiment_run*`, `bisect`): its tool calls follow the request's content,
//! so every run is deterministic.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

/// The tools the scripted model asks for (the same rule as the agent's own traces).
fn tools_for(content: &str) -> Vec<&'static str> {
    if content.trim().is_empty() {
        return vec![];
    }
    let mut t = vec!["read_rows"];
    if content.contains(['~', '*', '?', '\u{FFFD}', '#']) {
        t.push("flag_anomaly");
    }
    t
}

pub(crate) fn read_request(s: &mut TcpStream) -> Option<Value> {
    let mut r = BufReader::new(s.try_clone().ok()?);
    let mut len = 0usize;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let l = line.trim_end().to_ascii_lowercase();
        if l.is_empty() {
            break;
        }
        if let Some(v) = l.strip_prefix("content-length:") {
            len = v.trim().parse().ok()?;
        }
        if l.starts_with("transfer-encoding:") && l.contains("chunked") {
            chunked = true;
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim(), 16).ok()?;
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        body.resize(len, 0);
        r.read_exact(&mut body).ok()?;
    }
    serde_json::from_slice(&body).ok()
}

/// The scripted model's answer to a chat request.
fn answer(req: &Value) -> Value {
    let messages = req["messages"].as_array().cloned().unwrap_or_default();
    let content = messages
        .first()
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string();
    let after_tools = messages.last().is_some_and(|m| m["role"] == "tool");
    let tools = if after_tools {
        vec![]
    } else {
        tools_for(&content)
    };
    let usage = json!({"prompt_tokens": 10 + content.len() / 10, "completion_tokens": 5,
                       "total_tokens": 15 + content.len() / 10});
    let message = if tools.is_empty() {
        json!({"role": "assistant", "content": "done"})
    } else {
        json!({"role": "assistant", "content": null, "tool_calls": tools.iter().map(|t| json!({
            "id": format!("call_{t}"), "type": "function",
            "function": {"name": t, "arguments": "{}"}})).collect::<Vec<_>>()})
    };
    json!({"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0,
           "model": "scripted-1",
           "choices": [{"index": 0, "message": message,
                        "finish_reason": if tools.is_empty() { "stop" } else { "tool_calls" }}],
           "usage": usage})
}

/// A scripted OpenAI upstream on 127.0.0.1; its base URL (ending in /v1).
pub(crate) fn upstream() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            std::thread::spawn(move || {
                while let Some(req) = read_request(&mut s) {
                    let body = answer(&req).to_string();
                    let _ = write!(
                        s,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    );
                }
            });
        }
    });
    format!("http://{addr}/v1")
}
