//! `veer record`: the agent command's stdio and exit code pass through, the output is never
//! something the user owns, signals leave a complete file, and `serve` records for an agent
//! started elsewhere. (The proxy's calls are tested in crates/veer-record/tests/proxy.)

use crate::common::{veer, veer_ok};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "whole lines only: {text:?}");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_command_runs_with_the_base_urls_and_its_exit_code_and_output_pass_through() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.agentlog");
    let r = veer(&[
        "record",
        "-o",
        out.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        "echo \"o=$OPENAI_BASE_URL a=$ANTHROPIC_BASE_URL home=${HOME:+set}\"; echo to-stderr >&2; exit 7",
    ]);
    assert_eq!(r.code, 7, "{}", r.stderr);
    let line = r.stdout.trim();
    assert!(
        line.starts_with("o=http://127.0.0.1:") && line.contains("/openai/v1 a=http://127.0.0.1:"),
        "{line}"
    );
    assert!(
        line.ends_with("/anthropic home=set"),
        "rest of the environment kept: {line}"
    );
    assert!(r.stderr.contains("to-stderr"));
    assert!(r.stderr.contains("0 call(s) recorded"));
    let recs = lines(&out);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["kind"], "metadata");
}

#[test]
fn the_output_is_never_something_the_user_owns() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("policy.yaml");
    std::fs::write(
        &policy,
        "rules:\n  - {id: a, kind: no_call, params: {tool: x}}\n",
    )
    .unwrap();
    let p = policy.to_str().unwrap();
    let r = veer_ok(&["record", "-o", p, "--policy", p, "--", "true"], 2);
    assert!(r.stderr.contains("same file as the input"), "{}", r.stderr);
    assert!(std::fs::read_to_string(&policy)
        .unwrap()
        .starts_with("rules:"));
    let old = dir.path().join("old.agentlog");
    std::fs::write(&old, "precious\n").unwrap();
    let r = veer_ok(&["record", "-o", old.to_str().unwrap(), "--", "true"], 2);
    assert!(r.stderr.contains("never overwrites"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "precious\n");
    let r = veer_ok(
        &["record", "-o", dir.path().to_str().unwrap(), "--", "true"],
        2,
    );
    assert!(r.stderr.contains("is a directory"));
}

#[test]
fn bad_flags_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.agentlog");
    let o = out.to_str().unwrap();
    let r = veer_ok(
        &[
            "record",
            "-o",
            o,
            "--openai-upstream",
            "api.openai.com",
            "--",
            "true",
        ],
        2,
    );
    assert!(
        r.stderr.contains("--openai-upstream: not an http(s) URL") && r.stderr.contains("hint:")
    );
    let r = veer_ok(&["record", "-o", o, "--enforce", "raise", "--", "true"], 2);
    assert!(r.stderr.contains("--policy"), "{}", r.stderr);
    veer_ok(&["record", "-o", o], 2);
    let r = veer_ok(&["record", "-o", o, "--", "/nonexistent/agent"], 2);
    assert!(
        r.stderr.contains("cannot run /nonexistent/agent"),
        "{}",
        r.stderr
    );
    assert!(!out.exists() || lines(&out).len() == 1);
    let r = veer_ok(&["record", "--help"], 0);
    assert!(r
        .stdout
        .contains("veer record -o run.agentlog -- python my_agent.py"));
}

fn wait(child: &mut std::process::Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(start.elapsed() < limit, "veer did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_stops_the_command_and_leaves_a_complete_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.agentlog");
    let mut child = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(["record", "-o", out.to_str().unwrap(), "--", "sleep", "30"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !out.exists() || std::fs::metadata(&out).unwrap().len() == 0 {
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(20));
    }
    // Signal only once the agent runs (veer spawns it after writing the metadata record, and
    // installs its signal handling before that): on a loaded machine a fixed pause is not enough.
    let has_child = |pid: u32| {
        std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|t| {
                std::fs::read_to_string(t.path().join("children"))
                    .is_ok_and(|c| !c.trim().is_empty())
            })
    };
    while !has_child(child.id()) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the agent never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = wait(&mut child, Duration::from_secs(20));
    assert_eq!(
        status.code(),
        Some(128 + 15),
        "sleep ended by the forwarded SIGTERM"
    );
    assert_eq!(lines(&out)[0]["kind"], "metadata");
}

#[test]
fn serve_prints_the_base_urls_records_calls_and_ends_on_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.agentlog");
    // An upstream that refuses connections: the call is answered 502 and recorded.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}/v1", free.local_addr().unwrap());
    drop(free);
    let mut child = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args([
            "record",
            "serve",
            "-o",
            out.to_str().unwrap(),
            "--openai-upstream",
            &dead,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut banner = Vec::new();
    for _ in 0..3 {
        let mut l = String::new();
        stdout.read_line(&mut l).unwrap();
        banner.push(l.trim().to_string());
    }
    let base = banner[1]
        .strip_prefix("export OPENAI_BASE_URL=")
        .unwrap()
        .to_string();
    assert!(banner[2].starts_with("export ANTHROPIC_BASE_URL=http://127.0.0.1:"));
    let addr = base
        .strip_prefix("http://")
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let body = r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#;
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "POST /openai/v1/chat/completions HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\nauthorization: Bearer sk-SECRET\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 502"), "{answer}");
    assert!(answer.contains("upstream_unreachable"));
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let status = wait(&mut child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(0));
    let recs = lines(&out);
    let kinds: Vec<&str> = recs.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["metadata", "chat_request", "error"]);
    assert!(!std::fs::read_to_string(&out).unwrap().contains("SECRET"));
}

