//! Behaviour tests: every kind passing and failing, the test-pinned cases of spec §15, the
//! refund-causal-diagnosis conformance vectors and properties.

mod cases;
mod cases_conditions;
mod cases_sessions;
mod conformance;
mod from_regression;
mod fuzz_replay;
mod kinds;
mod kinds_structured;
mod loading;
mod properties;
mod rule_scope;
mod trajectory;

use crate::{evaluate, Policy};
use serde_json::{json, Value};
use veer_contract::policy::Violation;
use veer_trace::Trace;

/// Builds a trace from `(kind, payload)` records (ids need not verify in default mode).
pub fn trace(records: &[(&str, Value)]) -> Trace {
    let mut text = String::new();
    let mut parent = Value::Null;
    for (i, (kind, payload)) in records.iter().enumerate() {
        let id = format!("sha256:{i:064x}");
        let line = json!({
            "version": "0.1",
            "id": id,
            "kind": kind,
            "ts": "2026-01-01T00:00:00.000Z",
            "parent": parent,
            "payload": payload,
        });
        parent = Value::String(id);
        text.push_str(&line.to_string());
        text.push('\n');
    }
    veer_trace::agentlog::reader::read_agentlog_bytes(
        "test.agentlog",
        text.as_bytes(),
        &veer_trace::ReadOptions::default(),
    )
    .expect("test trace reads")
}

/// The metadata record.
pub fn meta() -> (&'static str, Value) {
    ("metadata", json!({"sdk": {"name": "test", "version": "0"}}))
}

/// A request whose last message has `role`.
pub fn req(role: &str) -> (&'static str, Value) {
    (
        "chat_request",
        json!({"model": "m", "messages": [{"role": role, "content": "x"}], "params": {}}),
    )
}

/// A request with extra payload fields.
pub fn req_with(extra: Value) -> (&'static str, Value) {
    let mut p = json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "params": {}});
    if let (Some(o), Some(e)) = (p.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            o.insert(k.clone(), v.clone());
        }
    }
    ("chat_request", p)
}

/// A response calling `tools` (ids `<tool>-<n>`), with a text and a stop reason.
pub fn resp(tools: &[&str], text: &str, stop: &str) -> (&'static str, Value) {
    let mut content: Vec<Value> = Vec::new();
    if !text.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    for (i, t) in tools.iter().enumerate() {
        content.push(json!({"type": "tool_use", "id": format!("{t}-{i}-{}", text.len()), "name": t, "input": {}}));
    }
    (
        "chat_response",
        json!({"model": "m", "content": content, "stop_reason": stop,
               "usage": {"input_tokens": 1, "output_tokens": 1}}),
    )
}

/// A response with a given payload.
pub fn resp_payload(p: Value) -> (&'static str, Value) {
    ("chat_response", p)
}

/// Loads a YAML policy from text.
pub fn policy(yaml: &str) -> Policy {
    match Policy::load_str(yaml, "test.yaml", false, std::path::Path::new(".")) {
        Ok(p) => p,
        Err(e) => panic!("policy loads:\n{e}"),
    }
}

/// The load error of a YAML policy.
pub fn load_error(yaml: &str) -> String {
    match Policy::load_str(yaml, "test.yaml", false, std::path::Path::new(".")) {
        Ok(_) => panic!("policy should not load:\n{yaml}"),
        Err(e) => e.to_string(),
    }
}

/// A one-rule policy of `kind` with `params` (a YAML flow mapping) and extra rule lines.
pub fn rule(kind: &str, params: &str, extra: &str) -> Policy {
    policy(&format!(
        "apiVersion: shadow.dev/v1alpha1\nrules:\n  - id: r\n    kind: {kind}\n    params: {params}\n{extra}"
    ))
}

/// Evaluates and returns the violations.
pub fn run(p: &Policy, t: &Trace) -> Vec<Violation> {
    evaluate(p, t)
}

/// Pair indices of violations.
pub fn pairs(v: &[Violation]) -> Vec<Option<usize>> {
    v.iter().map(|x| x.pair_index).collect()
}

#[test]
fn policies_and_results_can_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Policy>();
    send_sync::<veer_contract::policy::PolicyDiff>();
    send_sync::<crate::runtime::PolicyEnforcer>();
}
