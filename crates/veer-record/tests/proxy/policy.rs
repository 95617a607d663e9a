//! Live policy: warn passes the answer and says so, replace answers with the policy message in
//! the provider's shape (whole or streamed), raise answers with an error the SDKs raise; every
//! decision is recorded.

use crate::rig::{eventually, rig, Options};
use serde_json::{json, Value};
use veer_policy::runtime::Mode;

const FORBID: &str = "rules:\n  - {id: no-wire, kind: forbidden_text, params: {text: wire transfer}}\n  - {id: no-refund, kind: no_call, params: {tool: refund_order}}\n";
const CHAT: &str = "/openai/v1/chat/completions";
const MESSAGES: &str = "/anthropic/v1/messages";

fn chat(model: &str, say: &str, stream: bool) -> Value {
    json!({"model": model, "stream": stream, "messages": [{"role": "user", "content": format!("say: {say}")}]})
}
fn msg(model: &str, say: &str, stream: bool) -> Value {
    json!({"model": model, "max_tokens": 9, "stream": stream, "messages": [{"role": "user", "content": format!("say: {say}")}]})
}

fn guardrails(r: &crate::rig::Rig) -> Vec<String> {
    r.records()
        .iter()
        .filter(|x| x["kind"] == "harness_event")
        .map(|x| x["payload"]["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warn_passes_the_answer_and_records_the_decision() {
    let r = rig(Options {
        policy: Some((FORBID, Mode::Warn)),
        ..Options::default()
    })
    .await;
    let b = chat("m-plain", "send a wire transfer now", false);
    let (status, got) = r.call(CHAT, &b).await;
    assert_eq!((status, got), r.direct(CHAT, &b).await);
    let (status, _) = r.call(CHAT, &chat("m-plain", "all good", true)).await;
    assert_eq!(status, 200);
    eventually("records", || r.kinds().len() == 6).await;
    assert_eq!(
        r.kinds(),
        [
            "metadata",
            "chat_request",
            "chat_response",
            "harness_event",
            "chat_request",
            "chat_response"
        ]
    );
    assert_eq!(guardrails(&r), ["policy.warn"]);
    let ev = &r.records()[3];
    assert_eq!(
        ev["payload"]["attributes"]["violations"][0]["rule_id"],
        "no-wire"
    );
    assert_eq!(ev["parent"], r.records()[2]["id"]);
    let n = r.notices.lock().unwrap().clone();
    assert!(n.len() == 1 && n[0].contains("no-wire"), "{n:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replace_answers_with_the_policy_message_whole_and_streamed() {
    let r = rig(Options {
        policy: Some((FORBID, Mode::Replace)),
        ..Options::default()
    })
    .await;
    let (status, body) = r
        .call(CHAT, &chat("m-plain", "wire transfer done", false))
        .await;
    assert_eq!(status, 200);
    let v: Value = serde_json::from_slice(&body).unwrap();
    let text = v["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(
        text.starts_with("[veer policy_runtime] response blocked by policy (1 violation(s))"),
        "{text}"
    );
    // Streamed (Anthropic): the replacement arrives as a well-formed event stream.
    let (status, body) = r
        .call(MESSAGES, &msg("m-plain", "wire transfer done", true))
        .await;
    assert_eq!(status, 200);
    let s = String::from_utf8_lossy(&body);
    assert!(
        s.contains("event: message_stop") && s.contains("[veer policy_runtime]"),
        "{s}"
    );
    // An innocent streamed answer passes unchanged.
    let b = msg("m-plain", "all good", true);
    assert_eq!(r.call(MESSAGES, &b).await, r.direct(MESSAGES, &b).await);
    let recs = r.records();
    let replaced: Vec<&Value> = recs
        .iter()
        .filter(|x| x["kind"] == "chat_response")
        .collect();
    assert_eq!(replaced[0]["payload"]["stop_reason"], "policy_blocked");
    assert_eq!(replaced[1]["payload"]["stop_reason"], "policy_blocked");
    assert_eq!(replaced[2]["payload"]["stop_reason"], "end_turn");
    assert_eq!(guardrails(&r), ["policy.replace", "policy.replace"]);
    let summary = r.journal.summary();
    assert_eq!((summary.calls, summary.failed, summary.replaced), (3, 0, 2));
    assert_eq!(
        summary.line("run.agentlog"),
        "3 call(s) recorded to run.agentlog (0 failed; 2 replaced by the policy)"
    );
    let ev = recs.iter().find(|x| x["kind"] == "harness_event").unwrap();
    assert_eq!(
        ev["payload"]["attributes"]["original_response"]["content"][0]["text"],
        "wire transfer done"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raise_answers_an_error_and_a_proposed_tool_call_is_probed() {
    let r = rig(Options {
        policy: Some((FORBID, Mode::Raise)),
        ..Options::default()
    })
    .await;
    let (status, body) = r.call(CHAT, &chat("m-parallel", "x", false)).await;
    assert_eq!(status, 422);
    let v: Value = serde_json::from_slice(&body).unwrap();
    let m = v["error"]["message"].as_str().unwrap();
    assert!(
        m.starts_with("policy violation(s) at runtime: no-refund [no_call/"),
        "{m}"
    );
    let (status, body) = r.call(MESSAGES, &msg("m-tools", "x", true)).await;
    assert_eq!(
        status,
        200,
        "lookup_order alone is allowed: {}",
        String::from_utf8_lossy(&body)
    );
    let (status, body) = r
        .call(MESSAGES, &msg("m-plain", "a wire transfer", false))
        .await;
    assert_eq!(status, 422);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["type"], "error");
    assert_eq!(v["error"]["type"], "policy_violation");
    assert_eq!(
        r.kinds(),
        [
            "metadata",
            "chat_request",
            "error",
            "harness_event",
            "chat_request",
            "chat_response",
            "chat_request",
            "error",
            "harness_event"
        ]
    );
    let recs = r.records();
    assert_eq!(recs[2]["payload"]["code"], "policy_violation");
    assert_eq!(recs[2]["parent"], recs[1]["id"]);
    // Raise rolls back: the same violation on a retry is refused again.
    assert_eq!(r.call(CHAT, &chat("m-parallel", "x", false)).await.0, 422);
    // The proxy's own 422s are failed calls in the summary, named as the policy's refusals.
    let summary = r.journal.summary();
    assert_eq!((summary.calls, summary.failed, summary.refused), (4, 3, 3));
    assert_eq!(
        summary.line("run.agentlog"),
        "4 call(s) recorded to run.agentlog (3 failed, 3 of them refused by the policy)"
    );
}
