//! Traces in the formats of `veer_trace::formats` (OpenAI Agents SDK, Claude Code, Langfuse,
//! LangSmith, MCP) through the CLI: detected by content, diffed (first divergence at the changed
//! tool call), checked against a policy, and mixed in one diff. (100,000-span files of each format
//! are read in `veer_trace::formats::large_tests`, without the CLI's per-turn reporting.)

use crate::common::{veer, veer_ok};
use serde_json::{json, Value};

const POLICY: &str = "tests/fixtures/formats/policy.yaml";

/// (format name, baseline, candidate, the changed call's baseline turn, the candidate's tool
/// there, the policy rule the candidate breaks).
const PAIRS: [(&str, &str, &str, u64, &str, &str); 7] = [
    (
        "openai-agents",
        "tests/fixtures/formats/openai-agents/chat-baseline.jsonl",
        "tests/fixtures/formats/openai-agents/chat-candidate.jsonl",
        1,
        "cancel_order",
        "never-cancel",
    ),
    (
        "openai-agents",
        "tests/fixtures/formats/openai-agents/responses-baseline.jsonl",
        "tests/fixtures/formats/openai-agents/responses-candidate.jsonl",
        1,
        "cancel_order",
        "never-cancel",
    ),
    (
        "claude-code",
        "tests/fixtures/formats/claude-code/baseline.jsonl",
        "tests/fixtures/formats/claude-code/candidate.jsonl",
        1,
        "Grep",
        "run-tests-not-grep",
    ),
    (
        "langfuse",
        "tests/fixtures/formats/hosted/langfuse-baseline.json",
        "tests/fixtures/formats/hosted/langfuse-candidate.json",
        1,
        "cancel_order",
        "never-cancel",
    ),
    (
        "langsmith",
        "tests/fixtures/formats/hosted/langsmith-baseline.json",
        "tests/fixtures/formats/hosted/langsmith-candidate.json",
        1,
        "cancel_order",
        "never-cancel",
    ),
    // recorded on the wire from the mcp SDK's client and server
    (
        "mcp",
        "tests/fixtures/formats/mcp-sdk/baseline.mcp.jsonl",
        "tests/fixtures/formats/mcp-sdk/candidate.mcp.jsonl",
        0,
        "dropped a turn",
        "search-before-refund",
    ),
    // Shadow's MCP session pair (conformance vectors)
    (
        "mcp",
        "tests/fixtures/shadow/mcp-session/baseline.mcp.jsonl",
        "tests/fixtures/shadow/mcp-session/candidate.mcp.jsonl",
        0,
        "dropped a turn",
        "search-before-refund",
    ),
];

fn json_of(args: &[&str], code: i32) -> Value {
    serde_json::from_str(&veer_ok(args, code).stdout).unwrap()
}

#[test]
fn inspect_names_the_detected_format() {
    for (format, baseline, candidate, ..) in PAIRS {
        for f in [baseline, candidate] {
            let r = veer_ok(&["inspect", f], 0);
            assert!(
                r.stdout.contains(&format!("({format}, ")),
                "{f}: {}",
                r.stdout
            );
        }
    }
}