#[test]
fn record_writes_case_trial_and_tags_and_every_recording_has_its_own_trace_id() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.agentlog"), dir.path().join("b.agentlog"));
    for (out, trial) in [(&a, "1"), (&b, "2")] {
        let r = veer(&[
            "record",
            "-o",
            out.to_str().unwrap(),
            "--case",
            "refund-42",
            "--trial",
            trial,
            "--tag",
            "branch=main",
            "--tag",
            "model=m1",
            "--",
            "true",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let (ra, rb) = (lines(&a), lines(&b));
    let m = &ra[0]["payload"];
    assert_eq!(m["case"], "refund-42");
    assert_eq!(m["trial"], 1);
    assert_eq!(m["tags"]["branch"], "main");
    assert_eq!(m["tags"]["model"], "m1");
    assert_eq!(m["tags"]["recorder"], "veer record");
    assert_eq!(rb[0]["payload"]["trial"], 2);
    // Two recordings never share the metadata record's id (the trace id).
    assert_ne!(ra[0]["id"], rb[0]["id"]);
    assert_ne!(m["recording_id"], rb[0]["payload"]["recording_id"]);
    // Both read back strictly.
    veer_ok(&["inspect", "--strict", a.to_str().unwrap()], 0);
    // Bad flags are usage errors.
    let r = veer(&[
        "record",
        "-o",
        a.to_str().unwrap(),
        "--trial",
        "1",
        "--",
        "true",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = veer(&[
        "record",
        "-o",
        a.to_str().unwrap(),
        "--tag",
        "novalue",
        "--",
        "true",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("KEY=VALUE"), "{}", r.stderr);
}

/// The agent's own `OPENAI_BASE_URL` (a gateway) is where its calls go, never the public API:
/// the recording holds the gateway's answer, stderr says where calls went, and the folders of
/// `-o` are made.
#[test]
fn the_agents_own_base_url_becomes_the_upstream_and_output_folders_are_made() {
    let gateway = crate::scripted_upstream::upstream();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("runs/main/refund/trial-1.agentlog");
    let agent = r#"
import json, os, urllib.request
req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
    data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode(),
    headers={"Content-Type": "application/json", "Authorization": "Bearer sk-test"})
print(json.load(urllib.request.urlopen(req))["model"])
"#;
    let run = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args([
            "record",
            "-o",
            out.to_str().unwrap(),
            "--",
            "python3",
            "-c",
            agent,
        ])
        .env("OPENAI_BASE_URL", &gateway)
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("AZURE_OPENAI_ENDPOINT")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(
        stdout.trim(),
        "scripted-1",
        "the gateway answered: {stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "OpenAI calls go to {gateway} (from the agent's OPENAI_BASE_URL)"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("Anthropic calls go to https://api.anthropic.com (the public API"));
    let recs = lines(&out);
    assert_eq!(recs.len(), 3, "metadata, request, response: {recs:?}");
    assert_eq!(recs[2]["payload"]["model"], "scripted-1");
    // The flag still wins over the variable.
    let r = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args([
            "record",
            "-o",
            dir.path().join("b.agentlog").to_str().unwrap(),
            "--openai-upstream",
            "http://127.0.0.1:9/v1",
            "--",
            "true",
        ])
        .env("OPENAI_BASE_URL", &gateway)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&r.stderr)
        .contains("OpenAI calls go to http://127.0.0.1:9/v1 (from --openai-upstream)"));
}

/// An Azure OpenAI client's own `AZURE_OPENAI_ENDPOINT` is treated like `OPENAI_BASE_URL`: it
/// becomes the Azure upstream, the agent's variable points at the proxy, the deployment call
/// (Azure's path and `api-version` query) is recorded, stderr says so, and the flag wins.
#[test]
fn the_agents_own_azure_endpoint_becomes_the_upstream_and_is_recorded() {
    let gateway = crate::scripted_upstream::upstream();
    let endpoint = gateway.trim_end_matches("/v1").to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("azure.agentlog");
    let agent = r#"
import json, os, urllib.request
base = os.environ["AZURE_OPENAI_ENDPOINT"]
req = urllib.request.Request(base + "/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
    data=json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}).encode(),
    headers={"Content-Type": "application/json", "api-key": "azure-test-key"})
print(base.startswith("http://127.0.0.1:") and base.endswith("/azure"), json.load(urllib.request.urlopen(req))["model"])
"#;
    let run = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args([
            "record",
            "-o",
            out.to_str().unwrap(),
            "--",
            "python3",
            "-c",
            agent,
        ])
        .env("AZURE_OPENAI_ENDPOINT", &endpoint)
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_BASE_URL")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr),
    );
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), "True scripted-1", "{stderr}");
    assert!(
        stderr.contains(&format!(
            "Azure OpenAI calls go to {endpoint} (from the agent's AZURE_OPENAI_ENDPOINT)"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("1 call(s) recorded"), "{stderr}");
    let recs = lines(&out);
    assert_eq!(recs.len(), 3, "metadata, request, response: {recs:?}");
    assert_eq!(recs[1]["kind"], "chat_request");
    assert_eq!(recs[2]["payload"]["model"], "scripted-1");
    assert!(!std::fs::read_to_string(&out)
        .unwrap()
        .contains("azure-test-key"));
    // The flag still wins over the variable.
    let r = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args([
            "record",
            "-o",
            dir.path().join("b.agentlog").to_str().unwrap(),
            "--azure-upstream",
            "http://127.0.0.1:9",
            "--",
            "true",
        ])
        .env("AZURE_OPENAI_ENDPOINT", &endpoint)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&r.stderr)
        .contains("Azure OpenAI calls go to http://127.0.0.1:9 (from --azure-upstream)"));
}
