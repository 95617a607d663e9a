//! A refund agent whose behaviour follows its configuration in known ways, for `veer bisect`'s
//! tests (crates/veer/tests/cli/bisect.rs). It reads a JSON configuration (its argument, else
//! `$VEER_CONFIG`) and writes its own traxr trace to `$VEER_TRACE` (run it with
//! `--trace-from`):
//!
//! * `prompt` containing `Look up` makes it call `lookup_order` before `refund` — the culprit:
//!   a prompt without it skips the lookup;
//! * `style` only changes the wording of its final message;
//! * `temperature` changes nothing;
//! * `cache` and `fast` together (and only together) add a `cache_check` call — an
//!   interaction;
//! * noise: one run in four (by a hash of `$VEER_RUN_LABEL`) adds a `log_event` call.
//!
//! It prints `refunded` as its answer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{json, Value};

/// The tool calls this configuration leads to (the decisions the tests know).
fn tools(config: &Value, label: &str) -> Vec<&'static str> {
    let mut t = Vec::new();
    if config["prompt"]
        .as_str()
        .is_some_and(|p| p.contains("Look up"))
    {
        t.push("lookup_order");
    }
    t.push("refund");
    if config["cache"] == json!(true) && config["fast"] == json!(true) {
        t.push("cache_check");
    }
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in label.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    if (h >> 7).is_multiple_of(4) {
        t.push("log_event");
    }
    t
}

fn wording(config: &Value) -> String {
    match config["style"].as_str() {
        Some("casual") => "All done, your refund is on its way!".into(),
        _ => "The refund has been issued.".into(),
    }
}

fn trace(config: &Value, label: &str) -> Value {
    let tools = tools(config, label);
    let mut events = Vec::new();
    let mut ev = |t: &str, step: u64, payload: Value| {
        let i = events.len();
        events.push(
            json!({"agent_name": "external", "content_hash": format!("{i:016x}"),
            "event_type": t, "payload": payload, "sequence_index": i, "step_num": step}),
        );
    };
    let usage = json!({"prompt_tokens": 40, "completion_tokens": 6});
    for (step, tool) in tools.iter().enumerate() {
        let step = step as u64 + 1;
        ev(
            "llm_call",
            step,
            json!({"model": "scripted-1", "finish_reason": "tool_calls",
                   "tool_call_names": [tool], "usage": usage}),
        );
        ev("tool_request", step, json!({"tool_name": tool}));
        ev("tool_result", step, json!({"tool_name": tool}));
    }
    ev(
        "llm_call",
        tools.len() as u64 + 1,
        json!({"model": "scripted-1", "finish_reason": "stop", "tool_call_names": [],
               "content": wording(config), "usage": usage}),
    );
    json!({"event_count": events.len(), "events": events, "run_label": label})
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("VEER_CONFIG").ok())
        .expect("give the configuration file");
    let config: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let label = std::env::var("VEER_RUN_LABEL").unwrap_or_default();
    let out = std::env::var("VEER_TRACE").expect("run with --trace-from");
    std::fs::write(out, trace(&config, &label).to_string()).unwrap();
    println!("refunded");
}
