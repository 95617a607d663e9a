//! Near-singular behaviour fingerprints: few responses, constant dimensions, zero
//! within-side variance, one dimension moving, identical sides and extreme latencies, 3–40
//! responses a side. `veer diff` used to spend minutes in the post-hoc power's non-central F
//! sum on such pairs (λ astronomically large); it now finishes with a sane fingerprint block:
//! the power at huge λ is 1, not NaN, and the JSON is the same on every run.

use crate::common::veer_ok;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;
use veer_trace::canonical::content_id;

/// One response: `text`, `tools` tool calls, a latency in milliseconds and output tokens.
struct Response {
    text: String,
    tools: usize,
    latency_ms: f64,
    output_tokens: u64,
}

/// Writes an `.agentlog` of one session: a request and a response per turn.
fn write_agentlog(path: &Path, responses: &[Response]) {
    let mut out = String::new();
    let mut line = |kind: &str, parent: Option<&str>, payload: Value, ts: usize| -> String {
        let id = content_id(&payload);
        let record = json!({
            "version": "0.1", "id": id, "kind": kind,
            "ts": format!("2026-01-01T00:{:02}:{:02}.000Z", ts / 60 % 60, ts % 60),
            "parent": parent, "meta": {}, "payload": payload,
        });
        writeln!(out, "{record}").unwrap();
        id
    };
    let mut parent = line("metadata", None, json!({"sdk": {"name": "veer-test"}}), 0);
    for (i, r) in responses.iter().enumerate() {
        let request = json!({"model": "m", "messages": [{"role": "user", "content": format!("turn {i}")}], "params": {}});
        let req = line("chat_request", Some(&parent), request, 2 * i + 1);
        let mut content = vec![json!({"type": "text", "text": r.text})];
        for k in 0..r.tools {
            content.push(json!({"type": "tool_use", "id": format!("t{i}-{k}"), "name": "lookup_order", "input": {"id": k}}));
        }
        let response = json!({
            "model": "m", "content": content,
            "stop_reason": if r.tools > 0 { "tool_use" } else { "end_turn" },
            "latency_ms": r.latency_ms,
            "usage": {"input_tokens": 100, "output_tokens": r.output_tokens},
        });
        parent = line("chat_response", Some(&req), response, 2 * i + 2);
    }
    std::fs::write(path, out).unwrap();
}

fn constant(n: usize, text: &str, latency_ms: f64) -> Vec<Response> {
    (0..n)
        .map(|_| Response {
            text: text.into(),
            tools: 0,
            latency_ms,
            output_tokens: 40,
        })
        .collect()
}

/// The pairs of the hanging runs: (name, baseline, candidate).
fn cases() -> Vec<(&'static str, Vec<Response>, Vec<Response>)> {
    let answer = "Your refund was issued.";
    // One dimension moving: every response identical but the latency, which doubles (with
    // a millisecond of jitter, so the pooled covariance is tiny but not zero).
    let moving = |n: usize, ms: f64| {
        let mut v = constant(n, answer, ms);
        for (i, r) in v.iter_mut().enumerate() {
            r.latency_ms += i as f64;
        }
        v
    };
    // One response of each side differs by a tool call; the rest are constant.
    let one_tool = |n: usize| {
        let mut v = constant(n, answer, 800.0);
        v[0].tools = 1;
        v
    };
    vec![
        (
            "identical-3",
            constant(3, answer, 800.0),
            constant(3, answer, 800.0),
        ),
        ("latency-moves-10", moving(10, 800.0), moving(10, 1600.0)),
        ("latency-moves-3x40", moving(3, 800.0), moving(40, 1600.0)),
        (
            "extreme-latency-12",
            moving(12, 1.0),
            moving(12, 86_400_000.0),
        ),
        ("one-tool-20", one_tool(20), {
            let mut v = one_tool(20);
            v[1].tools = 2;
            v
        }),
        (
            "text-changes-15",
            constant(15, answer, 800.0),
            constant(15, "Unable to refund: error 42.", 800.0),
        ),
    ]
}

#[test]
fn near_singular_fingerprints_finish_with_a_sane_block() {
    let dir = tempfile::tempdir().unwrap();
    let mut summary = String::new();
    for (name, b, c) in cases() {
        let (bp, cp) = (
            dir.path().join(format!("{name}-b.agentlog")),
            dir.path().join(format!("{name}-c.agentlog")),
        );
        write_agentlog(&bp, &b);
        write_agentlog(&cp, &c);
        let args = [
            "diff",
            bp.to_str().unwrap(),
            cp.to_str().unwrap(),
            "--format",
            "json",
        ];
        let first = veer_ok(&args, 0).stdout;
        assert_eq!(
            first,
            veer_ok(&args, 0).stdout,
            "{name}: the same bytes twice"
        );
        let v: Value = serde_json::from_str(&first).unwrap();
        assert_eq!(
            crate::diff::schema_errors(&v),
            Vec::<String>::new(),
            "{name}"
        );
        let f = &v["fingerprint"];
        for key in ["t2", "p_value", "shrinkage"] {
            let x = f[key].as_f64();
            assert!(x.is_some_and(f64::is_finite), "{name}: {key} = {}", f[key]);
        }
        let p = f["p_value"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p), "{name}: p {p}");
        let power = f["power"].as_f64();
        assert!(
            f["power"].is_null() || power.is_some_and(|x| (0.0..=1.0).contains(&x)),
            "{name}: power {}",
            f["power"]
        );
        let _ = writeln!(
            summary,
            "{name}: n {}/{}, t2 {:.6e}, p {:.6}, method {}, power {}, decision {}",
            f["n1"],
            f["n2"],
            f["t2"].as_f64().unwrap(),
            p,
            f["method"],
            f["power"],
            f["decision"]
        );
    }
    insta::assert_snapshot!(summary);
}
