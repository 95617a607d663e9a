//! The real `openai` and `anthropic` Python SDKs as clients of the proxy (plain, streaming,
//! tool calls, parallel tool calls, an error, a policy refusal). Runs with the Python named by
//! `VEER_TEST_PYTHON`, else `target/py-sdk/bin/python` (what `.ci/run` installs); skipped,
//! loudly, only when neither has both SDKs.

use crate::rig::{rig, Options, Rig};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;
use veer_policy::runtime::Mode;

fn python() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let candidates = [
        std::env::var_os("VEER_TEST_PYTHON").map(PathBuf::from),
        Some(root.join("target/py-sdk/bin/python")),
    ];
    candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .args(["-c", "import openai, anthropic"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Runs `tests/sdk/<script>` with the SDKs pointed at the rig's proxy and the given
/// (OpenAI, Anthropic) API keys; what the script saw, from its last stdout line.
async fn run_script(py: &std::path::Path, r: &Rig, script: &str, keys: (&str, &str)) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sdk")
        .join(script);
    let (openai, anthropic) = r.proxy.as_ref().unwrap().base_urls();
    let out = tokio::process::Command::new(py)
        .arg(&path)
        .env("OPENAI_BASE_URL", openai)
        .env("ANTHROPIC_BASE_URL", anthropic)
        .env("OPENAI_API_KEY", keys.0)
        .env("ANTHROPIC_API_KEY", keys.1)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_python_sdks_record_through_the_proxy() {
    let Some(py) = python() else {
        eprintln!("SKIPPED the_real_python_sdks_record_through_the_proxy: no Python with the openai and anthropic SDKs (run .ci/run, or set VEER_TEST_PYTHON)");
        return;
    };
    let policy = "rules:\n  - {id: no-delete, kind: no_call, params: {tool: delete_account}}\n  - {id: no-wire, kind: forbidden_text, params: {text: wire transfer}}\n";
    let mut r = rig(Options {
        policy: Some((policy, Mode::Raise)),
        ..Options::default()
    })
    .await;
    let seen = run_script(
        &py,
        &r,
        "agent.py",
        (
            "sk-proj-PYSECRET0123456789abcdefghij",
            "sk-ant-api03-PYSECRET0123456789",
        ),
    )
    .await;
    r.stop().await;
    // What the SDKs saw: text, tool calls from streams, errors raised as their own types.
    assert_eq!(seen["openai_plain"], "hello there");
    assert_eq!(seen["openai_stream"], "streamed words arrive");
    assert_eq!(
        seen["openai_tools"],
        serde_json::json!([["lookup_order", {"order_id": "42"}], ["refund_order", {"order_id": "42", "amount": 9.5}]])
    );
    assert_eq!(seen["openai_stream_tools"], seen["openai_tools"]);
    assert_eq!(seen["responses_plain"], "responses text");
    assert_eq!(seen["responses_stream"], "responses streamed");
    assert_eq!(seen["responses_stream_tools"], seen["openai_tools"]);
    assert_eq!(seen["anthropic_plain"], "claude says hi");
    assert_eq!(seen["anthropic_stream"], "claude streams");
    assert_eq!(seen["anthropic_tools"], seen["openai_tools"]);
    assert_eq!(seen["anthropic_stream_tools"], seen["openai_tools"]);
    assert_eq!(seen["openai_error"], "InternalServerError 500");
    assert_eq!(seen["anthropic_policy"], "UnprocessableEntityError 422");
    assert_eq!(seen["openai_policy"], "UnprocessableEntityError 422");
    let text = r.text();
    assert!(!text.contains("PYSECRET"), "an API key was written");
    let t = veer_trace::load_trace(&r.out, &veer_trace::ReadOptions::default()).unwrap();
    assert_eq!(t.count(&veer_trace::Kind::ChatResponse), 12);
    assert!(t.count(&veer_trace::Kind::ToolResult) >= 2);
    assert_eq!(t.count(&veer_trace::Kind::Error), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdks_parse_policy_replacements_whole_and_streamed() {
    let Some(py) = python() else {
        eprintln!("SKIPPED the_sdks_parse_policy_replacements_whole_and_streamed: no Python with the openai and anthropic SDKs (run .ci/run, or set VEER_TEST_PYTHON)");
        return;
    };
    let policy = "rules:\n  - {id: no-wire, kind: forbidden_text, params: {text: wire transfer}}\n";
    let mut r = rig(Options {
        policy: Some((policy, Mode::Replace)),
        ..Options::default()
    })
    .await;
    let seen = run_script(&py, &r, "replaced.py", ("sk-test", "sk-ant-test")).await;
    r.stop().await;
    let want = "[veer policy_runtime] response blocked by policy (1 violation(s)): ";
    for key in [
        "chat",
        "chat_stream",
        "responses",
        "responses_stream",
        "messages",
        "messages_stream",
    ] {
        let text = seen[key].as_str().unwrap_or("");
        assert!(text.starts_with(want), "{key}: {text:?}");
    }
    let t = veer_trace::load_trace(&r.out, &veer_trace::ReadOptions::default()).unwrap();
    let blocked = t
        .records
        .iter()
        .filter(|x| x.str_field("stop_reason") == Some("policy_blocked"))
        .count();
    assert_eq!(blocked, 6);
}
