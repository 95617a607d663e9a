//! `veer replay`: a recorded run of a tool-using agent replayed unchanged (no divergence, and
//! `veer diff` finds no change), replayed with a changed tool (the divergence named by turn and
//! field, exit 1), branched live after N turns, replayed as a trials directory, and the clear
//! errors: a missing upstream, a truncated recording, a recording of another provider.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A urllib agent (no SDK needed): asks the model, runs the tools it asks for (their result
/// is `TOOL_RESULT`, default `3 rows`), and asks again until the model stops calling tools.
const AGENT: &str = r#"
import json, os, sys, urllib.request, urllib.error
base = os.environ["OPENAI_BASE_URL"]
result = os.environ.get("TOOL_RESULT", "3 rows")
case = sys.argv[1] if len(sys.argv) > 1 else "check #7"
messages = [{"role": "user", "content": case}]
tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in ("read_rows", "flag_anomaly")]
for _ in range(5):
    req = urllib.request.Request(base + "/chat/completions",
        data=json.dumps({"model": "gpt-4o", "messages": messages, "tools": tools}).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer sk-test"})
    try:
        answer = json.load(urllib.request.urlopen(req))
    except urllib.error.HTTPError as e:
        print("model error", e.code, e.read().decode(), file=sys.stderr)
        sys.exit(3)
    msg = answer["choices"][0]["message"]
    messages.append(msg)
    if not msg.get("tool_calls"):
        print(msg["content"])
        break
    for c in msg["tool_calls"]:
        messages.append({"role": "tool", "tool_call_id": c["id"], "content": result})
"#;

struct Fixture {
    dir: tempfile::TempDir,
    upstream: String,
    agent: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent.py");
    std::fs::write(&agent, AGENT).unwrap();
    Fixture {
        upstream: crate::scripted_upstream::upstream(),
        dir,
        agent,
    }
}

fn veer(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_veer"));
    c.args(args)
        .env("NO_COLOR", "1")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("AZURE_OPENAI_ENDPOINT");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

impl Fixture {
    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    fn record(&self, out: &str, extra: &[&str]) -> String {
        let out = self.path(out);
        let mut args = vec!["record", "-o", &out, "--openai-upstream", &self.upstream];
        args.extend_from_slice(extra);
        args.extend(["--", "python3", self.agent.to_str().unwrap()]);
        let r = veer(&args, &[]);
        assert_eq!(r.status.code(), Some(0), "{}", text(&r));
        out
    }

    fn replay(
        &self,
        rec: &str,
        out: &str,
        flags: &[&str],
        env: &[(&str, &str)],
    ) -> (Output, serde_json::Value) {
        let out = self.path(out);
        let report = self.path(&format!("{}.report.json", out.rsplit('/').next().unwrap()));
        let mut args = vec![
            "replay", rec, "-o", &out, "--format", "json", "--report", &report,
        ];
        args.extend_from_slice(flags);
        args.extend(["--", "python3", self.agent.to_str().unwrap()]);
        let r = veer(&args, env);
        let summary = std::fs::read_to_string(&report)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(serde_json::Value::Null);
        (r, summary)
    }
}

fn metadata(path: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str::<serde_json::Value>(text.lines().next().unwrap()).unwrap()["payload"]
        .clone()
}

#[test]
fn an_unchanged_agent_replays_identically_and_diffs_as_no_change() {
    let f = fixture();
    let rec = f.record("run.agentlog", &[]);
    let (r, summary) = f.replay(&rec, "new.agentlog", &[], &[]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r));
    assert_eq!(
        String::from_utf8_lossy(&r.stdout).trim(),
        "done",
        "the agent got the recorded answers"
    );
    let run = &summary["runs"][0];
    assert_eq!(
        (run["turns_recorded"].as_u64(), run["turns_served"].as_u64()),
        (Some(2), Some(2)),
        "{summary}"
    );
    assert!(run["divergence"].is_null());
    let new = f.path("new.agentlog");
    let meta = metadata(&new);
    assert_eq!(meta["replay"]["from"], rec.as_str());
    assert_eq!(meta["replay"]["from_id"], run["recording_id"]);
    assert_eq!(meta["tags"]["recorder"], "veer replay");
    let d = veer(&["diff", &rec, &new, "--fail-on", "minor"], &[]);
    assert_eq!(d.status.code(), Some(0), "{}", text(&d));
    let strict = veer(&["inspect", &new, "--strict"], &[]);
    assert_eq!(strict.status.code(), Some(0), "{}", text(&strict));
}

#[test]
fn a_changed_tool_result_is_a_divergence_named_by_turn_and_field() {
    let f = fixture();
    let rec = f.record("run.agentlog", &[]);
    let (r, summary) = f.replay(&rec, "changed.agentlog", &[], &[("TOOL_RESULT", "4 rows")]);
    assert_eq!(r.status.code(), Some(1), "{}", text(&r));
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(
        stderr.contains("turn 1") && stderr.contains("messages[2].content[0].content"),
        "{stderr}"
    );
    assert!(
        stderr.contains("model error 422"),
        "the SDK-facing error: {stderr}"
    );
    let d = &summary["runs"][0]["divergence"];
    assert_eq!(d["turn"], 1);
    assert_eq!(d["path"], "messages[2].content[0].content");
    assert_eq!(
        (d["recorded"].as_str(), d["got"].as_str()),
        (Some("\"3 rows\""), Some("\"4 rows\""))
    );
    assert_eq!(
        metadata(&f.path("changed.agentlog"))["replay"]["divergence"]["turn"],
        1
    );
    // The terminal summary says the same.
    let out = f.path("changed2.agentlog");
    let t = veer(
        &[
            "replay",
            &rec,
            "-o",
            &out,
            "--",
            "python3",
            f.agent.to_str().unwrap(),
        ],
        &[("TOOL_RESULT", "4 rows")],
    );
    assert_eq!(t.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&t.stdout).contains("divergence: turn 1: messages[2].content[0].content differs: recorded \"3 rows\", got \"4 rows\""), "{}", text(&t));
}

