//! `veer mcp` driven end to end by the official MCP SDK's client (rmcp), which starts the
//! built binary as a child process and talks to it over stdio: the handshake, the five tools
//! and their schemas, and each tool's answer set against what the matching `veer` command
//! prints on the same files.

use crate::common::veer_ok;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt as _};
use serde_json::{json, Value};
use std::path::Path;

const BASELINE: &str = "examples/refund-agent/baseline.agentlog";
const CANDIDATE: &str = "examples/refund-agent/candidate.agentlog";
const POLICY: &str = "examples/refund-agent/policy.yaml";

type Client = RunningService<RoleClient, ()>;

/// A client connected to `veer mcp` started in the workspace root (so relative paths are the
/// ones the CLI runs below use); the server's stderr is the test's.
async fn connect() -> Client {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_veer"));
    command.arg("mcp").current_dir(root).env("NO_COLOR", "1");
    let transport = TokioChildProcess::new(command).expect("veer mcp starts");
    ().serve(transport).await.expect("the handshake succeeds")
}

/// Calls `tool` with `arguments`.
async fn call(client: &Client, tool: &'static str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("{tool} answers: {e}"))
}

/// The text blocks of a result, joined.
fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("")
}

/// What `veer ARGS` printed on stdout, as JSON, having exited with `code`.
fn cli_json(args: &[&str], code: i32) -> Value {
    let out = veer_ok(args, code).stdout;
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("veer {args:?} prints JSON: {e}\n{out}"))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn the_server_names_itself_and_lists_five_tools_with_schemas() {
    runtime().block_on(async {
        let client = connect().await;
        let info = client.peer_info().expect("the server introduced itself");
        let server = info.server_info.as_ref().expect("the server named itself");
        assert_eq!(server.name, "veer");
        let tools = client.list_all_tools().await.unwrap();
        let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        assert_eq!(
            names,
            ["check", "diff", "explain", "inspect", "policy_validate"]
        );
        for t in &tools {
            assert_eq!(
                t.input_schema.get("type"),
                Some(&json!("object")),
                "{}",
                t.name
            );
            assert!(
                t.input_schema
                    .get("properties")
                    .is_some_and(Value::is_object),
                "{}: {:?}",
                t.name,
                t.input_schema
            );
            let has_output = t.output_schema.is_some();
            assert_eq!(has_output, t.name != "explain", "{}", t.name);
        }
        client.cancel().await.unwrap();
    });
}

#[test]
fn diff_answers_with_the_document_veer_diff_writes() {
    runtime().block_on(async {
        let client = connect().await;
        let r = call(
            &client,
            "diff",
            json!({"baseline": BASELINE, "candidate": CANDIDATE}),
        )
        .await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let cli = cli_json(
            &[
                "--no-config",
                "diff",
                BASELINE,
                CANDIDATE,
                "--format",
                "json",
            ],
            0,
        );
        assert_eq!(r.structured_content.as_ref(), Some(&cli));
        let headline = cli["headline"].as_str().unwrap();
        assert!(
            text(&r).starts_with(headline.trim_end_matches('.')),
            "{}",
            text(&r)
        );

        // A tripped gate is an answer, not an error: the same document `--fail-on` writes.
        let r = call(
            &client,
            "diff",
            json!({"baseline": BASELINE, "candidate": CANDIDATE, "policy": POLICY,
                   "fail_on": "moderate", "seed": 7, "pair_by": "alignment"}),
        )
        .await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let cli = cli_json(
            &[
                "--no-config",
                "diff",
                BASELINE,
                CANDIDATE,
                "--format",
                "json",
                "--policy",
                POLICY,
                "--fail-on",
                "moderate",
                "--seed",
                "7",
                "--pair-by",
                "alignment",
            ],
            1,
        );
        assert_eq!(r.structured_content.as_ref(), Some(&cli));
        assert!(text(&r).contains("fail:"), "{}", text(&r));
        client.cancel().await.unwrap();
    });
}

