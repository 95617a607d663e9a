//! Linear work in every input dimension: one response with 20,000 tool
//! calls is diffed (also with a policy and `--max-align-cells` at its maximum), inspected and
//! checked, and the output has the expected shape — the trajectory axis flagged
//! `approximate_edit_distance`, the inspect row's tools cut. The time is measured by
//! `bench/hostile.sh`, not here.

use crate::common::{examples, veer_ok};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

const CALLS: usize = 20_000;
const TOOLS: [&str; 5] = [
    "lookup_order",
    "issue_refund",
    "search_docs",
    "send_email",
    "get_weather",
];

/// The calls of one side: the candidate renames every 7th, drops every 11th and changes the
/// arguments of every 5th (bench/hostile_input.py's `tools` case, smaller).
fn calls(candidate: bool) -> Vec<(String, String, Value)> {
    (0..CALLS)
        .filter(|i| !(candidate && i % 11 == 10))
        .map(|i| {
            let mut name = TOOLS[i % TOOLS.len()].to_string();
            if candidate && i % 7 == 3 {
                name = format!("renamed_{name}");
            }
            let amount = if candidate && i % 5 == 2 {
                -1
            } else {
                (i % 100) as i64
            };
            (
                name,
                format!("toolu_{i}"),
                json!({"order_id": format!("A{i}"), "amount": amount}),
            )
        })
        .collect()
}

/// metadata, request, one response with every call as a `tool_use` block, a `tool_result`
/// per call, a request and a final answer.
fn write_side(path: &Path, candidate: bool) {
    let cs = calls(candidate);
    let mut payloads = vec![
        (
            "metadata",
            json!({"sdk": {"name": "hostile", "version": "0"}}),
        ),
        (
            "chat_request",
            json!({"model": "m", "messages": [{"role": "user", "content": "Go."}]}),
        ),
    ];
    let mut blocks = vec![json!({"type": "text", "text": "Working through the orders."})];
    blocks.extend(
        cs.iter()
            .map(|(n, id, a)| json!({"type": "tool_use", "id": id, "name": n, "input": a})),
    );
    payloads.push((
        "chat_response",
        json!({"model": "m", "content": blocks, "stop_reason": "tool_use",
               "usage": {"input_tokens": 100, "output_tokens": 50}, "latency_ms": 900}),
    ));
    for (_, id, _) in &cs {
        payloads.push((
            "tool_result",
            json!({"tool_call_id": id, "output": "ok", "is_error": false}),
        ));
    }
    payloads.push((
        "chat_request",
        json!({"model": "m", "messages": [{"role": "user", "content": "Done?"}]}),
    ));
    payloads.push((
        "chat_response",
        json!({"model": "m", "content": [{"type": "text", "text": "All done."}],
               "stop_reason": "end_turn", "usage": {"input_tokens": 120, "output_tokens": 5}}),
    ));
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for (k, (kind, payload)) in payloads.into_iter().enumerate() {
        let rec = json!({"version": "0.1", "id": format!("r{k}"), "kind": kind,
                         "ts": "2026-11-20T10:00:00.000Z",
                         "parent": if k == 0 { Value::Null } else { json!(format!("r{}", k - 1)) },
                         "payload": payload});
        writeln!(f, "{rec}").unwrap();
    }
    f.flush().unwrap();
}

#[test]
fn one_response_with_twenty_thousand_tool_calls() {
    let dir = tempfile::tempdir().unwrap();
    let (b, c) = (dir.path().join("b.agentlog"), dir.path().join("c.agentlog"));
    write_side(&b, false);
    write_side(&c, true);
    let (b, c) = (b.to_str().unwrap(), c.to_str().unwrap());
    let policy = examples().join("refund-agent/policy.yaml");
    let policy = policy.to_str().unwrap();

    let plain = veer_ok(&["diff", b, c, "--format", "json"], 0).stdout;
    let with_policy = veer_ok(
        &[
            "diff",
            b,
            c,
            "--format",
            "json",
            "--policy",
            policy,
            "--max-align-cells",
            &u64::MAX.to_string(),
        ],
        0,
    )
    .stdout;
    for text in [&plain, &with_policy] {
        let report: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            crate::common::diff_schema_violations(&report),
            Vec::<String>::new()
        );
        assert_eq!(report["pair_count"], 2);
        let trajectory = report["axes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["axis"] == "trajectory")
            .unwrap();
        // 20,000 × 18,182 cells are past the exact budget: the anchored distance, flagged.
        assert!(
            trajectory["flags"]
                .as_array()
                .unwrap()
                .contains(&json!("approximate_edit_distance")),
            "{trajectory}"
        );
        let d = trajectory["candidate_median"].as_f64().unwrap();
        assert!(d > 0.0 && d <= 1.0, "{d}");
        // ~40,000 events a side: within the structural block's exact budget.
        let structural = &report["structural"];
        assert_eq!(structural.get("approximate"), None);
        assert!(structural["edit_distance"]["distance"].as_u64().unwrap() > 0);
        assert_eq!(report["drill_down"].as_array().unwrap().len(), 2);
    }
    let report: Value = serde_json::from_str(&with_policy).unwrap();
    // The refund policy: issue_refund is called 4,000 times in the candidate (one-refund).
    assert!(report["policy"]["candidate_violations"]
        .as_array()
        .is_some());

    let inspect = veer_ok(&["inspect", c], 0).stdout;
    assert!(
        inspect.contains(" more calls)"),
        "{}",
        &inspect[..400.min(inspect.len())]
    );
    assert!(
        inspect.len() < 20_000,
        "the tools cell is cut: {} bytes",
        inspect.len()
    );
    let inspect_json: Value =
        serde_json::from_str(&veer_ok(&["inspect", c, "--format", "json"], 0).stdout).unwrap();
    let listed = inspect_json["traces"][0]["turns"][0]["tools"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(listed, calls(true).len(), "JSON lists every call");

    let check = veer_ok(&["check", c, "--policy", policy, "--format", "json"], 1).stdout;
    let check: Value = serde_json::from_str(&check).unwrap();
    assert!(!check["traces"][0]["violations"]
        .as_array()
        .unwrap()
        .is_empty());
}