#[test]
fn live_after_a_divergence_or_a_branch_point() {
    let f = fixture();
    let rec = f.record("run.agentlog", &[]);
    let (r, summary) = f.replay(
        &rec,
        "live.agentlog",
        &["--on-divergence", "live", "--upstream", &f.upstream],
        &[("TOOL_RESULT", "4 rows")],
    );
    assert_eq!(r.status.code(), Some(0), "{}", text(&r));
    let run = &summary["runs"][0];
    assert_eq!(
        (run["turns_served"].as_u64(), run["turns_live"].as_u64()),
        (Some(1), Some(1)),
        "{summary}"
    );
    assert_eq!(run["divergence"]["turn"], 1);
    let (b, summary) = f.replay(
        &rec,
        "branch.agentlog",
        &["--branch-at", "1", "--upstream", &f.upstream],
        &[],
    );
    assert_eq!(b.status.code(), Some(0), "{}", text(&b));
    let run = &summary["runs"][0];
    assert_eq!(
        (
            run["turns_served"].as_u64(),
            run["turns_live"].as_u64(),
            run["branch_at"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );
    assert_eq!(
        metadata(&f.path("branch.agentlog"))["replay"]["branch_at"],
        1
    );
    // Without an upstream there is nowhere to go live.
    let (n, _) = f.replay(&rec, "none.agentlog", &["--branch-at", "1"], &[]);
    assert_eq!(n.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&n.stderr);
    assert!(
        stderr.contains("--branch-at") && stderr.contains("hint: add --upstream URL"),
        "{stderr}"
    );
}

#[test]
fn a_trials_directory_replays_into_the_same_layout() {
    let f = fixture();
    for (case, trial) in [("alpha", "1"), ("alpha", "2"), ("beta", "1")] {
        f.record(
            &format!("runs/main/{case}/trial-{trial}.agentlog"),
            &["--case", case, "--trial", trial],
        );
    }
    let main = f.path("runs/main");
    let out = f.path("runs/replayed");
    let report = f.path("summary.json");
    let r = veer(
        &[
            "replay",
            &main,
            "-o",
            &out,
            "--format",
            "json",
            "--report",
            &report,
            "--",
            "sh",
            "-c",
            &format!(
                "test \"$VEER_CASE\" = {{case}} && test -n \"$VEER_TRIAL\" && exec python3 {}",
                f.agent.display()
            ),
        ],
        &[],
    );
    assert_eq!(r.status.code(), Some(0), "{}", text(&r));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(summary["runs"].as_array().unwrap().len(), 3);
    assert_eq!(summary["runs"][2]["case"], "beta");
    assert!(Path::new(&out).join("alpha/trial-2.agentlog").is_file());
    let d = veer(&["diff", &main, &out], &[]);
    assert_eq!(d.status.code(), Some(0), "{}", text(&d));
}

#[test]
fn unreadable_recordings_and_another_provider_are_clear_errors() {
    let f = fixture();
    let rec = f.record("run.agentlog", &[]);
    let whole = std::fs::read_to_string(&rec).unwrap();
    let cut = f.path("cut.agentlog");
    std::fs::write(&cut, &whole[..whole.len() - 40]).unwrap();
    let (r, _) = f.replay(&cut, "cut-new.agentlog", &[], &[]);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r));
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(
        stderr.contains("cut.agentlog:") && stderr.contains("hint:"),
        "{stderr}"
    );
    // An Anthropic agent against an OpenAI recording.
    let claude = f.dir.path().join("claude.py");
    std::fs::write(&claude, r#"
import json, os, sys, urllib.request, urllib.error
req = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages",
    data=json.dumps({"model": "claude-sonnet-4", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]}).encode(),
    headers={"Content-Type": "application/json"})
try:
    urllib.request.urlopen(req)
except urllib.error.HTTPError as e:
    sys.exit(3)
"#).unwrap();
    let out = f.path("other.agentlog");
    let r = veer(
        &[
            "replay",
            &rec,
            "-o",
            &out,
            "--",
            "python3",
            claude.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(r.status.code(), Some(2), "{}", text(&r));
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(
        stderr.contains("another provider") && stderr.contains("hint:"),
        "{stderr}"
    );
}
