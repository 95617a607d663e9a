//! A deterministic agent for `veer experiment run`'s tests (crates/veer/tests/cli/
//! experiment_run.rs): it reads its input file, asks the model at `OPENAI_BASE_URL` (a scripted
//! upstream in the tests, reached through veer's recording proxy) what to do, answers the tool
//! calls it gets, and prints an answer derived from the input: `rows=N` (the number of
//! non-blank lines after the first).
//!
//! Without `OPENAI_BASE_URL` (the `--trace-from` tests) it makes the same decisions itself and
//! writes its own traxr trace to `VEER_TRACE`.
//!
//! Faults, each when the input contains a marker (so they follow the input, not the run):
//! `--crash-if S` exits 3, `--hang-if S` sleeps a minute, `--silent-if S` prints nothing,
//! `--no-trace-if S` writes no trace. `--crash-if-empty` exits 3 on an empty input.
//!
//! Usage: scripted_agent [FLAGS] [INPUT]   (INPUT defaults to $VEER_INPUT)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;

struct Flags {
    input: String,
    crash_if: Vec<String>,
    crash_if_empty: bool,
    hang_if: Vec<String>,
    silent_if: Vec<String>,
    no_trace_if: Vec<String>,
}

fn flags() -> Flags {
    let mut f = Flags {
        input: std::env::var("VEER_INPUT").unwrap_or_default(),
        crash_if: vec![],
        crash_if_empty: false,
        hang_if: vec![],
        silent_if: vec![],
        no_trace_if: vec![],
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--crash-if" => f.crash_if.push(args.next().unwrap()),
            "--crash-if-empty" => f.crash_if_empty = true,
            "--hang-if" => f.hang_if.push(args.next().unwrap()),
            "--silent-if" => f.silent_if.push(args.next().unwrap()),
            "--no-trace-if" => f.no_trace_if.push(args.next().unwrap()),
            _ => f.input = a,
        }
    }
    f
}

/// The tools the scripted model asks for, given the input (mirrors the test upstream).
pub fn tools_for(content: &str) -> Vec<&'static str> {
    if content.trim().is_empty() {
        return vec![];
    }
    let mut t = vec!["read_rows"];
    if content.contains(['~', '*', '?', '\u{FFFD}', '#']) {
        t.push("flag_anomaly");
    }
    t
}

/// Decodes an HTTP/1.1 chunked body.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = body.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size_text = String::from_utf8_lossy(&body[..end]);
        let size =
            usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        let start = end + 2;
        out.extend_from_slice(&body[start..start + size]);
        body = &body[start + size + 2..];
    }
}

/// POSTs `body` to `{base}/chat/completions` and returns the JSON answer.
fn chat(base: &str, body: &Value) -> Value {
    let rest = base.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let payload = body.to_string();
    let mut s = TcpStream::connect(host).unwrap();
    write!(
        s,
        "POST /{path}/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAuthorization: Bearer sk-test\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{payload}",
        payload.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let body = &raw[split + 4..];
    let body = if head.contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_vec()
    };
    serde_json::from_slice(&body).unwrap()
}

fn has(content: &str, markers: &[String]) -> bool {
    markers.iter().any(|m| content.contains(m.as_str()))
}

fn main() {
    let f = flags();
    let content = std::fs::read_to_string(&f.input).unwrap();
    if has(&content, &f.hang_if) {
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
    if has(&content, &f.crash_if) || (f.crash_if_empty && content.trim().is_empty()) {
        eprintln!("scripted agent: crashing on purpose");
        std::process::exit(3);
    }
    let rows = content
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .count();
    match std::env::var("OPENAI_BASE_URL") {
        Ok(base) => {
            let mut messages = vec![json!({"role": "user", "content": content})];
            for _ in 0..4 {
                let answer = chat(&base, &json!({"model": "scripted-1", "messages": messages}));
                let msg = answer["choices"][0]["message"].clone();
                let calls = msg["tool_calls"].as_array().cloned().unwrap_or_default();
                messages.push(msg);
                if calls.is_empty() {
                    break;
                }
                for c in calls {
                    messages.push(json!({"role": "tool", "tool_call_id": c["id"],
                                         "content": format!("{} rows", rows)}));
                }
            }
        }
        Err(_) => {
            if let Ok(path) = std::env::var("VEER_TRACE") {
                if !has(&content, &f.no_trace_if) {
                    std::fs::write(&path, own_trace(&content).to_string()).unwrap();
                }
            }
        }
    }
    if !has(&content, &f.silent_if) {
        println!("working on {}", f.input);
        println!("rows={rows}");
    }
}

/// The traxr trace this agent writes for itself: one model call per round, as the scripted
/// upstream would have answered.
fn own_trace(content: &str) -> Value {
    let tools = tools_for(content);
    let mut events = Vec::new();
    let mut ev = |t: &str, step: u64, payload: Value| {
        let i = events.len();
        events.push(
            json!({"agent_name": "external", "content_hash": format!("{i:016x}"),
            "event_type": t, "payload": payload, "sequence_index": i, "step_num": step}),
        );
    };
    let usage = json!({"prompt_tokens": 10 + content.len() / 10, "completion_tokens": 5});
    let finish = if tools.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    ev(
        "llm_call",
        1,
        json!({"model": "scripted-1", "finish_reason": finish,
        "tool_call_names": tools, "usage": usage}),
    );
    if !tools.is_empty() {
        for t in &tools {
            ev("tool_request", 1, json!({"tool_name": t}));
            ev("tool_result", 1, json!({"tool_name": t}));
        }
        ev(
            "llm_call",
            2,
            json!({"model": "scripted-1", "finish_reason": "stop",
            "tool_call_names": [], "usage": usage}),
        );
    }
    json!({"event_count": events.len(), "events": events, "run_label": "run"})
}