#[test]
fn check_inspect_and_policy_validate_answer_as_their_commands_print() {
    runtime().block_on(async {
        let client = connect().await;
        // The candidate breaks the policy's error rules: the gate (severe) trips, exit 1.
        let r = call(
            &client,
            "check",
            json!({"trace": CANDIDATE, "policy": POLICY}),
        )
        .await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let cli = cli_json(
            &[
                "--no-config",
                "check",
                CANDIDATE,
                "--policy",
                POLICY,
                "--format",
                "json",
            ],
            1,
        );
        assert_eq!(r.structured_content.as_ref(), Some(&cli));
        assert_eq!(cli["gate"]["tripped"], json!(true));
        assert!(text(&r).contains("fail:"), "{}", text(&r));

        let r = call(&client, "inspect", json!({"trace": BASELINE})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let cli = cli_json(&["--no-config", "inspect", BASELINE, "--format", "json"], 0);
        assert_eq!(r.structured_content.as_ref(), Some(&cli));

        // An Inspect AI log: one row per sample-epoch, as `veer inspect` lists it.
        let log = "tests/fixtures/inspect/candidate.eval";
        let r = call(&client, "inspect", json!({"trace": log})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let cli = cli_json(&["--no-config", "inspect", log, "--format", "json"], 0);
        assert!(cli["log"]["samples"]
            .as_array()
            .is_some_and(|s| !s.is_empty()));
        assert_eq!(r.structured_content.as_ref(), Some(&cli));
        assert!(text(&r).contains("Inspect AI log"), "{}", text(&r));

        let r = call(&client, "policy_validate", json!({"file": POLICY})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let cli = veer_ok(&["--no-config", "policy", "validate", POLICY], 0).stdout;
        assert_eq!(text(&r), cli);
        assert_eq!(r.structured_content.as_ref().unwrap()["rules"], json!(4));
        client.cancel().await.unwrap();
    });
}

#[test]
fn explain_names_the_headline_and_the_first_divergence() {
    runtime().block_on(async {
        let client = connect().await;
        let dir = tempfile::tempdir().unwrap();
        let saved = dir.path().join("report.json");
        let report = cli_json(
            &[
                "--no-config",
                "diff",
                BASELINE,
                CANDIDATE,
                "--format",
                "json",
            ],
            0,
        );
        std::fs::write(&saved, report.to_string()).unwrap();
        let from_saved = call(&client, "explain", json!({"report": saved})).await;
        assert_eq!(from_saved.is_error, Some(false), "{}", text(&from_saved));
        let words = text(&from_saved);
        let headline = report["headline"].as_str().unwrap();
        assert!(words.starts_with(headline.trim_end_matches('.')), "{words}");
        let first = report["first_divergence"]["explanation"].as_str().unwrap();
        assert!(
            words.contains("First divergence: baseline turn #"),
            "{words}"
        );
        assert!(words.contains(first.trim_end_matches('.')), "{words}");

        // Diffed now: the same sentences, then the gate's line.
        let now = call(
            &client,
            "explain",
            json!({"baseline": BASELINE, "candidate": CANDIDATE}),
        )
        .await;
        assert_eq!(now.is_error, Some(false), "{}", text(&now));
        assert!(text(&now).starts_with(&words), "{}", text(&now));

        // Two directories diffed now: the directory's summary, as the diff tool gives it.
        let (b, c) = (
            "tests/fixtures/shadow/refund-causal-diagnosis/baseline_traces",
            "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces",
        );
        let dirs = call(&client, "explain", json!({"baseline": b, "candidate": c})).await;
        assert_eq!(dirs.is_error, Some(false), "{}", text(&dirs));
        let diffed = call(&client, "diff", json!({"baseline": b, "candidate": c})).await;
        assert!(!text(&dirs).is_empty());
        assert!(
            text(&diffed).starts_with(text(&dirs).lines().next().unwrap()),
            "{}",
            text(&dirs)
        );
        // A saved directory report is refused with a way out.
        let saved_dir = dir.path().join("dir.json");
        let report = cli_json(&["--no-config", "diff", b, c, "--format", "json"], 0);
        std::fs::write(&saved_dir, report.to_string()).unwrap();
        let refused = call(&client, "explain", json!({"report": saved_dir})).await;
        assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
        assert!(text(&refused).contains("hint:"), "{}", text(&refused));
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_missing_file_is_an_error_result_with_the_clis_hint_and_the_server_goes_on() {
    runtime().block_on(async {
        let client = connect().await;
        let missing = "examples/refund-agent/missing.agentlog";
        let r = call(
            &client,
            "diff",
            json!({"baseline": missing, "candidate": CANDIDATE}),
        )
        .await;
        assert_eq!(r.is_error, Some(true));
        assert!(r.structured_content.is_none());
        let cli = veer_ok(&["--no-config", "diff", missing, CANDIDATE], 2).stderr;
        assert_eq!(text(&r), cli);
        assert!(text(&r).contains("hint: "), "{}", text(&r));

        let r = call(
            &client,
            "check",
            json!({"trace": CANDIDATE, "policy": "nope.yaml"}),
        )
        .await;
        assert_eq!(r.is_error, Some(true));
        let cli = veer_ok(
            &["--no-config", "check", CANDIDATE, "--policy", "nope.yaml"],
            2,
        )
        .stderr;
        assert_eq!(text(&r), cli);

        // Arguments the schema refuses are an error result naming what is wrong; the server
        // carries on.
        let r = call(&client, "diff", json!({"baseline": BASELINE})).await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("candidate"), "{}", text(&r));
        let r = call(
            &client,
            "check",
            json!({"trace": CANDIDATE, "policy": POLICY, "fail_on": "high"}),
        )
        .await;
        assert_eq!(r.is_error, Some(true));
        assert!(text(&r).contains("high"), "{}", text(&r));
        let r = call(&client, "inspect", json!({"trace": BASELINE})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        client.cancel().await.unwrap();
    });
}

#[test]
fn stdout_carries_only_protocol_messages_and_the_server_ends_with_its_input() {
    use std::io::Write as _;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_veer"))
        .arg("mcp")
        .current_dir(root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        // A bad trace makes veer warn and err: none of it may reach stdout.
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "diff", "arguments": {"baseline": POLICY, "candidate": CANDIDATE}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "check", "arguments": {"trace": CANDIDATE, "policy": POLICY}}}),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for m in &messages {
        writeln!(stdin, "{m}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let replies: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON-RPC: {l}: {e}")))
        .collect();
    assert!(replies.iter().all(|r| r["jsonrpc"] == "2.0"), "{stdout}");
    let reply = |id: u64| {
        replies
            .iter()
            .find(|r| r["id"] == json!(id))
            .unwrap_or_else(|| panic!("no reply {id}: {stdout}"))
    };
    assert_eq!(reply(1)["result"]["serverInfo"]["name"], "veer");
    assert_eq!(reply(2)["result"]["isError"], json!(true));
    assert_eq!(reply(3)["result"]["isError"], json!(false));
    assert_eq!(
        reply(3)["result"]["structuredContent"]["gate"]["tripped"],
        json!(true)
    );
}
