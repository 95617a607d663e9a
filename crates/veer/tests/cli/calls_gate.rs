//! `veer diff A B --fail-on LEVEL` on one pair: what the agent does decides the gate, its
//! wording does not. A changed argument value in one turn of three trips `moderate` though the
//! trajectory median is 0; filler text on tool-call turns never makes the gate severe.

use crate::common::veer_ok;

/// An `.agentlog` of a support agent: per turn, its text and its one tool call (name, input);
/// then a closing answer.
fn agentlog(turns: &[(&str, &str, serde_json::Value)]) -> String {
    let mut lines = Vec::new();
    let mut n = 0usize;
    let mut push = |kind: &str, payload: serde_json::Value| {
        n += 1;
        lines.push(
            serde_json::json!({
                "version": "0.1", "id": format!("r{n}"), "kind": kind,
                "ts": format!("2026-01-01T00:00:{n:02}.000Z"),
                "parent": if n > 1 { serde_json::Value::from(format!("r{}", n - 1)) } else { serde_json::Value::Null },
                "payload": payload,
            })
            .to_string(),
        );
    };
    push("metadata", serde_json::json!({"sdk": {"name": "test"}}));
    for (i, (text, tool, input)) in turns.iter().enumerate() {
        push(
            "chat_request",
            serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "Refund order A1."}]}),
        );
        let mut content = Vec::new();
        if !text.is_empty() {
            content.push(serde_json::json!({"type": "text", "text": text}));
        }
        content.push(serde_json::json!({"type": "tool_use", "id": format!("t{i}"), "name": tool, "input": input}));
        push(
            "chat_response",
            serde_json::json!({"model": "m", "content": content, "stop_reason": "tool_use",
                "latency_ms": 400, "usage": {"input_tokens": 100, "output_tokens": 20}}),
        );
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

fn support(amount: f64, filler: &str) -> String {
    agentlog(&[
        (
            filler,
            "lookup_order",
            serde_json::json!({"order_id": "A1"}),
        ),
        (
            filler,
            "issue_refund",
            serde_json::json!({"order_id": "A1", "amount": amount}),
        ),
        (
            "Emailing you the receipt.",
            "send_email",
            serde_json::json!({"to": "a@example.com"}),
        ),
    ])
}

#[test]
fn a_changed_argument_in_one_turn_of_three_trips_moderate() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.agentlog"), tmp.path().join("b.agentlog"));
    std::fs::write(&a, support(42.0, "Checking the order now.")).unwrap();
    std::fs::write(&b, support(84.0, "Checking the order now.")).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let r = veer_ok(&["diff", a, b, "--format", "json"], 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let trajectory = v["axes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["axis"] == "trajectory")
        .unwrap();
    // The axis numbers are Shadow's: the median over three turns is 0, severity none.
    assert_eq!(trajectory["delta"], 0.0, "{trajectory}");
    assert_eq!(trajectory["severity"], "none", "{trajectory}");
    assert_eq!(trajectory["changed_pairs"], 1, "{trajectory}");
    // The gate reads the changed call.
    let r = veer_ok(
        &["diff", a, b, "--fail-on", "moderate", "--format", "json"],
        1,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["gate"]["worst"], "moderate", "{}", v["gate"]);
    assert!(
        r.stderr.contains("--fail-on threshold moderate"),
        "{}",
        r.stderr
    );
    veer_ok(&["diff", a, b, "--fail-on", "severe"], 0);
    // The same calls: nothing trips at moderate.
    veer_ok(&["diff", a, a, "--fail-on", "moderate"], 0);
}

#[test]
fn filler_text_on_tool_call_turns_is_never_severe() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.agentlog"), tmp.path().join("b.agentlog"));
    std::fs::write(&a, support(42.0, "Checking the order now.")).unwrap();
    std::fs::write(&b, support(42.0, "")).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let r = veer_ok(&["diff", a, b, "--format", "json"], 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let semantic = v["axes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["axis"] == "semantic")
        .unwrap()
        .clone();
    // Two of three turns lost their filler: Shadow's severity is severe on an interval that
    // touches zero; with the same calls the gate at severe passes.
    assert_eq!(semantic["severity"], "severe", "{semantic}");
    veer_ok(&["diff", a, b, "--fail-on", "severe"], 0);
    let low = semantic["ci95_low"].as_f64().unwrap();
    let high = semantic["ci95_high"].as_f64().unwrap();
    assert!(low <= 0.0 && high >= 0.0, "{semantic}");
}
