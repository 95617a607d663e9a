//! `veer replay` with the real `openai` and `anthropic` Python SDKs: a run of `sdk/agent.py`
//! (plain, streamed, tool and parallel tool calls, tool results, the stream helpers, an
//! upstream 500, on all three endpoints) is recorded through the proxy against the scripted
//! upstream, then replayed with no upstream at all: the SDKs see the same answers, and the new
//! recording holds the same calls. A changed agent diverges (the SDK raises the 422), and a
//! replay branched at turn 2 goes on against the upstream. Skipped like `sdk.rs` when no Python
//! with both SDKs exists.

use crate::rig::{rig, Options};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use veer_record::proxy::Shared;
use veer_record::replay::script::RecordedCalls;
use veer_record::replay::{OnDivergence, ReplayOptions, Replayer};
use veer_record::{Journal, ProxySettings, Server};

fn python() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    [
        std::env::var_os("VEER_TEST_PYTHON").map(PathBuf::from),
        Some(root.join("target/py-sdk/bin/python")),
    ]
    .into_iter()
    .flatten()
    .find(|p| {
        std::process::Command::new(p)
            .args(["-c", "import openai, anthropic"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Runs a Python program (`args`) with the SDKs pointed at `server`; its exit status and its
/// last stdout line parsed.
async fn run(py: &Path, server: &Server, args: &[&str]) -> (bool, Value) {
    let (openai, anthropic) = server.base_urls();
    let out = tokio::process::Command::new(py)
        .args(args)
        .env("OPENAI_BASE_URL", openai)
        .env("ANTHROPIC_BASE_URL", anthropic)
        .env("OPENAI_API_KEY", "sk-test")
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or("null");
    let seen = serde_json::from_str(last)
        .unwrap_or_else(|_| panic!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    (out.status.success(), seen)
}

fn agent() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sdk/agent.py")
        .display()
        .to_string()
}

struct Replay {
    server: Server,
    replayer: Arc<Replayer>,
    out: PathBuf,
    _dir: tempfile::TempDir,
}

async fn replaying(
    recording: &Path,
    options: ReplayOptions,
    upstream: Option<(String, String)>,
) -> Replay {
    let trace = veer_trace::load_trace(recording, &veer_trace::ReadOptions::default()).unwrap();
    let replayer = Arc::new(Replayer::new(RecordedCalls::from_trace(&trace), options));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("replayed.agentlog");
    let file = std::fs::File::create(&out).unwrap();
    let journal = Journal::new(Box::new(file), None).with_tool_latencies(replayer.tool_latencies());
    let mut settings = ProxySettings {
        timeout: Duration::from_secs(10),
        ..ProxySettings::default()
    };
    if let Some((openai, anthropic)) = upstream {
        settings.openai_upstream = openai;
        settings.anthropic_upstream = anthropic;
    } else {
        settings.openai_upstream = "http://127.0.0.1:9/v1".into();
        settings.anthropic_upstream = "http://127.0.0.1:9".into();
    }
    let notices = Arc::new(Mutex::new(Vec::<String>::new()));
    let shared = Arc::new(Shared {
        settings,
        client: veer_record::upstream::client(false).unwrap(),
        journal: Arc::new(journal),
        notify: Arc::new(move |m: &str| notices.lock().unwrap().push(m.to_string())),
        replay: Some(replayer.clone()),
    });
    let server = Server::start(0, shared, Duration::from_secs(5))
        .await
        .unwrap();
    Replay {
        server,
        replayer,
        out,
        _dir: dir,
    }
}

/// The calls of a recording as (kind, payload), metadata left out.
fn calls(path: &Path) -> Vec<(String, Value)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["kind"] != "metadata")
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_string(),
                r["payload"].clone(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_sdks_replay_a_recording_unchanged_and_diverge_when_the_agent_changes() {
    let Some(py) = python() else {
        eprintln!("SKIPPED the_real_sdks_replay_a_recording_unchanged_and_diverge_when_the_agent_changes: no Python with the openai and anthropic SDKs (run .ci/run, or set VEER_TEST_PYTHON)");
        return;
    };
    let mut r = rig(Options::default()).await;
    let (ok, recorded_seen) = run(&py, r.proxy.as_ref().unwrap(), &[&agent()]).await;
    assert!(ok);
    r.stop().await;
    let recording = r.out.clone();
    let offline = ReplayOptions {
        on_divergence: OnDivergence::Fail,
        branch_at: None,
        live: false,
    };

    // Unchanged: the same answers with no upstream, and the same calls recorded.
    let rp = replaying(&recording, offline, None).await;
    let (ok, seen) = run(&py, &rp.server, &[&agent()]).await;
    rp.server.stop().await;
    assert!(ok);
    assert_eq!(seen, recorded_seen);
    let p = rp.replayer.progress();
    assert!(p.divergence.is_none(), "{p:?}");
    assert_eq!(p.served, p.turns);
    assert_eq!(calls(&rp.out), calls(&recording));

    // Changed: the second call asks something else; the SDK raises the divergence.
    let changed = r#"
import json, openai
oa = openai.OpenAI(max_retries=0)
seen = {"first": oa.chat.completions.create(model="m-plain", messages=[{"role": "user", "content": "say: hello there"}]).choices[0].message.content}
try:
    oa.chat.completions.create(model="m-plain", messages=[{"role": "user", "content": "say: something else"}], stream=True)
except openai.APIStatusError as e:
    seen["second"] = f"{type(e).__name__} {e.status_code} {e.body['code']}"
print(json.dumps(seen))
"#;
    let rp = replaying(&recording, offline, None).await;
    let (_, seen) = run(&py, &rp.server, &["-c", changed]).await;
    rp.server.stop().await;
    assert_eq!(seen["first"], "hello there");
    assert_eq!(
        seen["second"],
        "UnprocessableEntityError 422 replay_divergence"
    );
    let d = rp.replayer.progress().divergence.unwrap();
    assert_eq!((d.turn, d.path.as_str()), (1, "messages[0].content"));
    assert_eq!(d.got.as_deref(), Some("\"say: something else\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_branched_at_turn_two_goes_on_live() {
    let Some(py) = python() else {
        eprintln!("SKIPPED a_replay_branched_at_turn_two_goes_on_live: no Python with the openai and anthropic SDKs");
        return;
    };
    let mut r = rig(Options::default()).await;
    let (_, recorded_seen) = run(&py, r.proxy.as_ref().unwrap(), &[&agent()]).await;
    r.stop().await;
    let options = ReplayOptions {
        on_divergence: OnDivergence::Fail,
        branch_at: Some(2),
        live: true,
    };
    let up = Some((r.up.openai(), r.up.anthropic()));
    let rp = replaying(&r.out, options, up).await;
    let (ok, seen) = run(&py, &rp.server, &[&agent()]).await;
    rp.server.stop().await;
    assert!(ok);
    assert_eq!(seen, recorded_seen);
    let p = rp.replayer.progress();
    assert_eq!((p.served, p.live), (2, p.turns - 2));
    assert!(p.divergence.is_none());
}