#[test]
fn diff_finds_the_changed_tool_call() {
    for (format, baseline, candidate, turn, tool, _) in PAIRS {
        let v = json_of(&["diff", baseline, candidate, "--format", "json"], 0);
        let first = &v["first_divergence"];
        assert_eq!(first["baseline_turn"], json!(turn), "{format}: {first}");
        assert_eq!(
            first["primary_axis"],
            json!("trajectory"),
            "{format}: {first}"
        );
        let explanation = first["explanation"].as_str().unwrap();
        assert!(explanation.contains(tool), "{format}: {explanation}");
        // the trajectory moved: at the divergent pair, and the axis' interval reaches above 0
        let trajectory = v["axes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["axis"] == "trajectory")
            .unwrap();
        assert!(
            trajectory["ci95_high"].as_f64().unwrap() > 0.0,
            "{format}: {trajectory}"
        );
        let moved = v["drill_down"].as_array().unwrap().iter().any(|p| {
            p["axis_scores"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["axis"] == "trajectory" && s["delta"].as_f64().unwrap() > 0.0)
        });
        // With auto pairing a dropped or added call is an unpaired turn, counted on the
        // trajectory axis's changed pairs rather than in a drill-down pair.
        let changed = trajectory["changed_pairs"].as_u64().unwrap() > 0;
        assert!(moved || changed, "{format}: no pair with trajectory > 0");
        assert!(
            v["structural"]["d_norm"].as_f64().unwrap() > 0.0,
            "{format}"
        );
        // the same files give byte-identical reports
        let again = veer_ok(&["diff", baseline, candidate, "--format", "json"], 0).stdout;
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            serde_json::to_string(&serde_json::from_str::<Value>(&again).unwrap()).unwrap()
        );
        // a trace against itself does not diverge
        let same = json_of(&["diff", baseline, baseline, "--format", "json"], 0);
        assert_eq!(same["first_divergence"], Value::Null, "{format}");
    }
}

#[test]
fn check_gates_the_candidate_not_the_baseline() {
    for (format, baseline, candidate, _, _, rule) in PAIRS {
        let v = json_of(
            &["check", candidate, "--policy", POLICY, "--format", "json"],
            1,
        );
        let rules: Vec<&str> = v["traces"][0]["violations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["rule_id"].as_str().unwrap())
            .collect();
        assert_eq!(rules, [rule], "{format}");
        veer_ok(&["check", baseline, "--policy", POLICY], 0);
    }
}

#[test]
fn formats_mix_in_one_diff() {
    // a Claude Code baseline against an MCP candidate: both are read into records and compared
    let v = json_of(&["diff", PAIRS[2].1, PAIRS[5].2, "--format", "json"], 0);
    assert_eq!(v["first_divergence"]["baseline_turn"], json!(0));
    // traxr runs still only compare with traxr runs
    let dir = tempfile::tempdir().unwrap();
    let case: Value = serde_json::from_str(
        &std::fs::read_to_string("../../tests/fixtures/traxr/analyzer_goldens/single_edit.json")
            .unwrap(),
    )
    .unwrap();
    let traxr = dir.path().join("run.json");
    std::fs::write(&traxr, case["input"]["clean_trace"].to_string()).unwrap();
    let r = veer(&["diff", PAIRS[5].1, traxr.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("is mcp but") && r.stderr.contains("is traxr"),
        "{}",
        r.stderr
    );
}

/// A LangSmith multipart ingest body (the SDK's own request) and a Codex rollout from before
/// the `{timestamp, type, payload}` wrapper are detected by content and diff cleanly against
/// themselves.
#[test]
fn multipart_bodies_and_unwrapped_rollouts_are_detected() {
    let body = "tests/fixtures/formats/langsmith-multipart/support-agent.multipart";
    let r = veer_ok(&["inspect", body], 0);
    assert!(r.stdout.contains("(langsmith, "), "{}", r.stdout);
    let v = json_of(&["diff", body, body, "--format", "json"], 0);
    assert!(v["first_divergence"].is_null(), "{v}");

    let dir = tempfile::tempdir().unwrap();
    let rollout = dir.path().join("rollout.jsonl");
    let lines = [
        r#"{"id":"s1","timestamp":"2025-08-20T13:20:47.060Z","instructions":null}"#,
        r#"{"record_type":"state"}"#,
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]}"#,
        r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}"#,
        r#"{"type":"function_call_output","call_id":"c1","output":"README.md"}"#,
        r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"README.md"}]}"#,
    ];
    std::fs::write(&rollout, lines.join("\n") + "\n").unwrap();
    let p = rollout.display().to_string();
    let r = veer_ok(&["inspect", &p], 0);
    assert!(r.stdout.contains("(codex, "), "{}", r.stdout);
    std::fs::write(&rollout, format!("{}\n[1]\n", lines[0])).unwrap();
    let r = veer(&["inspect", &p]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(":2:"), "{}", r.stderr);
}
