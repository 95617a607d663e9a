//! `veer bisect` through veer's recording proxy against the scripted upstream: a recorded
//! agent, the real `openai` Python SDK where installed, and Ctrl-C keeping finished runs.

use crate::bisect::{agent, effect, Case};
use crate::common::veer_ok;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `veer bisect` through the recording proxy against the scripted upstream of
/// `scripted_upstream.rs`, whose tool calls follow the request's content: `read_rows`
/// always, `flag_anomaly` when it holds `#`. The agent sends its configuration file as the
/// prompt, so the `marker` delta (adding a `#`) is the culprit and `t` is inert.
fn through_the_proxy(agent: &[String], env: &[(&str, &str)]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    std::fs::write(p("a.json"), r#"{"marker": "none", "t": 0}"#).unwrap();
    std::fs::write(p("b.json"), r##"{"marker": "#flag", "t": 1}"##).unwrap();
    let mut args: Vec<String> = [
        "bisect",
        "--baseline-config",
        &p("a.json"),
        "--candidate-config",
        &p("b.json"),
        "--out",
        &p("out"),
        "--trials",
        "2",
        "--openai-upstream",
        &crate::scripted_upstream::upstream(),
        "--",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(agent.iter().cloned());
    args.push("{config}".into());
    let out = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(&args)
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/bisect.json")).unwrap())
            .unwrap();
    assert!(dir
        .path()
        .join("out/traces/p001/trial-001.agentlog")
        .is_file());
    assert!(v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["status"] == "ok"));
    let marker = effect(&v, "marker", "trajectory");
    assert_eq!(marker["implicated"], true, "{marker}");
    assert_eq!(marker["estimate"], 0.5);
    assert_eq!(marker["share"], 1.0);
    assert_eq!(effect(&v, "marker", "tool_calls")["estimate"], 1.0);
    for m in ["trajectory", "tool_calls"] {
        let e = effect(&v, "t", m);
        assert_eq!(e["implicated"], false, "{e}");
        assert_eq!(e["estimate"], 0.0, "{e}");
    }
    v
}

#[test]
fn a_recorded_agent_through_the_proxy() {
    let agent = crate::experiment_run::agent().display().to_string();
    through_the_proxy(&[agent], &[]);
}

#[test]
fn the_real_openai_python_sdk_as_the_agent() {
    let Some(py) = crate::experiment_run::python() else {
        eprintln!("SKIPPED bisect_proxy::the_real_openai_python_sdk_as_the_agent: no Python with the openai SDK (run .ci/run, or set VEER_TEST_PYTHON)");
        return;
    };
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cli/sdk/experiment_agent.py");
    through_the_proxy(
        &[py.display().to_string(), script.display().to_string()],
        &[("OPENAI_API_KEY", "sk-test-not-a-secret")],
    );
}

#[test]
fn ctrl_c_keeps_finished_runs_and_a_rerun_resumes() {
    use std::io::Read;
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let c = Case::new();
    std::fs::write(c.path("b.json"), r#"{"prompt": "Refund quickly.", "style": "formal", "temperature": 0.0, "cache": false, "fast": false}"#).unwrap();
    let counter = c.path("starts");
    let starts = || {
        std::fs::read_to_string(&counter)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    // Each run takes a second; interrupt during the third. One factor: 2 points × 2 trials.
    let script = format!(
        "echo x >> '{counter}'; sleep 1; exec '{}' \"$@\"",
        agent().display()
    );
    let (a, b, o) = (c.path("a.json"), c.path("b.json"), c.path("out"));
    let args: Vec<&str> = vec![
        "bisect",
        "--baseline-config",
        &a,
        "--candidate-config",
        &b,
        "--out",
        &o,
        "--trials",
        "2",
        "--trace-from",
        "{run_dir}/trace.json",
        "--",
        "sh",
        "-c",
        &script,
        "sh",
        "{config}",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(&args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while starts() < 3 && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted: 2 of 4 runs finished"),
        "{stderr}"
    );
    assert!(!Path::new(&c.path("out/bisect.json")).exists());
    assert!(!Path::new(&c.path("out/runs/p002/trial-001/run.json")).exists());
    let before = starts();
    let r = veer_ok(&args, 0);
    assert!(
        r.stderr.contains("reusing 2 finished run(s) of 4"),
        "{}",
        r.stderr
    );
    assert_eq!(starts() - before, 2);
    assert!(
        r.stdout
            .contains("The `prompt` change explains 1 [1, 1] of the trajectory change"),
        "{}",
        r.stdout
    );
}
